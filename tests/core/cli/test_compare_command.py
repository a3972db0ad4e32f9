"""``explaincheck compare`` and ``results --by-case`` on real campaigns (the issue's "Must
show"): an oracle campaign against a noisy:0.2 one on the same cases is a regression, a campaign
against a copy of itself is not, and repeats give stabilities and pass@k / pass^k."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pandas as pd
import pytest

from explaincheck.core.cli.main import main

RUN = "run --env frozen_lake --categories satisfy,best_action,safer --budget 20 --seed 0"


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    """The same cases (seed, budget, selection) asked of the oracle and of noisy:0.2 (right on
    a fifth of the cases: a regression each category shows)."""
    folder = tmp_path_factory.mktemp("compare")
    for llm, name in (("oracle", "base"), ("noisy:0.2", "new")):
        assert main([*RUN.split(), "--llm", llm, "--db", str(folder / f"{name}.sqlite")]) == 0
    return folder


def test_oracle_against_noisy_is_a_regression_and_names_the_category(campaigns, capsys):
    base, new = str(campaigns / "base.sqlite"), str(campaigns / "new.sqlite")
    capsys.readouterr()
    assert main(["compare", base, new]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("REGRESSION in satisfy: noisy:0.2 0.36 vs oracle 1.00")
    assert any(line.startswith("REGRESSION overall:") for line in lines)
    assert "44 pairs; left out: 0 cases only in the base, 0 only in the new" in " ".join(lines)
    assert main(["compare", base, new, "--json", "--out", str(campaigns / "out")]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["regression"] is True and found["pairs"] == 44
    satisfy = found["categories"][0]
    assert satisfy["category"] == "satisfy" and satisfy["base_only"] == 9
    assert satisfy["p"] == pytest.approx(0.5**9)  # 9 of 9 discordant cases went the base's way
    # Holm over satisfy, best_action, safer and all: satisfy has the second smallest p (x 3)
    assert satisfy["p_holm"] == pytest.approx(3 * 0.5**9)
    assert found["categories"][-1]["category"] == "all"
    written = json.loads((campaigns / "out" / "comparison.json").read_text())
    assert written == found
    table = pd.read_csv(campaigns / "out" / "comparison.csv", index_col="category")
    assert table.loc["satisfy", "base_only"] == 9
    assert not list((campaigns / "out").glob("*.tmp"))


def test_a_campaign_against_a_copy_of_itself_passes_with_every_difference_zero(campaigns, capsys):
    copy = campaigns / "copy.sqlite"
    shutil.copy(campaigns / "new.sqlite", copy)
    capsys.readouterr()
    assert main(["compare", str(campaigns / "new.sqlite"), str(copy), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["regression"] is False and found["pairs"] == 44
    assert [c["difference"] for c in found["categories"]] == [0.0] * 4
    assert {c["p"] for c in found["categories"]} == {1.0}
    assert main(["compare", str(campaigns / "new.sqlite"), str(copy)]) == 0
    assert capsys.readouterr().out.startswith("no regression at alpha 0.05; the smallest drop")


def test_report_with_a_base_shows_the_comparison(campaigns, capsys):
    out = campaigns / "report"
    args = ["report", "--db", str(campaigns / "new.sqlite"), "--out", str(out), "--format", "csv"]
    assert main([*args, "--base", str(campaigns / "base.sqlite")]) == 0
    assert "base.sqlite — noisy:0.2 (base: oracle): REGRESSION in satisfy" in (
        capsys.readouterr().out
    )
    table = pd.read_csv(out / "compare_noisy_0_2.csv", index_col=0)
    assert table.loc["satisfy", "base_only"] == 9


def test_bad_inputs_are_one_line_and_exit_2(campaigns, capsys, tmp_path):
    base = str(campaigns / "base.sqlite")
    other = tmp_path / "other.sqlite"
    shutil.copy(base, other)
    with sqlite3.connect(other) as db:
        db.execute("UPDATE executions SET model_hash = 'f00d' || model_hash")
    capsys.readouterr()
    assert main(["compare", base, str(tmp_path / "none.sqlite")]) == 2
    assert main(["compare", base, str(other)]) == 2
    assert main(["compare", base, base, "--llm", "oracle", "--base-llm", "oracle"]) == 2
    assert main(["compare", base, base, "--llm", "random"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4
    assert err[0].startswith("explaincheck compare: NEW ") and "no results database" in err[0]
    assert "ran different models of frozen_lake (model hash" in err[1]
    assert err[2] == (
        "explaincheck compare: --llm names both sides: give it or --base-llm/--new-llm"
    )
    assert "holds no results of 'random' (it holds: oracle)" in err[3]
    with pytest.raises(SystemExit) as stopped:
        main(["compare", base, base, "--alpha", "2"])
    assert stopped.value.code == 2
    assert "--alpha must lie in (0, 1), got 2" in capsys.readouterr().err


def test_repeats_give_stabilities_and_pass_k_in_order(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    run = "run --env frozen_lake --categories satisfy,ranking,more_promising --budget 8 --repeat 5"
    assert main([*run.split(), "--llm", "noisy:0.5", "--llm", "oracle", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--by-case", "--json"]) == 0
    cases = json.loads(capsys.readouterr().out)
    oracle = [c for c in cases if c["llm"] == "oracle"]
    noisy = [c for c in cases if c["llm"] == "noisy:0.5"]
    assert oracle and {c["stability"] for c in oracle} == {"stable-pass"}
    assert all(c["runs"] == 5 == c["passes"] for c in oracle)
    assert any(c["stability"] == "flaky" for c in noisy)
    for case in noisy:  # the rule: flaky exactly when the repeats disagree
        assert (case["stability"] == "flaky") == (0 < case["passes"] < case["runs"])
    out = tmp_path / "report"
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "csv"]) == 0
    table = pd.read_csv(out / "stability.csv")
    assert set(table["k"]) == {5}
    assert (table["pass^k"] <= table["pass@1"]).all() and (table["pass@1"] <= table["pass@k"]).all()
    assert table.loc[table["llm"] == "oracle", "flaky"].eq(0).all()
    assert table.loc[table["llm"] == "noisy:0.5", "flaky"].gt(0).any()
    quarantined = pd.read_csv(out / "quarantine.csv")
    assert len(quarantined) == sum(c["stability"] == "flaky" for c in cases)
    # compare can leave the flaky cases out, and says how many: here the noisy answerer's
    # stable cases all pass, so what made the regression was its flaky cases
    copy = tmp_path / "copy.sqlite"
    shutil.copy(db, copy)
    sides = [str(db), str(copy), "--base-llm", "oracle", "--new-llm", "noisy:0.5"]
    assert main(["compare", *sides]) == 1
    capsys.readouterr()
    assert main(["compare", *sides, "--exclude-flaky"]) == 0
    flaky = sum(c["stability"] == "flaky" for c in noisy)
    shown = " ".join(capsys.readouterr().out.split())  # wrapped lines joined again
    assert f"{len(noisy) - flaky} pairs; left out: 0 cases only in the base," in shown
    assert f", {flaky} flaky cases " in shown


def test_the_table_fits_100_columns_and_wraps_a_long_category_by_name():
    """Issue 50 point 12: the table was about 150 columns wide."""
    from explaincheck.core.analysis.compare import compare_campaigns
    from explaincheck.core.cli.compare_command import WIDTH, comparison_text, table_lines
    from explaincheck.core.taxonomy.registry import OWN_CATEGORIES

    def frame(verdicts: dict[str, list[str]]) -> pd.DataFrame:
        rows = [
            {"environment": "e", "model_hash": "h", "llm": "x", "category": c,
             "case_key": f"{c}/prioritized/{i}/{i}", "states": [i], "repeat": 0, "verdict": v}
            for c, found in verdicts.items() for i, v in enumerate(found)
        ]  # fmt: skip
        return pd.DataFrame(rows)

    names = list(OWN_CATEGORIES)  # the project's own: an installed plugin's may be longer
    base = frame({c: ["pass"] * 120 + ["fail"] * 80 for c in names})
    new = frame({c: ["fail"] * 13 + ["pass"] * 107 + ["fail"] * 80 for c in names})
    comparison = compare_campaigns(base, new, "x", "x")
    table = table_lines(comparison)
    assert max(map(len, table)) <= WIDTH and len(table) == len(names) + 2  # one row each
    assert any("FAIL" in row for row in table) and "[-0.07, -0.02]" in "\n".join(table)
    text = comparison_text(comparison, "base.sqlite", "new.sqlite")
    assert all(len(line) <= WIDTH for line in text.splitlines()[len(comparison.failed) :])
    long_name = "a-plugin-distribution/" + "x" * 40
    wide = compare_campaigns(frame({long_name: ["pass"] * 9}), frame({long_name: ["pass"] * 9}),
                             "x", "x")  # fmt: skip
    rows = table_lines(wide)
    assert max(map(len, rows)) <= WIDTH and long_name in rows  # the name on a line of its own
