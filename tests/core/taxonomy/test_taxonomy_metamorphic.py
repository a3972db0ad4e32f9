"""Wordings and metamorphic variants on the seven built-in environments with the real oracle.

Every wording asks the same question (same expected answer, different text), and every
metamorphic variant keeps the oracle's answer, or maps it exactly as stated: a swapped pair
swaps the right letter, renamed states answer with the new letter of the same state.
"""

from __future__ import annotations

import pytest

from explaincheck.core.backends.oracle_backend import OracleBackend
from explaincheck.core.environments.registry import BUILTIN_IDS, load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.plugin_checks import wording_problems
from explaincheck.core.taxonomy import metamorphic
from explaincheck.core.taxonomy.base import FAIL, PASS, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.taxonomy.metamorphic import (
    ACTIONS,
    RENAME,
    SUBSET_ORDER,
    SWAP,
    state_names,
    transformed,
)
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases

BUDGET = 6


@pytest.fixture(scope="module", params=BUILTIN_IDS)
def builtin(request):
    environment = load_builtin(request.param)
    return environment, compute_oracle(environment.request())


def _cases(oracle):
    for category_id, category in CATEGORIES.items():
        if category.not_applicable(oracle) is None:
            for case in select_cases(oracle, category_id, BUDGET, "prioritized"):
                yield category, case


def _undone(category, case, oracle):
    form = category.answer_form(case, oracle)
    names = metamorphic.state_names(case, len(case.states))
    answer = category.oracle_answer(case, oracle)
    return metamorphic.canonical_answer(form.key, answer, case.states, names)


def test_every_wording_has_the_same_answer_and_its_own_text(builtin):
    """The wordings check of ``explaincheck plugins check`` (core/plugin_checks.py)."""
    environment, oracle = builtin
    for category, case in _cases(oracle):
        assert wording_problems(category, case, environment, oracle) == [], case.key


def test_variants_keep_the_oracle_answer_after_undoing(builtin):
    environment, oracle = builtin
    answerer = OracleBackend(oracle)
    seen = set()
    for category, case in _cases(oracle):
        original = render_prompt(case, oracle, environment).text
        for variant in metamorphic.applicable(category, case, oracle):
            seen.add(variant)
            changed = transformed(case, variant)
            assert changed.family == case.key and changed.key != case.key
            assert render_prompt(changed, oracle, environment).text != original, changed.key
            assert _undone(category, changed, oracle) == _undone(category, case, oracle)
            grade = grade_reply(changed, answerer.reply_text(changed), oracle)
            assert grade.verdict == PASS, (changed.key, grade)
    assert {ACTIONS} <= seen


def test_swap_maps_the_right_letter_to_the_other_one(builtin):
    _, oracle = builtin
    for category, case in _cases(oracle):
        if SWAP not in metamorphic.applicable(category, case, oracle):
            continue
        swapped = transformed(case, SWAP)
        before = category.oracle_answer(case, oracle)
        after = category.oracle_answer(swapped, oracle)
        assert {before, after} == {"K", "L"}
        # The original's answer letter, unchanged, is now wrong: the answer really swaps.
        assert category.judge(before, swapped, oracle, _settings()).verdict == FAIL


def test_rename_uses_new_letters_for_the_same_states(builtin):
    environment, oracle = builtin
    for category, case in _cases(oracle):
        if RENAME not in metamorphic.applicable(category, case, oracle):
            continue
        renamed = transformed(case, RENAME)
        names = state_names(renamed, len(case.states))
        assert not set(names) & set(state_names(case, len(case.states)))
        text = render_prompt(renamed, oracle, environment).text
        assert f"State {names[0]}:" in text and "State K:" not in text
        assert category.answer_form(renamed, oracle).options in (names, ("yes", "no"))


def test_reordered_subsets_and_actions_keep_their_members(builtin):
    environment, oracle = builtin
    for category, case in _cases(oracle):
        variants = metamorphic.applicable(category, case, oracle)
        if SUBSET_ORDER in variants:
            reordered = transformed(case, SUBSET_ORDER)
            assert reordered.states == tuple(reversed(case.states))
            assert category.oracle_answer(reordered, oracle) == category.oracle_answer(case, oracle)
        if ACTIONS in variants and not category.lettered:
            actions = oracle.state(case.states[0]).actions
            text = render_prompt(transformed(case, ACTIONS), oracle, environment).text
            listed = [text.index(f"- {environment.describe_action(a)}") for a in actions]
            assert listed == sorted(listed, reverse=True)


def test_key_parts_rebuild_the_case():
    case = TestCase("safer", (3, 5), 0.5, "prioritized", 2, wording=2)
    changed = transformed(case, SWAP)
    assert case.key == "safer/prioritized/2/3-5~w2"
    assert metamorphic.key_parts(changed.key) == {
        "wording": 2,
        "variant": SWAP,
        "origin": case.key,
    }
    rebuilt = TestCase("safer", (5, 3), 0.5, "prioritized", 2, **metamorphic.key_parts(changed.key))
    assert rebuilt == changed
    plain = TestCase("safer", (3, 5), 0.5, "prioritized", 2)
    assert plain.key == "safer/prioritized/2/3-5"  # the key of earlier versions
    assert metamorphic.key_parts(plain.key) == {"wording": 0, "variant": "", "origin": ""}


def _settings():
    from explaincheck.core.taxonomy.base import GradingSettings

    return GradingSettings()
