"""The help of ``run --behavioural`` and of the Campaign tab's check box comes from the
registered categories that have follow-up probes: a throwaway one is named there, with no edit."""

from __future__ import annotations

import pytest

from explaincheck.core.cli.main import main
from explaincheck.core.taxonomy import registry
from explaincheck.core.taxonomy.follow_ups import follow_up_help
from explaincheck.core.taxonomy.satisfy import Satisfy


class Again(Satisfy):
    id = "asked_again"
    follow_up_trials = 2
    follow_up_words = "re-ask"
    follow_up_help = "the same question in other words"


@pytest.fixture
def again(monkeypatch):
    monkeypatch.setitem(registry.CATEGORIES, Again.id, Again())


def test_every_category_with_follow_ups_is_named_and_no_other(again):
    text = follow_up_help()
    assert "asked_again: re-ask, the same question in other words" in text
    assert "factors: behavioural check" in text
    assert "satisfy" not in text
    assert follow_up_help([Satisfy()]).endswith("the categories that have them")


def test_run_help_says_it(again, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--help"])
    assert stopped.value.code == 0
    words = " ".join(capsys.readouterr().out.split())
    assert "asked_again: re-ask, the same question in other words" in words
    assert "factors: behavioural check" in words
