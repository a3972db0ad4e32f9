"""A stand-in Ollama server: a real HTTP server on 127.0.0.1 with scripted replies.

Why: no Ollama binary can be installed here, and the backend must be tested over real HTTP with
the official ``ollama`` client (no mocked client). This server speaks the subset of the Ollama API
the client uses: ``POST /api/chat`` (JSON with ``message.content``, ``message.thinking``,
``prompt_eval_count``, ``eval_count``; an NDJSON stream of chunks when ``stream`` is true),
``GET /api/tags``, ``POST /api/show`` (``model_info`` with ``<arch>.context_length``) and
``404 {"error": "model 'x' not found"}``.

Each model gets a ``Script``: how it answers (``correct``, ``fenced``, ``prose``, ``thinking``,
``malformed``, ``slow``, ``http500``, ``drop``), after how long, and optionally how many first
requests fail before it behaves. ``answer`` decides the JSON answer text for a request (default: a
schema-valid answer built from ``format``).

Run it alone (the benchmark does, in its own process):
``python tests/support/ollama_standin.py --model bench --delay 0.05`` prints ``PORT <n>``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("correct", "fenced", "prose", "thinking", "malformed", "slow", "http500", "drop")

Answerer = Callable[[dict[str, Any]], str]
CHUNK = 4096  # characters of the answer per line of a streamed reply


@dataclass
class Script:
    """How one model answers. ``fail_first`` requests fail with ``failure`` first."""

    mode: str = "correct"
    delay: float = 0.0
    fail_first: int = 0
    failure: str = "http500"
    thinking: str = "Let me think step by step about the states."
    context_length: int = 32768
    slow_every: int = 0  # every n-th chat request is ``slow`` (0: never)
    fields: dict[str, Any] = field(default_factory=dict)  # merged into each chat response
    show_body: str | None = None  # raw body of /api/show (malformed on purpose), if given
    error_text: str = "llama runner process has terminated: scripted failure"  # of http500
    single_body: bool = False  # answer one JSON body even when a stream is asked for
    seen: int = field(default=0, repr=False)


def schema_answer(schema: Any) -> Any:
    """A value that satisfies a (simple) JSON schema: first enum, first items, 0.5, true."""
    if not isinstance(schema, dict):
        return {}
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {name: schema_answer(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        items = schema.get("items", {})
        if isinstance(items, dict) and "enum" in items:
            return list(items["enum"])[: schema.get("maxItems", len(items["enum"]))]
        return [schema_answer(items) for _ in range(schema.get("minItems", 1))]
    if kind in ("number", "integer"):
        return 0.5 if kind == "number" else 0
    if kind == "boolean":
        return True
    return "yes"


def default_answer(request: dict[str, Any]) -> str:
    return json.dumps(schema_answer(request.get("format")))


class StandinOllama:
    """The server; ``with StandinOllama({...}) as server: server.url``."""

    handler: type[BaseHTTPRequestHandler]  # set below the handler's class (``_Handler``)

    def __init__(
        self,
        models: dict[str, Script] | None = None,
        *,
        answer: Answerer | None = None,
        port: int = 0,
    ):
        self.models: dict[str, Script] = (
            dict(models) if models is not None else {"gemma3:1b": Script()}
        )
        self.answer: Answerer = answer or default_answer
        self.requests: list[dict[str, Any]] = []  # every request: path, headers, body
        self.in_flight = 0  # chat requests being answered now
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> StandinOllama:
        handler = type("Handler", (self.handler,), {"standin": self})
        self._server = _Server(("127.0.0.1", self._port), handler)
        self._port = self._server.server_address[1]  # keep the port for a restart
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop answering: close the port (refused until ``start`` again) and every open
        keep-alive connection, as a crashed server would."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.close_connections()
            self._server = None

    def __enter__(self) -> StandinOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def chats(self) -> list[dict[str, Any]]:
        """The bodies of all /api/chat requests so far."""
        with self.lock:
            return [r["body"] for r in self.requests if r["path"] == "/api/chat"]

    # -- behaviour ----------------------------------------------------------------------------

    def script_for(self, model: str) -> Script | None:
        name = model if ":" in model else f"{model}:latest"
        return self.models.get(name) or self.models.get(model)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, *args: Any):
        self.open: set[socket.socket] = set()
        self.open_lock = threading.Lock()
        super().__init__(*args)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.open_lock:
            self.open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.open_lock:
            self.open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self.open_lock:
            for connection in list(self.open):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            self.open.clear()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that give up (timeouts) break pipes; that is expected here."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real server
    standin: StandinOllama

    def setup(self) -> None:
        super().setup()
        # Like Go's net/http (Ollama): no Nagle delay between the header and the body writes
        # (with the client's delayed ACK it would add ~40 ms to every reply).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    # -- routing ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._record(None)
        if self.path == "/api/tags":
            self._send(200, {"models": [_tag(name) for name in self.standin.models]})
        elif self.path in ("/", "/api/version"):
            self._send(200, {"version": "0.6.0-standin"})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self._record(body)
        if self.path == "/api/chat":
            with self.standin.lock:
                self.standin.in_flight += 1
                self.standin.max_in_flight = max(self.standin.max_in_flight, self.standin.in_flight)
            try:
                self._chat(body)
            finally:
                with self.standin.lock:
                    self.standin.in_flight -= 1
        elif self.path == "/api/show":
            self._show(body)
        else:
            self._send(404, {"error": "not found"})

    # -- endpoints ----------------------------------------------------------------------------

    def _show(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        script = self.standin.script_for(model)
        if script is None:
            self._send(404, {"error": f"model '{model}' not found"})
            return
        if script.show_body is not None:
            self._send_raw(200, script.show_body.encode())
            return
        capabilities = ["completion"] + (["thinking"] if script.mode == "thinking" else [])
        self._send(
            200,
            {
                "modelfile": "",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": {"format": "gguf", "family": "gemma3", "parameter_size": "1B"},
                "model_info": {
                    "general.architecture": "gemma3",
                    "gemma3.context_length": script.context_length,
                },
                "capabilities": capabilities,
            },
        )

    def _chat(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        script = self.standin.script_for(model)
        if script is None:
            self._send(404, {"error": f"model '{model}' not found"})
            return
        with self.standin.lock:
            script.seen += 1
            failing = script.seen <= script.fail_first
            slow_now = bool(script.slow_every) and script.seen % script.slow_every == 0
        mode = script.failure if failing else script.mode
        if slow_now:
            mode = "slow"
        if script.delay:
            time.sleep(script.delay)
        if mode == "slow":
            time.sleep(max(script.delay, 30.0))
        if mode == "http500":
            self._send(500, {"error": script.error_text})
            return
        if mode == "drop":
            self._drop()
            return
        answer = self.standin.answer(body)
        thinking = ""
        content = answer
        if mode == "fenced":
            content = f"```json\n{answer}\n```"
        elif mode == "prose":
            content = f"Sure! Here is my answer:\n{answer}\nI hope this helps."
        elif mode == "thinking":
            thinking = script.thinking
        elif mode == "malformed":
            content = answer[: answer.index(":") + 1] if ":" in answer else "{"  # cut off
        prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        message = {"role": "assistant", "content": content}
        if thinking:
            message["thinking"] = thinking
        final = {
            "model": model,
            "created_at": "2025-01-01T00:00:00Z",
            "message": message,
            "done": True,
            "done_reason": "stop",
            "total_duration": int(script.delay * 1e9),
            "prompt_eval_count": max(1, len(prompt) // 4),
            "eval_count": max(1, len(content) // 4),
            **script.fields,
        }
        if body.get("stream") is True and not script.single_body:
            self._stream(final, thinking, content, script.fields)
        else:
            self._send(200, final)

    def _stream(
        self, final: dict[str, Any], thinking: str, content: str, fields: dict[str, Any]
    ) -> None:
        """Ollama's NDJSON stream: the thinking, then the answer, in chunks of ``CHUNK``
        characters (a real server sends a token a line), then the summary with ``done``."""
        model, created = final["model"], final["created_at"]
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for key, text in (("thinking", thinking), ("content", content)):
                for start in range(0, len(text), CHUNK):
                    piece = {"role": "assistant", "content": "", key: text[start : start + CHUNK]}
                    self._chunk({"model": model, "created_at": created, "message": piece})
            empty = {"role": "assistant", "content": ""}
            self._chunk({**final, "message": empty, **fields})  # ``fields`` may spoil it
            self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client stopped reading (a cut reply): the rest is never sent
            self.close_connection = True

    def _chunk(self, part: dict[str, Any]) -> None:
        data = json.dumps(part).encode() + b"\n"
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    # -- plumbing -----------------------------------------------------------------------------

    def _record(self, body: Any) -> None:
        with self.standin.lock:
            self.standin.requests.append(
                {"path": self.path, "headers": dict(self.headers), "body": body}
            )

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        self._send_raw(status, json.dumps(payload).encode())

    def _send_raw(self, status: int, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True

    def _drop(self) -> None:
        """Close the connection without answering (a crashed or restarted server)."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


StandinOllama.handler = _Handler


def _tag(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 815_000_000,
        "digest": "0" * 64,
        "details": {"format": "gguf", "family": "gemma3", "parameter_size": "1B"},
    }


def serve(server_class: Any, script_class: Any, modes: tuple[str, ...], model: str, doc: str):
    """Run a stand-in alone until Ctrl-C, printing ``PORT <n>`` (what the benchmark reads)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--model", action="append", default=[])
    parser.add_argument("--mode", default="correct", choices=modes)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    models = {m: script_class(mode=args.mode, delay=args.delay) for m in args.model or [model]}
    server = server_class(models, port=args.port).start()
    print(f"PORT {server.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


def main() -> None:
    serve(StandinOllama, Script, MODES, "gemma3:1b", __doc__ or "")


if __name__ == "__main__":
    main()
