"""The open model without Qt: opening an environment, asking for and changing constants,
re-building, and a broken file, observed through the workspace's plain callbacks."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from explaincheck.core.environments.registry import resolve
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.workspace.model import ModelChoices, ModelWorkspace, _chosen

MODELS = Path(__file__).resolve().parents[2] / "models"
GAMBLER = str(MODELS / "gambler.prism")  # const int N (no value); const double p = 2/5
BROKEN = "mdp\n\nmodule m\n  x : [0..3] init 0;\n  [go] x < 3 -> (x' = x + ) ;\nendmodule\n"


def watched(workspace: ModelWorkspace) -> list[tuple]:
    """Every event of ``workspace`` as (name, *values), in order."""
    seen: list[tuple] = []
    events = workspace.events
    for event in (events.environment, events.busy, events.oracle, events.failed, events.cancelled):
        event.connect(lambda *values, name=event.name: seen.append((name, *values)))
    return seen


def test_opening_a_builtin_tells_its_environment_then_its_oracle():
    workspace = ModelWorkspace()
    seen = watched(workspace)
    oracle = asyncio.run(workspace.open_spec("frozen_lake"))
    assert oracle is not None and workspace.oracle is oracle
    assert [event[0] for event in seen] == ["environment", "busy", "busy", "oracle"]
    assert seen[0][1].id == "frozen_lake" and (seen[1][1], seen[2][1]) == (True, False)
    assert seen[3][1] is oracle and seen[3][2] is workspace.environment
    assert len(oracle.states) == 16 and workspace.goal_label == "goal"
    assert not workspace.busy and workspace.error is None


def test_missing_constants_are_asked_for_and_a_changed_one_builds_again():
    asked: list[tuple[list[str], dict[str, str]]] = []

    async def ask(missing, defaults):
        asked.append(([c.name for c in missing], defaults))
        return {"N": "3"}

    workspace = ModelWorkspace(ask_constants=ask)
    oracles: list = []
    workspace.events.oracle.connect(lambda oracle, environment: oracles.append(oracle))
    first = asyncio.run(workspace.open_spec(GAMBLER))
    assert asked == [(["N"], {})]
    assert workspace.constants == "N=3" and len(first.states) == 4  # x = 0..3
    second = asyncio.run(workspace.rebuild(constants="N=5"))
    assert oracles == [first, second] and len(second.states) == 6
    # ruin from x=1 with p = 2/5: (1 - q/p) / (1 - (q/p)^N), q/p = 1.5
    assert first.initial.value == pytest.approx(0.5 / (1.5**3 - 1))
    assert second.initial.value == pytest.approx(0.5 / (1.5**5 - 1))
    assert workspace.oracle is second and workspace.constants == "N=5"


def test_without_an_asker_missing_constants_are_one_clear_error():
    workspace = ModelWorkspace()
    failures: list[BaseException] = []
    workspace.events.failed.connect(failures.append)
    assert asyncio.run(workspace.open_spec(GAMBLER)) is None
    assert [str(f) for f in failures] == [
        "undefined constants N: give their values with --const N=..."
    ]
    assert workspace.oracle is None and workspace.environment is not None  # the file parsed


def test_a_broken_file_is_one_error_and_the_open_model_stays(tmp_path):
    workspace = ModelWorkspace()
    good = asyncio.run(workspace.open_spec("frozen_lake"))
    environment = workspace.environment
    broken = tmp_path / "broken.prism"
    broken.write_text(BROKEN)
    seen = watched(workspace)
    assert asyncio.run(workspace.open_spec(str(broken))) is None
    assert [event[0] for event in seen] == ["failed"]
    error = seen[0][1]
    assert isinstance(error, ExplaincheckError)
    assert str(error).endswith(':5:25: syntax error: expecting ")"')
    assert "\n" not in str(error).strip()
    assert workspace.environment is environment and workspace.oracle is good
    assert workspace.last_path == str(broken)  # where the error's excerpt points
    assert workspace.error is error


def test_an_unknown_environment_is_one_error():
    workspace = ModelWorkspace()
    failures: list[BaseException] = []
    workspace.events.failed.connect(failures.append)
    assert asyncio.run(workspace.open_spec("no_such_environment")) is None
    assert len(failures) == 1 and isinstance(failures[0], ExplaincheckError)
    assert "no_such_environment" in str(failures[0]) and workspace.environment is None


def test_given_constants_are_added_to_the_models_own_unless_strict():
    environment = replace(resolve("frozen_lake"), constants="a=1,b=2")
    added = _chosen(environment, ModelChoices("b=3", "home"))
    assert added == ("a=1,b=3", "home", environment.unsafe_label)
    assert _chosen(environment, ModelChoices("b=3", strict=True))[0] == "b=3"
    assert _chosen(environment, ModelChoices())[0] == "a=1,b=2"


def test_a_disconnected_callback_hears_nothing_more():
    workspace = ModelWorkspace()
    heard: list = []
    callback = workspace.events.oracle.connect(lambda *values: heard.append(values))
    asyncio.run(workspace.open_spec("frozen_lake"))
    workspace.events.oracle.disconnect(callback)
    asyncio.run(workspace.rebuild(goal_label="goal"))
    assert len(heard) == 1 and workspace.oracle is not None
