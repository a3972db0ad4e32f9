"""The Inspect task ``explaincheck/bench``, run by Inspect's own command line (its ``mockllm``
provider and, over real HTTP, the OpenAI-compatible stand-in): its verdicts are ``bench
grade``'s on the same replies, the schema reaches the server with every bound, and
``import-inspect`` brings the log into a results file."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import list_eval_logs, read_eval_log
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core.bench.grading import bench_table
from explaincheck.core.bench.questions import cached_default_set, read_set
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store

OFFLINE_TOKENS = Path(__file__).resolve().parents[2] / "support" / "offline_tokens"


def inspect_eval(*args: str, log_dir: Path, env: dict[str, str] | None = None):
    """``inspect eval ...`` (the console script is ``python -m inspect_ai``) in a child."""
    child_env = {
        **os.environ,
        **(env or {}),
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(OFFLINE_TOKENS), os.environ.get("PYTHONPATH")])
        ),
        "INSPECT_LOG_DIR": str(log_dir),
        "INSPECT_DISPLAY": "plain",
    }
    run = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "explaincheck/bench", *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=child_env,
        cwd=log_dir.parent,  # not the checkout: its explaincheck.egg-info hides the editable
    )  # install from Inspect, which then names the task "bench" (docs/benchmark.md)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (log,) = [read_eval_log(info.name) for info in list_eval_logs(str(log_dir))]
    assert log.status == "success", log.error
    return log


def logged(log) -> tuple[dict[str, str], dict[str, str]]:
    replies, verdicts = {}, {}
    for sample in log.samples:
        replies[str(sample.id)] = sample.output.completion
        (score,) = sample.scores.values()
        verdicts[str(sample.id)] = score.metadata["verdict"]
    return replies, verdicts


@pytest.mark.timeout(1800)  # Inspect starts slowly on a loaded machine (no timing asserted)
def test_inspect_eval_with_mockllm_gives_bench_grades_verdicts(tmp_path):
    log = inspect_eval("--model", "mockllm/model", "--limit", "20", log_dir=tmp_path / "logs")
    replies, verdicts = logged(log)
    assert len(replies) == 20
    bench = cached_default_set()
    table = bench_table(bench, replies, include_degenerate=True)  # Inspect counts every sample
    assert table["verdicts"] == verdicts
    assert set(verdicts.values()) == {"invalid"}  # mockllm's default output is no answer
    assert log.eval.metadata["bench"]["sha256"] == bench.manifest["sha256"]
    assert log.results.scores[0].metrics["all"].value == 0.0
    db = tmp_path / "results.sqlite"
    assert main(["import-inspect", str(tmp_path / "logs"), "--db", str(db)]) == 0
    with Store.open(db, create=False) as store:
        rows = list(store.iter_stored())
    assert {r.llm for r in rows} == {"inspect:mockllm/model"} and len(rows) == 20
    assert {f"{r.environment}/{r.case_key}": r.verdict for r in rows} == verdicts


def without_number_bounds(schema):
    if isinstance(schema, dict):
        return {
            k: without_number_bounds(v)
            for k, v in schema.items()
            if k not in ("minimum", "maximum") or not isinstance(v, int | float)
        }
    return schema


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bench") / "small"
    assert (
        main(["bench", "export", "--out", str(folder), "--env", "frozen_lake", "--budget", "2"])
        == 0
    )
    return folder


@pytest.mark.timeout(1800)
def test_inspect_eval_against_the_openai_standin_keeps_the_schema_and_the_verdicts(
    small_set, tmp_path, capsys
):
    bench = read_set(small_set)
    with StandinOpenAI({"standin-1b": Script()}) as server:
        log = inspect_eval(
            "--model",
            "openai-api/standin/standin-1b",
            "-T",
            f"dir={small_set}",
            log_dir=tmp_path / "logs",
            env={"STANDIN_BASE_URL": server.base_url, "STANDIN_API_KEY": "not-a-key"},
        )
        chats = server.chats()
    sent = {
        c["messages"][-1]["content"]: c["response_format"]["json_schema"]["schema"] for c in chats
    }
    for question in bench.questions:  # every enum and array size (what Inspect's JSONSchema
        # drops); Inspect's OpenAI-compatible providers leave out minimum/maximum on purpose
        assert sent[question.prompt] == without_number_bounds(question.schema)
    rankings = [q for q in bench.questions if q.category == "ranking"]
    assert rankings and all(
        sent[q.prompt]["properties"]["ranking"]["uniqueItems"] for q in rankings
    )
    replies, verdicts = logged(log)
    assert len(replies) == len(bench.questions)
    table = bench_table(bench, replies, include_degenerate=True)  # Inspect counts every sample
    assert table["verdicts"] == verdicts
    assert {"pass", "fail"} <= set(verdicts.values())  # the stand-in's first enum value
    by_category = {r["category"]: r["pass_rate"] for r in table["categories"]}
    metrics = log.results.scores[0].metrics
    corrected = {r["category"]: r["corrected"] for r in table["categories"]}
    for category, rate in by_category.items():
        assert metrics[category].value == pytest.approx(rate)
        assert metrics[f"{category}_corrected"].value == pytest.approx(corrected[category])
    db = tmp_path / "results.sqlite"
    assert main(["import-inspect", str(tmp_path / "logs"), "--db", str(db)]) == 0
    assert "all verdicts as Inspect's" in capsys.readouterr().out
    assert main(["report", "--db", str(db), "--out", str(tmp_path / "report")]) == 0


def request_options(chat: dict) -> tuple:
    """Temperature, seed and output cap of one chat request (either name of the cap)."""
    cap = chat.get("max_tokens", chat.get("max_completion_tokens"))
    return chat.get("temperature"), chat.get("seed"), cap


@pytest.mark.timeout(1800)
def test_bench_run_limit_and_inspect_limit_ask_the_same_questions_the_same_way(
    small_set, tmp_path, monkeypatch
):
    """Issue 53 points 7 and 8: ``bench run --limit 20`` and ``inspect eval --limit 20`` send
    the same 20 prompts to one server with the same temperature, seed and output cap."""
    bench = read_set(small_set)
    assert len(bench.questions) > 20  # a real cut
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    with StandinOpenAI({"standin-1b": Script()}) as server:
        log = inspect_eval(
            "--model",
            "openai-api/standin/standin-1b",
            "-T",
            f"dir={small_set}",
            "--limit",
            "20",
            log_dir=tmp_path / "logs",
            env={"STANDIN_BASE_URL": server.base_url, "STANDIN_API_KEY": "not-a-key"},
        )
        by_inspect = server.chats()
        ask = ["bench", "run", str(small_set), "--llm", "openai:standin-1b", "--limit", "20"]
        db = ["--db", str(tmp_path / "b.sqlite"), "--openai-base-url", server.base_url]
        assert main([*ask, *db]) == 0
        by_bench = server.chats()[len(by_inspect) :]
    first = bench.questions[:20]
    with Store.open(tmp_path / "b.sqlite", create=False) as store:
        stored = {f"{r.environment}/{r.case_key}" for r in store.iter_stored()}
    assert {str(s.id) for s in log.samples} == stored == {q.id for q in first}
    # the same prompt texts reached the server (bench run asks a prompt that two questions
    # share once and reuses the reply; Inspect asks it twice)
    assert {c["messages"][-1]["content"] for c in by_inspect} == {q.prompt for q in first}
    assert {c["messages"][-1]["content"] for c in by_bench} == {q.prompt for q in first}
    seed = bench.manifest["made_with"]["seed"]
    assert {request_options(c) for c in by_bench} == {(0.0, seed, 256)}
    assert {request_options(c) for c in by_inspect} == {(0.0, seed, 256)}


def same_moment(stored: str, logged) -> bool:
    """The store keeps milliseconds; Inspect logs microseconds."""
    moment = datetime.fromisoformat(str(logged))
    return abs(datetime.fromisoformat(stored) - moment) < timedelta(milliseconds=1)


@pytest.mark.timeout(1800)
def test_import_inspect_keeps_the_logs_tokens_and_times(small_set, tmp_path):
    """Issue 53 point 6: a mockllm log's token counts, generation seconds and run times are
    stored (not the import's time), so report's cost table has the Inspect model."""
    log = inspect_eval(
        "--model", "mockllm/model", "-T", f"dir={small_set}", "--limit", "6", log_dir=tmp_path / "l"
    )
    samples = {str(s.id): s for s in log.samples}
    db = tmp_path / "results.sqlite"
    assert main(["import-inspect", str(tmp_path / "l"), "--db", str(db)]) == 0
    with Store.open(db, create=False) as store:
        rows = list(store.iter_stored())
        (campaign,) = store.campaigns()
    assert len(rows) == 6
    for row in rows:
        sample = samples[f"{row.environment}/{row.case_key}"]
        usage = sample.output.usage
        assert usage.input_tokens > 0 and usage.output_tokens > 0
        assert (row.prompt_tokens, row.completion_tokens) == (
            usage.input_tokens,
            usage.output_tokens,
        )
        assert row.latency == pytest.approx(sample.output.time) and row.latency > 0
        assert same_moment(row.started_at, sample.started_at)
        assert same_moment(row.finished_at, sample.completed_at)
    assert same_moment(campaign.created_at, log.stats.started_at)
    # the task's generate config (bench run's) is kept with the campaign
    generate = {"temperature": 0.0, "seed": 0, "max_tokens": 256}
    assert campaign.settings["inspect_generate"] == generate
    out = tmp_path / "report"
    assert main(["report", "--db", str(db), "--out", str(out)]) == 0
    section = (out / "report.md").read_text().split("## Cost per execution")[1].split("\n## ")[0]
    mean_prompt = sum(r.prompt_tokens for r in rows) / len(rows)
    assert "| inspect:mockllm/model |" in section and "| all | 6 |" in section, section
    assert f"| {mean_prompt:.2f} |" in section, section
