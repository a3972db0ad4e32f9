"""From a command-line spec (``random``, ``oracle``, ``ollama:MODEL[@URL]``, ``local:NAME``) to a
``Backend``: one registration line per backend in ``FACTORIES``.

Why a context object: backends need different things (the oracle, the environment, hosts,
timeouts), and every Ollama backend of a campaign must share one host pool per set of hosts so
that per-host concurrency caps hold across models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explaincheck.core.backends.base import Backend
from explaincheck.core.backends.llm import Decoding
from explaincheck.core.backends.ollama_hosts import HostPool, configured_hosts
from explaincheck.core.errors import ExplaincheckError

if TYPE_CHECKING:
    from explaincheck.core.environments.types import Environment
    from explaincheck.core.oracle.types import OracleResult

LOCAL_DEFAULT = "local:gemma3-270m"
LOCAL_SPECS = (LOCAL_DEFAULT, "local:smollm2-135m")  # the bundled models (local_backend.BUNDLED)


@dataclass
class BackendContext:
    """What backends are built from; ``close()`` releases the shared host pools."""

    oracle: OracleResult | None = None
    environment: Environment | None = None
    decoding: Decoding = field(default_factory=Decoding)
    concurrency: int = 4
    timeout: float = 120.0
    ollama_hosts: tuple[str, ...] = ()
    pause: float = 0.5  # first pause of a failing Ollama host (doubles, up to 30 s)
    retries: int = 3
    _pools: dict[tuple[str, ...], HostPool] = field(default_factory=dict, repr=False)

    def pool(self, hosts: tuple[str, ...]) -> HostPool:
        key = configured_hosts(hosts)
        if key not in self._pools:
            self._pools[key] = HostPool(
                key, capacity=self.concurrency, timeout=self.timeout, pause=self.pause
            )
        return self._pools[key]

    async def close(self) -> None:
        for pool in self._pools.values():
            await pool.close()
        self._pools.clear()


def _random(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.random_backend import RandomBackend

    return RandomBackend(_need_oracle(ctx, "random"), ctx.environment, ctx.decoding.seed)


def _oracle(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.oracle_backend import OracleBackend

    return OracleBackend(_need_oracle(ctx, "oracle"))


def _ollama(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.ollama_backend import OllamaBackend

    model, url = split_model_host(rest)
    hosts = (url,) if url else ctx.ollama_hosts
    return OllamaBackend(model, ctx.pool(hosts), decoding=ctx.decoding, retries=ctx.retries)


def _local(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.local_backend import LocalBackend

    return LocalBackend(rest or "gemma3-270m", decoding=ctx.decoding)


# Registration: spec prefix -> factory(rest of the spec, context). One line per backend.
FACTORIES: dict[str, Callable[[str, BackendContext], Backend]] = {
    "random": _random,
    "oracle": _oracle,
    "ollama": _ollama,
    "local": _local,
}
NEEDS_ARGUMENT = {"ollama"}  # prefixes that need ":MODEL"


def split_model_host(rest: str) -> tuple[str, str | None]:
    """``MODEL@URL`` -> (MODEL, URL); a bare MODEL -> (MODEL, None)."""
    model, at, url = rest.partition("@")  # model names have no "@"; a URL might
    if at and model and url:
        return model, url
    return rest, None


def parse_spec(spec: str) -> tuple[str, str]:
    """(prefix, rest) of a spec, or a one-line error naming the valid forms."""
    prefix, _, rest = spec.strip().partition(":")
    if prefix not in FACTORIES:
        raise ExplaincheckError(
            f"unknown LLM {spec!r}: use random, oracle, ollama:MODEL, ollama:MODEL@URL or"
            f" {LOCAL_DEFAULT}"
        )
    if prefix in NEEDS_ARGUMENT and not rest:
        raise ExplaincheckError(f"LLM {spec!r} needs a model name, e.g. ollama:gemma3:1b")
    if prefix == "ollama" and "@" in (split_model_host(rest)[1] or ""):
        raise ExplaincheckError(
            f"LLM spec for {split_model_host(rest)[0]} has credentials in its URL: the spec is"
            " stored with every result, so give the key in OLLAMA_API_KEY instead"
        )
    if prefix in ("random", "oracle") and rest:
        raise ExplaincheckError(f"LLM {spec!r}: {prefix} takes no model name")
    return prefix, rest


def create_backend(spec: str, ctx: BackendContext) -> Backend:
    prefix, rest = parse_spec(spec)
    backend = FACTORIES[prefix](rest, ctx)
    backend.spec = spec.strip()  # stored as the ``llm`` of every execution: the user's words
    return backend


def _need_oracle(ctx: BackendContext, name: str) -> OracleResult:
    if ctx.oracle is None:
        raise ExplaincheckError(f"the {name} answerer needs the oracle of the environment")
    return ctx.oracle


async def ollama_models(hosts: tuple[str, ...] = (), timeout: float = 3.0) -> dict[str, list[str]]:
    """Models listed by every Ollama host that answers (``/api/tags``); {} when none does."""
    pool = HostPool(hosts, timeout=timeout)
    try:
        await pool.refresh()
        return {h.url: sorted(h.models) for h in pool.answering()}
    finally:
        await pool.close()


async def default_llm_spec(hosts: tuple[str, ...] = (), timeout: float = 3.0) -> str:
    """The real LLM to offer by default: the first model of the first Ollama host that answers,
    else the bundled local model (when no Ollama server answers or none has a model)."""
    try:
        listed = await ollama_models(hosts, timeout)
    except (TimeoutError, OSError):
        listed = {}
    for url, models in listed.items():
        if models:
            single = len(configured_hosts(hosts)) == 1
            return f"ollama:{models[0]}" if single else f"ollama:{models[0]}@{url}"
    return LOCAL_DEFAULT
