"""The Teach tab's domain logic (``core/taxonomy/teaching``): each category's words and reasons,
on the toy oracle (values worked out by hand) and on the real frozen_lake oracle (Storm)."""

from __future__ import annotations

import pytest

from explaincheck.core.analysis import layout
from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.state_letters import letters
from explaincheck.core.taxonomy.teaching import (
    explain,
    explain_many,
    lesson,
    stepping_order,
    taught,
)


@pytest.fixture(scope="module")
def lake():
    environment = load_builtin("frozen_lake")
    return environment, compute_oracle(environment.request())


def test_every_category_presents_itself():
    labels = [c.label for c in CATEGORIES.values()]
    names = [c.name for c in CATEGORIES.values()]
    assert all(labels) and all(names)
    assert len(set(labels)) == len(labels) and len(set(names)) == len(names)
    assert [c.id for c in taught()] == [c.id for c in CATEGORIES.values() if c.teachable]
    # the paper's Table 1 labels (a sample: every label is each category's own)
    assert layout.category_label("which_bottleneck") == "W.Bttl."
    assert layout.category_label("average") == "Avg."
    assert layout.category_name("ranking") == "action ranking"
    assert layout.category_name("some_future_id") == "some future id"


def test_answer_words_per_category(toy, env):
    words = lesson(toy, env, "satisfy", 1, 1.0).answer
    assert words == "probability 0.5"
    assert lesson(toy, env, "bottleneck", 2, 0.6).answer == "yes, it is a bottleneck"
    assert lesson(toy, env, "bottleneck", 6, 0.5).answer == "no, it is not a bottleneck"
    # state 2: go and wait tie at Q = 1, so either is right
    assert lesson(toy, env, "best_action", 2, 0.0).answer == "go (any of go, wait is right)"
    assert lesson(toy, env, "best_action", 6, 0.7).answer == "x"
    assert lesson(toy, env, "ranking", 6, 0.5).answer == "x > y > z"
    assert lesson(toy, env, "ranking", 2, 0.5).answer == "go = wait"
    assert lesson(toy, env, "more_promising", (6, 1), 0.9).answer == "state L"


def test_pair_reasons_name_each_state(toy):
    lines, _ = explain_many(toy, "safer", (6, 1))
    assert lines == [
        "K (state 6): D = Pmin[F unsafe] = 0.3",
        "L (state 1): D = Pmin[F unsafe] = 0.2",
        "L is safer: the lower D, the less a careful policy risks the unsafe states.",
    ]
    lines, _ = explain_many(toy, "which_bottleneck", (6, 2))
    assert lines[1] == "L (state 2): a bottleneck; centrality C_B = 0.6"
    assert lines[2].startswith("L is the bottleneck")


def test_subset_dead_end_reasons(lake):
    _, oracle = lake
    for states, _ in stepping_order(oracle, "subset_dead_end")[:5]:
        lines, _ = explain_many(oracle, "subset_dead_end", states)
        dead = [oracle.state(s).dead_end for s in states]
        for line, is_dead in zip(lines, dead, strict=False):
            assert line.endswith("a dead end") and (("not a dead end" in line) != is_dead)
        assert lines[-1].startswith("Yes" if any(dead) else "No")


def test_bottleneck_lesson_shows_a_run_through_it(lake):
    environment, oracle = lake
    (bottleneck,) = oracle.bottlenecks
    why, path = explain(oracle, "bottleneck", oracle.state(bottleneck))
    assert why[-1].startswith("Bottleneck: making this state absorbing")
    assert path[0] == oracle.model.initial and bottleneck in path
    assert oracle.state(path[-1]).is_goal
    pair = next(s for s, _ in stepping_order(oracle, "which_bottleneck") if bottleneck in s)
    taught_pair = lesson(oracle, environment, "which_bottleneck", pair, 0.5)
    name = letters(2)[pair.index(bottleneck)]
    assert f"State {name} (id {bottleneck})" in taught_pair.situation
    assert bottleneck in taught_pair.path


def test_order_keeps_whole_cases(lake):
    environment, oracle = lake
    order = stepping_order(oracle, "safer")
    assert order and all(len(states) == 2 for states, _ in order)
    deltas = [d for _, d in order]
    assert deltas == sorted(deltas, reverse=True)
    single = lesson(oracle, environment, "satisfy", oracle.model.initial, 0.5)
    assert single.situation.startswith(f"State {oracle.model.initial}: ")


def test_the_optimal_run_from_frozen_lake_state_8_avoids_the_hole(lake):
    """From state 8 both optimal moves slip into a hole with the same probability 1/3 as the
    safe ways: the run drawn is the typical one (equally likely steps go to the higher V), not
    the lowest id, and the lesson says what the run is."""
    environment, oracle = lake
    taught_case = lesson(oracle, environment, "satisfy", 8, 0.0)
    path = taught_case.path
    assert path[0] == 8 and len(path) > 2
    assert not any(oracle.state(s).is_unsafe for s in path)
    assert oracle.state(path[-1]).is_goal
    facts = oracle.state(8)
    moves = facts.successors[facts.optimal_action]
    best_next = max(moves, key=lambda t: (moves[t], oracle.state(t).value))
    assert path[1] == best_next
    assert any(line.startswith("On the graph: a typical run") for line in taught_case.why)
