"""The ``hedge`` negative control (issue 35, point 2): ½ for every probability, the random
answerer's draw elsewhere, and the default satisfy δ does not reward it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from explaincheck.core.analysis.controls import control_results, hedge_satisfy_rates
from explaincheck.core.backends.hedge_backend import HedgeBackend
from explaincheck.core.backends.random_backend import RandomBackend
from explaincheck.core.backends.registry import KINDS, BackendContext, create_backend
from explaincheck.core.environments.registry import load_builtin
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.taxonomy.case_rules import PAPER, SelectionRules
from explaincheck.core.taxonomy.selection import select_cases


@pytest.fixture(scope="module")
def lake():
    environment = load_builtin("frozen_lake")
    return environment, compute_oracle(environment.request())


def test_hedge_says_one_half_where_there_is_a_middle_and_guesses_elsewhere(lake):
    environment, oracle = lake
    hedge = create_backend("hedge", BackendContext(oracle=oracle, environment=environment))
    assert isinstance(hedge, HedgeBackend) and KINDS["hedge"].negative_control
    guesser = RandomBackend(oracle, environment)
    for case in select_cases(oracle, "satisfy", 5, "random"):
        assert json.loads(hedge.reply_text(case)) == {"probability": 0.5}
    for category in ("best_action", "ranking", "subset_dead_end"):
        for case in select_cases(oracle, category, 4, "random"):
            assert hedge.reply_text(case) == guesser.reply_text(case)  # no middle: a guess


def test_hedge_is_not_rewarded_by_the_default_delta():
    """transporter, budget 20, seed 0: the paper's δ hands hedge most prioritised satisfy cases
    (values near ½ are within the tolerance of ½); the default band δ gives it none."""

    def rates(rules: SelectionRules) -> pd.Series:
        found = control_results(
            ["transporter"], ["hedge"], budget=20, categories=["satisfy"], rules=rules
        )
        return hedge_satisfy_rates(found).iloc[0]

    paper, band = rates(SelectionRules(delta=PAPER)), rates(SelectionRules())
    assert paper["prioritized"] > paper["random"] + 0.5
    assert band["prioritized"] <= band["random"] + 0.05
    assert band["prioritized"] == 0.0 and band["random"] == 0.0
