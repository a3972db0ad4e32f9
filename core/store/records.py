"""The plain records that go into the store and come out of it: an execution, a cached reply,
a campaign; and ``copy_reply``, the one place a reply is copied between them."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, TypeVar


@dataclass(frozen=True)
class ExecutionRecord:
    """One graded (or failed) execution, exactly as stored."""

    exec_key: str
    campaign_id: int
    environment: str
    model_hash: str
    llm: str
    category: str
    dimension: str
    selection: str
    case_index: int
    case_key: str
    positive: bool | None
    states: list[int]
    valuations: list[dict[str, Any]]
    delta: float
    repeat: int
    prompt: str
    schema: dict[str, Any]
    options: dict[str, Any]
    reply: str | None
    verdict: str
    reason: str
    grading: dict[str, Any]
    started_at: str
    finished_at: str
    thinking: str = ""
    answer: Any = None
    expected: Any = None
    abs_error: float | None = None
    host: str = ""
    latency: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached: bool = False
    error: str | None = None
    attempts: int = 1
    reading: bool | None = None  # a reading case (docs/method.md §4); None: not known
    gap: float | None = None  # the deciding value difference of the case, if it has one
    reasoning_tokens: int | None = None
    output_mode: str = ""
    cached_prompt_tokens: int | None = None  # of ``prompt_tokens``, from the server's cache


RECORD_FIELDS = tuple(f.name for f in fields(ExecutionRecord))

# The key ``merge --on-conflict keep-both-as-repeats`` sets in the ``options`` of each further
# version of a disagreeing execution (stored under a repeat number of its own): the repeat whose
# request it answered. Such a version is a second answer to one request, not an independent
# repeat: pass^k, stability and the repeat count leave it out (``analysis.stability``).
MERGED_VERSION_OF = "merged_version_of_repeat"


@dataclass(frozen=True)
class StoredExecution(ExecutionRecord):
    """An execution read back (``Store.stored_executions``): the ``ExecutionRecord`` that went
    in, plus what the store adds: its row id and the ``wording`` and ``family`` it reads from
    ``case_key``. Being an ``ExecutionRecord``, it goes wherever one is taken."""

    id: int = 0
    wording: int = 0
    family: str = ""

    @property
    def record(self) -> ExecutionRecord:
        """The plain record (to store it elsewhere, e.g. ``merge``)."""
        return ExecutionRecord(**{name: getattr(self, name) for name in RECORD_FIELDS})


STORED_FIELDS = tuple(f.name for f in fields(StoredExecution))


@dataclass(frozen=True)
class CachedReply:
    """A reply in the cache: what one backend/host/model answered to one exact request."""

    backend: str
    host: str
    model: str
    request_hash: str
    options: dict[str, Any]
    text: str
    thinking: str = ""
    latency: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    output_mode: str = ""
    cached_prompt_tokens: int | None = None


# The reply part that ``Reply`` (core/backends/base.py), ``CachedReply`` and ``ExecutionRecord``
# share, by ``Reply``'s names (an ``ExecutionRecord`` keeps the text as ``reply``).
REPLY_FIELDS = (
    "text",
    "thinking",
    "latency",
    "prompt_tokens",
    "completion_tokens",
    "host",
    "cached",
    "reasoning_tokens",
    "output_mode",
    "cached_prompt_tokens",
)
_TEXT_FIELD: dict[type, str] = {ExecutionRecord: "reply"}
_T = TypeVar("_T")


def copy_reply(source: Any, target: type[_T], **rest: Any) -> _T:
    """A ``target`` (``Reply``, ``CachedReply`` or ``ExecutionRecord``) holding ``source``'s
    reply fields (those both have) plus ``rest``, which may override them: the one place a reply
    is copied between the three. ``source`` None is an execution without a reply (text None)."""
    names = {f.name for f in fields(target)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    if source is None:
        values[_TEXT_FIELD.get(target, "text")] = None
    else:
        for name in REPLY_FIELDS:
            there = _TEXT_FIELD.get(type(source), "text") if name == "text" else name
            here = _TEXT_FIELD.get(target, "text") if name == "text" else name
            if here in names and hasattr(source, there):
                values[here] = getattr(source, there)
    values.update(rest)
    return target(**values)


@dataclass(frozen=True)
class CampaignRow:
    """A campaign as stored (settings as JSON)."""

    id: int
    identity: str
    settings: dict[str, Any]
    environment: str
    model_hash: str
    planned: int
    status: str
    created_at: str
    updated_at: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
