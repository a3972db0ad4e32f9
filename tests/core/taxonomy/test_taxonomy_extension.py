"""A new category is one class plus one registry entry: tables, figures, the Teach tab, the
applicability check and a whole campaign pick it up with nothing else edited."""

from __future__ import annotations

import json

from explaincheck.core.analysis import layout
from explaincheck.core.cli.main import main
from explaincheck.core.taxonomy import registry
from explaincheck.core.taxonomy.more_promising import MorePromising
from explaincheck.core.taxonomy.teaching import lesson, taught


class LessPromising(MorePromising):
    """A throwaway category: which of two states has the lower V."""

    id = "less_promising"
    title = "Which state is less promising?"
    label = "Less"
    name = "less promising"
    higher_is_right = False


def test_a_new_category_needs_only_its_class_and_registration(monkeypatch, toy, env):
    monkeypatch.setitem(registry.CATEGORIES, LessPromising.id, LessPromising())
    assert layout.category_label("less_promising") == "Less"
    assert layout.category_name("less_promising") == "less promising"
    assert layout.order_categories({"less_promising", "satisfy"}) == ["satisfy", "less_promising"]
    assert layout.dimension_of("less_promising") == "mode"
    assert "less_promising" in [c.id for c in taught()]
    assert registry.applicability(toy)["less_promising"].applicable
    taught_pair = lesson(toy, env, "less_promising", (6, 1), 0.9)
    assert taught_pair.answer == "state K"  # V(6) = .4 < V(1) = .5
    assert taught_pair.why[0] == "K (state 6): V = Pmax[F goal] = 0.4"


def test_a_new_category_runs_in_a_campaign(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(registry.CATEGORIES, LessPromising.id, LessPromising())
    db = tmp_path / "less.sqlite"
    command = ["run", "--env", "frozen_lake", "--llm", "oracle", "--budget", "3"]
    assert main([*command, "--categories", "less_promising", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 3 and {r["category"] for r in rows} == {"less_promising"}
    assert all(r["verdict"] == "pass" and r["dimension"] == "mode" for r in rows)
