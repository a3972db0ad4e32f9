"""Bringing Inspect logs of ``explaincheck/bench`` into a results file (``import-inspect``).

Why replay through the campaign runner: a results file written any other way would be a second
writer of rows (keys, campaign identity, grading facts) that drifts from the runner's. Each
log's samples become the replies of a ``Replay`` answerer, named ``inspect:<Inspect model>``,
and the set's plans (``bench.asking``) run with it, limited to the questions the log answered:
rows are graded by the same grader and read by report, compare and the window like any
campaign's. Inspect's own verdict (the score's ``verdict``) is compared with explaincheck's and
every difference is told. Each reply keeps the log's token counts (the output's usage) and
time (the generation's seconds, else the sample's working time), and each execution and the
campaign the times the log ran (not the import's), so report's cost and time tables are filled.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from explaincheck.core.backends.base import (
    ANSWERED_AT,
    ASKED_AT,
    Backend,
    BackendError,
    Reply,
    clean_count,
)
from explaincheck.core.bench.asking import bench_plans
from explaincheck.core.bench.inspect_log_size import check_log_size
from explaincheck.core.bench.questions import BenchSet, cached_default_set, read_set
from explaincheck.core.campaign.runner import CampaignRunner
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.json_input import Fields
from explaincheck.core.store import Store
from explaincheck.core.taxonomy.base import Prompt, TestCase

TASK = "explaincheck/bench"
PREFIX = "inspect:"
GENERATE_SETTINGS = ("temperature", "seed", "max_tokens")  # kept in the campaign's notes
INFINITY = float("inf")


@dataclass
class LoggedRun:
    """One Inspect log of the task: its model, the set it asked and each sample's reply."""

    path: str
    model: str
    bench_dir: str | None
    sha256: str | None
    replies: dict[str, Reply] = field(default_factory=dict)  # question id -> its reply
    verdicts: dict[str, str] = field(default_factory=dict)  # question id -> Inspect's verdict
    started: str | None = None  # when the log's run started (ISO UTC), None if it does not say
    generate: dict[str, Any] = field(default_factory=dict)  # temperature, seed, max_tokens


@dataclass(frozen=True)
class Imported:
    llm: str
    log: str
    executions: int
    disagreements: tuple[str, ...]  # question ids where Inspect's verdict is not explaincheck's


class Replay(Backend):
    """Answers with the replies of a log (by question id); a question it lacks is an error."""

    concurrency = 64

    def __init__(self, spec: str, env_id: str, replies: dict[str, Reply]):
        self.spec = spec
        self.env_id = env_id
        self.replies = replies

    async def answer(self, prompt: Prompt, case: TestCase) -> Reply:
        found = self.replies.get(f"{self.env_id}/{case.key}")
        if found is None:
            raise BackendError("no reply in the Inspect log")
        return found


def logged_runs(log_dir: str | Path) -> Iterator[LoggedRun]:
    """The logs of the task under ``log_dir`` (a folder or one log file), oldest first."""
    try:
        from inspect_ai.log import list_eval_logs, read_eval_log
    except ImportError:
        raise ExplaincheckError(
            "import-inspect needs the optional extra inspect (pip install 'explaincheck[inspect]')"
        ) from None
    root = Path(log_dir)
    if not root.exists():
        raise ExplaincheckError(f"{root}: no such folder or file")
    paths = [root] if root.is_file() else [info.name for info in list_eval_logs(str(root))]
    found = 0
    for path in reversed(paths):
        check_log_size(str(path))
        try:
            log = read_eval_log(str(path))
        except Exception as error:  # a log Inspect cannot read: one line, never a traceback
            raise ExplaincheckError(
                f"{path}: not an Inspect log ({type(error).__name__})"
            ) from None
        if log.eval.task not in (TASK, "bench"):
            continue
        found += 1
        yield _run_of(str(path), log)
    if not found:
        raise ExplaincheckError(f"{root}: no Inspect log of the task {TASK}")


def _run_of(path: str, log: Any) -> LoggedRun:
    """The run a log holds; its metadata (written by the task, editable by anyone) is checked
    field by field, so a tampered log is one line naming the field."""
    where = f"{path}: log metadata"
    metadata = Fields(log.eval.metadata or {}, where)
    bench_dir = metadata.text("bench_dir", optional=True)
    note = Fields(metadata.mapping("bench", optional=True) or {}, f"{where}: field 'bench'")
    sha256 = note.text("sha256", optional=True)
    run = LoggedRun(path, str(log.eval.model), bench_dir or None, sha256 or None)
    stats = getattr(log, "stats", None)
    run.started = _stamp(getattr(stats, "started_at", None)) or _stamp(log.eval.created)
    run.generate = generate_settings(log)
    for sample in log.samples or []:
        if sample.output is None or sample.error is not None:
            continue
        qid = str(sample.id)
        run.replies[qid] = logged_reply(sample)
        for score in (sample.scores or {}).values():
            verdict = (score.metadata or {}).get("verdict")
            if verdict:
                run.verdicts[qid] = str(verdict)
    return run


def generate_settings(log: Any) -> dict[str, Any]:
    """The temperature, seed and output cap the log's run asked with (the task's config, then
    the run's own options over it), the finite numbers among them."""
    found: dict[str, Any] = {}
    task_config = getattr(getattr(log, "plan", None), "config", None)
    for config in (task_config, getattr(log.eval, "model_generate_config", None)):
        for name in GENERATE_SETTINGS:
            value = getattr(config, name, None)
            if _finite(value):
                found[name] = value
    return found


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < INFINITY


def logged_reply(sample: Any) -> Reply:
    """A sample's reply with the log's token counts, seconds and times (what it lacks: None)."""
    output = sample.output
    usage = getattr(output, "usage", None)
    timed: list[Any] = [getattr(output, "time", None), getattr(sample, "working_time", None)]
    seconds = next((float(t) for t in timed if _finite(t)), 0.0)
    times = {
        key: stamp
        for key, value in ((ASKED_AT, "started_at"), (ANSWERED_AT, "completed_at"))
        if (stamp := _stamp(getattr(sample, value, None)))
    }
    return Reply(
        text=output.completion,
        latency=seconds,
        prompt_tokens=clean_count(getattr(usage, "input_tokens", None)),
        completion_tokens=clean_count(getattr(usage, "output_tokens", None)),
        reasoning_tokens=clean_count(getattr(usage, "reasoning_tokens", None)),
        cached_prompt_tokens=clean_count(getattr(usage, "input_tokens_cache_read", None)),
        extra=times,
    )


def _stamp(value: Any) -> str | None:
    """An Inspect time (ISO text or datetime) as the store's UTC text, or None if it is none."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC).isoformat(timespec="milliseconds")
    except (OverflowError, ValueError):  # a date at the calendar's edge in another zone
        return None


def import_logs(
    log_dir: str | Path, db_path: str | Path, bench_dir: str | Path | None = None
) -> list[Imported]:
    """Store every log of the task under ``log_dir`` in ``db_path``; the set is ``bench_dir``,
    else the one the log names, else the default set. A log of another set is refused."""
    import asyncio

    return [asyncio.run(_import(run, db_path, bench_dir)) for run in logged_runs(log_dir)]


async def _import(run: LoggedRun, db_path: str | Path, bench_dir: str | Path | None) -> Imported:
    folder = bench_dir or run.bench_dir
    bench: BenchSet = read_set(folder) if folder else cached_default_set()
    if run.sha256 and run.sha256 != bench.manifest["sha256"]:
        raise ExplaincheckError(
            f"{run.path}: the log asked another question set (sha256 {run.sha256[:12]},"
            f" this set {bench.manifest['sha256'][:12]}); give it with --bench DIR"
        )
    unknown = sorted(set(run.replies) - set(bench.by_id()))
    if unknown:
        raise ExplaincheckError(f"{run.path}: unknown question id {unknown[0][:80]!r}")
    llm = PREFIX + run.model
    executions = 0
    verdicts: dict[str, str] = {}
    with Store.open(db_path) as store:
        for plan in bench_plans(bench, (llm,)):
            env_id = plan.environment_name
            asked = tuple(e for e in plan.executions if f"{env_id}/{e.case.key}" in run.replies)
            if not asked:
                continue
            plan = replace(plan, executions=asked, notes={**plan.notes, **_log_notes(run)})
            backend = Replay(llm, env_id, run.replies)
            runner = CampaignRunner(plan, store, {llm: backend}, ran_at=run.started)
            await runner.run()
            executions += len(asked)
        for row in store.iter_stored(llm=llm):
            verdicts[f"{row.environment}/{row.case_key}"] = row.verdict
    differ = tuple(q for q, v in run.verdicts.items() if verdicts.get(q, v) != v)
    return Imported(llm, run.path, executions, differ)


def _log_notes(run: LoggedRun) -> dict[str, Any]:
    """What the campaign keeps of the log: its path and the settings it generated with."""
    return {"inspect_log": run.path, **({"inspect_generate": run.generate} if run.generate else {})}
