"""``explaincheck regrade``: stored replies graded again under another satisfy rule, no LLM."""

from __future__ import annotations

from support.cli_results import stored_results

from explaincheck.core.cli.main import main

RUN = (
    "run --env frozen_lake --llm random --llm oracle --categories satisfy --budget 20"
    " --selection both"
)


rows = stored_results


def test_a_wider_tolerance_turns_random_fails_into_passes(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    assert main([*RUN.split(), "--db", str(db)]) == 0
    before = {r["id"]: r for r in rows(db, capsys)}
    failed = [r for r in before.values() if r["llm"] == "random" and r["verdict"] == "fail"]
    assert failed, "random should miss some satisfy cases at tolerance 0.05"

    assert main(["regrade", str(db), "--satisfy-tolerance", "1"]) == 0
    out = capsys.readouterr().out
    graded = sum(r["reply"] is not None and r["verdict"] != "error" for r in before.values())
    assert f"{graded} stored replies graded again under the absolute rule (|p - V| <= 1);" in out
    assert f" {len(failed)} changed verdict." in out
    assert f"random · satisfy: fail -> pass ×{len(failed)}" in out

    after = {r["id"]: r for r in rows(db, capsys)}
    assert after.keys() == before.keys()
    for row_id, row in after.items():
        assert row["reply"] == before[row_id]["reply"]  # nothing asked again
        if before[row_id]["verdict"] in ("pass", "fail"):
            assert row["verdict"] == "pass"

    # Back to the campaign's own rule: exactly the old verdicts.
    assert main(["regrade", str(db), "--satisfy-rule", "absolute"]) == 0
    assert f" {len(failed)} changed verdict." in capsys.readouterr().out
    assert [r["verdict"] for r in rows(db, capsys)] == [r["verdict"] for r in before.values()]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["regrade", str(tmp_path / "none.sqlite")]) == 2
    assert main(["regrade", str(tmp_path / "none.sqlite"), "--satisfy-tolerance", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("explaincheck regrade: no results database at")
    assert err[1] == "explaincheck regrade: --satisfy-tolerance 2 is not in [0, 1]"
