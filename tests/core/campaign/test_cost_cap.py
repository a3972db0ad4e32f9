"""What ``--max-cost`` promises, end to end against the stand-in OpenAI-compatible server: the
spend it prints is what ``results`` then reports, the overshoot is at most the replies that were
in flight when the limit was reached (and it says how many), and an LLM with no price is refused
before any work (it would count as free)."""

from __future__ import annotations

import json
import re

import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.campaign.cost_limit import CostGuard, check_priced
from explaincheck.core.campaign.prices import Price
from explaincheck.core.cli.main import main
from explaincheck.core.errors import ExplaincheckError

MODEL = "standin-1b"
PRICE = f"{MODEL}=2000/8000"  # per million tokens: a reply costs about 0.5 here
CONCURRENCY = 4


def run(server, db, *more: str) -> int:
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
            "satisfy,best_action",
            "--budget",
            "6",
            "--timeout",
            "20",
            "--db",
            str(db),
            *more,
        ]
    )


def test_the_printed_spend_is_what_results_reports_and_the_overshoot_is_in_flight(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    # every reply waits, so CONCURRENCY of them are in flight whenever one lands
    with StandinOpenAI({MODEL: Script(delay=0.3)}) as server:
        code = run(
            server, db, "--concurrency", str(CONCURRENCY), "--price", PRICE, "--max-cost", "1.2"
        )
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    (line,) = [x for x in err.splitlines() if "stopped at --max-cost 1.2000" in x]
    spent = float(re.search(r"spent (\d+\.\d+)", line).group(1))
    assert main(["results", "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    costs = [row["cost"] for row in rows if row["cost"] is not None]
    assert 0 < len(rows) < 12  # stopped before the plan's 12 executions
    assert spent == pytest.approx(sum(costs), abs=5e-5)  # printed with 4 decimals
    late = re.search(r"of which (\d+\.\d+) by (\d+) repl(?:y|ies) in flight", line)
    in_flight = int(late.group(2)) if late else 0
    assert in_flight <= CONCURRENCY - 1  # the reply that reached the limit is not one of them
    # without the replies in flight the spend would not exceed the limit by more than one reply
    before = spent - (float(late.group(1)) if late else 0.0)
    assert before - max(costs) < 1.2 <= before


def test_a_model_without_a_price_is_refused_before_any_work(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    with StandinOpenAI({MODEL: Script()}) as server:
        code = run(server, db, "--llm", "random", "--price", "other=1/1", "--max-cost", "1")
        asked = server.chats()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert f"no price for openai:{MODEL}" in err[0] and "would count as free" in err[0]
    assert not asked and not db.exists()  # nothing asked, no results file


def test_instant_answerers_need_no_price_and_the_guard_counts_late_replies():
    check_priced(["random", "oracle", "flaw:myopic:1", "noisy:0.5"], {})  # they cost nothing
    check_priced(["openai:m@http://h/v1"], {"m": Price(1, 1)})  # the model's entry serves
    with pytest.raises(ExplaincheckError, match=r"^Stop at cost: no price for local:gemma3-270m"):
        check_priced(["local:gemma3-270m"], {}, "Stop at cost", "prices in the Prices field")

    class Session:
        cancelled = 0

        def cancel(self):
            self.cancelled += 1

    class Record:
        llm, reply, cached, reasoning_tokens = "m", "{}", False, 0
        prompt_tokens, completion_tokens = 600_000, 0  # 0.6 at 1 per million

    class Step:
        last = Record()

    session = Session()
    guard = CostGuard({"m": Price(1, 1)}, 1.0, session)
    for _ in range(4):  # the second reaches the limit; two more were in flight
        guard(Step())
    assert guard.reached and session.cancelled == 1
    assert guard.spent == pytest.approx(2.4) and guard.in_flight == 2
    assert guard.at_limit == pytest.approx(1.2)
