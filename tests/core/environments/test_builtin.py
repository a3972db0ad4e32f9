"""Each environment folder: the model builds, the structure the paper promises holds (bottleneck
counts, dead ends, values strictly between 0 and 1), its words cover every state and action, and
its own ``expect.toml`` holds (state count, V(s0), the words of the initial state). The tests
iterate the environments folder and read what to expect from each folder, so a new environment
is its folder alone (the last test adds one and runs these tests and the CLI on it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from support.environment_expectations import (
    EXPECT_NAME,
    Expectations,
    all_expected,
    expected,
    read_expectations,
)

from explaincheck.core.environments.loader import TemplateDescriber, load_environment
from explaincheck.core.environments.registry import (
    BUILTIN_IDS,
    PLUGIN_FOLDERS,
    discover,
    list_builtin,
    load_builtin,
)
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.paths import environments_dir
from explaincheck.core.plugin_checks import (
    expectation_mismatches,
    expectation_problems,
    structure_problems,
    word_problems,
)
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import applicability
from explaincheck.core.taxonomy.safer import danger_is_complement

BOTTLENECK_CATEGORIES = {"bottleneck", "subset_bottleneck", "which_bottleneck"}

_results: dict[str, OracleResult] = {}


def oracle(env_id: str) -> OracleResult:
    if env_id not in _results:
        _results[env_id] = compute_oracle(load_builtin(env_id).request())
    return _results[env_id]


def test_every_environment_folder_is_listed_with_its_expectations():
    # the folders under environments/, then those of installed plugin packages
    assert discover(environments_dir()) + tuple(PLUGIN_FOLDERS) == BUILTIN_IDS
    assert {"frozen_lake", "wolf_goat_cabbage", "dam"} <= set(BUILTIN_IDS)
    assert [env.id for env in list_builtin()] == list(BUILTIN_IDS)
    assert list(all_expected()) == list(BUILTIN_IDS)  # each folder has a readable expect.toml


def assert_expectations_hold(expect: Expectations, env, result: OracleResult) -> None:
    """What ``explaincheck plugins check`` holds an environment to (core/plugin_checks.py)."""
    complement = danger_is_complement(result)
    assert expectation_mismatches(expect, env, result, complement) == []


def test_the_worked_examples_expectations_hold():
    """docs/adding-an-environment.md shows the Treasure Cave's expect.toml: it holds, and a
    float V(s0) is compared within its tolerance."""
    cave = Path(__file__).resolve().parents[3] / "docs" / "examples" / "treasure_cave"
    expect = read_expectations(cave)
    env = load_environment(cave)
    result = compute_oracle(env.request())
    assert_expectations_hold(expect, env, result)
    assert expect.initial_value == Fraction(27436, 40975) and expect.env_id == "treasure_cave"
    rounded = replace(expect, initial_value=0.6696, tolerance=1e-4)
    assert rounded.value_holds(result.initial)
    assert not replace(rounded, tolerance=1e-6).value_holds(result.initial)
    assert not replace(expect, initial_value=Fraction(27437, 40975)).value_holds(result.initial)


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_model_builds_with_promised_structure(env_id):
    """The structure every environment promises and its expect.toml: the checks of
    ``explaincheck plugins check`` (core/plugin_checks.py)."""
    env = load_builtin(env_id)
    result = oracle(env_id)
    assert result.has_danger
    assert structure_problems(env, result) == []
    assert expectation_problems(env, result) == []
    assert_expectations_hold(expected(env_id), env, result)


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_bottleneck_categories_apply_exactly_where_the_oracle_finds_bottlenecks(env_id):
    found = applicability(oracle(env_id))
    for category_id in BOTTLENECK_CATEGORIES:
        assert found[category_id].applicable == bool(expected(env_id).bottlenecks), category_id


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_every_action_has_a_meaning(env_id):
    env = load_builtin(env_id)
    assert set(oracle(env_id).model.actions) == set(env.action_meanings)


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_every_state_reads_and_decisions_read_differently(env_id):
    """Every state reads, no two states outside the goal read alike, every action has a
    meaning, no verdict in a state's words: the words check of ``plugins check``."""
    env = load_builtin(env_id)
    assert word_problems(env, oracle(env_id)) == []


def best_action_prompt(env, result: OracleResult, state: int) -> str:
    """The real prompt of a best-action case on ``state`` (what an LLM reads)."""
    return render_prompt(TestCase("best_action", (state,), 0.0, "prioritized", 0), result, env).text


@pytest.mark.parametrize("env_id", BUILTIN_IDS)
def test_prompt_names_the_state_and_every_available_action(env_id):
    env = load_builtin(env_id)
    result = oracle(env_id)
    initial = result.initial
    prompt = best_action_prompt(env, result, initial.id)
    assert expected(env_id).initial_words in prompt
    assert env.task in prompt
    for action in initial.actions:  # (an initial state may offer a single action)
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


def test_folders_are_discovered_in_the_papers_order_then_by_name(tmp_path):
    from explaincheck.core.environments.registry import PAPER_ORDER

    for name in ("zeta", "dam", "alpha", "frozen_lake"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "environment.toml").write_text("")
    (tmp_path / "notes").mkdir()  # no environment.toml: not an environment
    assert discover(tmp_path) == ("frozen_lake", "dam", "alpha", "zeta")
    assert discover(tmp_path / "missing") == ()
    assert set(PAPER_ORDER) <= set(BUILTIN_IDS)


# The generic tests a new environment must pass (parametrised over the environments folder).
GENERIC = (
    "tests/core/environments/test_builtin.py",
    "tests/core/oracle/test_oracle_wellformed.py",
    "tests/core/taxonomy/test_taxonomy_applicability.py",
)
TESTS = Path(__file__).resolve().parents[2]


def test_a_new_environment_is_its_folder_alone(tmp_path):
    """A copy of the environments folder plus one new folder (frozen_lake's, under a new id):
    the generic tests select and pass its cases, with no test file edited, and fail for a twin
    whose expectations are wrong; ``envs`` and ``oracle`` list and check it by id."""
    root = tmp_path / "environments"
    shutil.copytree(environments_dir(), root)
    shutil.copytree(root / "frozen_lake", root / "lake_twin")
    shutil.copytree(root / "frozen_lake", root / "lake_wrong")
    wrong = root / "lake_wrong" / EXPECT_NAME
    wrong.write_text(wrong.read_text().replace("states = 16", "states = 17"))
    env = {**os.environ, "EXPLAINCHECK_ENVIRONMENTS": str(root)}
    select = ["-k", "lake_ and not folder_alone", "-q", "-n", "0", "-p", "no:cacheprovider", "-rf"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *GENERIC, *select],
        cwd=TESTS.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout
    passed = int(re.search(r"(\d+) passed", out).group(1))
    failed = re.findall(r"^FAILED (\S+)", out, re.MULTILINE)
    assert passed >= 15, out  # 5 tests here, 2 builds and the safer caveat, for each twin, less 1
    assert failed == [
        "tests/core/environments/test_builtin.py::"
        "test_model_builds_with_promised_structure[lake_wrong]"
    ], out
    cli = [sys.executable, "-m", "explaincheck.core.cli.main"]
    envs = subprocess.run([*cli, "envs"], env=env, capture_output=True, text=True, timeout=300)
    assert envs.returncode == 0 and "lake_twin" in envs.stdout, envs.stderr
    oracle = subprocess.run(
        [*cli, "oracle", "lake_twin"], env=env, capture_output=True, text=True, timeout=300
    )
    assert oracle.returncode == 0, oracle.stderr
    assert re.search(r"size\s+16 states", oracle.stdout), oracle.stdout
