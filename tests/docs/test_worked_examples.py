"""The worked examples of docs/ stay true: the Treasure Cave environment folder loads, has the
facts docs/adding-an-environment.md shows, and serves every query category."""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.environments.loader import load_environment
from explaincheck.core.environments.registry import resolve
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.registry import CATEGORIES
from explaincheck.core.taxonomy.selection import select_cases

CAVE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "treasure_cave"


def test_treasure_cave_facts_and_prompts():
    env = resolve(str(CAVE))
    oracle = compute_oracle(env.request())
    assert oracle.model.states == 7
    assert abs(oracle.states[oracle.model.initial].value - 27436 / 40975) < 1e-9
    assert [oracle.states[s].valuation for s in oracle.bottlenecks] == [{"pos": 3}]
    assert len(oracle.dead_ends) == 2
    for category_id, category in CATEGORIES.items():
        if category.by_id_only:  # its facts are computed when a campaign asks for it
            continue
        if category_id.startswith("policy_"):  # needs a loaded policy (--policy FILE)
            continue
        assert category.not_applicable(oracle) is None, category_id
    bridge = next(s for s in oracle.states if s.valuation == {"pos": 3})
    assert bridge.best == ("cross",)
    case = next(
        c for c in select_cases(oracle, "best_action", budget=10) if c.states == (bridge.id,)
    )
    text = render_prompt(case, oracle, env).text
    assert "Current state: You are at location 3 (bridge)." in text
    assert "a gust throws you into the chasm with probability 0.2" in text


def test_treasure_cave_describe_runs_only_when_trusted():
    oracle = compute_oracle(load_environment(CAVE).request())
    bridge = next(s for s in oracle.states if s.valuation == {"pos": 3})
    untrusted = load_environment(CAVE)
    trusted = load_environment(CAVE, trusted=True)
    assert untrusted.describe(bridge) == "You are at location 3 (bridge)."
    assert trusted.describe(bridge).startswith("You are on the rope bridge over the chasm")
