"""``--selection prioritised`` (the README's and the window's spelling) is accepted and stored as
the contract's ``prioritized``; a wrong selection is still refused."""

from __future__ import annotations

import sqlite3

import pytest

from explaincheck.core.campaign.plan import Campaign
from explaincheck.core.cli.main import main


@pytest.mark.parametrize("spelling", ["prioritised", "prioritized", "Prioritised"])
def test_both_spellings_run_and_store_one(spelling, tmp_path):
    db = tmp_path / "s.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "random", "--budget", "1"]
    assert (
        main([*args, "--categories", "best_action", "--selection", spelling, "--db", str(db)]) == 0
    )
    selections = sqlite3.connect(db).execute("SELECT DISTINCT selection FROM executions").fetchall()
    assert selections == [("prioritized",)]


def test_a_campaign_stores_the_contract_spelling():
    assert Campaign("frozen_lake", ("random",), selection="prioritised").selection == "prioritized"
    assert Campaign("frozen_lake", ("random",), selection="both").selections == (
        "prioritized",
        "random",
    )


def test_a_wrong_selection_is_one_usage_error(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["run", "--env", "frozen_lake", "--llm", "random", "--selection", "best"])
    assert raised.value.code == 2
    assert "--selection 'best' is not one of prioritized, random, both" in capsys.readouterr().err
