"""The one selected state (issue 50, point 8): held by the open model's workspace, told to every
listener once, kept by valuation across a rebuild where the state still exists, else the
initial state; a newly opened model starts at its initial state."""

from __future__ import annotations

import asyncio
from pathlib import Path

from explaincheck.core.workspace.model import ModelChoices, ModelWorkspace

MODELS = Path(__file__).resolve().parents[2] / "models"
GAMBLER = str(MODELS / "gambler.prism")  # x in 0..N, init 1


def _state_with(oracle, x: int) -> int:
    return next(s.id for s in oracle.states if s.valuation["x"] == x)


def test_a_rebuild_keeps_the_selected_valuation_or_falls_back_to_the_initial_state():
    workspace = ModelWorkspace()
    seen: list[int | None] = []
    workspace.selection.changed.connect(seen.append)
    first = asyncio.run(workspace.open_spec(GAMBLER, ModelChoices(constants="N=5")))
    assert seen == [first.model.initial] and workspace.selection.state == first.model.initial
    three = _state_with(first, 3)
    assert workspace.selection.select(three) and seen[-1] == three
    assert not workspace.selection.select(three)  # the same state again: nobody is told
    assert not workspace.selection.select(len(first.states))  # no such state: ignored
    assert seen.count(three) == 1 and workspace.selection.state == three

    second = asyncio.run(workspace.rebuild(constants="N=4"))
    kept = workspace.selection.state
    assert second.state(kept).valuation["x"] == 3  # the same tile, whatever its id is now
    assert seen[-1] == kept and len(seen) == 3
    # x = 4 exists with N = 4 (the goal) but not with N = 3: the initial state then
    assert workspace.selection.select(_state_with(second, 4))
    third = asyncio.run(workspace.rebuild(constants="N=3"))
    assert workspace.selection.state == third.model.initial and seen[-1] == third.model.initial


def test_a_new_model_starts_at_its_initial_state():
    workspace = ModelWorkspace()
    lake = asyncio.run(workspace.open_spec("frozen_lake"))
    workspace.selection.select(11)
    assert workspace.selection.state == 11
    gambler = asyncio.run(workspace.open_spec(GAMBLER, ModelChoices(constants="N=20")))
    assert len(gambler.states) > 11 and lake is not gambler
    assert workspace.selection.state == gambler.model.initial


def test_the_same_oracle_again_keeps_the_state():
    """A policy attached rides on the same model: ``deliver`` of it keeps the selection."""
    workspace = ModelWorkspace()
    oracle = asyncio.run(workspace.open_spec("frozen_lake"))
    workspace.selection.select(13)
    workspace.deliver(oracle)
    assert workspace.selection.state == 13
