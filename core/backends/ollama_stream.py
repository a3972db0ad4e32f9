"""One Ollama chat request read as a stream, cut at the reply cap while it is read.

Why not the client's ``chat(stream=False)``: it reads the whole body, then parses it (and
pydantic copies it again), so a server that sends 300 MB made one request cost 1.3 GB before the
cap in ``bounded_reply`` could apply. Here the reply is asked for as Ollama's NDJSON stream and
read line by line with a bounded buffer; once the answer (or the thinking) passes the cap,
the rest is read only to count it (the stored reason says how long the reply was) and dropped,
so memory stays bounded whatever the server sends; the request's timeout bounds the time.
The request body, headers (the API key), timeouts
and errors are the official client's own (its ``httpx`` client and ``ChatRequest``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any, cast

import httpx
import ollama
from ollama._types import ChatRequest

from explaincheck.core.backends.base import MAX_REPLY_CHARS

# The longest line (one NDJSON chunk) read: a real chunk is a token or a final summary.
MAX_LINE_BYTES = 4 * 4 * MAX_REPLY_CHARS + (1 << 16)
MAX_ERROR_BYTES = 1 << 16  # of an HTTP error body


async def chat_bounded(
    client: ollama.AsyncClient,
    *,
    model: str,
    messages: list[dict[str, Any]],
    format: Any,
    options: dict[str, Any],
    think: bool | None,
    limit: int = MAX_REPLY_CHARS,
) -> tuple[ollama.ChatResponse, dict[str, int]]:
    """The reply (content and thinking joined from the chunks, each kept up to a chunk past
    ``limit``) and what was cut: ``{"cut": n}`` / ``{"thinking_cut": n}`` with the characters
    the server sent. Raises ``ollama.ResponseError`` and ``ValueError`` as the client does."""
    body = ChatRequest(
        model=model,
        messages=messages,
        stream=True,
        think=think,
        format=format,
        options=options,
    ).model_dump(exclude_none=True)
    content: list[str] = []
    thinking: list[str] = []
    sizes = {"content": 0, "thinking": 0}
    final: dict[str, Any] = {}
    cut: dict[str, int] = {}
    http = client._client  # the official client's httpx client: its base URL, headers, timeouts
    async with http.stream("POST", "/api/chat", json=body) as response:
        if response.status_code >= 400:
            raise ollama.ResponseError(
                await _prefix(response, MAX_ERROR_BYTES), response.status_code
            )
        async with aclosing(_lines(response)) as lines:  # closed at once when we stop early
            async for line in lines:
                part = json.loads(line)
                if not isinstance(part, dict):
                    raise ValueError("a chunk of the reply is not a JSON object")
                if error := part.get("error"):
                    raise ollama.ResponseError(str(error))
                message = part.get("message") or {}
                if not isinstance(message, dict):
                    raise ValueError("message is not an object")
                for key, into in (("content", content), ("thinking", thinking)):
                    piece = message.get(key)
                    if isinstance(piece, str) and piece:
                        if sizes[key] <= limit:  # past the cap: counted, not kept
                            into.append(piece)
                        sizes[key] += len(piece)
                    elif piece is not None and not isinstance(piece, str):
                        raise ValueError(f"message {key} is not text")
                if not final.get("done"):  # the summary is the "done" chunk; read to the end
                    final = part  # (stopping there left httpcore's stream to the collector)
    if sizes["content"] > limit:
        cut["cut"] = sizes["content"]
    if sizes["thinking"] > limit:
        cut["thinking_cut"] = sizes["thinking"]
    summary = {key: value for key, value in final.items() if key != "message"}
    role = (final.get("message") or {}).get("role") or "assistant"
    merged = {"role": role, "content": "".join(content)}
    if thinking:
        merged["thinking"] = "".join(thinking)
    reply = ollama.ChatResponse(
        **{**summary, "model": final.get("model") or model, "message": merged}
    )
    return reply, cut


def _chunks(response: httpx.Response) -> AsyncGenerator[bytes, None]:
    """The body's byte chunks. httpx types ``aiter_bytes`` as an ``AsyncIterator``; it is an
    async generator, which ``aclosing`` closes at once (no stream left for the collector)."""
    return cast(AsyncGenerator[bytes, None], response.aiter_bytes())


def _lines(response: httpx.Response) -> AsyncGenerator[str, None]:
    return bounded_lines(_chunks(response))


async def bounded_lines(body: AsyncGenerator[bytes, None]) -> AsyncGenerator[str, None]:
    """A body's lines, none longer than ``MAX_LINE_BYTES`` (a longer one is refused); also
    the OpenAI backend's stream reader (``openai_stream``)."""
    buffer = bytearray()
    async with aclosing(body) as chunks:
        async for chunk in chunks:
            buffer.extend(chunk)
            while True:
                end = buffer.find(b"\n")
                if end < 0:
                    break
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                if line.strip():
                    yield line.decode("utf-8", errors="replace")
            if len(buffer) > MAX_LINE_BYTES:
                raise ValueError(
                    f"a reply line longer than {MAX_LINE_BYTES >> 20} MB: not read further"
                )
    if buffer.strip():
        yield bytes(buffer).decode("utf-8", errors="replace")


async def _prefix(response: httpx.Response, limit: int) -> str:
    data = bytearray()
    async with aclosing(_chunks(response)) as chunks:
        async for chunk in chunks:
            data.extend(chunk)
            if len(data) >= limit:
                break
    return bytes(data[:limit]).decode("utf-8", errors="replace")
