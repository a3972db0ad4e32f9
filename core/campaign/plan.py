"""A campaign and its plan: every execution (LLM x test case x repeat) known before the first runs.

Why plan fully up front: the total is known (progress, ETA), each execution gets a stable key
(resume skips finished ones, never duplicates), and the prompts are rendered once. The key holds
the model's content hash, the LLM spec, the case and the repeat, plus a hash of the prompt, so
an edited wording is a new execution rather than a stale one.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from explaincheck.core.backends.registry import normalize_spec
from explaincheck.core.campaign.plugin_record import PLUGINS_KEY, plugin_record
from explaincheck.core.campaign.shot_settings import ShotSettings
from explaincheck.core.campaign.shots import ShotPlanner
from explaincheck.core.environments.registry import resolve
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest, OracleResult
from explaincheck.core.store import to_json
from explaincheck.core.taxonomy import metamorphic
from explaincheck.core.taxonomy.base import (
    PRIORITIZED,
    RANDOM,
    WORDINGS,
    Category,
    GradingSettings,
    Prompt,
    TestCase,
)
from explaincheck.core.taxonomy.case_rules import (
    BAND,
    DEFAULT_BAND,
    DELTA_CHOICES,
    SelectionRules,
    degenerate_reason,
)
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import (
    CATEGORIES,
    applicability,
    category,
    registered_id,
    unknown_category,
)
from explaincheck.core.taxonomy.selection import ruled_candidates, select_cases

BOTH = "both"
# Selection rules left out of a campaign's identity at these values, so campaigns stored before
# the rules existed resume (``Campaign.identity``).
_RULE_DEFAULTS = {"keep_do_nothing": False, "min_gap": 0.0, "balance": True, "delta": BAND}
# Left out of the identity when None (the cases are picked by ``seed``, as before it existed).
_CASE_SEED_DEFAULT = None
SELECTION_CHOICES = (PRIORITIZED, RANDOM, BOTH)
# The British spelling the README, the window and the reports' prose use; stored, in columns and
# in settings it is always the contract's "prioritized".
SELECTION_SPELLINGS = {"prioritised": PRIORITIZED}


def selection_name(text: str) -> str:
    """A selection as stored: "prioritised" -> "prioritized"; other values unchanged."""
    cleaned = str(text).strip().lower()
    return SELECTION_SPELLINGS.get(cleaned, cleaned)


SATISFY_RULES = ("absolute", "half")  # |p - V| <= tolerance, or the same side of 1/2


@dataclass(frozen=True)
class Campaign:
    """What to test: environment/model (+constants, labels), LLMs, categories, budget, selection,
    repeats, seeds and grading. ``categories`` empty means the default set: every category that
    applies here, less those with a caveat (``registry.applicability``). ``case_seed`` picks the
    cases (None: ``seed``), ``seed`` the answers' draws and decoding (DESIGN.md, round 5), so
    two campaigns that differ only in ``seed`` ask the same questions."""

    environment: str  # a built-in environment id or a PRISM file path
    llms: tuple[str, ...]
    categories: tuple[str, ...] = ()
    budget: int = 20
    selection: str = PRIORITIZED
    repeat: int = 1
    seed: int = 0
    constants: str | None = None  # None: the environment's defaults
    goal_label: str | None = None
    unsafe_label: str | None = None
    grading: GradingSettings = field(default_factory=GradingSettings)
    repeat_temperature: float = 0.7  # only when repeat > 1 (greedy repeats would be identical)
    wordings: tuple[int, ...] = (0,)  # phrasings of each question to ask (``--wording``)
    metamorphic: bool = False  # also ask each case's metamorphic variants (``--metamorphic``)
    keep_do_nothing: bool = False  # offer do-nothing actions in preference questions
    min_gap: float = 0.0  # leave out cases whose deciding difference is below this
    balance: bool = True  # yes/no categories: as many yes- as no-cases
    delta: str = BAND  # satisfy's δ: from the tolerance band around ½, or "paper" (``--delta``)
    case_seed: int | None = None  # picks the cases (``--case-seed``); None: ``seed`` does
    # ``--property``: PRISM text, FILE.props[:NAME] or the name of one of the environment's own
    # properties (None: Pmax=? [F goal]); resolved against the environment when the plan is made
    property_text: str | None = None
    # Refuse models with more states (``--state-limit``; None: the oracle's default). Not a
    # setting of the results: left out of the stored settings and the identity.
    state_limit: int | None = None
    # ``run --shots K --shots-from split.json``: ask one part of a split, each question after K
    # solved training cases (``shots.py``); None: no split, no shots
    shots: ShotSettings | None = None

    def __post_init__(self) -> None:
        if isinstance(self.shots, dict):  # read back from stored settings
            object.__setattr__(self, "shots", ShotSettings(**self.shots))

        # One series per LLM: " random" is random, a repeated spec is asked once, and a token
        # in an Ollama URL's query never reaches the stored settings.
        llms = tuple(dict.fromkeys(normalize_spec(spec) for spec in self.llms))
        object.__setattr__(self, "llms", llms)
        object.__setattr__(self, "selection", selection_name(self.selection))
        if not self.llms or any(not spec for spec in self.llms):
            raise ExplaincheckError("a campaign needs at least one --llm")
        if self.selection not in SELECTION_CHOICES:
            raise ExplaincheckError(
                f"unknown selection {self.selection!r} (valid: {', '.join(SELECTION_CHOICES)})"
            )
        if self.budget < 1:
            raise ExplaincheckError(f"--budget must be at least 1 (got {self.budget})")
        if self.repeat < 1:
            raise ExplaincheckError(f"--repeat must be at least 1 (got {self.repeat})")
        tolerance = self.grading.satisfy_tolerance
        if not (isinstance(tolerance, int | float) and math.isfinite(tolerance)) or not (
            0 <= tolerance <= 1
        ):
            raise ExplaincheckError(
                f"--satisfy-tolerance must be a number from 0 to 1 (got {tolerance})"
            )
        if self.grading.satisfy_rule not in SATISFY_RULES:
            raise ExplaincheckError(
                f"unknown satisfy rule {self.grading.satisfy_rule!r}"
                f" (valid: {', '.join(SATISFY_RULES)})"
            )
        if not self.wordings or any(w not in range(WORDINGS) for w in self.wordings):
            raise ExplaincheckError(
                f"--wording must be one of {', '.join(map(str, range(WORDINGS)))} or all"
            )
        if self.delta not in DELTA_CHOICES:
            raise ExplaincheckError(
                f"unknown --delta {self.delta!r} (valid: {', '.join(DELTA_CHOICES)})"
            )
        gap = self.min_gap
        if not (isinstance(gap, int | float) and math.isfinite(gap)) or not 0 <= gap <= 1:
            raise ExplaincheckError(f"--min-gap must be a number from 0 to 1 (got {gap})")

    @property
    def rules(self) -> SelectionRules:
        """The selection rules of this campaign (``taxonomy.case_rules``). Satisfy's band is the
        campaign's tolerance under either satisfy rule, so resuming under the other rule grades
        the same cases again instead of asking new ones (near ½ the ``half`` rule's verdict
        turns on a tiny error, so those states test little under it too)."""
        band = float(self.grading.satisfy_tolerance)
        return SelectionRules(
            self.keep_do_nothing, float(self.min_gap), self.balance, self.delta, band
        )

    @property
    def cases_seed(self) -> int:
        """The seed that picks the cases: ``case_seed``, else ``seed``."""
        return self.seed if self.case_seed is None else self.case_seed

    @property
    def selections(self) -> tuple[str, ...]:
        return (PRIORITIZED, RANDOM) if self.selection == BOTH else (self.selection,)

    def settings(self) -> dict[str, Any]:
        """JSON-friendly settings, as stored with the campaign."""
        data = asdict(self)
        del data["state_limit"]
        data["llms"] = list(self.llms)
        data["categories"] = list(self.categories)
        data["wordings"] = list(self.wordings)
        return data

    def run_options(self) -> dict[str, Any]:
        """The campaign as ``explaincheck run`` options (campaign-file keys), so a campaign
        started from the API or the GUI can be written out and run again from the command line."""
        options: dict[str, Any] = {
            "env": self.environment,
            "llm": list(self.llms),
            "categories": ",".join(self.categories) or DEFAULT_CATEGORIES,
            "budget": self.budget,
            "selection": self.selection,
            "seed": self.seed,
            "case-seed": self.case_seed,
            "repeat": self.repeat,
            "wording": ",".join(map(str, self.wordings)),
            "metamorphic": self.metamorphic,
            "const": self.constants,
            "goal": self.goal_label,
            "unsafe": self.unsafe_label,
            "satisfy-rule": self.grading.satisfy_rule,
            "satisfy-tolerance": self.grading.satisfy_tolerance,
            "delta": None if self.delta == BAND else self.delta,
            **(shot_options(self.shots) if self.shots else {}),
            "property": self.property_text,
        }
        return {key: value for key, value in options.items() if value is not None}

    def identity(self, model_hash: str) -> str:
        """Same identity = same campaign (the same command resumes it). Grading settings are
        not part of it: they can change without asking any LLM again."""

        data = {k: v for k, v in self.settings().items() if k != "grading"}
        # Left out at their defaults, so campaigns stored before these settings existed resume.
        if data["property_text"] is None:
            del data["property_text"]
        if data["wordings"] == [0]:
            del data["wordings"]
        if not data["metamorphic"]:
            del data["metamorphic"]
        for name, default in _RULE_DEFAULTS.items():
            if data.get(name) == default:
                del data[name]
        if data.get("case_seed") in (_CASE_SEED_DEFAULT, self.seed):
            data.pop("case_seed", None)  # the cases of --seed: the campaign as before
        band = self.rules.band  # the band chooses satisfy's cases, so it is part of the campaign
        if self.delta == BAND and band != DEFAULT_BAND:
            data["satisfy_band"] = band
        if self.shots is None:
            del data["shots"]
        else:
            data["shots"] = self.shots.identity()
        return _sha(to_json({**data, "model_hash": model_hash}))


@dataclass(frozen=True)
class PlannedExecution:
    """One execution of the plan: ask ``llm`` the case's prompt (the ``repeat``-th time)."""

    key: str
    llm: str
    case: TestCase
    repeat: int
    prompt: Prompt
    dimension: str
    valuations: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Plan:
    """A campaign made concrete: its environment, oracle and every execution, in run order."""

    campaign: Campaign
    environment: Environment
    oracle: OracleResult
    executions: tuple[PlannedExecution, ...]
    skipped: dict[str, str]  # category id -> why it has no test case here
    cases: dict[tuple[str, str], int]  # (category, selection) -> number of cases
    # category id -> why it measures nothing here though it runs (``case_rules``)
    degenerate: dict[str, str] = field(default_factory=dict)
    # kept with the campaign beside its settings: the run options, prices, shard (not identity)
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.executions)

    @property
    def model_hash(self) -> str:
        return self.oracle.model.content_hash

    @property
    def identity(self) -> str:
        return self.campaign.identity(self.model_hash)

    @property
    def environment_name(self) -> str:
        return self.environment.id or self.campaign.environment

    def stored_settings(self) -> dict[str, Any]:
        """The campaign's settings plus what the plan decided (skipped categories and caveats of
        the categories that ran), as stored with the campaign for reports."""

        ran = {category for category, _ in self.cases}
        caveats = {
            cid: found.caveat
            for cid, found in applicability(self.oracle).items()
            if found.caveat and cid in ran
        }
        settings = self.campaign.settings()
        plugins = plugin_record([self.environment_name], sorted(ran), self.campaign.llms)
        return {
            **settings,
            "skipped": dict(self.skipped),
            "caveats": caveats,
            "degenerate": dict(self.degenerate),
            # what was asked about, whatever ``property`` named (a file, a name): its text
            "checked_property": self.oracle.prop.to_json(),
            **self.notes,
            **({PLUGINS_KEY: plugins} if plugins else {}),
        }


def shot_options(shots: ShotSettings) -> dict[str, Any]:
    """The ``run`` options of a campaign's shots (campaign-file keys)."""
    return {
        "shots": shots.k,
        "shots-from": shots.split,
        "shots-on": shots.part.replace("_", "-"),
        "shots-explain": shots.explain,
    }


def execution_key(
    model_hash: str, llm: str, case: TestCase, repeat: int, prompt: Prompt, campaign: str
) -> str:
    """Stable identity of one execution across runs (what resume matches on). It ends with the
    identity of the campaign that planned it (``campaign_key``): a campaign with another seed or
    budget that draws the same case asks it itself, never borrows the other campaign's row."""
    prompt_hash = _sha(prompt.text)[:16]
    return campaign_key(f"{model_hash[:16]}|{llm}|{case.key}|r{repeat}|{prompt_hash}", campaign)


def campaign_key(key: str, campaign: str) -> str:
    """An execution's key within one campaign (the store's v5 migration writes the same)."""
    return f"{key}|{campaign}"


DEFAULT_CATEGORIES = "default"


def resolve_categories(requested: Iterable[str] | str | None) -> tuple[str, ...]:
    """``default``/empty -> () (every category that applies and adds something: the plan leaves
    out those with a caveat, such as a safer that repeats more_promising); ``all`` -> every
    category by id (caveats included); else the given ids, each checked."""

    if requested is None or requested == DEFAULT_CATEGORIES:
        return ()
    if requested == "all":
        return tuple(CATEGORIES)
    if isinstance(requested, str):
        requested = [part for part in requested.split(",")]
    ids = tuple(part.strip() for part in requested if part.strip())
    if not ids or ids == (DEFAULT_CATEGORIES,):
        return ()
    if ids == ("all",):
        return tuple(CATEGORIES)
    valid = f"valid: default, all or {', '.join(CATEGORIES)}"
    unknown = [c for c in ids if registered_id(c) is None]
    if len(unknown) == 1:
        raise ExplaincheckError(unknown_category(unknown[0], valid))
    if unknown:
        raise ExplaincheckError(f"unknown categories {', '.join(unknown)} ({valid})")
    return tuple(dict.fromkeys(str(registered_id(c)) for c in ids))


def resolve_wordings(requested: str | int | Iterable[int] | None) -> tuple[int, ...]:
    """``all`` -> every wording; a number (or list of them) -> those, each checked."""
    if requested is None:
        return (0,)
    if requested == "all":
        return tuple(range(WORDINGS))
    if isinstance(requested, str):
        parts = [p.strip() for p in requested.split(",") if p.strip()]
        if not parts or not all(p.isdigit() for p in parts):
            raise ExplaincheckError(
                f"--wording must be one of {', '.join(map(str, range(WORDINGS)))} or all"
                f" (got {requested!r})"
            )
        requested = [int(p) for p in parts]
    elif isinstance(requested, int):
        requested = [requested]
    wordings = tuple(dict.fromkeys(requested))
    if not wordings or any(w not in range(WORDINGS) for w in wordings):
        raise ExplaincheckError(
            f"--wording must be one of {', '.join(map(str, range(WORDINGS)))} or all"
            f" (got {', '.join(map(str, wordings))})"
        )
    return wordings


def asked_cases(case: TestCase, campaign: Campaign, oracle: OracleResult) -> list[TestCase]:
    """The cases asked for one selected case: one per wording and, with ``metamorphic``, each
    wording's variants. Ordered variant by variant, wordings inside: the wordings of one prompt
    differ only in the final question, so a local model reuses its evaluated prompt prefix."""

    variants: tuple[str, ...] = ("",)
    if campaign.metamorphic:
        variants += metamorphic.applicable(category(case.category), case, oracle)
    found = []
    for variant in variants:
        for wording in campaign.wordings:
            worded = replace(case, wording=wording)
            found.append(metamorphic.transformed(worded, variant) if variant else worded)
    return found


def load_environment(campaign: Campaign) -> Environment:

    return resolve(campaign.environment)


def oracle_request(campaign: Campaign, environment: Environment) -> OracleRequest:
    """The oracle request with the campaign's constants, labels and property (the
    environment's by default; a property's target is the goal)."""
    constants = campaign.constants
    prop = None
    if campaign.property_text:
        if campaign.goal_label:
            raise ExplaincheckError(
                "give --goal or --property, not both: the property names its own target"
            )
        prop, kept = environment.resolve_property(
            campaign.property_text, constants if constants is not None else environment.constants
        )
        constants = kept if constants is not None else None
    overrides = {
        name: value
        for name, value in (
            ("constants", constants),
            ("goal_label", campaign.goal_label),
            ("unsafe_label", campaign.unsafe_label),
            ("state_limit", campaign.state_limit),
            ("property", prop),
        )
        if value is not None
    }
    return environment.request(**overrides, require_unsafe=campaign.unsafe_label is not None)


def oracle_for(campaign: Campaign, environment: Environment) -> OracleResult:
    """The oracle with the campaign's constants and labels (the environment's by default)."""

    request = oracle_request(campaign, environment)
    return _with_facts(campaign, environment, compute_oracle(request), request)


def _with_facts(
    campaign: Campaign,
    environment: Environment,
    oracle: OracleResult,
    request: OracleRequest | None = None,
) -> OracleResult:
    """The oracle with the extra facts of the campaign's categories attached
    (``Category.with_facts``: e.g. the intervened oracles ``factors`` grades with, computed or
    loaded from the cache once, here). A default campaign leaves out the categories asked only
    by id, so their facts are never computed for it."""

    asked = resolve_categories(campaign.categories or None) or tuple(
        c for c, found in CATEGORIES.items() if not found.by_id_only
    )
    # only categories with facts of their own are asked (the request is made for them alone)
    adding = [c for c in map(category, asked) if type(c).with_facts is not Category.with_facts]
    if adding and request is None:  # the oracle was given: what it was computed from
        request = environment.request(
            constants=oracle.model.constants,
            goal_label=oracle.model.goal_label,
            unsafe_label=oracle.model.unsafe_label,
            property=oracle.model.property,
        )
    for found in adding:
        assert request is not None
        oracle = found.with_facts(oracle, environment, request)
    return oracle


def plan_campaign(
    campaign: Campaign,
    *,
    environment: Environment | None = None,
    oracle: OracleResult | None = None,
) -> Plan:
    """Select the cases of every category and selection, render their prompts, and lay out one
    execution per LLM and repeat. Order: case by case across categories (so a partial run
    covers every category), then LLM, then repeat."""

    environment = environment or load_environment(campaign)
    oracle = _with_facts(campaign, environment, oracle) if oracle else None
    oracle = oracle or oracle_for(campaign, environment)
    categories = resolve_categories(campaign.categories or None) or tuple(CATEGORIES)
    skipped: dict[str, str] = {}
    cases: dict[tuple[str, str], int] = {}
    selected: list[TestCase] = []
    applicable = applicability(oracle)
    degenerate: dict[str, str] = {}
    for category_id in categories:
        found = applicable[category_id]
        reason = found.reason
        if reason is None and not campaign.categories and CATEGORIES[category_id].by_id_only:
            reason = f"asked only by id (--categories {category_id})"
        if reason is None and found.caveat and not campaign.categories:
            reason = f"left out by default ({found.caveat}); ask for it by id to test it anyway"
        if reason:
            skipped[category_id] = reason
            continue
        pool = ruled_candidates(oracle, category_id, campaign.cases_seed, campaign.rules)
        for selection in campaign.selections:
            chosen = select_cases(
                oracle,
                category_id,
                campaign.budget,
                selection,
                campaign.cases_seed,
                campaign.rules,
                candidates=pool,
            )
            cases[(category_id, selection)] = len(chosen)
            selected.extend(chosen)
        why = degenerate_reason(pool)
        if why and any(cases.get((category_id, s)) for s in campaign.selections):
            degenerate[category_id] = why
        if not any(cases.get((category_id, s)) for s in campaign.selections):
            binary = getattr(CATEGORIES[category_id], "binary", False)
            skipped[category_id] = (
                "a yes/no category needs --budget 2 or more (one case of each answer)"
                if binary and campaign.budget < 2
                else CATEGORIES[category_id].no_case_reason(oracle, campaign.rules)
            )
    order = {c: i for i, c in enumerate(categories)}
    selected.sort(key=lambda c: (c.index, order[c.category], c.selection))
    asking: Iterable[TestCase] = (
        asked for chosen in selected for asked in asked_cases(chosen, campaign, oracle)
    )
    shots = _shot_planner(campaign, oracle, environment)
    if shots is not None:  # the split's cases are asked as they are, whatever the budget
        selected = asking = shots.cases(campaign.categories)
        cases = dict(Counter((c.category, c.selection) for c in selected))
        skipped = {c: why for c, why in skipped.items() if all(s.category != c for s in selected)}
    executions: list[PlannedExecution] = []
    identity = campaign.identity(oracle.model.content_hash)
    for case in asking:
        prompt = render_prompt(case, oracle, environment)
        if shots is not None:
            prompt = shots.prompt(case, prompt)
        dimension = CATEGORIES[case.category].dimension
        valuations = tuple(dict(oracle.state(s).valuation) for s in case.states)
        for llm in campaign.llms:
            for repeat in range(campaign.repeat):
                key = execution_key(oracle.model.content_hash, llm, case, repeat, prompt, identity)
                executions.append(
                    PlannedExecution(key, llm, case, repeat, prompt, dimension, valuations)
                )
    if shots is not None and (short := shots.shortfall()):
        logging.getLogger("explaincheck").warning(short)
    return Plan(campaign, environment, oracle, tuple(executions), skipped, cases, degenerate)


def _shot_planner(
    campaign: Campaign, oracle: OracleResult, environment: Environment
) -> ShotPlanner | None:
    """The campaign's ``ShotPlanner`` (``shots.py``), or None without ``--shots-from``."""
    if campaign.shots is None:
        return None
    return ShotPlanner.load(
        campaign.shots,
        oracle,
        environment,
        environment.id or campaign.environment,
        campaign.grading,
        campaign.keep_do_nothing,
    )


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
