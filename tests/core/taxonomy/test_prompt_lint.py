"""A lint over every prompt the built-in environments and the test models produce (both
selections, budget 20; the test models in their generic wording).

Each rule guards a way a test case can be invalid while looking fine:
- a name the question uses (a state letter, an action) that the prompt never shows, or that the
  answer schema does not allow, makes the question unanswerable or the schema contradict it;
- an expected answer outside the schema's space could never be given under constrained decoding;
- two states of a pair or subset that read the same cannot be told apart;
- a state description that restates a verdict (dead end, goal unreachable, bottleneck, safety,
  best action) lets a keyword answer the question instead of the explainer;
- a case that every answer passes (chance 1) tests nothing;
- a do-nothing action (every outcome is the state itself) in a preference question is always
  among the best, unless the campaign keeps it on purpose;
- a reading case (its words give a failure away) must be marked, with δ at most ½;
- a constant the generic wording mentions without its value leaves a rule unreadable;
(docs/method.md §4 and §5).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from explaincheck.core.analysis.chance import case_chance
from explaincheck.core.environments.generic import generic_environment
from explaincheck.core.environments.prism_text import identifiers
from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.program import describe_program
from explaincheck.core.plugin_checks import VERDICT_PHRASES  # shared with plugins check
from explaincheck.core.taxonomy.answers import CHOICE, PROBABILITY, RANKING
from explaincheck.core.taxonomy.base import PREFERENCE
from explaincheck.core.taxonomy.case_rules import (
    READING_DELTA,
    SelectionRules,
    is_visible_dead_end,
    reads_as_failure,
)
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES, OWN_CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases
from explaincheck.core.taxonomy.state_letters import STATE_NAMES, letters

# Test models (tests/models) with the constants they need, asked in their generic wording.
TEST_MODELS = {
    "corridor": "TARGET=4",  # a trap, a do-nothing "wait", every value 0 or 1
    "gambler": "N=4",
    "dead_end": "",  # a do-nothing "wait" in a dead end
    "chain": "",
    "shortcut": "",
    "tie": "",
    "likely_not_safe": "",
    "two_step": "",
}
MODELS = Path(__file__).resolve().parents[2] / "models"
KEEP = SelectionRules(keep_do_nothing=True)

# A state letter mentioned in a question: "state K", "states K and L", "K or L".
MENTIONED_LETTER = re.compile(rf"\b([{STATE_NAMES}])\b")


@pytest.fixture(scope="module", params=[*BUILTIN_IDS, *TEST_MODELS])
def builtin(request):
    if request.param in TEST_MODELS:
        path = MODELS / f"{request.param}.prism"
        environment = generic_environment(path, constants=TEST_MODELS[request.param])
    else:
        environment = load_builtin(request.param)
    return environment, compute_oracle(environment.request())


# made once per oracle (kept alive in the value, so its id is never reused by another)
_SELECTED: dict[tuple[int, SelectionRules | None], tuple[Any, list]] = {}
_PROMPTS: dict[tuple[int, Any], tuple[Any, Any]] = {}


def selected_cases(oracle, rules=None):
    """Every selected case of ``oracle`` (both selections, budget 20), made once per oracle and
    rules: the lint's rules read the same cases."""
    key = (id(oracle), rules)
    if key not in _SELECTED:
        found = []
        for category_id, category in CATEGORIES.items():
            if category.not_applicable(oracle) is not None:
                continue
            for selection in ("prioritized", "random"):
                extra = {"rules": rules} if rules else {}
                for case in select_cases(oracle, category_id, 20, selection, **extra):
                    found.append((category, case))
        _SELECTED[key] = (oracle, found)
    return _SELECTED[key][1]


def rendered(case, oracle, environment):
    """``render_prompt``, once per case of an oracle."""
    key = (id(oracle), case)
    if key not in _PROMPTS:
        _PROMPTS[key] = (oracle, render_prompt(case, oracle, environment))
    return _PROMPTS[key][1]


def answer_values(expected: Any) -> list[Any]:
    """Every value an expected answer names (a list means any of them; groups are flattened)."""
    if isinstance(expected, list):
        return [v for item in expected for v in answer_values(item)]
    return [expected]


def test_names_in_prompt_and_schema_and_expected_in_space(builtin):
    environment, oracle = builtin
    checked = 0
    for category, case in selected_cases(oracle):
        prompt = rendered(case, oracle, environment)
        form = category.answer_form(case, oracle)
        value_schema = prompt.schema["properties"][form.key]
        question = category.question(case, oracle)
        where = f"{environment.id}/{case.key}"
        # state letters: the question names only letters the prompt labels
        shown = letters(len(case.states)) if category.lettered else ()
        for letter in MENTIONED_LETTER.findall(question):
            assert letter in shown, f"{where}: question names state {letter}"
            assert f"State {letter}:" in prompt.text, where
        # every admissible answer name is shown in the prompt and allowed by the schema
        if form.kind in (CHOICE, RANKING):
            enum = value_schema["enum"] if form.kind == CHOICE else value_schema["items"]["enum"]
            assert list(form.options) == enum, where
            for name in form.options:
                assert name in prompt.text, f"{where}: {name!r} not in the prompt"
        # the expected answer and the oracle's own answer lie in the schema's space
        expected = category.expected(case, oracle)[form.key]
        answer = category.oracle_answer(case, oracle)
        if form.kind == PROBABILITY:
            assert 0 <= expected <= 1 and 0 <= answer <= 1, where
        elif form.kind == CHOICE:
            assert set(answer_values(expected)) <= set(form.options), where
            assert answer in form.options, where
        else:
            assert sorted(answer_values(expected)) == sorted(form.options), where
            assert sorted(answer) == sorted(form.options), where
        # the states of a pair or subset can be told apart from their words
        if len(case.states) > 1:
            texts = [environment.describe(oracle.state(s)).strip() for s in case.states]
            assert len(set(texts)) == len(texts), f"{where}: two states read the same"
        checked += 1
    assert checked >= (100 if environment.id else 3)


def test_no_case_passes_every_answer(builtin):
    environment, oracle = builtin
    for category, case in selected_cases(oracle):
        prompt = rendered(case, oracle, environment)
        chance = case_chance(prompt.schema, category.expected(case, oracle))
        assert chance < 1, f"{environment.title}/{case.key}: every answer passes"


def test_do_nothing_actions_only_where_kept(builtin):
    environment, oracle = builtin
    for rules in (None, KEEP):
        for category, case in selected_cases(oracle, rules):
            if category.dimension != PREFERENCE:
                continue
            state = oracle.state(case.states[0])
            options = set(category.answer_form(case, oracle).options)
            idle = set(state.do_nothing)
            where = f"{environment.title}/{case.key}"
            if rules is None:
                assert not options & idle, f"{where}: do-nothing {idle & options} offered"
            else:
                assert idle <= options, f"{where}: kept do-nothing {idle - options} missing"


def test_kept_do_nothing_is_always_best_on_the_corridor():
    environment = generic_environment(MODELS / "corridor.prism", constants="TARGET=4")
    oracle = compute_oracle(environment.request())
    kept = select_cases(oracle, "best_action", 20, rules=KEEP)
    assert kept and all(
        "wait" in CATEGORIES["best_action"].expected(c, oracle)["action"] for c in kept
    )
    plain = select_cases(oracle, "best_action", 20)
    assert plain and all("wait" not in render_prompt(c, oracle, environment).text for c in plain)


def reading_truth(category_id: str, states) -> bool | None:
    """Whether a case is a reading case, from the definition (docs/method.md §4), which names
    this project's categories; None for another's (a plugin's marks its own)."""
    if category_id == "which_bottleneck":
        return any(is_visible_dead_end(s) and not s.bottleneck for s in states)
    if category_id == "subset_dead_end":  # the label rule answers it, whatever the truth
        return any(reads_as_failure(s) for s in states) == any(s.dead_end for s in states)
    if category_id in ("satisfy", "more_promising", "safer"):
        return any(reads_as_failure(s) for s in states)
    return False if category_id in OWN_CATEGORIES else None


def test_every_reading_case_is_marked(builtin):
    environment, oracle = builtin
    for _, case in selected_cases(oracle):
        states = [oracle.state(i) for i in case.states]
        where = f"{environment.title}/{case.key}"
        truth = reading_truth(case.category, states)
        assert truth is None or case.reading == truth, where
        if case.reading:
            assert case.delta <= READING_DELTA, where


def generic_of(environment):
    """The generic wording of an environment's model, with its constants and labels."""
    return generic_environment(
        environment.model_path,
        constants=environment.constants,
        goal_label=environment.goal_label,
        unsafe_label=environment.unsafe_label,
    )


def test_generic_wording_gives_every_mentioned_constant(builtin):
    environment, _ = builtin
    generic = generic_of(environment)
    program = describe_program(environment.model_path)
    given = re.search(r"Constants: (.*?)\. ", generic.task)
    valued = set(re.findall(r"(\w+) = ", given.group(1))) if given else set()
    words = identifiers(generic.task, *generic.action_meanings.values())
    for constant in program.constants:
        if constant.name in words:
            assert constant.name in valued, f"{environment.title}: {constant.name} has no value"


ONE_PLURAL = re.compile(r"(?<![\d.])1 (?:litres|moves|units|days|coins|shares|steps|hours|jobs)\b")


def test_one_of_a_unit_is_singular(builtin):
    """ "holds 1 litres" misreads a state; every built-in word says "1 litre"."""
    environment, oracle = builtin
    texts = [environment.task, *environment.action_meanings.values()]
    texts += [environment.describe(s) for s in oracle.states]
    for text in texts:
        found = ONE_PLURAL.search(text)
        assert found is None, f"{environment.title}: {found.group(0)!r} in {text!r}"


def test_states_outside_the_goal_read_differently(builtin):
    environment, oracle = builtin
    seen: dict[str, int] = {}
    for state in oracle.states:
        if not state.is_goal:
            words = environment.describe(state)
            assert words not in seen, f"{environment.id}: states {seen[words]} and {state.id}"
            seen[words] = state.id


def test_state_words_never_restate_a_verdict(builtin):
    environment, oracle = builtin
    generic = generic_of(environment)
    for wording in (environment, generic):
        for state in oracle.states:
            if state.is_goal:
                continue  # goal states are never a test case
            words = wording.describe(state)
            found = VERDICT_PHRASES.search(words)
            assert found is None, (
                f"{environment.id} state {state.id}: {found.group(0)!r} in {words!r}"
            )


@pytest.mark.parametrize(
    "sentence",
    [
        "You fell into a hole. The game is over: the goal can no longer be reached.",
        "The task has failed.",
        "This state is a dead end.",
        "Row 2 is a bottleneck.",
        "You are safe here.",
        "The best action is down.",
    ],
)
def test_lint_catches_verdicts(sentence):
    assert VERDICT_PHRASES.search(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "You have fallen into the hole at row 1, column 1.",
        "The wolf and the goat are alone on the left bank: the wolf has eaten the goat.",
        "The battery is empty.",
        "Cash: 3 coins. Shares held: 1.",
    ],
)
def test_lint_lets_observations_through(sentence):
    assert VERDICT_PHRASES.search(sentence) is None
