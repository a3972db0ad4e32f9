"""A new category is one class plus one registry entry: tables, figures, the Teach tab, the
applicability check and a whole campaign pick it up with nothing else edited."""

from __future__ import annotations

import json

from explaincheck.core.analysis import layout
from explaincheck.core.cli.main import main
from explaincheck.core.taxonomy import registry
from explaincheck.core.taxonomy.more_promising import MorePromising
from explaincheck.core.taxonomy.satisfy import Satisfy
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


class NearGoal(Satisfy):
    """A state question registered after every other category (as a plugin's is)."""

    id = "lab/near_goal"
    label = "Near"


def test_a_category_registered_last_joins_its_dimension_in_every_table(monkeypatch):
    """Table 1 groups by dimension: a plugin's state question stands with satisfy and
    bottleneck under one "State" header, not after Preference under a second one."""
    import pandas as pd

    from explaincheck.core.analysis.scores import table1

    monkeypatch.setitem(registry.CATEGORIES, NearGoal.id, NearGoal())
    present = {"best_action", NearGoal.id, "satisfy", "bottleneck", "safer"}
    assert layout.order_categories(present) == [
        "satisfy", "bottleneck", NearGoal.id, "best_action", "safer",
    ]  # fmt: skip
    # a category a results file stores but nothing here registers: by the stored dimension
    stored = {"gone/q": "state"}
    assert layout.order_categories({"best_action", "gone/q", "satisfy"}, stored) == [
        "satisfy", "gone/q", "best_action",
    ]  # fmt: skip
    assert layout.order_categories({"best_action", "gone/q"}) == ["best_action", "gone/q"]
    rows = [
        {
            "environment": "frozen_lake",
            "llm": "m",
            "category": category,
            "dimension": dimension,
            "selection": "prioritized",
            "repeat": 0,
            "case_key": f"{category}/prioritized/0/1",
            "states": [1],
            "delta": 0.5,
            "verdict": "pass",
        }
        for category, dimension in (
            ("best_action", "preference"),
            (NearGoal.id, "state"),
            ("satisfy", "state"),
            ("gone/q", "state"),
        )
    ]
    headers = list(table1(pd.DataFrame(rows)).columns.get_level_values("dimension"))
    assert headers == ["State", "State", "State", "Preference", ""]


def test_a_class_written_for_the_one_argument_is_positive_still_works(toy):
    """``is_positive(state, oracle)`` sees the model; a plugin written for the earlier
    ``is_positive(state)`` keeps its classes."""
    from explaincheck.core.taxonomy.bottleneck import Bottleneck

    class Legacy(Bottleneck):
        id = "lab/legacy"

        def is_positive(self, state):
            return not state.bottleneck  # the opposite, so the call is seen to be its own

    legacy = {c.states: c.positive for c in Legacy().candidates(toy)}
    current = {c.states: c.positive for c in Bottleneck().candidates(toy)}
    assert legacy and legacy == {states: not positive for states, positive in current.items()}
