"""Which Python binding of llama.cpp runs the local models, behind one small interface.

Why: ``xllamacpp`` ships a prebuilt CPU wheel (manylinux_2_17, so it loads on older glibc too)
and is what the extra ``local`` installs; it is preferred. ``llama-cpp-python`` is published as
source only, so its install compiles llama.cpp (minutes; gcc, g++ and cmake), and a build on a
CPU that advertises AMX died with SIGILL on its first generation; it answered about 3 times
faster where it worked, so it stays an opt-in (extra ``local-compiled``), chosen by the setting
or ``EXPLAINCHECK_LLAMA_BINDING=llama-cpp-python``. Both give JSON-schema constrained chat
completions; this module hides their different APIs from ``local_backend``.

**Determinism.** The same prompt with seed 0 at temperature 0 once gave ``{"probability": 1}``
in one process and ``{"probability": 0.0000000000000000}`` in another (a resumed CLI run and
the GUI). What differed between the processes is what llama.cpp chooses by itself: the thread
count (from the CPU), the batch size, and above all the prefix cache, which reuses the keys and
values of the previous prompt's common prefix, so a prompt's numbers depended on the prompt
asked before it. Both bindings therefore run with ``THREADS`` threads, batches of ``BATCH``
tokens and no prefix reuse (every prompt evaluated from an empty cache), and each reply says
so (``DETERMINISM``, kept in the reply's ``extra`` and in the reply cache's request identity).
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

log = logging.getLogger("explaincheck.backends.local")

# Module name of each binding, most preferred first.
BINDINGS = ("xllamacpp", "llama_cpp")
# What a user may write for each (setting, ``EXPLAINCHECK_LLAMA_BINDING``, ``--llama-binding``).
NAMES = {
    "xllamacpp": "xllamacpp",
    "llama-cpp-python": "llama_cpp",
    "llama_cpp": "llama_cpp",
}
ENVIRONMENT = "EXPLAINCHECK_LLAMA_BINDING"
THREADS = 2  # fixed, not the CPU's count: the same numbers on every machine and front end
BATCH = 512  # prompt tokens evaluated per batch (llama.cpp's micro-batch as well)
# What makes a local reply reproducible for a fixed seed, stored with each reply.
DETERMINISM: dict[str, Any] = {"threads": THREADS, "batch": BATCH, "prefix_cache": False}


class BindingError(Exception):
    """A request the binding refused or failed (mapped to ``BackendError`` by the caller)."""


@dataclass(frozen=True)
class ChatResult:
    """One constrained chat completion, in the fields a ``Reply`` needs."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None


class LocalModel(Protocol):
    """A loaded GGUF model that answers one chat message under a JSON schema."""

    binding: str

    def chat_json(
        self, text: str, schema: dict[str, Any], *, temperature: float, seed: int, max_tokens: int
    ) -> ChatResult: ...

    def close(self) -> None: ...


def installed_bindings() -> list[str]:
    """The installed bindings, most preferred first (found without importing them)."""
    return [name for name in BINDINGS if importlib.util.find_spec(name) is not None]


def binding_module(name: str) -> str:
    """The module of a binding as a user names it ("llama-cpp-python" -> "llama_cpp")."""
    module = NAMES.get(name.strip().lower())
    if module is None:
        raise LookupError(f"unknown llama.cpp binding {name!r}: use xllamacpp or llama-cpp-python")
    return module


def choose_binding(preferred: str | None = None) -> str:
    """The binding to load with: ``preferred`` (a setting or option), else
    ``EXPLAINCHECK_LLAMA_BINDING``, else the most preferred installed one.

    Raises ``LookupError`` when no binding (or not the one asked for) is installed.
    """
    asked = preferred or os.environ.get(ENVIRONMENT, "").strip() or None
    names = installed_bindings()
    if asked is not None:
        module = binding_module(asked)
        if module not in names:
            extra = "local-compiled" if module == "llama_cpp" else "local"
            raise LookupError(
                f"the llama.cpp binding {asked!r} is not installed"
                f" (pip install 'explaincheck[{extra}]')"
            )
        return module
    if not names:
        raise LookupError("no llama.cpp binding is installed")
    return names[0]


def load_model(path: Path, n_ctx: int, binding: str | None = None) -> LocalModel:
    """Load ``path`` with ``binding`` (module name; default: ``choose_binding()``).

    Raises ``LookupError`` when no binding (or not the one asked for) is installed.
    """
    module = choose_binding(binding)
    if module == "llama_cpp":
        return LlamaCppModel(path, n_ctx)
    return XllamacppModel(path, n_ctx)


class LlamaCppModel:
    """``llama-cpp-python``'s ``Llama`` (not thread-safe: the caller serialises requests)."""

    binding = "llama_cpp"

    def __init__(self, path: Path, n_ctx: int):
        from llama_cpp import Llama

        _quiet_llama_cpp_log()
        self._llama = Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            verbose=False,
            seed=0,
            n_threads=THREADS,
            n_threads_batch=THREADS,
            n_batch=BATCH,
            n_ubatch=BATCH,
        )

    def chat_json(
        self, text: str, schema: dict[str, Any], *, temperature: float, seed: int, max_tokens: int
    ) -> ChatResult:
        llama = self._llama
        prompt_tokens = len(llama.tokenize(text.encode(), add_bos=True))
        if prompt_tokens + max_tokens > llama.n_ctx():
            raise BindingError(
                f"a prompt of {prompt_tokens} tokens and an answer of up to {max_tokens}"
                f" (--max-tokens) do not fit in the context of {llama.n_ctx()} tokens"
            )
        llama.reset()  # no prefix reuse: the previous prompt must not change this one's numbers
        try:
            result = llama.create_chat_completion(
                messages=[{"role": "user", "content": text}],
                temperature=temperature,
                seed=seed,
                max_tokens=max_tokens,
                response_format={"type": "json_object", "schema": schema},
            )
        except (ValueError, RuntimeError) as error:
            raise BindingError(str(error)) from None
        return _chat_result(cast(dict[str, Any], result))  # not streamed: one response

    def close(self) -> None:
        # Explicit, because ``Llama.__del__`` fails once llama_cpp's module globals are gone.
        self._llama.close()


class XllamacppModel:
    """``xllamacpp``'s in-process llama.cpp server with one slot (so the whole context)."""

    binding = "xllamacpp"

    def __init__(self, path: Path, n_ctx: int):
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.sampling.seed = 0
        params.cpuparams.n_threads = THREADS
        params.cpuparams_batch.n_threads = THREADS
        params.n_batch = BATCH
        params.n_ubatch = BATCH
        params.cache_prompt = False  # no prefix reuse between prompts
        params.n_cache_reuse = 0
        params.verbosity = -1  # llama.cpp's notes on stderr would break the progress bar
        self._server: Any = xllamacpp.Server(params)

    def chat_json(
        self, text: str, schema: dict[str, Any], *, temperature: float, seed: int, max_tokens: int
    ) -> ChatResult:
        result = self._server.handle_chat_completions(
            {
                "messages": [{"role": "user", "content": text}],
                "temperature": temperature,
                "seed": seed,
                "max_tokens": max_tokens,
                "cache_prompt": False,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema},
                },
            }
        )
        error = result.get("error")
        if error is not None:
            message = error.get("message") if isinstance(error, dict) else error
            raise BindingError(str(message))
        return _chat_result(result)

    def close(self) -> None:
        self._server = None


def _chat_result(result: dict[str, Any]) -> ChatResult:
    """The OpenAI-style completion dict both bindings return, as a ``ChatResult``."""
    choice = result["choices"][0]
    usage = result.get("usage") or {}
    return ChatResult(
        text=(choice["message"].get("content") or "").strip(),
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        finish_reason=choice.get("finish_reason"),
    )


_log_callback: Any = None  # kept alive: llama.cpp calls it from C


def _quiet_llama_cpp_log() -> None:
    """llama.cpp prints notes on stderr even with ``verbose=False``; route them to debug logs
    so they do not break the terminal progress bar."""
    global _log_callback
    if _log_callback is not None:
        return
    import llama_cpp

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        log.debug("llama.cpp: %s", text.decode(errors="replace").rstrip())

    _log_callback = callback
    llama_cpp.llama_log_set(callback, ctypes.c_void_p())
