"""The generic contract of a category, a backend and an environment, checked on any of them.

Why one module for two users: this project's generic tests run these checks over every
registered kind, its own and any installed plugin's (tests/core/test_plugin_checks.py and the
environment tests), and ``explaincheck plugins check DIST`` runs them on one plugin package's
kinds and prints what fails, as napari's ``npe2 validate`` does for its plugins. A check asks the
kind what it promises (whether it applies to a model, its answer form, its wordings, its words)
and never names an id, so a plugin is held to exactly what the built-ins are held to.

Each failure is a ``Finding``: what (``category explaincheck-mylab/lost``), which check
(``rephrasings``) and the problem, in one line.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.backends.registry import (
    BASELINE,
    CEILING,
    KINDS,
    MODEL,
    REFERENCE,
    BackendContext,
    BackendKind,
    create_backend,
    parse_spec,
)
from explaincheck.core.environments.expectations import Expectations, read_expectations
from explaincheck.core.environments.loader import DESCRIBE_NAME
from explaincheck.core.environments.registry import (
    OWN_IDS,
    PLUGIN_FOLDERS,
    builtin_folder,
    load_builtin,
)
from explaincheck.core.environments.types import Environment
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import EXACT, OracleResult
from explaincheck.core.plugins import BACKENDS, CATEGORIES, CLAIMS, ENVIRONMENTS, KIND_WORDS, claims
from explaincheck.core.plural import counted
from explaincheck.core.taxonomy.base import (
    EXPLANATION,
    FAIL,
    MODE,
    PASS,
    PREFERENCE,
    PRIORITIZED,
    RANDOM,
    SCOPE,
    STATE,
    WORDINGS,
    Category,
    TestCase,
)
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES as REGISTERED
from explaincheck.core.taxonomy.selection import select_cases

DIMENSIONS = (STATE, PREFERENCE, SCOPE, MODE, EXPLANATION)
ROLES = (MODEL, BASELINE, CEILING, REFERENCE)
CASES_PER_SELECTION = 6  # cases of each selection a category is checked on, per model
# the size a built-in environment has (docs/adding-an-environment.md, section 5)
STATES_FROM, STATES_BELOW = 10, 1000
# Inferences the oracle grades: a state's words may say what is observed, never these (a
# keyword would answer the question). ("unsafe" is allowed: the generic wording shows the
# model's own label as observed.)
VERDICT_PHRASES = re.compile(
    r"no longer (?:be )?reach|can(?:not|'t) (?:be )?reach|unreachable|dead[ -]?end|bottleneck"
    r"|(?:task|game|run) (?:has|is) (?:failed|over|lost)|game over|hopeless|doomed"
    r"|\bsafer?\b|\bdanger|best (?:action|move)|optimal|(?:goal|target) is lost",
    re.IGNORECASE,
)
# the README block a test and ``plugins check`` hold to the prompt an LLM is really sent
README_PROMPT = re.compile(
    r"The prompt of a best-action case for state (\d+), as "
    r"`explaincheck\.core\.taxonomy\.prompts\.render_prompt` renders it[^\n]*\n\n"
    r"```text\n(.*?)\n```",
    re.S,
)


@dataclass(frozen=True)
class Finding:
    """One broken promise: of what, under which check, and what is wrong."""

    subject: str  # "category explaincheck-mylab/lost", "environment frozen_lake"
    check: str  # "rephrasings", "schema", "words", ...
    problem: str

    def line(self) -> str:
        return f"{self.subject}: {self.check}: {self.problem}"

    def as_json(self) -> dict[str, str]:
        return dataclasses.asdict(self)


# (environment, its oracle at the default constants): what categories and backends are tried on
Sample = tuple[Environment, OracleResult]


def sample(env_id: str) -> Sample:
    """A built-in environment (or a plugin's) and its oracle."""
    environment = load_builtin(env_id)
    return environment, compute_oracle(environment.request())


# ------------------------------------------------------------------------------------ categories


def category_findings(
    category: Category, samples: Iterable[Sample], per_selection: int = CASES_PER_SELECTION
) -> list[Finding]:
    """A category's declarations, and on each sample where it applies: it has candidates, each
    selected case's answer schema has the documented shape and holds the expected answer, the
    oracle's answer passes and a random one is read, and every wording asks the same question
    in its own words."""
    subject = f"category {category.id}"
    found = [Finding(subject, "declaration", p) for p in declaration_problems(category)]
    if found:
        return found
    for environment, oracle in samples:
        where = environment.id or environment.title
        try:
            found += _applied(category, environment, oracle, per_selection)
        except Exception as error:  # someone else's code: a crash is a finding, not a crash
            found.append(Finding(subject, "cases", f"{where}: raised {_error(error)}"))
    return first_of_each(found)


def first_of_each(found: list[Finding]) -> list[Finding]:
    """One finding per (subject, check): the first, saying how many more cases failed it (a
    broken wording fails every case alike)."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    for finding in found:
        groups.setdefault((finding.subject, finding.check), []).append(finding)
    return [
        dataclasses.replace(first, problem=f"{first.problem} (and {len(rest)} more like it)")
        if rest
        else first
        for first, *rest in groups.values()
    ]


def declaration_problems(category: Category) -> list[str]:
    """What a category declares for tables, figures and the store (``base.Category``)."""
    problems = []
    if category.dimension not in DIMENSIONS:
        problems.append(f"dimension {category.dimension!r} is none of {', '.join(DIMENSIONS)}")
    for name in ("id", "title", "label", "name"):
        value = getattr(category, name, None)
        if not isinstance(value, str) or not value.strip() or "\n" in value:
            problems.append(f"{name} must be one line of text (got {value!r})")
    return problems


def _applied(
    category: Category, environment: Environment, oracle: OracleResult, per_selection: int
) -> list[Finding]:
    subject, where = f"category {category.id}", environment.id or environment.title
    if category.not_applicable(oracle) is not None:
        return []
    chosen = {s: select_cases(oracle, category.id, per_selection, s) for s in (PRIORITIZED, RANDOM)}
    if not chosen[PRIORITIZED]:
        problem = f"{where}: applicable (not_applicable says None) but no case is selected"
        return [Finding(subject, "applicability", problem)]
    found = []
    for cases in chosen.values():
        for case in cases:
            found += [
                Finding(subject, check, f"{where} {case.key}: {problem}")
                for check, problem in case_problems(category, case, environment, oracle)
            ]
    return found


def case_problems(
    category: Category, case: TestCase, environment: Environment, oracle: OracleResult
) -> list[tuple[str, str]]:
    """(check, problem) for one case: its schema, expected answer, answers and wordings."""
    form = category.answer_form(case, oracle)
    schema = form.schema()
    problems = [("schema", p) for p in schema_problems(schema)]
    if problems:
        return problems
    expected = category.expected(case, oracle)
    problems += [("expected", p) for p in expected_problems(expected, schema)]
    right = grade_reply(case, OracleBackend(oracle).reply_text(case), oracle)
    if right.verdict != PASS:
        problems.append(("oracle answer", f"the oracle's own answer is {right.verdict}"))
    guess = grade_reply(case, RandomBackend(oracle, environment).reply_text(case), oracle)
    if guess.verdict not in (PASS, FAIL):
        problems.append(("random answer", f"an answer in the schema is {guess.verdict}"))
    problems += [("rephrasings", p) for p in wording_problems(category, case, environment, oracle)]
    return problems


def wording_problems(
    category: Category, case: TestCase, environment: Environment, oracle: OracleResult
) -> list[str]:
    """Wording 0 (``question``) and wordings 1 and 2 (``rephrasings``): there, each its own text
    and in the prompt, the same expected answer and the oracle's answer passing (``--wording
    all`` asks all three)."""
    texts, problems = [], []
    expected = category.expected(case, oracle)
    for wording in range(WORDINGS):
        worded = dataclasses.replace(case, wording=wording)
        try:
            texts.append(category.phrase(worded, oracle))
        except ExplaincheckError as error:
            return [f"{error} (rephrasings must give wordings 1 to {WORDINGS - 1})"]
        if texts[-1] not in render_prompt(worded, oracle, environment).text:
            problems.append(f"the prompt of wording {wording} does not hold its question")
        if category.expected(worded, oracle) != expected:
            problems.append(f"wording {wording} expects another answer")
        verdict = grade_reply(worded, OracleBackend(oracle).reply_text(worded), oracle).verdict
        if verdict != PASS:
            problems.append(f"the oracle's answer to wording {wording} is {verdict}")
    if len(set(texts)) != len(texts):
        problems.append("two wordings have the same text")
    return problems


def schema_problems(schema: Any) -> list[str]:
    """The answer schema's documented shape (docs/plugins.md, "The answer schema"): a JSON
    object whose every property is required and is a number with bounds, a string from an
    enum, or an array of strings from an enum with its size pinned; nothing else allowed."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return ["not a JSON schema of an object ({'type': 'object', ...})"]
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return ["no 'properties'"]
    problems = []
    if sorted(schema.get("required") or []) != sorted(properties):
        problems.append("'required' must name every property")
    if schema.get("additionalProperties") is not False:
        problems.append("'additionalProperties' must be false")
    for key, value in properties.items():
        if _value_shape(value) is None:
            problems.append(
                f"property {key!r} is none of: a number with 'minimum' and 'maximum', a string"
                " with an 'enum', an array of such strings with 'minItems', 'maxItems' and"
                " 'uniqueItems'"
            )
    return problems


def _value_shape(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind in ("number", "integer"):
        bounds = (value.get("minimum"), value.get("maximum"))
        return "number" if all(isinstance(b, int | float) for b in bounds) else None
    if kind == "string":
        return "enum" if _enum(value) else None
    if kind == "array":
        sized = all(isinstance(value.get(k), int) for k in ("minItems", "maxItems"))
        unique = value.get("uniqueItems") is True
        ok = sized and unique and isinstance(value.get("items"), dict) and _enum(value["items"])
        return "array" if ok else None
    return None


def _enum(value: dict[str, Any]) -> bool:
    enum = value.get("enum")
    return (
        isinstance(enum, list)
        and bool(enum)
        and all(isinstance(e, str) for e in enum)
        and len(set(enum)) == len(enum)
    )


def expected_problems(expected: Any, schema: dict[str, Any]) -> list[str]:
    """The expected answer is keyed like the answer and every value it names lies in the
    schema's space (else no answer under constrained decoding could pass)."""
    properties = schema["properties"]
    if not isinstance(expected, dict) or not expected:
        return [f"expected answer {expected!r} is not an object keyed like the answer"]
    problems = []
    for key, value in expected.items():
        if key not in properties:
            problems.append(f"expected answer names {key!r}, which the schema has not")
            continue
        space = properties[key]
        values = _flat(value)
        if space.get("type") in ("number", "integer"):
            low, high = space["minimum"], space["maximum"]
            inside = all(isinstance(v, int | float) and low <= v <= high for v in values)
        else:
            enum = space["enum"] if "enum" in space else space["items"]["enum"]
            inside = all(v in enum for v in values)
        if not inside:
            problems.append(f"expected {key} {value!r} lies outside the schema")
    return problems


def _flat(value: Any) -> list[Any]:
    """Every value an expected answer names (a list means any of them; groups flattened)."""
    if isinstance(value, list):
        return [v for item in value for v in _flat(item)]
    return [value]


def counting_findings(category: Category, columnar: OracleResult) -> list[Finding]:
    """``not_applicable`` counts, it does not make facts (``pool_counts``; the Campaign tab asks
    every category at once of a model of 10^5 states), and it answers on a large oracle's
    columns what it answers on the same oracle's facts. ``columnar``: an oracle computed as
    columns (``compute_in_process(..., columnar_from=0)``), none of its facts made yet."""
    subject, found = f"category {category.id}", []
    states = columnar.states
    try:
        before = _made(states)
        on_columns = category.not_applicable(columnar)
        made = _made(states) - before
        if made:
            found.append(
                Finding(
                    subject,
                    "applicability",
                    f"not_applicable made the facts of {counted(made, 'state')}: count"
                    " instead (core/taxonomy/pool_counts.py)",
                )
            )
        facts = dataclasses.replace(columnar, states=tuple(states))
        on_facts = category.not_applicable(facts)
    except Exception as error:
        return [Finding(subject, "applicability", f"raised {_error(error)}")]
    if on_columns != on_facts:
        found.append(
            Finding(
                subject,
                "applicability",
                f"says {on_columns!r} on a large oracle's columns but {on_facts!r} on its facts",
            )
        )
    return found


def _made(states: Any) -> int:
    """How many states' facts a columnar oracle has made so far (``ColumnarStates.facts``
    keeps them in ``_made``, a list made on first use)."""
    return sum(fact is not None for fact in vars(states).get("_made", ()))


# -------------------------------------------------------------------------------------- backends


def backend_findings(kind: BackendKind, samples: Sequence[Sample]) -> list[Finding]:
    """A backend kind's spec syntax and facts; and one that answers without a server or a
    model file (``instant``), built on the first sample, answers a case of every category that
    applies there within the answer schema (read, not ``invalid``)."""
    subject = f"backend {kind.prefix}"
    found = [Finding(subject, "declaration", p) for p in kind_problems(kind)]
    if found or not kind.instant or not samples:
        return found
    environment, oracle = samples[0]
    try:
        found += [
            Finding(subject, "answers", p) for p in _answer_problems(kind, environment, oracle)
        ]
    except Exception as error:  # someone else's code
        found.append(Finding(subject, "answers", f"raised {_error(error)}"))
    return first_of_each(found)


def kind_problems(kind: BackendKind) -> list[str]:
    """What parsing, help texts and the planner read of a kind (``BackendKind``)."""
    problems = []
    if ":" in kind.prefix or not kind.prefix.strip():
        problems.append(f"prefix {kind.prefix!r} must be a word without ':'")
    if not kind.summary.strip():
        problems.append("summary is empty (help texts and the GUI show it)")
    if kind.role not in ROLES:
        problems.append(f"role {kind.role!r} is none of {', '.join(ROLES)}")
    specs = [*([kind.example] if kind.example else []), *kind.offered()]
    if kind.argument and not kind.optional and not kind.example:
        problems.append(f"takes {kind.argument} but gives no example spec")
    for spec in specs:
        try:
            parse_spec(spec)
        except ExplaincheckError as error:
            problems.append(f"its own spec {spec!r} does not parse: {error}")
    return problems


def _answer_problems(
    kind: BackendKind, environment: Environment, oracle: OracleResult
) -> list[str]:
    spec = kind.example or next(iter(kind.offered()), kind.prefix)
    context = BackendContext(oracle=oracle, environment=environment)
    backend = create_backend(spec, context)
    cases = [
        case
        for category_id, category in REGISTERED.items()
        if category.not_applicable(oracle) is None
        for case in select_cases(oracle, category_id, 1)
    ]

    async def ask() -> list[str]:
        problems = []
        try:
            for case in cases:
                prompt = render_prompt(case, oracle, environment)
                reply = await backend.answer(prompt, case)
                verdict = grade_reply(case, reply.text, oracle).verdict
                if verdict not in (PASS, FAIL):
                    problems.append(f"{case.key}: its reply is {verdict} ({reply.text[:80]!r})")
        finally:
            await backend.close()
            await context.close()
        return problems

    return asyncio.run(ask())


# ---------------------------------------------------------------------------------- environments


def environment_findings(env_id: str) -> list[Finding]:
    """An environment (a built-in's folder or a plugin's): it loads, says what of its folder
    does not run, builds to the structure a built-in promises, its ``expect.toml`` holds, its
    words cover every state and action without giving answers away, and its README shows the
    prompt an LLM is really sent."""
    subject = f"environment {env_id}"
    found = [Finding(subject, "describe.py", p) for p in describe_problems(env_id)]
    try:
        environment, oracle = sample(env_id)
    except ExplaincheckError as error:
        return [*found, Finding(subject, "loads", str(error))]
    checks: tuple[tuple[str, Callable[[Environment, OracleResult], list[str]]], ...] = (
        ("model", structure_problems),
        ("expect.toml", expectation_problems),
        ("words", word_problems),
        ("README", readme_problems),
    )
    for check, problems_of in checks:
        found += [Finding(subject, check, p) for p in problems_of(environment, oracle)]
    return found


def describe_problems(env_id: str) -> list[str]:
    """A plugin's ``describe.py`` never runs (code in an environment folder runs only for this
    project's own folders or a folder a program trusts): shipping one is dead code."""
    folder = PLUGIN_FOLDERS.get(env_id)
    if folder is None or not (folder / DESCRIBE_NAME).is_file():
        return []
    return [
        f"{DESCRIBE_NAME} does not run for a plugin's environment (code in an environment folder"
        " runs only for explaincheck's own environments or a folder a program trusts); word the"
        " states with the 'state' template of environment.toml and remove it"
    ]


def structure_problems(environment: Environment, oracle: OracleResult) -> list[str]:
    """What every built-in environment's model has (docs/adding-an-environment.md, section 5):
    its goal and unsafe labels, an exact build of 10 to 999 states without warnings, dead ends,
    goal and unsafe states, a quarter of the states with 0 < V < 1, 0 < V(s0) < 1."""
    problems = []
    missing = {environment.goal_label, environment.unsafe_label} - set(oracle.model.labels)
    if missing:
        problems.append(f"the model has no label {', '.join(sorted(missing))}")
    if oracle.method != EXACT:
        problems.append(f"not built exactly ({oracle.method})")
    if not STATES_FROM <= oracle.model.states < STATES_BELOW:
        problems.append(
            f"{oracle.model.states} states: a built-in has {STATES_FROM} to {STATES_BELOW - 1}"
        )
    if not oracle.dead_ends:
        problems.append("no dead end (V = 0)")
    if not any(s.is_goal for s in oracle.states) or not any(s.is_unsafe for s in oracle.states):
        problems.append("no goal state or no unsafe state")
    between = sum(1 for s in oracle.states if 0 < s.value < 1)
    if between * 4 < oracle.model.states:
        problems.append(f"only {between} of {oracle.model.states} states have 0 < V < 1")
    if not 0 < oracle.initial.value < 1:
        problems.append(f"V(s0) = {oracle.initial.value:.4g}, not strictly between 0 and 1")
    problems += [f"model warning: {w}" for w in oracle.warnings]
    return problems


def expectation_problems(environment: Environment, oracle: OracleResult) -> list[str]:
    """The folder's ``expect.toml`` (docs/adding-an-environment.md, section 6) holds."""
    from explaincheck.core.environments.expectations import ExpectationsError
    from explaincheck.core.taxonomy.safer import danger_is_complement

    try:
        expect = read_expectations(_folder(environment), environment.id)
    except (ExpectationsError, ValueError, TypeError) as error:
        return [str(error)]
    return expectation_mismatches(expect, environment, oracle, danger_is_complement(oracle))


def expectation_mismatches(
    expect: Expectations, environment: Environment, oracle: OracleResult, complement: bool
) -> list[str]:
    """What of ``expect`` the oracle and the words do not show."""
    shown = {
        "states": (oracle.model.states, expect.states),
        "bottlenecks": (len(oracle.bottlenecks), expect.bottlenecks),
        "dead_ends": (len(oracle.dead_ends), expect.dead_ends),
        "danger_is_one_minus_value": (complement, expect.danger_is_one_minus_value),
    }
    problems = [
        f"{key} = {want!r}, the oracle says {got!r}"
        for key, (got, want) in shown.items()
        if got != want
    ]
    if not expect.value_holds(oracle.initial):
        got = oracle.initial.value_exact or oracle.initial.value
        problems.append(f"initial_value = {expect.initial_value}, the oracle says {got}")
    if expect.initial_words not in environment.describe(oracle.initial):
        problems.append(f"initial_words {expect.initial_words!r} not in the initial state's words")
    return problems


def word_problems(environment: Environment, oracle: OracleResult) -> list[str]:
    """Every action has a meaning, every state reads, no two states outside the goal read
    alike, no placeholder is left in the task, and no state's words restate a verdict."""
    problems = []
    unexplained = set(oracle.model.actions) - set(environment.action_meanings)
    if unexplained:
        problems.append(f"actions without a meaning: {', '.join(sorted(unexplained))}")
    if "{" in environment.task:
        problems.append("an unfilled placeholder in the task")
    seen: dict[str, int] = {}
    for state in oracle.states:
        words = environment.describe(state).strip()
        if not words:
            problems.append(f"state {state.id} has no words")
        if state.is_goal:
            continue
        if words in seen:
            problems.append(f"states {seen[words]} and {state.id} read the same: {words!r}")
        seen.setdefault(words, state.id)
        verdict = VERDICT_PHRASES.search(words)
        if verdict:
            problems.append(f"state {state.id} says {verdict.group(0)!r}: {words!r}")
    return problems


def readme_problems(environment: Environment, oracle: OracleResult) -> list[str]:
    """The folder's README.md shows the real prompt of a best-action case (paste it from
    ``explaincheck envs --prompt ID --state N``)."""
    readme = _folder(environment) / "README.md"
    if not readme.is_file():
        return ["no README.md"]
    found = README_PROMPT.search(readme.read_text(encoding="utf-8"))
    if not found:
        return ["README.md has no example prompt block (explaincheck envs --prompt ID)"]
    state = int(found.group(1))
    if not 0 <= state < oracle.model.states:
        return [f"README.md's example prompt asks about state {state}, which the model has not"]
    case = TestCase("best_action", (state,), 0.0, PRIORITIZED, 0)
    if found.group(2) != render_prompt(case, oracle, environment).text:
        return ["README.md's example prompt is not the prompt an LLM is sent (paste it again)"]
    return []


def _folder(environment: Environment) -> Path:
    return Path(environment.folder) if environment.folder else builtin_folder(str(environment.id))


# ---------------------------------------------------------------------------- one plugin package


def distribution_findings(distribution: str) -> list[Finding]:
    """Every check on what one installed plugin package registers (its categories on this
    project's environments and its own, its backends, its environments), and what it offered
    that could not be registered. ``explaincheck plugins check``."""
    found = [
        Finding(f"{KIND_WORDS[c.group]} {c.name or c.entry}", "registration", c.problem)
        for c in CLAIMS
        if c.source.distribution == distribution and c.id is None
    ]
    ids = {
        group: [c.id for c in claims(group) if c.source.distribution == distribution and c.id]
        for group in (CATEGORIES, BACKENDS, ENVIRONMENTS)
    }
    for env_id in ids[ENVIRONMENTS]:
        found += environment_findings(env_id)
    samples = []
    for env_id in (*OWN_IDS, *ids[ENVIRONMENTS]):
        try:
            samples.append(sample(env_id))
        except ExplaincheckError:
            continue  # said by environment_findings
    columnar = _columnar(samples[0]) if samples and ids[CATEGORIES] else None
    for category_id in ids[CATEGORIES]:
        category = REGISTERED[category_id]
        found += category_findings(category, samples)
        if columnar is not None:
            found += counting_findings(category, columnar)
    for prefix in ids[BACKENDS]:
        found += backend_findings(KINDS[prefix], samples)
    return found


def _columnar(first: Sample) -> OracleResult:
    """The oracle of ``first`` computed as columns, as a model of 10^5 states is."""
    from explaincheck.core.oracle import compute_in_process
    from explaincheck.core.oracle.types import VERIFIED

    environment, _ = first
    return compute_in_process(environment.request(method=VERIFIED), columnar_from=0)


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
