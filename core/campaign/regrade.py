"""Re-grade stored replies under new grading settings, without asking any LLM again.

Why: the satisfy rule (absolute tolerance or "same side of 1/2") and its tolerance are choices a
user may revisit after an expensive campaign. Every stored reply is graded again against the
oracle of its own model (recomputed from the campaign's stored settings, or given); ``error``
rows have no reply and stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.campaign.plugin_record import missing_plugin
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.json_input import Fields
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.store import CampaignRow, ExecutionRecord, Store, StoredExecution
from explaincheck.core.taxonomy.base import ERROR, Grade, GradingSettings, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.metamorphic import key_parts

# grade(case, reply text, oracle, settings) -> Grade
RegradeFunction = Callable[[TestCase, str, OracleResult, GradingSettings], Grade]


@dataclass(frozen=True)
class VerdictChange:
    """One stored execution whose verdict a re-grade changed."""

    id: int
    llm: str
    category: str
    before: str
    after: str


@dataclass(frozen=True)
class RegradeSummary:
    graded: int  # executions graded again
    changed: int  # ... whose verdict changed
    changes: tuple[VerdictChange, ...] = ()  # those executions (``regrade`` fills it)


def case_of(row: ExecutionRecord, keep_do_nothing: bool = False) -> TestCase:
    """The test case of a stored execution; ``keep_do_nothing`` as its campaign ran (it decides
    which actions a preference case offered)."""
    return TestCase(
        category=row.category,
        states=tuple(row.states),
        delta=row.delta,
        selection=row.selection,
        index=row.case_index,
        positive=row.positive,
        **key_parts(row.case_key or ""),  # wording and metamorphic variant
        reading=bool(row.reading),
        gap=row.gap,
        keep_do_nothing=keep_do_nothing,
    )


def kept_do_nothing(settings: dict[str, Any]) -> bool:
    """Whether a stored campaign offered do-nothing actions: campaigns stored before the rule
    existed did (docs/method.md §4)."""
    return bool(settings.get("keep_do_nothing", True))


def regrade(
    db_path: str | Path,
    settings: GradingSettings,
    *,
    oracles: dict[str, OracleResult] | None = None,
    grade: RegradeFunction | None = None,
) -> RegradeSummary:
    """Grade every stored reply again under ``settings`` (one transaction). ``oracles`` maps
    model hashes to oracles already at hand; missing ones are recomputed from the campaign."""
    if grade is None:
        grade = grade_reply
    oracles = dict(oracles or {})
    graded = 0
    changes: list[VerdictChange] = []
    with Store.open(db_path, create=False) as store:
        campaigns = store.campaigns()
        sources = {c.model_hash: c.settings for c in campaigns}
        kept = {c.id: kept_do_nothing(c.settings) for c in campaigns}
        rows = [r for r in store.iter_stored() if r.verdict != ERROR and r.reply is not None]
        _require_plugins(campaigns, rows)
        with store.transaction():
            for row in rows:
                model_hash = row.model_hash
                if model_hash not in oracles:
                    oracles[model_hash] = _oracle_from(sources.get(model_hash), model_hash)
                case = case_of(row, kept.get(row.campaign_id, False))
                assert row.reply is not None  # rows without a reply are left out above
                result = grade(case, row.reply, oracles[model_hash], settings)
                _store_grade(store, row.id, result, settings)
                graded += 1
                if result.verdict != row.verdict:
                    changes.append(
                        VerdictChange(row.id, row.llm, row.category, row.verdict, result.verdict)
                    )
        store.record_grading(asdict(settings))  # the campaigns' facts name the rule now applied
    return RegradeSummary(graded, len(changes), tuple(changes))


def _require_plugins(campaigns: list[CampaignRow], rows: list[StoredExecution]) -> None:
    """Stop with one line naming the plugin package (and version) a campaign was made with
    when it is missing here: its replies cannot be graded without it."""
    categories: dict[int, set[str]] = {}
    for row in rows:
        categories.setdefault(row.campaign_id, set()).add(row.category)
    for campaign in campaigns:
        used = sorted(categories.get(campaign.id, ()))
        missing = missing_plugin(campaign.settings, campaign.environment, used)
        if missing:
            raise ExplaincheckError(missing)


# How a stored setting is read back, by the annotation of its ``Campaign`` field (a field of
# another annotation is passed as stored and left to ``Campaign`` to check).
_TAKE: dict[str, Callable[[Fields, str], Any]] = {
    "str": lambda r, n: r.text(n),
    "str | None": lambda r, n: r.text(n, optional=True),
    "int": lambda r, n: r.integer(n),
    "int | None": lambda r, n: r.integer(n, optional=True),
    "float": lambda r, n: r.number(n),
    "bool": lambda r, n: r.boolean(n),
    "tuple[str, ...]": lambda r, n: tuple(r.items(n, str)),
    "tuple[int, ...]": lambda r, n: tuple(r.items(n, int)),
}


def campaign_of_record(settings: Any, where: str) -> Campaign:
    """The ``Campaign`` a stored campaign record describes, every field checked for its type: a
    hand-edited or damaged record is one line naming the field, never Python's own message."""
    record = Fields(settings, where, "a campaign's settings (a JSON object)")
    values: dict[str, Any] = {"llms": ("?",)}  # the LLMs do not decide the oracle
    for item in fields(Campaign):
        if item.name not in record.data:
            continue
        take = _TAKE.get(str(item.type))
        values[item.name] = take(record, item.name) if take else record.value(item.name)
    if "environment" not in values:
        record.text("environment")  # missing: said by name
    grading = record.mapping("grading", optional=True) or {}
    rule = Fields(grading, f"{where}: field 'grading'")
    values["grading"] = GradingSettings(
        **{
            name: rule.text(name) if name == "satisfy_rule" else rule.number(name)
            for name in ("satisfy_rule", "satisfy_tolerance")
            if name in grading
        }
    )
    try:
        return Campaign(**values)
    except ExplaincheckError as error:  # a value Campaign refuses (a budget below 1, ...)
        raise ExplaincheckError(f"{where}: {error}") from None
    except (TypeError, ValueError, AttributeError) as error:  # a field Campaign checks itself
        raise ExplaincheckError(f"{where}: not a campaign ({error})") from None


def _oracle_from(settings: dict[str, Any] | None, model_hash: str) -> OracleResult:
    """Recompute (usually: load from the oracle cache) the oracle a campaign ran against."""
    if settings is None:
        raise ExplaincheckError(f"no campaign in this database ran on model {model_hash[:12]}")
    campaign = campaign_of_record(settings, f"the campaign record of model {model_hash[:12]}")
    missing = missing_plugin(settings, campaign.environment)
    if missing:
        raise ExplaincheckError(missing)
    oracle = oracle_for(campaign, load_environment(campaign))
    if oracle.model.content_hash != model_hash:
        raise ExplaincheckError(
            f"the model of {campaign.environment} has changed since the campaign ran:"
            " its stored replies cannot be re-graded against the new oracle"
        )
    return oracle


def regrade_stored(
    store: Store,
    keys: set[str],
    oracle: OracleResult,
    settings: GradingSettings,
    keep_do_nothing: bool = False,
) -> RegradeSummary:
    """Bring the stored executions ``keys`` of one plan to ``settings``: a campaign resumed with
    another satisfy rule must not mix two rules in one table. Only rows graded otherwise are
    touched; no LLM is asked."""
    wanted = asdict(settings)
    rows = [
        r
        for r in store.iter_stored()
        if r.exec_key in keys and r.verdict != ERROR and r.reply is not None and r.grading != wanted
    ]
    changed = 0
    with store.transaction():
        for row in rows:
            case = case_of(row, keep_do_nothing)
            assert row.reply is not None  # rows without a reply are left out above
            result = grade_reply(case, row.reply, oracle, settings)
            _store_grade(store, row.id, result, settings)
            changed += result.verdict != row.verdict
    return RegradeSummary(len(rows), changed)


def _store_grade(store: Store, row_id: int, result: Grade, settings: GradingSettings) -> None:
    """Write a new grade over a stored execution (the reply itself is never touched)."""
    store.update_grade(
        row_id,
        verdict=result.verdict,
        reason=result.reason,
        answer=result.answer,
        expected=result.expected,
        abs_error=result.abs_error,
        grading=asdict(settings),
    )
