"""The Python API for notebooks and scripts: open a model, plan a campaign, run it, read the
results as a pandas DataFrame.

    from explaincheck.core import api

    model = api.open_model("frozen_lake")
    plan = api.plan(model, ["random", "oracle"], categories="satisfy,best_action", budget=5)
    outcome = api.run(plan, "results.sqlite")          # also inside Jupyter's running loop
    frame = api.results("results.sqlite", prices=["gpt-4o-mini=0.15/0.6"])
    api.study("all", ["random", "oracle"], "study.sqlite", budget=5)  # run --env all

Why a sync ``run`` that works inside a running event loop: Jupyter runs one, and
``asyncio.run`` refuses to start a second on its thread; there the campaign runs on a worker
thread with its own loop (and its own SQLite connection, as SQLite wants), and ``run`` returns
when it is done. ``run_async`` is the same run for code that is async already. The command line
goes through the same functions (``plan_campaign``, ``CampaignSession``, ``merge_databases``,
the exports), so a result from here is a result from ``explaincheck run``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from explaincheck.core.analysis.export import SUFFIX, write_file
from explaincheck.core.backends.ollama_hosts import redact_url
from explaincheck.core.backends.registry import parse_spec
from explaincheck.core.campaign.cost_limit import check_limit
from explaincheck.core.campaign.matrix import expand_environments
from explaincheck.core.campaign.merge import MergeReport, merge_databases
from explaincheck.core.campaign.plan import Plan, plan_campaign
from explaincheck.core.campaign.prices import campaign_prices, price_table, row_cost, with_costs
from explaincheck.core.campaign.progress import Progress
from explaincheck.core.campaign.runner import RunOutcome
from explaincheck.core.campaign.session import BackendSettings
from explaincheck.core.campaign.settings import campaign_from_settings
from explaincheck.core.campaign.shard import parse_shard, shard_plan
from explaincheck.core.environments.registry import BUILTIN_IDS
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store import Store, StoredExecution, result_dict, rows_frame
from explaincheck.core.workspace.campaign import CampaignRequest, Costs, run_campaign
from explaincheck.core.workspace.matrix import MatrixHooks, run_matrix
from explaincheck.core.workspace.model import ModelChoices, ModelWorkspace

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("explaincheck")

_T = TypeVar("_T")


@dataclass(frozen=True)
class Model:
    """A model with its oracle: ``environment`` (words) and ``oracle`` (exact facts)."""

    source: str  # the environment id or PRISM file it was opened from
    environment: Environment
    oracle: OracleResult
    constants: str | None = None
    goal: str | None = None
    unsafe: str | None = None

    @property
    def states(self) -> int:
        return len(self.oracle.states)


def open_model(
    env: str | Path,
    *,
    constants: str | None = None,
    goal: str | None = None,
    unsafe: str | None = None,
) -> Model:
    """A built-in environment id or a ``.prism`` file, model-checked (cached after once).

    It is opened by the ``ModelWorkspace`` the GUI's model panel uses, with ``run``'s meaning
    of the choices (``strict``: constants replace the model's own, a named unsafe label must
    exist), so the oracle is the one ``run --const --goal --unsafe`` computes."""

    workspace = ModelWorkspace()
    choices = ModelChoices(constants or "", goal or "", unsafe or "", strict=True)
    oracle = run_sync(lambda: workspace.open_checked(str(env), choices))
    assert workspace.environment is not None
    return Model(str(env), workspace.environment, oracle, constants, goal, unsafe)


def plan(
    model: Model | str,
    llms: Sequence[str] | str,
    *,
    categories: str | Sequence[str] = "default",
    budget: int = 20,
    selection: str = "prioritized",
    seed: int = 0,
    repeat: int = 1,
    wording: str | int = 0,
    case_seed: int | None = None,
    metamorphic: bool = False,
    shard: str | None = None,
    satisfy_rule: str = "absolute",
    satisfy_tolerance: float = 0.05,
) -> Plan:
    """Every execution of a campaign (``shard="I/N"``: the I-th of N parts), as ``run`` plans;
    ``satisfy_rule`` and ``satisfy_tolerance`` as ``run --satisfy-rule --satisfy-tolerance``,
    ``case_seed`` as ``run --case-seed`` (None: ``seed`` picks the cases)."""
    llms = (llms,) if isinstance(llms, str) else tuple(llms)
    for spec in llms:
        parse_spec(spec)  # a bad spec is one clear error before the oracle is computed
    if isinstance(model, str):
        model = open_model(model)
    campaign = campaign_from_settings(
        model.source,
        llms,
        categories=categories,
        budget=budget,
        selection=selection,
        repeat=repeat,
        seed=seed,
        case_seed=case_seed,
        wording=wording,
        metamorphic=metamorphic,
        satisfy_rule=satisfy_rule,
        satisfy_tolerance=satisfy_tolerance,
        constants=model.constants,
        goal_label=model.goal,
        unsafe_label=model.unsafe,
    )
    found = plan_campaign(campaign, environment=model.environment, oracle=model.oracle)
    options = campaign.run_options()
    if shard:
        found = shard_plan(found, parse_shard(shard))
        options["shard"] = shard
        found = replace(found, notes={**found.notes, "shard": shard})
    return replace(found, notes={**found.notes, "run_options": options})


async def run_async(
    plan: Plan,
    db: str | Path = "results.sqlite",
    *,
    ollama_hosts: Iterable[str] = (),
    openai_base_urls: Iterable[str] = (),
    timeout: float = 120.0,
    concurrency: int = 4,
    retries: int = 3,
    prices: Iterable[str] = (),
    max_cost: float | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    behavioural: bool = False,
) -> RunOutcome:
    """Run ``plan`` into ``db`` (resuming what is stored there) and return how it ended.

    It is ``explaincheck run``'s sequence (``workspace.campaign.run_campaign``): rows stored
    under other grading settings are re-graded and the grading recorded; ``max_cost`` stops it
    cleanly (every LLM that is not an instant answerer needs a price); ``behavioural``: then
    the follow-up probes of its categories."""
    costs, settings = _costs_and_backends(
        prices, max_cost, ollama_hosts, openai_base_urls, timeout, concurrency, retries
    )
    request = CampaignRequest(
        plan.campaign,
        str(db),
        plan.environment,
        plan.oracle,
        settings,
        behavioural=behavioural,
        costs=costs,
        run_options=_run_options(plan, db, ollama_hosts, openai_base_urls, timeout, concurrency),
        plan=plan,
    )
    ran = await run_campaign(request, _ApiHooks(on_progress))
    assert ran is not None  # the API never declines a large plan (it logs the warning)
    return ran.outcome


def _costs_and_backends(
    prices: Iterable[str],
    max_cost: float | None,
    ollama_hosts: Iterable[str],
    openai_base_urls: Iterable[str],
    timeout: float,
    concurrency: int,
    retries: int,
) -> tuple[Costs, BackendSettings]:
    """The prices and limit (checked before any work) and the backends' settings of a run."""
    table = price_table(prices)
    names = ("max_cost", "prices=['MODEL=0.15/0.6']")
    check_limit(max_cost, table, *names)
    settings = BackendSettings(
        ollama_hosts=tuple(ollama_hosts),
        timeout=timeout,
        concurrency=concurrency,
        retries=retries,
        openai_hosts=tuple(openai_base_urls),
    )
    return Costs(table, max_cost, names), settings


class _ApiHooks(MatrixHooks):
    """The run sequence for a script (one campaign, or a study's every campaign):
    ``on_progress`` after every execution, the size warning logged
    (``logging.getLogger("explaincheck")``)."""

    stop_words = "cancelling the task stops the run"

    def __init__(self, on_progress: Callable[[Progress], None] | None) -> None:
        self.on_progress = on_progress

    def large_plan(self, warning: str) -> bool:
        log.warning("%s", warning)
        return True

    def progress(self, progress: Progress) -> None:
        if self.on_progress is not None:
            self.on_progress(progress)


def _run_options(
    plan: Plan,
    db: str | Path,
    ollama_hosts: Iterable[str],
    openai_base_urls: Iterable[str],
    timeout: float,
    concurrency: int,
) -> dict[str, Any]:
    """The plan's recorded run options with where and how it runs (URLs without secrets)."""
    options = dict(plan.notes.get("run_options") or plan.campaign.run_options())
    options.update({"db": str(db), "timeout": timeout, "concurrency": concurrency})
    for key, urls in (("ollama-host", ollama_hosts), ("openai-base-url", openai_base_urls)):
        if urls:
            options[key] = [redact_url(url) for url in urls]
    return options


async def study_async(
    environments: Sequence[str] | str,
    llms: Sequence[str] | str,
    db: str | Path = "study.sqlite",
    *,
    categories: str | Sequence[str] = "default",
    budget: int = 20,
    selection: str = "prioritized",
    seed: int = 0,
    repeat: int = 1,
    case_seed: int | None = None,
    ollama_hosts: Iterable[str] = (),
    openai_base_urls: Iterable[str] = (),
    timeout: float = 120.0,
    concurrency: int = 4,
    retries: int = 3,
    prices: Iterable[str] = (),
    max_cost: float | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutcome:
    """A whole study in one call, as ``explaincheck run --env all`` (or several ``--env``) runs
    it: one campaign per environment (``"all"``: every installed one) into one results file,
    every plan made before anything is asked, one progress over all of them (``on_progress``),
    one cost limit, resumed as a whole by the same call; the environments' default constants
    and labels."""
    names = [environments] if isinstance(environments, str) else list(environments)
    llms = (llms,) if isinstance(llms, str) else tuple(llms)
    for spec in llms:
        parse_spec(spec)  # a bad spec is one clear error before any oracle is computed
    costs, settings = _costs_and_backends(
        prices, max_cost, ollama_hosts, openai_base_urls, timeout, concurrency, retries
    )
    requests = []
    for environment in expand_environments(names, BUILTIN_IDS):
        campaign = campaign_from_settings(
            environment,
            llms,
            categories=categories,
            budget=budget,
            selection=selection,
            repeat=repeat,
            seed=seed,
            case_seed=case_seed,
        )
        requests.append(
            CampaignRequest(
                campaign,
                str(db),
                None,
                None,
                settings,
                costs=costs,
                run_options={**campaign.run_options(), "db": str(db), "env": names},
            )
        )
    ran = await run_matrix(requests, _ApiHooks(on_progress))
    assert ran is not None  # the API never declines a large plan (it logs the warning)
    return ran.outcome


def study(
    environments: Sequence[str] | str,
    llms: Sequence[str] | str,
    db: str | Path = "study.sqlite",
    **options: Any,
) -> RunOutcome:
    """``study_async`` for code that is not async, also inside a running loop (Jupyter)."""
    return run_sync(lambda: study_async(environments, llms, db, **options))


def run(plan: Plan, db: str | Path = "results.sqlite", **options: Any) -> RunOutcome:
    """``run_async`` for code that is not async, also inside a running loop (Jupyter)."""
    return run_sync(lambda: run_async(plan, db, **options))


def run_sync(make: Callable[[], Awaitable[_T]]) -> _T:
    """Await ``make()`` from sync code: ``asyncio.run`` when no loop runs on this thread, else
    on a worker thread with its own loop (a running loop cannot be entered twice)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(make))
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="explaincheck") as worker:
        return worker.submit(lambda: asyncio.run(_awaited(make))).result()


async def _awaited(make: Callable[[], Awaitable[_T]]) -> _T:
    return await make()


def result_rows(
    db: str | Path,
    *,
    prices: Iterable[str] = (),
    prices_file: str | None = None,
    lean: bool = False,
) -> list[dict[str, Any]]:
    """Every execution of ``db`` as a ``results --json`` record with its ``cost`` (from the
    prices stored with the campaigns, the settings file and ``prices``); ``lean``: without
    prompts, thinking and valuations and with replies cut short, as a report reads them
    (``Store.iter_executions(lean=True)``: memory stays flat at 10^4 rows)."""
    with Store.open(db, readonly=True) as store:
        campaigns = store.campaigns()
        rows = [result_dict(r) for r in store.iter_executions(lean=lean)]
    return with_costs(rows, campaign_prices(campaigns, list(prices), prices_file))


def executions(db: str | Path, **filters: Any) -> list[StoredExecution]:
    """Every execution of ``db`` as the typed record it was stored as (``StoredExecution``:
    the ``ExecutionRecord`` plus its row id, wording and family), oldest first; ``filters``
    as ``Store.iter_stored`` takes them (``verdict``, ``category``, ``llm``, ...). For tables,
    ``results`` is the faster read."""
    with Store.open(db, readonly=True) as store:
        return store.stored_executions(**filters)


def results(
    db: str | Path,
    *,
    prices: Iterable[str] = (),
    prices_file: str | None = None,
    lean: bool = False,
) -> pd.DataFrame:
    """Every execution of ``db`` as a DataFrame: the ``results --json`` fields (JSON decoded,
    ``states`` a list of ids) and ``cost``; ``lean`` as in ``result_rows``."""
    rows = result_rows(db, prices=prices, prices_file=prices_file, lean=lean)
    frame = rows_frame(rows)
    frame["cost"] = [row["cost"] for row in rows]
    return frame


def merge(
    inputs: Iterable[str | Path], out: str | Path, on_conflict: str = "newest"
) -> MergeReport:
    """Merge databases of one campaign (shards, copies) into a new ``out``; executions the
    inputs disagree on are settled by ``on_conflict``: ``newest``, ``fail`` or
    ``keep-both-as-repeats`` (docs/scale-out.md)."""
    return merge_databases(inputs, out, on_conflict)


def export(
    db: str | Path,
    path: str | Path,
    *,
    prices: Iterable[str] = (),
    prices_file: str | None = None,
) -> Path:
    """Write every execution of ``db`` to ``path`` (.jsonl, .csv or .parquet by its suffix)."""
    formats = {suffix: fmt for fmt, suffix in SUFFIX.items()}
    fmt = formats.get(Path(path).suffix)
    if fmt is None:
        raise ExplaincheckError(f"{path}: the name must end in {', '.join(formats)}")
    return write_file(lambda: iter_result_rows(db, prices, prices_file), fmt, path)


def iter_result_rows(
    db: str | Path, prices: Iterable[str] = (), prices_file: str | None = None
) -> Iterator[dict[str, Any]]:
    """``result_rows`` one at a time, so an export of 10^4 rows with long thinking texts never
    holds them all (a reasoning model's thinking is tens of KB a row)."""
    with Store.open(db, readonly=True) as store:
        table = campaign_prices(store.campaigns(), list(prices), prices_file)
        for stored in store.iter_executions():
            row = result_dict(stored)
            yield {**row, "cost": row_cost(row, table)}
