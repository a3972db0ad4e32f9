"""Contract of the LLM backends: one small async interface that every answerer implements.

A backend turns a ``Prompt`` (text + JSON schema) into a ``Reply``. Each lives in its own module
and is registered by the prefix of its command-line spec in ``registry.py`` (``KINDS``, the one
list: LLMs served over HTTP, bundled local models, answerers that need no LLM, reference
explainers with known flaws); a plugin package's backends subclass ``Backend`` too and are
registered by entry point (docs/plugins.md, "The backend interface").
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any

from explaincheck.core.taxonomy.base import Prompt, TestCase


@dataclass(frozen=True)
class Reply:
    """What an LLM sent back. ``text`` is the answer part; ``thinking`` is kept apart."""

    text: str
    thinking: str = ""
    latency: float = 0.0  # seconds
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    host: str = ""  # which server answered (for several Ollama hosts)
    cached: bool = False
    reasoning_tokens: int | None = None  # of ``completion_tokens``, spent thinking (if told)
    output_mode: str = ""  # how the answer's form was asked: json_schema, json_object or text
    cached_prompt_tokens: int | None = None  # of ``prompt_tokens``, from the server's cache
    extra: dict[str, Any] = field(default_factory=dict)


# Keys of ``Reply.extra`` a replayed reply (an Inspect log's) sets to when it was really asked
# and answered (ISO UTC); the execution is stored with these times instead of the replay's.
ASKED_AT, ANSWERED_AT = "asked_at", "answered_at"
# Longest reply text (and thinking) kept, in characters. A JSON answer is a few hundred; the cap
# bounds memory, parsing and the database when a server sends megabytes.
MAX_REPLY_CHARS = 262_144
MAX_TOKEN_COUNT = 2**63 - 1  # SQLite's INTEGER range
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: Any) -> str:
    """``text`` as a string that can be encoded (lone surrogates become U+FFFD)."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def clean_count(value: Any) -> int | None:
    """A token count as a storable non-negative int, or None when the server sent nonsense."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    value = int(value)
    return value if 0 <= value <= MAX_TOKEN_COUNT else None


def cut_marker(kept: int, total: int) -> str:
    return f"\n[explaincheck: reply cut after {kept} of {total} characters]"


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def bounded_reply(reply: Reply, limit: int = MAX_REPLY_CHARS) -> Reply:
    """The reply with storable fields: text and thinking cleaned and cut at ``limit`` (a cut
    text ends with a visible marker and ``extra["cut"]`` holds the original length), token
    counts in range, latency finite."""
    text, thinking = clean_text(reply.text), clean_text(reply.thinking)
    extra = dict(reply.extra)
    # a backend that stopped keeping a reply while reading it says how long it was
    if len(text) > limit:
        extra["cut"] = max(len(text), _count(extra.get("cut")))
        text = text[:limit] + cut_marker(limit, extra["cut"])
    if len(thinking) > limit:
        extra["thinking_cut"] = max(len(thinking), _count(extra.get("thinking_cut")))
        thinking = thinking[:limit] + cut_marker(limit, extra["thinking_cut"])
    latency = reply.latency if isinstance(reply.latency, int | float) else 0.0
    return replace(
        reply,
        text=text,
        thinking=thinking,
        latency=float(latency) if math.isfinite(latency) else 0.0,
        prompt_tokens=clean_count(reply.prompt_tokens),
        completion_tokens=clean_count(reply.completion_tokens),
        reasoning_tokens=clean_count(reply.reasoning_tokens),
        cached_prompt_tokens=clean_count(reply.cached_prompt_tokens),
        host=clean_text(reply.host),
        extra=extra,
    )


class BackendError(Exception):
    """No reply after retries (the runner records verdict ``error`` and retries on resume)."""


class Backend(ABC):
    """An LLM (or stand-in) that answers prompts. Implementations must be safe to call
    concurrently from one asyncio loop; ``concurrency`` caps requests in flight."""

    spec: str  # the command-line spec, e.g. "ollama:gemma3:1b"
    concurrency: int = 4

    @abstractmethod
    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        """Answer one prompt. ``case`` lets the oracle/random answerers see what is asked."""

    async def answer_repeat(self, prompt: Prompt, case: TestCase, repeat: int) -> Reply:
        """Answer the ``repeat``-th asking of a prompt. Answerers that draw (``random``)
        override it to draw afresh per repeat; the rest answer alike every time."""
        return await self.answer(prompt, case)

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections or model memory."""
