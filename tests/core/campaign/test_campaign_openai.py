"""A campaign through ``openai:`` against the stand-in OpenAI-compatible server (real HTTP, the
official client): usage and cost in ``results`` and the report, the json_schema fallback
recorded per reply, ``--max-cost`` stopping cleanly, exports read back with pandas."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.analysis.export import read_export
from explaincheck.core.cli.main import main

MODEL = "standin-1b"
PRICE = f"{MODEL}=2/8"  # per million prompt / completion tokens


def campaign(server, db, *more):
    return main(
        [
            "run",
            "--env",
            "frozen_lake",
            "--llm",
            f"openai:{MODEL}",
            "--openai-base-url",
            server.base_url,
            "--categories",
            "satisfy",
            "--budget",
            "4",
            "--timeout",
            "5",
            "--price",
            PRICE,
            "--db",
            str(db),
            *more,
        ]
    )


def json_rows(db, capsys, *more) -> list[dict]:
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json", *more]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def fallback_run(tmp_path_factory):
    """Four satisfy cases against a server that refuses json_schema (first reply falls back)."""
    folder = tmp_path_factory.mktemp("openai")
    with StandinOpenAI({MODEL: Script(mode="no_json_schema")}) as server:
        assert campaign(server, folder / "r.sqlite", "--concurrency", "1") == 0
        bodies = server.chats()
    return folder, bodies


def test_usage_cost_and_fallback_are_stored_per_reply(fallback_run, capsys):
    folder, bodies = fallback_run
    kinds = [(b.get("response_format") or {}).get("type") for b in bodies]
    assert kinds == ["json_schema", "json_object", "json_object", "json_object", "json_object"]
    rows = json_rows(folder / "r.sqlite", capsys)
    assert len(rows) == 4 and {r["verdict"] for r in rows} <= {"pass", "fail"}
    assert [r["output_mode"] for r in rows] == ["json_object"] * 4
    for row in rows:
        assert row["prompt_tokens"] == len(row["prompt"]) // 4 > 0
        assert row["completion_tokens"] == len(row["reply"]) // 4
        assert row["reasoning_tokens"] == 0
        assert row["latency"] > 0
        expected = (row["prompt_tokens"] * 2 + row["completion_tokens"] * 8) / 1e6
        assert row["cost"] == pytest.approx(expected)
    total = sum(r["cost"] for r in rows)
    capsys.readouterr()
    assert main(["results", "--db", str(folder / "r.sqlite")]) == 0
    table = capsys.readouterr().out
    assert f"cost openai:{MODEL}: {total:.4f}" in table
    assert f"cost of the campaign: {total:.4f}" in table
    # --price on results wins over the stored table
    cheaper = json_rows(folder / "r.sqlite", capsys, "--price", f"{MODEL}=1/4")
    assert sum(r["cost"] for r in cheaper) == pytest.approx(total / 2)


def test_report_shows_the_cost_and_links_the_exports(fallback_run, capsys):
    folder, _ = fallback_run
    out = folder / "report"
    assert (
        main(["report", "--db", str(folder / "r.sqlite"), "--out", str(out), "--format", "html"])
        == 0
    )
    text = capsys.readouterr().out
    assert "Cost in money per LLM" in text
    page = (out / "report.html").read_text()
    assert "Cost in money per LLM" in page
    for name in ("results.jsonl", "results.csv", "results.parquet"):
        assert f'<a href="{name}">' in page and (out / name).is_file()
    rows = json_rows(folder / "r.sqlite", capsys)
    total = sum(r["cost"] for r in rows)
    assert f"<td>{total:.4f}</td>" in page  # per LLM and for the campaign
    money = pd.read_parquet(out / "results.parquet")["cost"].sum()
    assert money == pytest.approx(total)


def test_parquet_and_jsonl_read_back_equal_json(fallback_run, tmp_path, capsys):
    folder, _ = fallback_run
    db = folder / "r.sqlite"
    rows = json_rows(db, capsys)
    for fmt in ("parquet", "jsonl", "csv"):
        path = tmp_path / f"r.{fmt}"
        assert main(["results", "--db", str(db), "--format", fmt, "--out", str(path)]) == 0
        frame = read_export(path)
        assert list(frame.columns) == list(rows[0])
        if fmt == "csv":
            continue  # CSV has no types: checked for its columns only
        back = frame.astype(object).where(frame.notna(), None).to_dict("records")
        assert back == rows, fmt


def test_reasoning_replies_keep_thinking_apart(tmp_path, capsys):
    with StandinOpenAI({MODEL: Script(mode="reasoning")}) as server:
        assert campaign(server, tmp_path / "r.sqlite") == 0
    rows = json_rows(tmp_path / "r.sqlite", capsys)
    assert all(r["thinking"].startswith("First I look") for r in rows)
    assert all(r["reasoning_tokens"] == 7 and r["output_mode"] == "json_schema" for r in rows)
    assert all(r["answer"] == {"probability": 0.5} for r in rows)


def test_max_cost_stops_cleanly_and_resumes(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    with StandinOpenAI({MODEL: Script()}) as server:
        # one reply costs about 0.0007 at 2/8 per million tokens... times 1000 here
        assert (
            campaign(
                server,
                db,
                "--concurrency",
                "1",
                "--price",
                f"{MODEL}=2000/8000",
                "--max-cost",
                "1.5",
            )
            == 1
        )
        err = capsys.readouterr().err
        assert "stopped at --max-cost 1.5000" in err and "Traceback" not in err
        with sqlite3.connect(db) as connection:
            stored = connection.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
        assert 1 <= stored < 4
        assert campaign(server, db, "--price", f"{MODEL}=2000/8000", "--max-cost", "100") == 0
    assert len(json_rows(db, capsys)) == 4


def test_keys_and_url_tokens_are_never_stored_or_printed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-SECRET0")
    with StandinOpenAI({MODEL: Script()}) as server:
        code = main(
            [
                "run",
                "--env",
                "frozen_lake",
                "--llm",
                f"openai:{MODEL}@{server.base_url}?token=SECRET1",
                "--llm",
                f"openai:{MODEL}",
                "--openai-base-url",
                f"{server.base_url}?key=SECRET2",
                "--categories",
                "satisfy",
                "--budget",
                "1",
                "--db",
                str(tmp_path / "r.sqlite"),
            ]
        )
        sent = {r["headers"].get("authorization") for r in server.requests}
    assert code == 0 and sent == {"Bearer sk-SECRET0"}
    out = capsys.readouterr()
    assert "SECRET" not in out.out + out.err
    for path in tmp_path.iterdir():
        assert b"SECRET" not in path.read_bytes(), path.name
