"""Local backend: bundled GGUF models (Gemma 3 270M, SmolLM2 135M Instruct) or any GGUF file
(``local:PATH.gguf``) through llama.cpp (optional extra ``local``; ``llama_binding`` picks the
binding, ``model_files`` makes and checks the files).

Why: it gives a real LLM where no Ollama server answers (it is the default real LLM then). One
model instance per process, because each load costs memory and time; requests are serialised on
one daemon worker thread (``native_worker``: Ctrl-C never waits for it), because a ``Llama``
object is not thread-safe and generation would otherwise block the event loop. Answers are
constrained by the category's JSON schema. The first generation of a binding and file in a
process runs in a child first (``native_guard``), so a native crash is an error line, not the
end of the process.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
import time
from pathlib import Path
from typing import Any

from explaincheck.core.backends import native_guard
from explaincheck.core.backends.base import BackendError, Reply
from explaincheck.core.backends.llama_binding import (
    DETERMINISM,
    BindingError,
    LocalModel,
    choose_binding,
    installed_bindings,
    load_model,
)
from explaincheck.core.backends.llm import MAX_TOKENS, Decoding, LLMBackend, RequestIdentity
from explaincheck.core.backends.model_files import EXTRA, bundled_file, is_file_spec, user_file
from explaincheck.core.backends.native_worker import WORKER
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.taxonomy.base import Prompt, TestCase

log = logging.getLogger("explaincheck.backends.local")

N_CTX = 8192

_lock = threading.Lock()
_models: dict[tuple[str, str], LocalModel] = {}  # (binding, model file) -> the one instance
_executor = WORKER  # one daemon thread: a stopped run never waits for a generation (see there)


def local_available() -> bool:
    """Whether the optional extra ``local`` is installed (a llama.cpp binding is)."""
    return bool(installed_bindings())


def model_file(name: str) -> Path:
    """The GGUF file ``local:NAME`` runs: a bundled model's (made on first use) or the file."""
    return user_file(name) if is_file_spec(name) else bundled_file(name)


def _load(path: Path, n_ctx: int, spec: str, preferred: str | None = None) -> LocalModel:
    """The shared model for ``path`` (loaded once, on the worker thread, after its first
    generation passed in a child)."""
    with _lock:
        try:
            binding = choose_binding(preferred)
        except LookupError as error:
            if not installed_bindings():
                raise ExplaincheckError(f"{spec} needs the optional extra: {EXTRA}") from None
            raise ExplaincheckError(f"{spec}: {error}") from None
        model = _models.get((binding, str(path)))
        if model is None:
            native_guard.check_first_generation(binding, path, spec)
            model = load_model(path, n_ctx, binding)
            if not _models:
                atexit.register(_close_models)
            _models[(binding, str(path))] = model
        return model


def _close_models() -> None:
    """Free the models before interpreter teardown (a binding's finaliser may fail once its
    module globals are gone)."""
    if _executor.busy():  # a generation still runs on it: the process ends with it
        return
    with _lock:
        for model in _models.values():
            model.close()
        _models.clear()


class LocalBackend(LLMBackend):
    """A bundled GGUF model, one request at a time."""

    concurrency = 1

    def __init__(
        self,
        name: str = "gemma3-270m",
        *,
        decoding: Decoding | None = None,
        max_tokens: int = MAX_TOKENS,
        n_ctx: int = N_CTX,
        binding: str | None = None,
    ):
        self.name = name
        self.binding = binding  # None: EXPLAINCHECK_LLAMA_BINDING, else the prebuilt one
        self.spec = f"local:{name}"
        self.decoding = decoding or Decoding()
        self.max_tokens = max_tokens
        self.n_ctx = n_ctx
        self._path: Path | None = None
        self._model: Any = None

    async def prepare(self) -> None:
        """Assemble and load the model up front (a missing extra fails the run at once)."""
        loop = asyncio.get_running_loop()
        self._path = await loop.run_in_executor(_executor, model_file, self.name)
        self._model = await loop.run_in_executor(
            _executor, _load, self._path, self.n_ctx, self.spec, self.binding
        )

    def request_identity(self, prompt: Prompt, repeat: int = 0) -> RequestIdentity:
        options = {**self.decoding.options(repeat), "max_tokens": self.max_tokens}
        extras = {"n_ctx": self.n_ctx, **DETERMINISM}  # a reply made otherwise is not reused
        return RequestIdentity("local", ("local",), self.name, options, extras)

    async def answer(self, prompt: Prompt, case: TestCase, *, repeat: int = 0) -> Reply:
        if self._model is None:
            await self.prepare()
        options = self.decoding.options(repeat)
        loop = asyncio.get_running_loop()
        # The single-worker executor serialises requests and keeps generation off the loop.
        return await loop.run_in_executor(_executor, self._complete, prompt, options)

    def _complete(self, prompt: Prompt, options: dict[str, Any]) -> Reply:
        model = self._model
        started = time.monotonic()
        try:
            result = model.chat_json(
                prompt.text,
                prompt.schema,
                temperature=options["temperature"],
                seed=options["seed"],
                max_tokens=self.max_tokens,
            )
        except BindingError as error:
            raise BackendError(f"local:{self.name} failed: {error}") from None
        return Reply(
            text=result.text,
            latency=time.monotonic() - started,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            host="local",
            extra={
                "finish_reason": result.finish_reason,
                "binding": model.binding,
                **DETERMINISM,
            },
        )
