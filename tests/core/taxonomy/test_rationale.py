"""The oracle's values behind an answer in one line (``train-set --explain``, ``--shots-explain``):
the ladder's order climb > jump > slip, pair values, digits that keep values apart, ties."""

from __future__ import annotations

from pathlib import Path

from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for
from explaincheck.core.taxonomy.base import TestCase
from explaincheck.core.taxonomy.rationale import _chain, number_texts, rationale

LADDER = str(Path(__file__).parents[2] / "models" / "ladder.prism")


def test_the_ladder_reads_climb_jump_slip_and_a_pair_by_value():
    campaign = Campaign(LADDER, ("x",))
    oracle = oracle_for(campaign, load_environment(campaign))
    rung = {oracle.state(s).valuation["r"]: s for s in range(oracle.model.states)}
    best = TestCase("best_action", (rung[3],), 0.5, "prioritized", 0)
    line = rationale(best, oracle)
    assert line.startswith("Q(climb) = ") and " > Q(jump) = " in line and " > Q(slip) = " in line
    pair = TestCase("more_promising", (rung[2], rung[20]), 0.5, "prioritized", 0)
    assert rationale(pair, oracle).startswith("V(L) = ")  # the higher rung, shown second (L)
    satisfy = TestCase("satisfy", (rung[1],), 0.5, "prioritized", 0)
    value = oracle.state(rung[1]).value  # (1 - 1/3) / (1 - 3^-24) = 0.667 to 3 digits
    assert (
        rationale(satisfy, oracle)
        == f"V(this state) = {number_texts([value])[0]}"
        == ("V(this state) = 0.67")
    )


def test_digits_keep_different_values_apart_and_ties_are_written_equal():
    assert number_texts([0.53, 0.27]) == ["0.53", "0.27"]
    assert number_texts([0.5, 0.5001]) == ["0.5", "0.5001"]
    assert _chain(["a", "b", "c"], [0.2, 0.5, 0.5], "Q", descending=True) == (
        "Q(b) = Q(c) = 0.5 > Q(a) = 0.2"
    )
    assert _chain(["K", "L"], [0.4, 0.1], "D", descending=False) == "D(L) = 0.1 < D(K) = 0.4"
