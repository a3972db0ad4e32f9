"""OpenAI-compatible backend: the official ``openai.AsyncOpenAI`` on ``/v1/chat/completions``.

Why this protocol: vLLM, SGLang, llama.cpp's ``llama-server``, LM Studio, TGI, Ollama's own
``/v1`` and the hosted APIs all speak it, so one backend reaches a model served anywhere, also
by a cluster. Requests spread over several base URLs with Ollama's host pool (least busy first,
per-host caps, circuit breaker): one model served by several servers is one LLM here.

- Structured output: the category's JSON schema as ``response_format`` ``json_schema``; a server
  that refuses it (HTTP 400 naming ``response_format``/``json_schema``) is asked with
  ``json_object``, then with plain text (the prompt itself says which JSON to write and the
  parser reads it). The mode that works is remembered per host, and every reply records the
  mode it was asked with (``Reply.output_mode``).
- Reasoning models: ``reasoning_content`` (or ``reasoning``) and inline ``<think>`` blocks are
  kept as thinking, never parsed as the answer.
- Retries: 429 and 5xx wait what ``Retry-After`` says (capped), timeouts and dropped
  connections are retried with backoff; the client's own retries are off so these are the only
  ones. Usage (prompt, completion and reasoning tokens) comes from ``usage``, and the part of
  the prompt a server took from its prompt cache from ``usage.prompt_tokens_details
  .cached_tokens`` (llama-server, vLLM, the hosted APIs), priced apart (``--price``).
- The key: ``OPENAI_API_KEY_<HOST>_<PORT>`` for one server, else ``OPENAI_API_KEY``; handed to
  the client (sent as a bearer token) and never stored, logged or put in the request identity.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import re
import time
import urllib.parse
from collections.abc import Iterable
from typing import Any

import openai

from explaincheck.core.backends.base import BackendError, Reply, clean_count
from explaincheck.core.backends.llm import MAX_TOKENS, Decoding, LLMBackend, RequestIdentity
from explaincheck.core.backends.ollama_backend import ModelNotFoundError, split_thinking
from explaincheck.core.backends.ollama_hosts import (
    BadHostError,
    Host,
    HostPool,
    ModelNotListed,
    NoHostAvailable,
    model_name,
    normalize_host,
)
from explaincheck.core.backends.openai_stream import StreamedChat, chat_streamed
from explaincheck.core.backends.server_slots import TimeoutWatch, reported_slots, slots_warning
from explaincheck.core.credentials import read_key
from explaincheck.core.taxonomy.base import Prompt, TestCase

log = logging.getLogger("explaincheck.backends.openai")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
JSON_SCHEMA, JSON_OBJECT, TEXT = "json_schema", "json_object", "text"
OUTPUT_MODES = (JSON_SCHEMA, JSON_OBJECT, TEXT)  # tried in this order
MAX_RETRY_AFTER = 60.0  # longest wait a server's Retry-After is granted
MAX_BACKOFF = 30.0
NO_KEY = "no-key"  # sent when no key is set: local servers ignore it, the client needs one
_REFUSED_FORMAT = re.compile(r"response_format|json_schema|json_object|structured", re.I)


# -- base URLs and keys ---------------------------------------------------------------------------


def normalize_base_url(url: str) -> str:
    """``scheme://host:port/path`` (``http://`` when no scheme is given, ``/v1`` when no path),
    no credentials or query; a one-line ``BadHostError`` for a URL that cannot be used."""
    if "://" not in url:
        url = f"http://{url.strip()}"
    try:
        base = normalize_host(url)
    except BadHostError as error:
        raise BadHostError(str(error).replace("Ollama host", "OpenAI base URL")) from None
    return base if urllib.parse.urlsplit(base).path.strip("/") else f"{base}/v1"


def configured_base_urls(given: Iterable[str] = ()) -> tuple[str, ...]:
    """Base URLs from ``--openai-base-url`` (repeatable), else OPENAI_BASE_URL, else OpenAI's."""
    chosen = [u for u in given if u] or [os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL]
    return tuple(dict.fromkeys(normalize_base_url(u) for u in chosen))


def key_variable(url: str) -> str:
    """The per-host key variable: ``http://gpu1:8000/v1`` -> ``OPENAI_API_KEY_GPU1_8000``."""
    split = urllib.parse.urlsplit(url)
    where = f"{split.hostname or ''}_{split.port or ''}".strip("_")
    return "OPENAI_API_KEY_" + re.sub(r"[^A-Z0-9]+", "_", where.upper()).strip("_")


def api_key_for(url: str) -> str:
    """The key for one server, read from the environment when the client is made."""
    return read_key(key_variable(url), "OPENAI_API_KEY") or NO_KEY


# -- the host pool --------------------------------------------------------------------------------


class OpenAIHostPool(HostPool):
    """Ollama's host pool over OpenAI-compatible servers: the same scheduling and breaker,
    models listed by ``/v1/models``, and the structured-output mode each host accepts."""

    kind = "OpenAI-compatible server"

    def __init__(self, urls: Iterable[str], **settings: Any):
        super().__init__(configured_base_urls(urls), **settings)
        for host in self.hosts:
            host.client = openai.AsyncOpenAI(  # type: ignore[assignment]
                base_url=host.url,
                api_key=api_key_for(host.url),
                timeout=self.timeout,
                max_retries=0,  # retried here, with the pool's view of each host
            )
        self.wanted: set[str] = set()  # models asked for (a server without /v1/models serves them)
        self.modes: dict[str, str] = {}  # host url -> the structured-output mode it accepts
        self.refused: dict[str, set[str]] = {}  # host url -> request fields it refused
        self.watch = TimeoutWatch()
        self.checked_slots = False

    async def _list(self, host: Host) -> set[str]:
        client: openai.AsyncOpenAI = host.client  # type: ignore[assignment]
        try:
            page = await asyncio.wait_for(client.models.list(), timeout=min(self.timeout, 15.0))
        except openai.NotFoundError:  # no /v1/models here: trust that it serves what is asked
            return {model_name(m) for m in self.wanted}
        return {model_name(m.id) for m in page.data if getattr(m, "id", None)}

    async def check_slots(self) -> None:
        """Warn (once per pool) where a server reports fewer slots than ``--concurrency``."""
        if self.checked_slots:
            return
        self.checked_slots = True
        for host in self.answering():
            slots = await reported_slots(host.url, api_key_for(host.url))
            text = slots_warning(host.url, slots, host.capacity, self.timeout) if slots else None
            if text:
                log.warning("%s", text)

    def refuse_field(self, host: Host, error: str) -> bool:
        """Whether a refused request names a field this host does not take (``stream_options``;
        ``max_tokens``, which newer OpenAI models want as ``max_completion_tokens``): it is
        remembered and the request asked again without it."""
        refused = self.refused.setdefault(host.url, set())
        for name in ("stream_options", "max_tokens"):
            if name in error and name not in refused:
                refused.add(name)
                log.warning("%s refuses %s: asking without it from now on", host.url, name)
                return True
        return False

    def mode(self, host: Host) -> str:
        return self.modes.get(host.url, JSON_SCHEMA)

    def downgrade(self, host: Host, mode: str) -> str | None:
        """The next mode after ``mode`` was refused by ``host`` (remembered), or None."""
        index = OUTPUT_MODES.index(mode)
        if index + 1 >= len(OUTPUT_MODES):
            return None
        self.modes[host.url] = OUTPUT_MODES[index + 1]
        log.warning(
            "%s refuses response_format %s: asking with %s from now on",
            host.url,
            mode,
            OUTPUT_MODES[index + 1],
        )
        return OUTPUT_MODES[index + 1]


async def served_models(urls: Iterable[str], timeout: float = 3.0) -> dict[str, list[str]]:
    """Models listed by every server that answers (``/v1/models``); {} when none does."""
    pool = OpenAIHostPool(urls, timeout=timeout)
    try:
        await pool.refresh()
        return {
            h.url: sorted(m.removesuffix(":latest") for m in h.models) for h in pool.answering()
        }
    finally:
        await pool.close()


# -- the backend ----------------------------------------------------------------------------------


def response_format(mode: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if mode == JSON_SCHEMA:
        return {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": False},
        }
    if mode == JSON_OBJECT:
        return {"type": "json_object"}
    return None


def retry_after(error: openai.APIStatusError) -> float | None:
    """Seconds the server asks to wait (``Retry-After`` as seconds or a date, or
    ``retry-after-ms``), capped at ``MAX_RETRY_AFTER``; None when it says nothing usable."""
    headers = error.response.headers
    seconds: float | None = None
    try:
        if headers.get("retry-after-ms"):
            seconds = float(headers["retry-after-ms"]) / 1000
        elif headers.get("retry-after"):
            text = headers["retry-after"].strip()
            try:
                seconds = float(text)
            except ValueError:
                date = email.utils.parsedate_to_datetime(text)
                seconds = date.timestamp() - time.time()
    except (ValueError, TypeError, OverflowError):
        return None
    if seconds is None or seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def describe_openai_error(error: BaseException) -> str:
    """One line for logs and the ``reason`` column (never headers, so never the key)."""
    if isinstance(error, openai.APIStatusError):
        body = error.body
        message = body.get("message") if isinstance(body, dict) else None
        text = message or error.message
        return f"HTTP {error.status_code}: {str(text).splitlines()[0] if text else ''}".strip()
    if isinstance(error, openai.APITimeoutError | TimeoutError):
        return "timed out"
    if isinstance(error, openai.APIConnectionError):
        return "connection failed"
    text = str(error) or type(error).__name__
    return text.splitlines()[0]


class OpenAIBackend(LLMBackend):
    """One model on one or several OpenAI-compatible servers."""

    def __init__(
        self,
        model: str,
        pool: OpenAIHostPool,
        *,
        spec: str | None = None,
        decoding: Decoding | None = None,
        retries: int = 3,
        max_tokens: int = MAX_TOKENS,
    ):
        self.model = model
        self.pool = pool
        pool.wanted.add(model)
        self.spec = spec or f"openai:{model}"
        self.decoding = decoding or Decoding()
        self.retries = retries
        self.max_tokens = max_tokens

    @property
    def concurrency(self) -> int:  # type: ignore[override]
        return self.pool.capacity_for(self.model)

    async def prepare(self) -> None:
        await self.pool.require_answering(
            "OpenAI-compatible server", "start one, or give --openai-base-url / OPENAI_BASE_URL"
        )
        await self.pool.check_slots()
        if not self.pool.hosts_for(self.model):
            served = sorted({m.removesuffix(":latest") for h in self.pool.hosts for m in h.models})
            raise ModelNotFoundError(
                f"model {self.model} is not served by {', '.join(self.pool.urls)}"
                f" (it serves: {', '.join(served[:10]) or 'nothing'})"
            )

    def request_identity(self, prompt: Prompt, repeat: int = 0) -> RequestIdentity:
        hosts = tuple(h.url for h in self.pool.hosts_for(self.model)) or self.pool.urls
        return RequestIdentity("openai", hosts, self.model, self._options(repeat), {})

    def _options(self, repeat: int) -> dict[str, Any]:
        return {**self.decoding.options(repeat), "max_tokens": self.max_tokens}

    async def answer(self, prompt: Prompt, case: TestCase, *, repeat: int = 0) -> Reply:
        """Ask the model, retrying transient failures; ``BackendError`` when no reply came."""
        options = self._options(repeat)
        last, attempt, pause = "no attempt", 0, 0.0
        while attempt <= self.retries:
            if pause:
                await asyncio.sleep(pause)
                pause = 0.0
            wait = self.pool.pause * 2**attempt
            try:
                lease = await self.pool.acquire(self.model, max_wait=max(wait, 0.05))
            except ModelNotListed:
                raise BackendError(f"model {self.model} is not served by any host") from None
            except NoHostAvailable as error:
                last = last if last != "no attempt" else f"no host available ({error})"
                attempt += 1
                continue
            host = lease.host
            mode = self.pool.mode(host)
            started = time.monotonic()
            outcome, error_text = "neutral", ""
            try:
                response = await self._chat(host, prompt, options, mode)
                outcome = "ok"
            except openai.BadRequestError as error:
                outcome = "ok"  # the host answers; the request was refused
                if mode != TEXT and _REFUSED_FORMAT.search(_error_text(error)):
                    self.pool.downgrade(host, mode)
                    continue  # asked again at once in the next mode: not an attempt
                if self.pool.refuse_field(host, _error_text(error)):
                    continue  # asked again at once without it (or in its newer name)
                raise BackendError(
                    f"{host.url} refused the request: {describe_openai_error(error)}"
                ) from None
            except openai.NotFoundError as error:
                outcome = "ok"
                await self.pool.forget_model(host, self.model)
                last = f"{host.url}: {describe_openai_error(error)}"
                attempt += 1
                continue
            except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
                outcome = "ok"
                raise BackendError(
                    f"{host.url} refused the key ({describe_openai_error(error)}): set"
                    f" {key_variable(host.url)} or OPENAI_API_KEY"
                ) from None
            except openai.APIStatusError as error:
                error_text = describe_openai_error(error)
                last = f"{host.url}: {error_text}"
                # 429: the server is busy, not broken (it said when to come back)
                outcome = "neutral" if error.status_code == 429 else "failed"
                told = retry_after(error)
                pause = told if told is not None else min(self.pool.pause * 2**attempt, MAX_BACKOFF)
                attempt += 1
                continue
            except (openai.APITimeoutError, TimeoutError):
                self.pool.watch.count(True, host.url, self.pool.timeout)
                last = f"no reply from {host.url} within {self.pool.timeout:g} s"
                pause = min(self.pool.pause * 2**attempt, MAX_BACKOFF)
                attempt += 1
                continue
            except openai.APIConnectionError as error:
                error_text = describe_openai_error(error)
                outcome, last = "failed", f"{host.url}: {error_text}"
                attempt += 1
                continue
            except (ValueError, openai.APIResponseValidationError) as error:
                error_text = describe_openai_error(error)
                outcome, last = "failed", f"{host.url}: malformed response ({error_text})"
                attempt += 1
                continue
            finally:
                await self.pool.release(lease, outcome, error_text)
            self.pool.watch.count(False, host.url, self.pool.timeout)
            try:
                return self._reply(response, host, mode, options, time.monotonic() - started)
            except (AttributeError, TypeError, ValueError) as error:
                last = f"{host.url}: not a chat completion ({describe_openai_error(error)})"
                attempt += 1
        raise BackendError(f"no reply after {self.retries + 1} attempts: {last}")

    async def _chat(
        self, host: Host, prompt: Prompt, options: dict[str, Any], mode: str
    ) -> StreamedChat:
        """Streamed and cut at the cap while read (``openai_stream``); the timeout covers the
        whole request, from sending it (a server's queue included) to its last chunk."""
        client: openai.AsyncOpenAI = host.client  # type: ignore[assignment]
        extra: dict[str, Any] = {}
        form = response_format(mode, prompt.schema)
        if form is not None:
            extra["response_format"] = form
        refused = self.pool.refused.get(host.url, set())
        cap = "max_completion_tokens" if "max_tokens" in refused else "max_tokens"
        extra[cap] = options["max_tokens"]
        if "stream_options" not in refused:
            extra["stream_options"] = {"include_usage": True}
        return await asyncio.wait_for(
            chat_streamed(
                client,
                model=self.model,
                messages=[{"role": "user", "content": prompt.text}],
                temperature=options["temperature"],
                seed=options["seed"],
                **extra,
            ),
            timeout=self.pool.timeout,
        )

    def _reply(
        self, response: StreamedChat, host: Host, mode: str, options: dict[str, Any], latency: float
    ) -> Reply:
        text, thinking = split_thinking(response.content, response.reasoning)
        usage = response.usage
        details = usage.get("completion_tokens_details")
        details = details if isinstance(details, dict) else {}
        prompt_details = usage.get("prompt_tokens_details")
        prompt_details = prompt_details if isinstance(prompt_details, dict) else {}
        return Reply(
            text=text,
            thinking=thinking,
            latency=latency,
            prompt_tokens=clean_count(usage.get("prompt_tokens")),
            completion_tokens=clean_count(usage.get("completion_tokens")),
            reasoning_tokens=clean_count(details.get("reasoning_tokens")),
            cached_prompt_tokens=clean_count(prompt_details.get("cached_tokens")),
            host=host.url,
            output_mode=mode,
            extra={"options": options, "finish_reason": response.finish_reason, **response.cut},
        )

    async def close(self) -> None:
        """The pool is shared and closed by whoever made it (the registry context)."""


def _error_text(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        return " ".join(str(body.get(k) or "") for k in ("message", "param", "code"))
    return str(error.message)
