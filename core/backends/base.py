"""Contract of the LLM backends: one small async interface that every answerer implements.

A backend turns a ``Prompt`` (text + JSON schema) into a ``Reply``. Backends: ``ollama`` (the
official client over HTTP), ``local`` (bundled Gemma 3 270M through llama.cpp), ``random`` and
``oracle`` (answerers that need no LLM). Each lives in its own module and is registered by the
prefix of its command-line spec in ``registry.py``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
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
    extra: dict[str, Any] = field(default_factory=dict)


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

    def cache_identity(self) -> dict[str, Any]:
        """What identifies this backend's replies in the reply cache (never secrets)."""
        return {"spec": self.spec}

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections or model memory."""
