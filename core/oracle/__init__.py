"""The exact model-checking oracle: PRISM MDP -> V, Q, D, A*, A°, dead ends, bottlenecks, C_B.

Public entry points: ``compute_oracle`` (blocking) and ``compute_oracle_async`` (cancellable),
both isolated in a child process and cached on disk; ``compute_in_process`` for callers that are
themselves a child or a benchmark.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from explaincheck.core.errors import ModelError, ModelTooLargeError
from explaincheck.core.notices import warn_once
from explaincheck.core.oracle import cache
from explaincheck.core.oracle.isolation import OracleJob, OracleProgress, ProgressCallback
from explaincheck.core.oracle.types import OracleRequest, OracleResult, Progress, StateFacts

__all__ = [
    "OracleProgress",
    "OracleRequest",
    "OracleResult",
    "StateFacts",
    "compute_in_process",
    "compute_oracle",
    "compute_oracle_async",
]


def compute_in_process(
    request: OracleRequest, progress: Progress | None = None, *, columnar_from: int | None = None
) -> OracleResult:
    """``compute.compute_in_process``, imported only when called: the computing modules (numpy,
    scipy, rustworkx, Storm) take half a second to import, which a command that only starts the
    child process (``explaincheck oracle``) would otherwise pay before the child even starts."""
    from explaincheck.core.oracle.compute import compute_in_process as compute

    return compute(request, progress, columnar_from=columnar_from)


# A PRISM file this large (generated models) takes minutes to build: said before it starts.
LARGE_MODEL_BYTES = 1 << 20


def _cached(request: OracleRequest, use_cache: bool) -> tuple[str | None, OracleResult | None]:
    from explaincheck.core.oracle.storm.building import _check_file
    from explaincheck.core.oracle.storm.targets import check_target_text

    _check_file(Path(request.model_path))  # clear errors for missing/empty/binary files first
    given = [(request.goal_label, "goal"), (request.unsafe_label, "unsafe")]
    if request.property is not None:  # also a property not read from text (a stored one)
        given.append((request.property.text, "property"))
    for text, role in given:
        if text.strip():  # an expression past the stated size never reaches Storm's parser
            check_target_text(text, role)
    key = cache.request_hash(request) if use_cache else None
    hit = cache.load(key) if key is not None else None
    if hit is None:
        _say_if_large(Path(request.model_path))
    return key, hit


def _say_if_large(path: Path) -> None:
    size = path.stat().st_size
    if size >= LARGE_MODEL_BYTES:
        warn_once(
            f"{path} is {size / 2**20:,.1f} MB of PRISM text: building its model may take"
            " minutes (Ctrl-C cancels)",
            kind="note",
        )


def _as_requested(result: OracleResult, request: OracleRequest) -> OracleResult:
    """Check an explicitly named unsafe label, and name this copy of the file (a cache hit
    keyed by content may come from another copy)."""
    if result.model.states > request.state_limit:  # a cached result obeys the limit too
        raise ModelTooLargeError(
            f"{request.model_path}: the model has {result.model.states:,} states, more than the"
            f" limit of {request.state_limit:,} (raise it with --state-limit of oracle or run or in"
            " the GUI's Settings, or use smaller constants)"
        )
    if request.require_unsafe and not result.has_danger:
        labels = ", ".join(result.model.labels) or "none"
        raise ModelError(
            f"{request.model_path}: the unsafe label {request.unsafe_label!r} is not defined; "
            f"labels are: {labels}"
        )
    # the request's property, worded: the pipeline's result states its form (a cache entry
    # keyed by the same property may carry another environment's words)
    model = replace(result.model, path=str(request.model_path))
    if request.property is not None:
        model = replace(model, property=request.property)
    return replace(result, model=model)


def compute_oracle(
    request: OracleRequest,
    *,
    use_cache: bool = True,
    timeout: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> OracleResult:
    """The oracle of ``request``: from the cache, or computed in an isolated child process
    (``on_progress`` hears its phase, counts and memory a few times a second)."""
    key, hit = _cached(request, use_cache)
    if hit is not None:
        return _as_requested(hit, request)
    result = OracleJob(request, on_progress=on_progress).wait(timeout)
    if key is not None:
        cache.store(key, result)
    return _as_requested(result, request)


async def compute_oracle_async(
    request: OracleRequest,
    *,
    use_cache: bool = True,
    on_progress: ProgressCallback | None = None,
) -> OracleResult:
    """Like ``compute_oracle`` without blocking the event loop; cancelling kills the child.
    ``on_progress`` is called on the event loop's thread."""
    import asyncio  # here: ``oracle --json`` blocks and need not import it (0.1 s of CPU)

    key, hit = await asyncio.to_thread(_cached, request, use_cache)  # JSON parse off the loop
    if hit is not None:
        return _as_requested(hit, request)
    callback = None
    if on_progress is not None:
        loop = asyncio.get_running_loop()

        def callback(progress: OracleProgress) -> None:
            loop.call_soon_threadsafe(on_progress, progress)

    job = OracleJob(request, on_progress=callback)
    try:
        result = await asyncio.to_thread(job.wait)
    except asyncio.CancelledError:
        job.cancel()
        raise
    if key is not None:
        await asyncio.to_thread(cache.store, key, result)
    return _as_requested(result, request)
