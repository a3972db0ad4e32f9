"""WorkbenchWorkspace: the Workbench tab's walk, Bellman page, sweep and handout without Qt, on
Frozen Lake (and the flip model's sweep), with Storm's exact transitions."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from explaincheck.core.environments.registry import resolve
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.workbench.sweep import parse_range
from explaincheck.core.workbench.sweep_run import run_sweep
from explaincheck.core.workbench.transitions import load_transitions
from explaincheck.core.workspace.presentation.workbench import (
    DANGER,
    OPTIMAL,
    POLICY,
    YOU,
    WorkbenchWorkspace,
    followed_states,
    policy_chooser,
    probability_text,
    result_text,
    round_rows,
    round_title,
    step_rows,
    successor_entries,
    sum_rows,
    sweep_shown,
)

FLIP = Path(__file__).resolve().parents[3] / "models" / "flip.prism"


@pytest.fixture(scope="module")
def lake():
    request = resolve("frozen_lake").request()
    return compute_oracle(request), load_transitions(request)


@pytest.fixture
def bench(lake):
    oracle, transitions = lake
    workspace = WorkbenchWorkspace()
    workspace.set_model(oracle, "Frozen Lake")
    workspace.set_transitions(transitions)
    return workspace


def test_bellman_equation_of_state_13_in_exact_fractions(bench):
    bellman = bench.bellman
    shown = []
    bellman.changed.connect(shown.append)
    bellman.show_state(13)
    (view,) = shown
    assert view is bellman.view and view.state == 13
    assert result_text(view) == "V(13) = 16/17 · exact fractions"
    rows = {cells[0]: (cells, optimal) for cells, optimal in sum_rows(view)}
    # the total (and its mark) on a line of its own: a narrow pane never cuts it (issue 50)
    assert rows["down"] == (
        [
            "down",
            "1/3·V(10) + 1/3·V(13) + 1/3·V(15)\n= 1/3·15/17 + 1/3·16/17 + 1/3·1\n= 16/17  ◀ max",
        ],
        True,
    )
    totals = [rows[a][0][1].splitlines()[-1] for a in ("left", "right", "up")]
    assert totals == ["= 44/51", "= 46/51", "= 15/17"]
    assert not any(rows[a][1] for a in ("left", "right", "up"))
    assert (10, "→ 10: V = 15/17") in successor_entries(view)
    bellman.set_quantity(DANGER)
    assert result_text(shown[-1]).startswith("D(13) = 1/28")
    minimal = [cells[0] for cells, optimal in sum_rows(shown[-1]) if optimal]
    assert minimal and all(
        cells[1].endswith("◀ min") == (cells[0] in minimal) for cells, _ in sum_rows(shown[-1])
    )


def test_bellman_waits_for_the_transitions(lake):
    oracle, transitions = lake
    bench = WorkbenchWorkspace()
    shown = []
    bench.bellman.changed.connect(shown.append)
    bench.set_model(oracle, "Frozen Lake")
    assert shown == [None] and bench.bellman.state == oracle.model.initial
    bench.bellman.start_policy_iteration()  # nothing to iterate on yet
    assert bench.bellman.rounds == []
    bench.set_transitions(transitions)
    assert shown[-1] is not None and shown[-1].state == oracle.model.initial


def test_policy_iteration_rounds_end_optimal_and_clamp(bench, lake):
    oracle, _ = lake
    bellman = bench.bellman
    texts = []
    bellman.rounds_changed.connect(texts.append)
    assert bellman.lesson_allowed  # 16 states: a lesson
    bellman.start_policy_iteration()
    count = len(bellman.rounds)
    assert count >= 2 and texts[-1].startswith(f"Round 1 of {count}")
    bellman.show_round(count + 5)  # past the end: the last round
    assert bellman.round == count - 1
    assert texts[-1].endswith("No state can do strictly better: this policy is optimal.")
    last = bellman.rounds[-1]
    # the optimal policy's value of the initial state is Storm's V
    assert last.values[oracle.model.initial] == Fraction(oracle.state(0).value_exact)
    bellman.show_round(-3)
    assert bellman.round == 0 and "Improvement (strictly better actions):" in texts[-1]
    # as the page's table reads it: a row per state, the switching ones marked (issue 50)
    first = bellman.rounds[0]
    rows = round_rows(bellman.rounds, 0)
    assert len(rows) == len(oracle.states)
    assert {int(cells[0]) for cells, switches in rows if switches} == set(first.switched)
    state, (old, new) = next(iter(sorted(first.switched.items())))
    assert rows[state] == ([str(state), old, str(first.values[state]), new], True)
    assert round_title(bellman.rounds, 0).startswith(f"Round 1 of {count}: the policy σ")
    assert "σ is optimal" in round_title(bellman.rounds, count - 1)


def test_a_seeded_optimal_walk_is_reproducible_with_the_hand_probability(bench, lake):
    oracle, _ = lake
    simulator = bench.simulator
    simulator.set_seed(11)

    def walk():
        simulator.restart(None)
        for _ in range(4):
            simulator.step(OPTIMAL, None, None)
        return simulator.simulation.path, simulator.simulation.exact_probability()

    first, p_first = walk()
    again, p_again = walk()
    assert first == again and len(first) == 5 and p_first == p_again
    hand = Fraction(1)
    for a, b in itertools.pairwise(first):
        facts = oracle.state(a)
        hand *= Fraction(round(3 * facts.successors[facts.optimal_action][b]), 3)
    assert p_first == hand
    assert probability_text(simulator.simulation).endswith(f" = {hand} · seed 11")
    rows = step_rows(simulator.simulation)
    assert [row[0] for row in rows] == ["1", "2", "3", "4"]
    assert all(row[5] == "optimal, sampled" for row in rows)
    paths = []
    simulator.changed.connect(lambda simulation: paths.append(list(simulation.path)))
    simulator.move(back=True)
    simulator.move(back=False)
    simulator.move(back=False)  # nothing to redo: no event
    assert paths == [first[:-1], first]


def test_the_user_chooses_action_and_outcome(bench, lake):
    oracle, _ = lake
    simulator = bench.simulator
    said = []
    simulator.said.connect(said.append)
    target = max(oracle.state(0).successors["down"])
    assert set(simulator.outcomes("down")) == set(oracle.state(0).successors["down"])
    simulator.step(YOU, "down", target)
    step = simulator.simulation.taken[-1]
    assert (step.action, step.successor, step.sampled, step.chosen_by) == (
        "down",
        target,
        False,
        "user",
    )
    assert said[-1] == f"down: state 0 → {target}"
    simulator.run(YOU, 20)  # "Run" with nobody chosen: the optimal policy walks
    assert {s.chosen_by for s in simulator.simulation.taken[1:]} == {"optimal"}


def test_a_loaded_policy_and_an_llm_choose(bench, lake):
    oracle, _ = lake
    simulator = bench.simulator
    simulator.loaded_policy = policy_chooser({s.id: "up" for s in oracle.states})
    simulator.step(POLICY, "down", None)  # the policy's action, not the box's
    assert simulator.simulation.taken[-1].action == "up"
    assert simulator.simulation.taken[-1].chosen_by == "policy"
    here = simulator.simulation.current
    simulator.llm_chose("left", here + 1)  # an answer for a state the walk has left
    assert len(simulator.simulation.taken) == 1
    simulator.llm_chose("left", here)
    assert simulator.simulation.taken[-1].chosen_by == "llm"
    said = []
    simulator.said.connect(said.append)
    simulator.loaded_policy = policy_chooser({})
    simulator.step(POLICY, "", None)
    assert said == [f"the policy says nothing about state {simulator.simulation.current}"]


def test_the_selection_moves_bellman_and_the_simulator_tells_where_the_user_walked(bench):
    """One selection (issue 50, point 8): the Bellman page always shows it; the simulator tells
    where the user's steps leave the walk, but a new model's own walk moves nothing."""
    bench.select_state(13)
    assert bench.simulator.selected == 13 and bench.bellman.state == 13
    assert "V(13) = 16/17" in result_text(bench.bellman.view)
    moved: list[int] = []
    bench.simulator.moved.connect(moved.append)
    bench.set_model(bench.oracle, "Frozen Lake")
    assert moved == [] and bench.simulator.simulation.current == 0
    bench.simulator.step(OPTIMAL, None, None)
    stepped = bench.simulator.simulation.current
    bench.simulator.move(back=True)
    bench.simulator.restart(13)
    assert moved == [stepped, 0, 13]


def test_handout_holds_the_path_and_the_bellman_view(bench, tmp_path):
    assert bench.add_lesson(None) == "The Teach tab shows no case yet."
    # no step taken yet: only the equation the page shows (the initial state's)
    assert [s.title for s in bench.handout_sections()] == ["Bellman equation of V at state 0"]
    bench.simulator.step(OPTIMAL, None, None)
    bench.bellman.show_state(13)
    titles = [section.title for section in bench.handout_sections()]
    assert titles == ["A path from state 0 (seed 0)", "Bellman equation of V at state 13"]
    out = tmp_path / "lesson.html"
    assert bench.save_handout(out) == f"Saved {out}"
    page = out.read_text()
    assert "Frozen Lake: a lesson" in page and "1/3·15/17 + 1/3·16/17 + 1/3·1 = 16/17" in page
    assert bench.save_handout(tmp_path / "missing" / "x.html").startswith("Cannot save")


def test_sweep_shown_has_the_tipping_point_at_one_half():
    sweep = run_sweep(OracleRequest(str(FLIP)), parse_range("p=0.05:0.95:0.3"), (0,))
    bench = WorkbenchWorkspace()
    heard = []
    bench.sweeps.ready.connect(heard.append)
    shown = bench.sweeps.show(sweep)
    assert heard == [shown] and bench.sweeps.sweep is sweep
    assert shown.status == "4 points, 0 failed, 1 tipping point"
    assert shown.headers == ["p", "V(initial)", "A*(0)"]
    assert [row[0] for row in shown.rows] == ["0.05", "0.35", "0.65", "0.95"]
    assert [row[2] for row in shown.rows] == ["safe", "safe", "risky", "risky"]
    assert "at 1/2 = 0.5 (parametric)" in shown.tipping
    assert shown.figure.axes and sweep_shown(sweep).rows == shown.rows
    assert followed_states("0, 13 x 2") == (0, 13, 2)
