"""One OpenAI chat completion read as a stream, cut at the reply cap while it is read.

Why not ``create(stream=False)``: the client reads the whole body, then parses it and pydantic
copies it again, so a server that sends 300 MB made one request cost 1 GB before the cap in
``bounded_reply`` applied. Here the reply is asked for as a server-sent-event stream through the
official client's ``with_streaming_response`` (its request body, key header, timeouts and
status errors) and read line by line with the Ollama reader's bounded buffer
(``ollama_stream.bounded_lines``); past the cap the rest is only counted. A server that ignores
``stream`` and sends one JSON body is read the same way, a line at a time, and refused past
``MAX_LINE_BYTES``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, cast

import openai

from explaincheck.core.backends.base import MAX_REPLY_CHARS
from explaincheck.core.backends.ollama_stream import MAX_LINE_BYTES, bounded_lines

DONE = "[DONE]"


@dataclass
class StreamedChat:
    """What one streamed reply held: the answer and reasoning text (kept up to a chunk past
    the cap), ``usage`` as the server sent it, and what was cut (``cut``/``thinking_cut``:
    the characters the server sent)."""

    content: str = ""
    reasoning: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    finish_reason: str | None = None
    cut: dict[str, int] = field(default_factory=dict)


class _Collector:
    def __init__(self, limit: int):
        self.limit = limit
        self.parts: dict[str, list[str]] = {"content": [], "reasoning": []}
        self.sizes = {"content": 0, "reasoning": 0}
        self.choices = 0
        self.result = StreamedChat()

    def add(self, key: str, piece: Any) -> None:
        if piece is None:
            return
        if not isinstance(piece, str):
            raise ValueError(f"not a chat completion: message {key} is not text")
        if self.sizes[key] <= self.limit:  # past the cap: counted, not kept
            self.parts[key].append(piece)
        self.sizes[key] += len(piece)

    def take(self, part: Any, whole: bool) -> None:
        """One stream chunk (``delta``) or a whole completion (``message``)."""
        if not isinstance(part, dict):
            raise ValueError("not a chat completion: a chunk of the reply is not a JSON object")
        if isinstance(part.get("error"), dict | str):
            error = part["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise ValueError(f"the server sent an error: {str(message).splitlines()[0][:200]}")
        if isinstance(part.get("usage"), dict):
            self.result.usage = part["usage"]
        choices = part.get("choices")
        if choices is None:
            return
        if not isinstance(choices, list):
            raise ValueError("not a chat completion: choices is not a list")
        for choice in choices[:1]:
            if not isinstance(choice, dict):
                raise ValueError("not a chat completion: a choice is not an object")
            self.choices += 1
            message = choice.get("message" if whole else "delta") or {}
            if not isinstance(message, dict):
                raise ValueError("not a chat completion: message is not an object")
            self.add("content", message.get("content"))
            self.add("reasoning", message.get("reasoning_content") or message.get("reasoning"))
            if choice.get("finish_reason"):
                self.result.finish_reason = str(choice["finish_reason"])

    def finish(self) -> StreamedChat:
        if not self.choices:
            raise ValueError("not a chat completion: the reply has no choices")
        result = self.result
        result.content = "".join(self.parts["content"])
        result.reasoning = "".join(self.parts["reasoning"])
        if self.sizes["content"] > self.limit:
            result.cut["cut"] = self.sizes["content"]
        if self.sizes["reasoning"] > self.limit:
            result.cut["thinking_cut"] = self.sizes["reasoning"]
        return result


async def chat_streamed(
    client: openai.AsyncOpenAI, *, limit: int = MAX_REPLY_CHARS, **request: Any
) -> StreamedChat:
    """Ask ``client.chat.completions`` with ``request`` (streamed) and read the reply bounded.
    Raises the client's ``openai.APIStatusError``s and ``ValueError`` for a malformed reply."""
    collector = _Collector(limit)
    async with client.chat.completions.with_streaming_response.create(
        **request, stream=True
    ) as response:
        kind = response.headers.get("content-type", "")
        streamed = "event-stream" in kind
        if not streamed and "json" not in kind:
            raise ValueError(f"the server sent text that is not JSON (content type {kind!r})")
        body = cast(AsyncGenerator[bytes, None], response.iter_bytes())
        async with aclosing(bounded_lines(body)) as lines:
            whole: list[str] = []
            size = 0
            async for line in lines:
                if not streamed:  # a plain JSON body, held up to one line's bound in all
                    size += len(line)
                    if size > MAX_LINE_BYTES:
                        raise ValueError(
                            f"a reply longer than {MAX_LINE_BYTES >> 20} MB: not read further"
                        )
                    whole.append(line)
                    continue
                if not line.startswith("data:"):
                    continue  # comments, event names, ids
                data = line[5:].strip()
                if data == DONE:
                    break
                collector.take(json.loads(data), whole=False)
        if not streamed:
            collector.take(json.loads("\n".join(whole) or "null"), whole=True)
    return collector.finish()
