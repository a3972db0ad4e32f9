"""The category hooks (``Category.with_facts``, ``seen_through``, ``chance``, ``follow_up``) are
called by the pipeline for whatever categories a campaign has: a throwaway category that only
declares them, registered by id, gets its facts attached by the plan, seen through a flaw, its
own chance and its follow-up probes asked and stored, with no other code naming it."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

import pytest

from explaincheck.core.analysis.chance import case_chance, row_chances
from explaincheck.core.backends.flaw_backend import FlawedBackend
from explaincheck.core.campaign.plan import Campaign, plan_campaign
from explaincheck.core.cli.main import main
from explaincheck.core.oracle.flawed import parse_flaw
from explaincheck.core.taxonomy import registry
from explaincheck.core.taxonomy.answers import probability_form
from explaincheck.core.taxonomy.probes import Probe, trial_name
from explaincheck.core.taxonomy.prompts import render_prompt
from explaincheck.core.taxonomy.satisfy import Satisfy

CALLS: list[tuple[str, object]] = []


class Hooked(Satisfy):
    """satisfy with every hook declared; each call is recorded with what it returned."""

    id = "hooked"
    title = "Hooked?"
    label = "Hook"
    name = "hooked"
    by_id_only = True
    follow_up_trials = 2
    follow_up_words = "asked again"

    def with_facts(self, oracle, environment, request):
        found = replace(oracle)  # a new object: the plan must keep this one
        CALLS.append(("with_facts", found))
        return found

    def seen_through(self, picture, truth, flaw):
        found = replace(picture)
        CALLS.append(("seen_through", found))
        return found

    def chance(self, schema, expected):
        return 0.125 if expected.get("hooked") else None

    def follow_up(self, case, oracle, environment, request):
        again = replace(case, wording=1)
        prompt = render_prompt(again, oracle, environment)
        return [Probe("again", again, oracle, prompt, probability_form())]


@pytest.fixture
def hooked(monkeypatch):
    CALLS.clear()
    monkeypatch.setitem(registry.CATEGORIES, Hooked.id, Hooked())
    return Hooked.id


def test_the_plan_attaches_the_facts_of_the_categories_asked_for(hooked):
    plan = plan_campaign(Campaign("frozen_lake", ("oracle",), (hooked,), budget=1))
    assert [c[0] for c in CALLS] == ["with_facts"]
    assert plan.oracle is CALLS[0][1]  # the cases are built on the oracle the hook returned
    CALLS.clear()
    default = plan_campaign(Campaign("frozen_lake", ("oracle",), budget=1))
    assert CALLS == []  # asked only by id: a default campaign never computes its facts
    assert default.skipped["hooked"] == "asked only by id (--categories hooked)"
    assert not any(e.case.category == "hooked" for e in default.executions)


def test_a_flawed_explainer_sees_the_facts_through_its_flaw(hooked):
    plan = plan_campaign(Campaign("frozen_lake", ("oracle",), (hooked,), budget=1))
    CALLS.clear()
    picture = FlawedBackend(plan.oracle, parse_flaw("determinised")).picture
    assert [c[0] for c in CALLS] == ["seen_through"] and picture is CALLS[0][1]


def test_a_category_gives_its_own_chance(hooked):
    import pandas as pd

    schema = probability_form().schema()
    assert case_chance(schema, {"hooked": 1}, category=hooked) == 0.125
    assert case_chance(schema, {"hooked": 1}) == 0.125  # the category that claims the answer
    keys = {k: ["x"] for k in ("environment", "llm", "selection", "case_key", "verdict")}
    rows = pd.DataFrame(
        {**keys, "schema": [schema], "expected": [{"hooked": 1}], "category": [hooked]}
    )
    assert row_chances(rows).tolist() == [0.125]
    assert case_chance(schema, {"probability": 0.5}, category=hooked) == pytest.approx(0.1)


def test_the_follow_up_probes_are_asked_and_stored(hooked, tmp_path, capsys):
    db = tmp_path / "hooked.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "oracle", "--categories", hooked]
    assert main([*args, "--budget", "2", "--db", str(db), "--behavioural"]) == 0
    assert "asked again of 2 hooked executions stored" in capsys.readouterr().out
    with sqlite3.connect(db) as connection:
        probes = connection.execute(
            "SELECT exec_key, probe, action FROM factor_behaviour"
        ).fetchall()
        values = dict(connection.execute("SELECT exec_key, answer FROM executions"))
    assert sorted(p for _, p, _ in probes) == sorted([trial_name("again", t) for t in (0, 1)] * 2)
    for key, _, answer in probes:  # the oracle answers the reworded question with the same V
        assert float(answer) == pytest.approx(json.loads(values[key])["probability"])


def test_no_follow_up_probes_without_a_category_that_has_them(tmp_path, capsys):
    db = tmp_path / "plain.sqlite"
    args = ["run", "--env", "frozen_lake", "--llm", "oracle", "--categories", "satisfy"]
    assert main([*args, "--budget", "1", "--db", str(db), "--behavioural"]) == 0
    out = capsys.readouterr().out
    assert "no follow-up probes: no category of this campaign has them" in out
