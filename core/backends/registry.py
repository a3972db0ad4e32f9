"""From a command-line spec (``random``, ``oracle``, ``noisy:Q``, ``flaw:KIND``,
``ollama:MODEL[@URL]``, ``local:NAME``) to a ``Backend``: one registration line per backend
in ``FACTORIES``.

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
from explaincheck.core.backends.ollama_hosts import (
    HostPool,
    configured_hosts,
    normalize_host,
    redact_url,
)
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


def _flaw(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.flaw_backend import FlawedBackend
    from explaincheck.core.oracle.flawed import parse_flaw

    return FlawedBackend(_need_oracle(ctx, "flawed"), parse_flaw(rest))


def _noisy(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.noisy_backend import NoisyBackend, parse_share

    oracle = _need_oracle(ctx, "noisy")
    return NoisyBackend(oracle, parse_share(rest), ctx.environment, ctx.decoding.seed)


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
    "flaw": _flaw,
    "noisy": _noisy,
    "ollama": _ollama,
    "local": _local,
}
NEEDS_ARGUMENT = {"ollama", "flaw", "noisy"}  # prefixes that need ":MODEL" (":KIND", ":Q")


def _check_argument(prefix: str, rest: str) -> None:
    """A bad ``flaw:``/``noisy:`` argument fails with the spec, before any oracle is computed."""
    if prefix == "flaw":
        from explaincheck.core.oracle.flawed import parse_flaw

        parse_flaw(rest)
    elif prefix == "noisy":
        from explaincheck.core.backends.noisy_backend import parse_share

        parse_share(rest)


def split_model_host(rest: str) -> tuple[str, str | None]:
    """``MODEL@URL`` -> (MODEL, URL); a bare MODEL -> (MODEL, None)."""
    model, at, url = rest.partition("@")  # model names have no "@"; a URL might
    if at and model and url:
        return model, url
    return rest, None


def normalize_spec(spec: str) -> str:
    """The spec as stored with every result: no surrounding whitespace (``" random"`` is
    ``random``) and no userinfo, query or fragment in an Ollama URL (where tokens hide).
    Never raises, so it may name a spec in an error message."""
    spec = str(spec).strip()
    prefix, colon, rest = spec.partition(":")
    prefix = prefix.strip()
    if not colon:
        return prefix
    if prefix == "ollama":
        model, url = split_model_host(rest.strip())
        if url is not None:
            return f"ollama:{model.strip()}@{redact_url(url)}"
        return f"ollama:{model.strip()}"
    return f"{prefix}:{rest.strip()}"


def parse_spec(spec: str) -> tuple[str, str]:
    """(prefix, rest) of a spec, or a one-line error naming the valid forms."""
    shown = normalize_spec(spec)
    prefix, _, rest = shown.partition(":")
    if prefix not in FACTORIES and ("@" in shown or "?" in shown):
        shown = shown.split("@", 1)[0].split("?", 1)[0] + "@…"  # nothing after it is shown
    if prefix not in FACTORIES:
        raise ExplaincheckError(
            f"unknown LLM {shown!r}: use random, oracle, noisy:Q, flaw:KIND, ollama:MODEL,"
            f" ollama:MODEL@URL or {LOCAL_DEFAULT}"
        )
    if prefix in NEEDS_ARGUMENT and not rest:
        what, example = {
            "flaw": ("a flaw", "flaw:myopic:2"),
            "noisy": ("a share Q", "noisy:0.5"),
        }.get(prefix, ("a model name", "ollama:gemma3:1b"))
        raise ExplaincheckError(f"LLM {shown!r} needs {what}, e.g. {example}")
    _check_argument(prefix, rest)
    model, url = split_model_host(rest)
    raw_url = split_model_host(str(spec).strip().partition(":")[2])[1]
    if prefix == "ollama" and "@" in (raw_url or ""):
        raise ExplaincheckError(
            f"LLM spec for {model} has credentials in its URL: the spec is"
            " stored with every result, so give the key in OLLAMA_API_KEY instead"
        )
    if prefix == "ollama" and url is not None:
        normalize_host(url)  # a clear one-line error for a URL that cannot be used
    if prefix in ("random", "oracle") and rest:
        raise ExplaincheckError(f"LLM {shown!r}: {prefix} takes no model name")
    return prefix, rest


def create_backend(spec: str, ctx: BackendContext) -> Backend:
    prefix, rest = parse_spec(spec)
    backend = FACTORIES[prefix](rest, ctx)
    backend.spec = normalize_spec(spec)  # stored as the ``llm`` of every execution
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
