"""The benchmark's question set: built from campaign plans, written and read back byte for byte.

Why a frozen file rather than "run a campaign": other tools (Inspect, a script in another
language) need the questions themselves, and a result is only comparable with another one when
both answered the same questions. Each question carries its prompt, the JSON schema explaincheck
sends (every enum, bound and array size of ``AnswerForm.schema``), the oracle's expected answer,
δ, chance and what grading needs, so a reader outside explaincheck knows everything asked. The
default set covers every built-in environment, every paper category and both selections; the
file is canonical JSON (sorted keys, one line per question) in plan order, so two exports of one
explaincheck give one ``sha256``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from explaincheck.core.atomic_files import write_bytes_atomically
from explaincheck.core.campaign.plan import SATISFY_RULES, Campaign, plan_campaign
from explaincheck.core.campaign.plugin_record import PLUGINS_KEY, missing_plugin, plugin_record
from explaincheck.core.environments.registry import OWN_IDS
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.json_input import Fields, lines_of, read_json, read_limited
from explaincheck.core.paths import cache_dir
from explaincheck.core.store import software_version
from explaincheck.core.taxonomy.base import GradingSettings, TestCase
from explaincheck.core.taxonomy.registry import CATEGORIES, PAPER_CATEGORIES, category

NAME = "explaincheck-bench"
VERSION = "1"
QUESTIONS_FILE, MANIFEST_FILE = "questions.jsonl", "manifest.json"
DEFAULT_BUDGET = 10  # per category and selection: 1,000+ questions over the seven environments
DEFAULT_SEED = 0
MAX_MANIFEST_BYTES = 16 << 20  # a manifest names environments and counts: a few KB
GRADING_FIELDS = frozenset({"satisfy_rule", "satisfy_tolerance"})


@dataclass(frozen=True)
class Recipe:
    """How a set is made: what a campaign would be asked, without the LLMs."""

    environments: tuple[str, ...]
    categories: tuple[str, ...]
    budget: int = DEFAULT_BUDGET
    selection: str = "both"
    seed: int = DEFAULT_SEED
    grading: GradingSettings = field(default_factory=GradingSettings)
    # the name of the environments' own property the questions are about ("": Pmax [F goal])
    property: str = ""

    def campaign(self, environment: str, llms: tuple[str, ...] = ("oracle",)) -> Campaign:
        """The campaign of one environment that plans this set's questions."""
        return Campaign(
            environment,
            llms,
            categories=self.categories,
            budget=self.budget,
            selection=self.selection,
            seed=self.seed,
            grading=self.grading,
            property_text=self.property or None,
        )

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["environments"] = list(self.environments)
        data["categories"] = list(self.categories)
        if not self.property:  # the sets of Pmax [F goal] keep their manifests byte for byte
            del data["property"]
        return data

    @classmethod
    def from_json(cls, data: Any, where: str = "made_with") -> Recipe:
        """The recipe of a manifest's ``made_with``, every field checked."""
        fields = Fields(data, where)
        grading = Fields(fields.mapping("grading"), f"{where}: field 'grading'")
        return cls(
            environments=tuple(fields.items("environments", str)),
            categories=tuple(fields.items("categories", str)),
            budget=fields.integer("budget"),
            selection=fields.text("selection"),
            seed=fields.integer("seed"),
            grading=GradingSettings(
                grading.text("satisfy_rule"), grading.number("satisfy_tolerance")
            ),
            property=fields.text("property", optional=True) or "",
        )


@dataclass(frozen=True)
class Question:
    """One frozen question: what is asked, how it is answered and what the oracle accepts."""

    id: str  # "<environment>/<case key>": unique within a set, stable across exports
    environment: str
    model_hash: str
    category: str
    selection: str
    index: int  # position within (environment, category, selection)
    states: tuple[int, ...]
    wording: int
    prompt: str
    schema: dict[str, Any]
    expected: dict[str, Any]
    delta: float
    chance: float | None  # probability that a uniform random answer passes (None: unknown)
    reading: bool
    positive: bool | None
    gap: float | None
    grading: dict[str, Any]  # satisfy rule and tolerance (the only settings grading has)

    def case(self, keep_do_nothing: bool = False) -> TestCase:
        """The test case this question was rendered from (what the grader judges)."""
        return TestCase(
            category=self.category,
            states=tuple(self.states),
            delta=self.delta,
            selection=self.selection,
            index=self.index,
            positive=self.positive,
            wording=self.wording,
            reading=self.reading,
            gap=self.gap,
            keep_do_nothing=keep_do_nothing,
        )

    def line(self) -> str:
        data = asdict(self)
        data["states"] = list(self.states)
        return canonical(data)

    @classmethod
    def from_json(cls, data: Any, where: str = "question") -> Question:
        """A question read from a user's ``questions.jsonl`` line, every field checked (the
        text, numbers, lists and objects it must be; a known category and grading rule)."""
        fields = Fields(data, where, "a question (a JSON object)")
        category_id = fields.text("category")
        if category_id not in CATEGORIES:
            fields.refuse("category", f"unknown category {category_id[:80]!r}")
        grading = Fields(fields.mapping("grading"), f"{where}: field 'grading'")
        rule, tolerance = grading.text("satisfy_rule"), grading.number("satisfy_tolerance")
        if rule not in SATISFY_RULES or set(grading.data) - GRADING_FIELDS:
            fields.refuse(
                "grading",
                f"want satisfy_rule ({', '.join(SATISFY_RULES)}) and satisfy_tolerance only",
            )
        return cls(
            id=fields.text("id"),
            environment=fields.text("environment"),
            model_hash=fields.text("model_hash"),
            category=category_id,
            selection=fields.text("selection"),
            index=fields.integer("index"),
            states=tuple(fields.items("states", int)),
            wording=fields.integer("wording"),
            prompt=fields.text("prompt"),
            schema=fields.mapping("schema"),
            expected=fields.mapping("expected"),
            delta=fields.number("delta"),
            chance=fields.number("chance", optional=True),
            reading=fields.boolean("reading"),
            positive=fields.boolean("positive", optional=True),
            gap=fields.number("gap", optional=True),
            grading={"satisfy_rule": rule, "satisfy_tolerance": tolerance},
        )


@dataclass(frozen=True)
class BenchSet:
    """A question set with its manifest, as exported or read back (hash checked)."""

    manifest: dict[str, Any]
    questions: tuple[Question, ...]

    @property
    def recipe(self) -> Recipe:
        return Recipe.from_json(self.manifest["made_with"])

    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}

    def environment(self, env_id: str) -> dict[str, Any]:
        return next(e for e in self.manifest["environments"] if e["id"] == env_id)


def canonical(value: Any) -> str:
    """One JSON text per value: sorted keys, no spaces, Unicode kept (hashable byte for byte)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def default_recipe(budget: int = DEFAULT_BUDGET, seed: int = DEFAULT_SEED) -> Recipe:
    """Every environment of this project's own (a plugin's only by ``--env``: the default set
    is the same set wherever it is exported), every paper category, both selections."""
    return Recipe(OWN_IDS, tuple(PAPER_CATEGORIES), budget, "both", seed)


def build_set(recipe: Recipe, version: str = VERSION) -> BenchSet:
    """Plan each environment's campaign and freeze its questions (environment by environment,
    in plan order)."""
    # deferred: analysis loads pandas, and `explaincheck --help` reads this module's names
    from explaincheck.core.analysis.chance import case_chance

    questions: list[Question] = []
    environments: list[dict[str, Any]] = []
    grading = asdict(recipe.grading)
    for env_id in recipe.environments:
        plan = plan_campaign(recipe.campaign(env_id))
        oracle = plan.oracle
        for execution in plan.executions:
            case = execution.case
            expected = category(case.category).expected(case, oracle)
            chance = case_chance(execution.prompt.schema, expected, grading, case.category)
            questions.append(
                Question(
                    id=f"{env_id}/{case.key}",
                    environment=env_id,
                    model_hash=plan.model_hash,
                    category=case.category,
                    selection=case.selection,
                    index=case.index,
                    states=tuple(case.states),
                    wording=case.wording,
                    prompt=execution.prompt.text,
                    schema=execution.prompt.schema,
                    expected=expected,
                    delta=float(case.delta),
                    chance=None if chance != chance else float(chance),  # NaN: unknown
                    reading=case.reading,
                    positive=case.positive,
                    gap=case.gap,
                    grading=grading,
                )
            )
        environments.append(
            {
                "id": env_id,
                "model_hash": plan.model_hash,
                "constants": oracle.model.constants,
                "states": oracle.model.states,
                "skipped": dict(sorted(plan.skipped.items())),
                # categories that measure nothing on this model (left out of the summary's
                # rows by ``bench grade`` unless asked for: docs/method.md §4, deviation 11)
                "degenerate": dict(sorted(plan.degenerate.items())),
            }
        )
    return BenchSet(_manifest(recipe, version, questions, environments), tuple(questions))


def _manifest(
    recipe: Recipe, version: str, questions: list[Question], environments: list[dict[str, Any]]
) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for question in questions:
        counts[question.category] = counts.get(question.category, 0) + 1
    plugins = plugin_record([e["id"] for e in environments], counts)
    return {
        "name": NAME,
        "version": version,
        "questions": len(questions),
        "sha256": _sha256(questions_text(questions)),
        "categories": counts,
        "environments": environments,
        "explaincheck": software_version(),
        "made_with": recipe.as_json(),
        **({PLUGINS_KEY: plugins} if plugins else {}),  # the plugin packages its questions need
    }


def questions_text(questions: Iterable[Question]) -> bytes:
    return "".join(q.line() + "\n" for q in questions).encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_set(bench: BenchSet, folder: str | Path) -> Path:
    """Write ``questions.jsonl`` and ``manifest.json`` into ``folder`` (each atomically; the
    manifest last, so a folder with a manifest holds its questions)."""
    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ExplaincheckError(f"cannot create {out}: {error.strerror or error}") from None
    for name, data in (
        (QUESTIONS_FILE, questions_text(bench.questions)),
        (MANIFEST_FILE, (json.dumps(bench.manifest, indent=2, sort_keys=True) + "\n").encode()),
    ):
        try:  # the umask's mode, as every file the user shares (not a cache's private 0600)
            write_bytes_atomically(out / name, data)
        except OSError as error:
            reason = error.strerror or error
            raise ExplaincheckError(f"cannot write {out / name}: {reason}") from None
    return out


def read_set(folder: str | Path) -> BenchSet:
    """The set in ``folder``; refused in one line (``json_input``: the file, the line and the
    field) when a file is missing, unreadable or malformed, when the questions do not match the
    manifest's hash or count, or when a question id appears twice."""
    root = Path(folder)
    manifest_path, questions_path = root / MANIFEST_FILE, root / QUESTIONS_FILE
    for path in (manifest_path, questions_path):
        if not path.is_file():
            raise ExplaincheckError(f"{path}: no such file (not a bench folder)")
    manifest = read_json(manifest_path, limit=MAX_MANIFEST_BYTES, what="manifest")
    fields = Fields(manifest, str(manifest_path), f"an {NAME} manifest")
    if manifest.get("name") != NAME:
        raise ExplaincheckError(f"{manifest_path}: not an {NAME} manifest")
    Recipe.from_json(fields.mapping("made_with"), f"{manifest_path}: field 'made_with'")
    environments = {
        Fields(e, f"{manifest_path}: field 'environments'").text("id")
        for e in fields.items("environments", dict)
    }
    data = read_limited(questions_path, what="question set")
    if fields.text("sha256") != _sha256(data):
        raise ExplaincheckError(
            f"{questions_path}: its sha256 does not match the manifest's (the file was changed)"
        )
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for number, value in lines_of(data, questions_path):
        where = f"{questions_path}:{number}"
        question = Question.from_json(value, where)
        if question.id in seen:
            raise ExplaincheckError(
                f"{where}: question id {question.id[:80]!r} appears twice (first on line"
                f" {seen[question.id]}); each question is asked and counted once"
            )
        if question.environment not in environments:
            raise ExplaincheckError(
                f"{where}: field 'environment': {question.environment[:80]!r} is not among the"
                " manifest's environments"
            )
        seen[question.id] = number
        questions.append(question)
    if len(questions) != fields.integer("questions"):
        raise ExplaincheckError(
            f"{questions_path}: the manifest counts {manifest['questions']} questions, the file"
            f" holds {len(questions)}"
        )
    missing = missing_plugin(manifest, "", {q.category for q in questions})
    if missing:  # its questions are graded by categories of a plugin that is not installed
        raise ExplaincheckError(f"{manifest_path}: {missing}")
    return BenchSet(manifest, tuple(questions))


def cached_default_set() -> BenchSet:
    """The default set, exported once per explaincheck version into the cache (planning every
    environment takes a while; the Inspect task starts from it)."""
    folder = cache_dir() / "bench" / f"{NAME}-v{VERSION}-{software_version()}"
    if not (folder / MANIFEST_FILE).is_file():
        write_set(build_set(default_recipe()), folder)
    return read_set(folder)
