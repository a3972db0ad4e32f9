"""What the real-LLM backends (ollama, local) add to ``Backend``: decoding, preparation, identity.

Why: the runner caches replies by (backend, host, model, prompt, schema, options) and must know
the options *before* asking, and repeats need their own seeds (otherwise the cache would hand back
the first repeat's reply). ``random`` and ``oracle`` need none of this and stay plain ``Backend``s.
"""

from __future__ import annotations

import hashlib
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any

from explaincheck.core.backends.base import Backend, Reply
from explaincheck.core.store import to_json
from explaincheck.core.taxonomy.base import Prompt, TestCase


@dataclass(frozen=True)
class Decoding:
    """Sampling settings of a campaign. One sample: greedy (temperature 0) with a fixed seed.
    Several repeats: each repeat its own seed, at ``repeat_temperature`` (greedy repeats would
    only return the same answer again)."""

    seed: int = 0
    repeats: int = 1
    repeat_temperature: float = 0.7

    def options(self, repeat: int) -> dict[str, Any]:
        if self.repeats <= 1:
            return {"temperature": 0.0, "seed": self.seed}
        return {"temperature": self.repeat_temperature, "seed": self.seed + repeat}


MAX_TOKENS = 256  # the output cap of every answering backend unless --max-tokens says otherwise


# Version of the request hash. v1 covered prompt, schema and options only; v2 adds backend,
# model and the backend's settings, so a reply is only ever reused for the same LLM. Replies
# stored under v1 hashes are simply never hit again (their requests are asked anew).
REQUEST_HASH_VERSION = 2


@dataclass(frozen=True)
class RequestIdentity:
    """Everything that makes two requests the same request (never secrets)."""

    backend: str  # "ollama", "local"
    hosts: tuple[str, ...]  # the hosts that may answer (a reply from any of them is reused)
    model: str
    options: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)  # e.g. Ollama's ``think``

    def request_hash(self, prompt: Prompt) -> str:
        """The reply cache's key of this request: backend, model, settings, prompt, schema and
        options (hosts are matched apart: a reply from any listed host is reused)."""
        text = to_json(
            {
                "v": REQUEST_HASH_VERSION,
                "backend": self.backend,
                "model": self.model,
                "settings": self.settings,
                "prompt": prompt.text,
                "schema": prompt.schema,
                "options": self.options,
            }
        )
        return hashlib.sha256(text.encode()).hexdigest()

    def flight_key(self, request_hash: str) -> tuple[str, tuple[str, ...], str]:
        """The key that coalesces identical requests in flight: the same request (its
        ``request_hash``, computed once by the caller) to the same hosts (so two models, or one
        model on two host sets, never share a reply)."""
        return (self.backend, tuple(sorted(self.hosts)), request_hash)


class LLMBackend(Backend):
    """A backend that asks a real LLM: its replies are cached and it may need preparing."""

    decoding: Decoding

    async def prepare(self) -> None:
        """Check once, before the campaign starts, that the model is there (clear message if
        not), so a missing model fails the run up front instead of every execution."""

    @abstractmethod
    def request_identity(self, prompt: Prompt, repeat: int = 0) -> RequestIdentity:
        """The identity of the request ``answer(prompt, case, repeat=repeat)`` will send."""

    @abstractmethod
    async def answer(self, prompt: Prompt, case: TestCase, *, repeat: int = 0) -> Reply:
        """Answer one prompt (``repeat`` picks the decoding seed)."""
