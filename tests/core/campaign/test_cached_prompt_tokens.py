"""Cached prompt tokens (issue 39): a server that took part of each prompt from its prompt
cache says so in ``usage.prompt_tokens_details.cached_tokens``; the count is stored per reply
(executions and the reply cache) and priced at the cached-input price of ``IN/OUT/CACHED``, or
at the input price when none is given. Real HTTP, the official ``openai`` client, the stand-in
server on 127.0.0.1."""

from __future__ import annotations

import json
import sqlite3

import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.cli.main import main

MODEL = "standin-1b"
CACHED = 12  # prompt tokens the stand-in says came from its cache, per reply


@pytest.fixture(scope="module")
def cached_run(tmp_path_factory):
    db = tmp_path_factory.mktemp("cached") / "r.sqlite"
    with StandinOpenAI({MODEL: Script(cached_tokens=CACHED)}) as server:
        code = main(
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
                "3",
                "--timeout",
                "5",
                "--price",
                f"{MODEL}=2/8/0.5",
                "--db",
                str(db),
            ]
        )
    assert code == 0
    return db


def rows_of(db, capsys, *more) -> list[dict]:
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--json", *more]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_cached_count_is_stored_per_reply_and_in_the_reply_cache(cached_run):
    with sqlite3.connect(cached_run) as db:
        executions = db.execute("SELECT prompt_tokens, cached_prompt_tokens FROM executions")
        replies = db.execute("SELECT prompt_tokens, cached_prompt_tokens FROM replies")
        executions, replies = executions.fetchall(), replies.fetchall()
    assert len(executions) == 3 and len(replies) == 3
    for prompt_tokens, cached in executions + replies:
        assert cached == CACHED < prompt_tokens


def test_cached_tokens_cost_the_cached_price_else_the_input_price(cached_run, capsys):
    rows = rows_of(cached_run, capsys)
    for row in rows:
        assert row["cached_prompt_tokens"] == CACHED
        uncached = row["prompt_tokens"] - CACHED
        expected = (uncached * 2 + CACHED * 0.5 + row["completion_tokens"] * 8) / 1e6
        assert row["cost"] == pytest.approx(expected)
    # No cached price given: cached tokens cost the input price (an upper bound).
    for row in rows_of(cached_run, capsys, "--price", f"{MODEL}=2/8"):
        full = (row["prompt_tokens"] * 2 + row["completion_tokens"] * 8) / 1e6
        assert row["cost"] == pytest.approx(full)
    total = sum(r["cost"] for r in rows)
    capsys.readouterr()
    assert main(["results", "--db", str(cached_run)]) == 0
    table = capsys.readouterr().out
    prompt = sum(r["prompt_tokens"] for r in rows)
    assert f"cost openai:{MODEL}: {total:.4f} ({prompt} prompt ({3 * CACHED} cached)," in table


def test_the_report_cost_table_shows_the_cached_tokens(cached_run, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", "--db", str(cached_run), "--out", str(out), "--format", "md"]) == 0
    page = (out / "report.md").read_text()
    section = page[page.index("Cost in money per LLM") :]
    header = next(line for line in section.splitlines() if line.startswith("| llm"))
    columns = [c.strip().replace("\\_", "_") for c in header.strip("|").split("|")]
    campaign = next(line for line in section.splitlines() if line.startswith("| campaign"))
    values = dict(zip(columns, (c.strip() for c in campaign.strip("|").split("|")), strict=True))
    assert values["cached_prompt_tokens"] == str(3 * CACHED)
