"""Ollama backend: the official ``ollama.AsyncClient`` on the native ``/api/chat``.

Why these settings: answers must be reproducible and parseable, so each request carries the
category's JSON schema as ``format`` (structured output), ``temperature`` 0 and a fixed ``seed``,
and a ``num_ctx`` large enough that Ollama does not silently cut the prompt (its default context
is small), and ``num_predict`` capping the reply (``--max-tokens``, 256 as the other backends;
a thinking model gets ``THINKING_RESERVE`` more for its reasoning, which Ollama counts in the
same cap, as ``num_ctx`` reserves it). The client has no timeout by default, so one is always
set; transient failures (connection refused, 5xx, a dropped connection, a timeout) are retried
with backoff, on another host when several list the model (see ``ollama_hosts.py``). A thinking
model's reasoning is kept apart from the answer.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import replace
from typing import Any

import httpx
import ollama

from explaincheck.core.backends.base import BackendError, Reply, clean_count
from explaincheck.core.backends.llm import MAX_TOKENS, Decoding, LLMBackend, RequestIdentity
from explaincheck.core.backends.ollama_hosts import (
    Host,
    HostPool,
    ModelNotListed,
    NoHostAvailable,
    describe_error,
    model_name,
)
from explaincheck.core.backends.ollama_stream import chat_bounded
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import to_json
from explaincheck.core.taxonomy.base import Prompt, TestCase

log = logging.getLogger("explaincheck.backends.ollama")

MIN_CONTEXT = 8192  # one num_ctx for nearly every prompt: a change makes Ollama reload the model
ANSWER_RESERVE = 512  # tokens kept free for the answer
THINKING_RESERVE = 8192  # ... and for a thinking model's reasoning
MAX_CONTEXT = 1 << 24  # a context length above this is not believed (a server's nonsense)
_OPEN, _CLOSE = "<think>", "</think>"


class ModelNotFoundError(ExplaincheckError):
    """The model is not pulled on the host(s)."""


def not_found_message(model: str, hosts: tuple[str, ...]) -> str:
    where = hosts[0] if len(hosts) == 1 else f"any of {', '.join(hosts)}"
    return f"model {model} not found on {where}: run `ollama pull {model}`"


def estimate_tokens(text: str) -> int:
    """A safe over-estimate of a prompt's tokens (about 3 characters per token)."""
    return len(text) // 3 + 1


def next_power_of_two(n: int) -> int:
    return 1 << max(n - 1, 1).bit_length()


def split_thinking(content: str, thinking: str) -> tuple[str, str]:
    """The answer without ``<think>`` blocks (older thinking models inline them) + all thinking.

    Linear time: each block is found with ``str.find`` from where the last one ended, and an
    opening tag without a closing one ends the search (no later block can close either). The
    runner caps the length of what is kept (``MAX_REPLY_CHARS``)."""
    if _OPEN not in content:
        return content, thinking
    pieces: list[str] = []
    inline: list[str] = []
    position = 0
    while True:
        start = content.find(_OPEN, position)
        if start < 0:
            break
        end = content.find(_CLOSE, start + len(_OPEN))
        if end < 0:
            break
        pieces.append(content[position:start])
        inline.append(content[start + len(_OPEN) : end])
        position = end + len(_CLOSE)
    if not inline:
        return content, thinking
    pieces.append(content[position:])
    answer = "".join(pieces).strip()
    return answer, "\n".join(part for part in (thinking, *inline) if part.strip()).strip()


def context_length(info: Any) -> int | None:
    """The ``<arch>.context_length`` of an ``/api/show`` ``model_info``, or None when it is
    missing or not a believable positive whole number ("abc", 1e999, -1, a list...)."""
    if not isinstance(info, dict):
        return None
    for key, value in info.items():
        if not (isinstance(key, str) and key.endswith(".context_length")):
            continue
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_CONTEXT:
            return value
        return None
    return None


class OllamaBackend(LLMBackend):
    """One model on one or several Ollama hosts."""

    def __init__(
        self,
        model: str,
        pool: HostPool,
        *,
        spec: str | None = None,
        decoding: Decoding | None = None,
        retries: int = 3,
        think: bool | None = None,
        max_tokens: int = MAX_TOKENS,
    ):
        self.model = model
        self.max_tokens = max_tokens
        self.pool = pool
        self.spec = spec or f"ollama:{model}"
        self.decoding = decoding or Decoding()
        self.retries = retries
        self.think = think
        self._context: int | None = None  # the model's context length (from /api/show)
        self._thinks = False  # the model has the "thinking" capability
        self._warned: set[str] = set()

    # -- set-up -------------------------------------------------------------------------------

    @property
    def concurrency(self) -> int:  # type: ignore[override]
        return self.pool.capacity_for(self.model)

    async def prepare(self) -> None:
        """List the hosts' models and read the context length, or say clearly what is wrong."""
        await self.pool.require_answering(
            "Ollama server",
            "start one with `ollama serve`, give --ollama-host, or use --llm local:gemma3-270m",
        )
        listing = self.pool.hosts_for(self.model)
        if not listing:
            raise ModelNotFoundError(not_found_message(self.model, self.pool.urls))
        await self._read_context(listing[0])

    async def _read_context(self, host: Host) -> None:
        try:
            shown = await asyncio.wait_for(host.client.show(self.model), self.pool.timeout)
            info = shown.modelinfo
            capabilities = shown.capabilities
        except Exception as error:  # a malformed /api/show is not worth stopping a campaign
            log.warning("cannot read %s's context length: %s", self.model, describe_error(error))
            return
        self._context = context_length(dict(info) if isinstance(info, dict) else None)
        if self._context is None:
            log.warning(
                "%s's /api/show gives no usable context length: assuming it is large enough",
                self.model,
            )
        self._thinks = isinstance(capabilities, list) and "thinking" in capabilities

    # -- requests -----------------------------------------------------------------------------

    def thinking(self) -> bool:
        """The model reasons before it answers (it has the capability and it is not off)."""
        return self._thinks and self.think is not False

    def num_ctx(self, prompt: Prompt) -> int:
        """A context large enough for prompt + schema + answer, capped by the model's own."""
        reserve = THINKING_RESERVE if self.thinking() else ANSWER_RESERVE
        need = estimate_tokens(prompt.text) + estimate_tokens(to_json(prompt.schema)) + reserve
        size = max(MIN_CONTEXT, next_power_of_two(need))
        if self._context is None:
            return size
        if need > self._context:
            self._warn_once(
                "context",
                f"a prompt of about {need} tokens (with room for the answer) does not fit in"
                f" {self.model}'s context of {self._context} tokens: Ollama will truncate it",
            )
        return min(size, self._context)

    def num_predict(self) -> int:
        """The output cap sent: ``max_tokens`` for the answer, plus the reasoning's reserve for
        a thinking model (Ollama counts its thinking tokens in ``num_predict`` too)."""
        return self.max_tokens + (THINKING_RESERVE if self.thinking() else 0)

    def options(self, prompt: Prompt, repeat: int = 0) -> dict[str, Any]:
        return {
            **self.decoding.options(repeat),
            "num_ctx": self.num_ctx(prompt),
            "num_predict": self.num_predict(),
        }

    def request_identity(self, prompt: Prompt, repeat: int = 0) -> RequestIdentity:
        hosts = tuple(h.url for h in self.pool.hosts_for(self.model)) or self.pool.urls
        return RequestIdentity(
            "ollama",
            hosts,
            model_name(self.model),
            self.options(prompt, repeat),
            {"think": self.think},
        )

    async def answer(self, prompt: Prompt, case: TestCase, *, repeat: int = 0) -> Reply:
        """Ask the model, retrying transient failures; ``BackendError`` when no reply came."""
        options = self.options(prompt, repeat)
        last = "no attempt"
        tried: set[str] = set()  # hosts asked for this answer: a retry goes elsewhere first
        for attempt in range(self.retries + 1):
            wait = self.pool.pause * 2**attempt if attempt else self.pool.pause
            try:
                lease = await self.pool.acquire(
                    self.model, max_wait=max(wait, 0.05), avoid=frozenset(tried)
                )
            except ModelNotListed:
                raise BackendError(not_found_message(self.model, self.pool.urls)) from None
            except NoHostAvailable as error:
                if last == "no attempt":  # otherwise the first failure says more
                    last = f"no host available ({error})"
                continue
            host = lease.host
            tried.add(host.url)
            started = time.monotonic()
            outcome, error_text = "neutral", ""
            try:
                response, cut = await self._chat(host, prompt, options)
                outcome = "ok"
            except ollama.ResponseError as error:
                error_text = describe_error(error)
                if error.status_code == 404:
                    outcome = "ok"  # the host answers; it just lacks the model
                    await self.pool.forget_model(host, self.model)
                    last = not_found_message(self.model, (host.url,))
                    continue
                if error.status_code >= 500 or error.status_code == 429:
                    outcome, last = "failed", f"{host.url}: {error_text}"
                    continue
                raise BackendError(f"{host.url} refused the request: {error_text}") from None
            except (httpx.TimeoutException, TimeoutError):
                # A host that accepts and never answers looks like this: it counts against the
                # host's breaker (skipped for a pause, then tried alone), and the retry goes to
                # another host when there is one.
                error_text = f"no reply within {self.pool.timeout:g} s"
                outcome, last = "failed", f"no reply from {host.url} within {self.pool.timeout:g} s"
                continue
            except (ConnectionError, httpx.TransportError) as error:
                error_text = describe_error(error)
                outcome, last = "failed", f"{host.url}: {error_text}"
                continue
            except ValueError as error:  # a body that is not the expected JSON
                error_text = describe_error(error)
                outcome, last = "failed", f"{host.url}: malformed response ({error_text})"
                continue
            finally:
                await self.pool.release(lease, outcome, error_text)
            try:
                reply = self._reply(response, host, options, time.monotonic() - started)
                return replace(reply, extra={**reply.extra, **cut})
            except Exception as error:  # parsed by the client, but not a chat reply
                raise BackendError(
                    f"{host.url} sent a malformed reply ({describe_error(error)})"
                ) from None
        raise BackendError(f"no reply after {self.retries + 1} attempts: {last}")

    async def _chat(self, host: Host, prompt: Prompt, options: dict[str, Any]) -> Any:
        # The client's own timeout covers connect/read/write; wait_for bounds the whole request.
        # Streamed and cut at the cap while read: a huge reply never sits in memory whole.
        return await asyncio.wait_for(
            chat_bounded(
                host.client,
                model=self.model,
                messages=[{"role": "user", "content": prompt.text}],
                format=prompt.schema,
                options=options,
                think=self.think,
            ),
            timeout=self.pool.timeout,
        )

    def _reply(self, response: Any, host: Host, options: dict[str, Any], latency: float) -> Reply:
        message = response.message
        content, thought = message.content or "", message.thinking or ""
        if not isinstance(content, str) or not isinstance(thought, str):
            raise ValueError("message content is not text")
        text, thinking = split_thinking(content, thought)
        prompt_tokens = clean_count(response.prompt_eval_count)
        if prompt_tokens is not None and prompt_tokens >= options["num_ctx"] - 1:
            self._warn_once(
                "truncated",
                f"{self.model} read {prompt_tokens} prompt tokens, its whole num_ctx of"
                f" {options['num_ctx']}: the prompt was probably truncated",
            )
        return Reply(
            text=text,
            thinking=thinking,
            latency=latency,
            prompt_tokens=prompt_tokens,
            completion_tokens=clean_count(response.eval_count),
            host=host.url,
            extra={"options": options, "done_reason": response.done_reason},
        )

    def _warn_once(self, kind: str, message: str) -> None:
        if kind not in self._warned:
            self._warned.add(kind)
            log.warning("%s", message)

    async def close(self) -> None:
        """The pool is shared and closed by whoever made it (the registry context)."""
