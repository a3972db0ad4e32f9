"""``bench run`` asks the frozen set through explaincheck's backends into a results file that
the other commands read; its verdicts are ``bench grade``'s on the same replies."""

from __future__ import annotations

import json
from pathlib import Path

from explaincheck.core.bench.grading import bench_table
from explaincheck.core.bench.questions import read_set
from explaincheck.core.cli.main import main
from explaincheck.core.store import Store


def test_bench_run_stores_the_sets_questions_and_grades_as_bench_grade(tmp_path, capsys):
    folder, db = tmp_path / "set", tmp_path / "bench.sqlite"
    assert (
        main(
            ["bench", "export", "--out", str(folder), "--env", "wolf_goat_cabbage", "--budget", "1"]
        )
        == 0
    )
    bench = read_set(folder)
    run = ["bench", "run", str(folder), "--llm", "oracle", "--llm", "random", "--db", str(db)]
    assert main(run) == 0
    with Store.open(db, create=False) as store:
        rows = list(store.iter_stored())
        (campaign,) = store.campaigns()
    assert len(rows) == 2 * len(bench.questions)
    asked = {f"{r.environment}/{r.case_key}" for r in rows}
    assert asked == {q.id for q in bench.questions}
    prompts = {q.id: q.prompt for q in bench.questions}
    assert all(r.prompt == prompts[f"{r.environment}/{r.case_key}"] for r in rows)
    assert all(r.verdict == "pass" for r in rows if r.llm == "oracle")
    assert campaign.settings["bench"]["sha256"] == bench.manifest["sha256"]
    # through the one run sequence (workspace.campaign.run_campaign): it records the run options
    assert campaign.settings["run_options"]["db"] == str(db)
    random_rows = {f"{r.environment}/{r.case_key}": r for r in rows if r.llm == "random"}
    table = bench_table(bench, {qid: r.reply for qid, r in random_rows.items()})
    assert table["verdicts"] == {qid: r.verdict for qid, r in random_rows.items()}
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(rows)


def test_only_the_run_sequence_finishes_a_run():
    """``finish_run`` has one caller, the run sequence; the bench only plans."""
    core = Path(__file__).resolve().parents[3] / "core"
    callers = {
        p.relative_to(core).as_posix()
        for p in core.rglob("*.py")
        if "finish_run(" in p.read_text(encoding="utf-8")
    }
    assert callers == {"campaign/finish.py", "workspace/campaign.py"}


def trimmed_set(folder: Path, into: Path, keep: int) -> Path:
    """``folder``'s set with only its first ``keep`` questions, hash and count made to agree
    (what a user trimming the file by hand would do)."""
    import hashlib

    into.mkdir()
    lines = (folder / "questions.jsonl").read_bytes().splitlines(keepends=True)[:keep]
    (into / "questions.jsonl").write_bytes(b"".join(lines))
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["sha256"] = hashlib.sha256(b"".join(lines)).hexdigest()
    manifest["questions"] = keep
    (into / "manifest.json").write_text(json.dumps(manifest))
    return into


def test_a_trimmed_set_is_refused_as_not_in_the_set_and_limit_asks_the_first_n(tmp_path, capsys):
    folder, db = tmp_path / "set", tmp_path / "bench.sqlite"
    export = ["bench", "export", "--out", str(folder), "--env", "frozen_lake", "--budget", "2"]
    assert main(export) == 0
    bench = read_set(folder)
    short = trimmed_set(folder, tmp_path / "short", 30)
    capsys.readouterr()
    assert main(["bench", "run", str(short), "--llm", "random", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is not in the set (30 questions" in err and "otherwise" not in err, err
    assert "\n" not in err and not db.exists()
    run = ["bench", "run", str(folder), "--llm", "random", "--db", str(db), "--limit", "7"]
    assert main(run) == 0
    with Store.open(db, create=False) as store:
        asked = [f"{r.environment}/{r.case_key}" for r in store.iter_stored()]
    assert sorted(asked) == sorted(q.id for q in bench.questions[:7])


def test_bench_run_sends_the_seed_and_cap_to_the_openai_server_it_is_given(tmp_path, monkeypatch):
    from support.openai_standin import StandinOpenAI

    folder, db = tmp_path / "set", tmp_path / "bench.sqlite"
    export = ["bench", "export", "--out", str(folder), "--env", "frozen_lake", "--budget", "1"]
    assert main(export) == 0
    bench = read_set(folder)
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    ask = ["bench", "run", str(folder), "--llm", "openai:standin-1b", "--db", str(db)]
    with StandinOpenAI() as server:
        url = ["--openai-base-url", server.base_url]
        assert main([*ask, *url, "--limit", "4", "--seed", "3", "--max-tokens", "99"]) == 0
        first = server.chats()
        assert main([*ask, *url, "--limit", "4"]) == 0  # the set's seed: another campaign
        second = server.chats()[len(first) :]
    asked = sorted(c["messages"][-1]["content"] for c in first)  # in flight together: any order
    assert asked == sorted(q.prompt for q in bench.questions[:4])
    assert {(c["temperature"], c["seed"], c["max_tokens"]) for c in first} == {(0.0, 3, 99)}
    assert {(c["temperature"], c["seed"], c["max_tokens"]) for c in second} == {(0.0, 0, 256)}
    with Store.open(db, create=False) as store:
        assert len(store.campaigns()) == 2 and len(list(store.iter_stored())) == 8


def test_bench_run_and_run_cap_ollama_too(tmp_path, capsys):
    """Issue 53's leftover: ``--max-tokens`` reached OpenAI-compatible servers only, Ollama runs
    were uncapped; the stand-in Ollama server now reads the cap as ``options.num_predict`` from
    ``bench run`` and from ``run``, 256 unless given."""
    from support.ollama_standin import Script, StandinOllama

    folder = tmp_path / "set"
    export = ["bench", "export", "--out", str(folder), "--env", "frozen_lake", "--budget", "1"]
    assert main(export) == 0
    with StandinOllama({"gemma3:1b": Script()}) as server:
        host = ["--llm", "ollama:gemma3:1b", "--ollama-host", server.url, "--limit", "3"]
        ask = ["bench", "run", str(folder), *host]
        assert main([*ask, "--max-tokens", "77", "--db", str(tmp_path / "a.sqlite")]) == 0
        benched = len(server.chats())
        assert main([*ask, "--db", str(tmp_path / "b.sqlite")]) == 0
        defaulted = len(server.chats())
        run = ["run", "--env", "frozen_lake", "--categories", "satisfy", "--budget", "2"]
        run += [*host[:4], "--max-tokens", "33", "--db", str(tmp_path / "r.sqlite")]
        assert main(run) == 0
        caps = [chat["options"]["num_predict"] for chat in server.chats()]
    assert benched == 3 and defaulted == 6 and len(caps) > 6
    assert set(caps[:3]) == {77} and set(caps[3:6]) == {256} and set(caps[6:]) == {33}
