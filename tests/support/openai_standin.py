"""A stand-in OpenAI-compatible server: real HTTP on 127.0.0.1 with scripted replies.

Why: the ``openai:`` backend must be tested over real HTTP with the official ``openai`` client,
the way it talks to vLLM, SGLang, llama-server or LM Studio. The server speaks the subset those
share: ``GET /v1/models`` and ``POST /v1/chat/completions`` (non-streaming), with ``usage``
(prompt, completion, ``completion_tokens_details.reasoning_tokens`` and, when a script sets
``cached_tokens``, ``prompt_tokens_details.cached_tokens``) and errors in OpenAI's
``{"error": {"message", "type", "param"}}`` shape.

Each model gets a ``Script``; ``mode`` is one of ``MODES``: ``correct`` (honours
``response_format``), ``no_json_schema`` (400 naming ``response_format`` for ``json_schema``,
like older llama-server builds), ``no_response_format`` (400 for any ``response_format``),
``reasoning`` (``reasoning_content`` beside the answer), ``think`` (an inline ``<think>``
block), ``html`` (200 with a text/html body: a proxy's error page), ``junk`` (200, JSON that is
no chat completion), ``hang`` (never answers within any sane timeout), ``echo_key`` (the
bearer token sent back in the reply and its reasoning, as a hostile proxy might),
``echo_key_error`` (a 500 whose message quotes the token), ``huge`` (``Script.size``
characters of answer, streamed in 64 KB pieces), ``no_choices`` (``choices: []``),
``ignore_stream`` (one JSON body though a stream was asked for). A request with ``stream``
is answered as server-sent events (each piece a ``delta``, then a usage chunk when
``stream_options.include_usage`` asks for it, then ``[DONE]``), as vLLM and llama-server do.
``fail_first`` requests fail first with ``failure`` (``http429`` with ``Retry-After``,
``http500``, ``slow``). Without a schema in the request (json_object or text), the answer
is built from ``schemas[prompt]`` if the test registered it, else ``Script.text``.

Run it alone (the benchmark does, in its own process):
``python tests/support/openai_standin.py --model bench --delay 0.05`` prints ``PORT <n>``.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

try:
    from support.ollama_standin import StandinOllama, schema_answer, serve
except ImportError:  # run as a script: tests/ is not on the path
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from support.ollama_standin import StandinOllama, schema_answer, serve

MODES = (
    "correct",
    "no_json_schema",
    "no_response_format",
    "reasoning",
    "think",
    "html",
    "junk",
    "hang",
    "echo_key",
    "echo_key_error",
    "huge",
    "no_choices",
    "ignore_stream",
)


@dataclass
class Script:
    """How one model answers."""

    mode: str = "correct"
    delay: float = 0.0
    fail_first: int = 0
    failure: str = "http429"  # http429, http500 or slow
    retry_after: str = "1"  # the Retry-After header of a 429
    text: str = '{"probability": 0.5}'  # the answer when the request carries no schema
    reasoning: str = "First I look at the holes next to the state."
    reasoning_tokens: int = 7
    size: int = 0  # characters of a ``huge`` answer
    cached_tokens: int | None = None  # ``usage.prompt_tokens_details.cached_tokens``, if set
    seen: int = field(default=0, repr=False)


class StandinOpenAI(StandinOllama):
    """The server; ``with StandinOpenAI({...}) as server: server.base_url``. Starting,
    stopping and the request log are the Ollama stand-in's; the endpoints are OpenAI's."""

    def __init__(self, models: dict[str, Script] | None = None, *, port: int = 0):
        super().__init__({}, port=port)
        self.models = dict(models) if models is not None else {"standin-1b": Script()}  # type: ignore[arg-type]
        self.schemas: dict[str, Any] = {}  # prompt text -> schema, for schema-less requests
        self.slots: int | None = None  # reported at /props as llama-server does, when set

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def chats(self) -> list[dict[str, Any]]:
        with self.lock:
            return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]


def _error(message: str, kind: str = "invalid_request_error", param: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": param, "code": None}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    standin: StandinOpenAI

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._record(None)
        if self.path.rstrip("/") == "/v1/models":
            data = [
                {"id": m, "object": "model", "owned_by": "standin"} for m in self.standin.models
            ]
            self._send(200, {"object": "list", "data": data})
        elif self.path == "/props" and self.standin.slots:
            self._send(200, {"total_slots": self.standin.slots, "model_path": "standin.gguf"})
        else:
            self._send(404, _error("not found"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self._record(body)
        if self.path != "/v1/chat/completions":
            self._send(404, _error("not found"))
            return
        with self.standin.lock:
            self.standin.in_flight += 1
            self.standin.max_in_flight = max(self.standin.max_in_flight, self.standin.in_flight)
        try:
            self._chat(body)
        finally:
            with self.standin.lock:
                self.standin.in_flight -= 1

    def _chat(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        script = self.standin.models.get(model)
        assert script is None or isinstance(script, Script)
        if script is None:
            self._send(404, _error(f"The model `{model}` does not exist.", "NotFoundError"))
            return
        with self.standin.lock:
            script.seen += 1
            failing = script.seen <= script.fail_first
        mode = script.failure if failing else script.mode
        if script.delay:
            time.sleep(script.delay)
        if mode == "hang":
            time.sleep(60.0)
            return
        if mode == "slow":
            time.sleep(30.0)
        if mode == "http429":
            self._send(
                429,
                _error("Rate limit reached", "rate_limit_error"),
                {"Retry-After": script.retry_after},
            )
            return
        token = self.headers.get("Authorization", "").removeprefix("Bearer ")
        if mode == "echo_key_error":
            self._send(500, _error(f"bad key {token}", "server_error"))
            return
        if mode == "http500":
            self._send(500, _error("scripted failure", "server_error"))
            return
        if mode == "html":
            self._send_raw(200, b"<html><body>Bad gateway</body></html>", "text/html")
            return
        if mode == "junk":
            self._send(200, {"unexpected": True, "choices": "none"})
            return
        if mode == "no_choices":
            self._send(200, {"id": "x", "object": "chat.completion", "choices": []})
            return
        if mode == "huge":
            self._stream(body, ("x" * 65536 for _ in range(script.size // 65536)), "", {})
            return
        response_format = body.get("response_format") or {}
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind == "json_schema" and mode in ("no_json_schema", "no_response_format"):
            self._send(400, _error("json_schema is not supported", param="response_format"))
            return
        if kind == "json_object" and mode == "no_response_format":
            self._send(400, _error("response_format is not supported", param="response_format"))
            return
        content = self._answer(body, script, response_format)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if mode == "reasoning":
            message["reasoning_content"] = script.reasoning
        elif mode == "echo_key":
            message["content"] = f"{content} your key is {token}"
            message["reasoning_content"] = f"the key {token} was sent"
        elif mode == "think":
            message["content"] = f"<think>{script.reasoning}</think>\n{content}"
        prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        completion = max(1, len(message["content"]) // 4)
        reasoning = script.reasoning_tokens if mode in ("reasoning", "think") else 0
        usage = {
            "prompt_tokens": max(1, len(prompt) // 4),
            "completion_tokens": completion + reasoning,
            "total_tokens": max(1, len(prompt) // 4) + completion + reasoning,
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        }
        if script.cached_tokens is not None:  # llama-server's and vLLM's prompt cache
            usage["prompt_tokens_details"] = {"cached_tokens": script.cached_tokens}
        if body.get("stream") and mode != "ignore_stream":
            text = message["content"]
            pieces = (text[i : i + 7] for i in range(0, len(text), 7))
            self._stream(body, pieces, message.get("reasoning_content", ""), usage)
            return
        self._send(
            200,
            {
                "id": "chatcmpl-standin",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": usage,
            },
        )

    def _stream(self, body: dict[str, Any], pieces: Any, reasoning: str, usage: dict) -> None:
        """Server-sent events: one ``delta`` per piece, the usage chunk, ``[DONE]``."""

        def event(payload: dict[str, Any]) -> bytes:
            return b"data: " + json.dumps(payload).encode() + b"\n\n"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return event({"id": "c", "object": "chat.completion.chunk", "choices": [choice]})

        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.wfile.write(chunk({"role": "assistant", "content": ""}))
            if reasoning:
                self.wfile.write(chunk({"reasoning_content": reasoning}))
            for piece in pieces:
                self.wfile.write(chunk({"content": piece}))
            self.wfile.write(chunk({}, "stop"))
            if (body.get("stream_options") or {}).get("include_usage"):
                self.wfile.write(event({"id": "c", "choices": [], "usage": usage}))
            self.wfile.write(b"data: [DONE]\n\n")
        except OSError:
            self.close_connection = True

    def _answer(self, body: dict[str, Any], script: Script, response_format: Any) -> str:
        schema = None
        if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
            schema = response_format.get("json_schema", {}).get("schema")
        if schema is None:
            prompt = body.get("messages", [{}])[-1].get("content", "")
            schema = self.standin.schemas.get(prompt)
        return json.dumps(schema_answer(schema)) if schema is not None else script.text

    def _record(self, body: Any) -> None:
        with self.standin.lock:
            self.standin.requests.append(
                {"path": self.path, "headers": dict(self.headers), "body": body}
            )

    def _send(self, status: int, payload: dict[str, Any], headers: dict | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_raw(self, status: int, data: bytes, kind: str, headers: dict | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True


StandinOpenAI.handler = _Handler


def main() -> None:
    serve(StandinOpenAI, Script, MODES, "standin-1b", __doc__ or "")


if __name__ == "__main__":
    main()
