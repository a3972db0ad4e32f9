"""Each built-in environment: the model builds, the structure the paper promises holds (bottleneck
counts, dead ends, values strictly between 0 and 1) and its words cover every state and action."""

from __future__ import annotations

import shutil

import pytest

from explaincheck.core.environments.loader import TemplateDescriber, load_environment
from explaincheck.core.environments.registry import BUILTIN_IDS, list_builtin, load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import EXACT, OracleResult
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import applicability

BOTTLENECKS = {
    "frozen_lake": 1,
    "wolf_goat_cabbage": 4,
    "water_jug": 0,
    "transporter": 0,
    "stock_market": 0,
    "job_shop": 0,
    "dam": 0,
}
# What the description of the initial state must say (it names the state, not just any text).
INITIAL_WORDS = {
    "frozen_lake": "You are at row 0, column 0",
    "wolf_goat_cabbage": "Left bank: farmer, wolf, goat and cabbage.",
    "water_jug": "holds 0 litres and the large jug (5 litres) holds 0 litres",
    "transporter": "The robot is at row 0, column 0",
    "stock_market": "Cash: 10 coins.",
    "job_shop": "Job A: 3 units of work left",
    "dam": "The reservoir holds 3 units of water",
}
BOTTLENECK_CATEGORIES = {"bottleneck", "subset_bottleneck", "which_bottleneck"}

_results: dict[str, OracleResult] = {}


def oracle(env_id: str) -> OracleResult:
    if env_id not in _results:
        _results[env_id] = compute_oracle(load_builtin(env_id).request())
    return _results[env_id]


def test_ids_are_the_fixed_seven():
    assert set(BUILTIN_IDS) == set(BOTTLENECKS)
    assert [env.id for env in list_builtin()] == list(BUILTIN_IDS)


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_model_builds_with_promised_structure(env_id):
    env = load_builtin(env_id)
    result = oracle(env_id)
    assert {env.goal_label, env.unsafe_label} <= set(result.model.labels)
    assert result.method == EXACT and result.has_danger
    assert 10 <= result.model.states < 1000
    assert len(result.bottlenecks) == BOTTLENECKS[env_id]
    assert result.dead_ends, "every environment needs dead ends (V = 0)"
    between = sum(1 for s in result.states if 0 < s.value < 1)
    assert between / result.model.states >= 0.25
    assert 0 < result.initial.value < 1
    assert any(s.is_goal for s in result.states) and any(s.is_unsafe for s in result.states)
    assert not result.warnings


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_bottleneck_categories_apply_exactly_where_the_oracle_finds_bottlenecks(env_id):
    found = applicability(oracle(env_id))
    for category_id in BOTTLENECK_CATEGORIES:
        assert found[category_id].applicable == bool(BOTTLENECKS[env_id]), category_id


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_every_action_has_a_meaning(env_id):
    env = load_builtin(env_id)
    assert set(oracle(env_id).model.actions) == set(env.action_meanings)


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_every_state_reads_and_decisions_read_differently(env_id):
    """Ended runs may share words (all floods look alike); states with a choice never do."""
    env = load_builtin(env_id)
    texts = {}
    for state in oracle(env_id).states:
        text = env.describe(state)
        assert text.strip()
        if state.actions:
            texts[state.id] = text
    assert len(set(texts.values())) == len(texts), "two states with a choice read the same"


def best_action_prompt(env, result: OracleResult, state: int) -> str:
    """The real prompt of a best-action case on ``state`` (what an LLM reads)."""
    return render_prompt(TestCase("best_action", (state,), 0.0, "prioritized", 0), result, env).text


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_prompt_names_the_state_and_every_available_action(env_id):
    env = load_builtin(env_id)
    result = oracle(env_id)
    initial = result.initial
    prompt = best_action_prompt(env, result, initial.id)
    assert INITIAL_WORDS[env_id] in prompt
    assert env.task in prompt
    assert len(initial.actions) >= 2
    for action in initial.actions:
        assert f"- {action}: " in prompt
    assert "{" not in env.task, "an unfilled placeholder in the task"
    sample = max(result.states, key=lambda s: len(s.actions))
    sample_prompt = best_action_prompt(env, result, sample.id)
    for action in sample.actions:
        assert f"- {action}: {env.action_meanings[action]}" in sample_prompt


def test_constants_override_the_defaults():
    env = load_builtin("frozen_lake", constants="N=6")
    assert env.constants.startswith("N=6,")  # the factors' constants keep their defaults
    assert "AHEAD=1,SIDE=1" in env.constants
    assert "6 x 6" in env.task
    result = compute_oracle(env.request())
    assert result.model.states == 36
    assert len(result.bottlenecks) == 1
    assert "row 5" in env.describe(result.initial)


def test_describe_code_runs_only_when_trusted(tmp_path):
    copy = tmp_path / "frozen_lake"
    shutil.copytree(load_builtin("frozen_lake").folder, copy)
    untrusted = load_environment(copy)
    assert isinstance(untrusted.describe, TemplateDescriber)
    trusted = load_environment(copy, trusted=True)
    assert not isinstance(trusted.describe, TemplateDescriber)
    state = oracle("frozen_lake").initial
    assert untrusted.describe(state) == "You are at row 0, column 0 of the 4 x 4 lake."
    assert "Map" in trusted.describe(state)


def test_a_new_environment_is_its_folder_alone(tmp_path):
    from explaincheck.core.environments.registry import PAPER_ORDER, discover

    for name in ("zeta", "dam", "alpha", "frozen_lake"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "environment.toml").write_text("")
    (tmp_path / "notes").mkdir()  # no environment.toml: not an environment
    assert discover(tmp_path) == ("frozen_lake", "dam", "alpha", "zeta")
    assert discover(tmp_path / "missing") == ()
    assert discover(environments_root()) == PAPER_ORDER


def environments_root():
    from explaincheck.core.paths import environments_dir

    return environments_dir()
