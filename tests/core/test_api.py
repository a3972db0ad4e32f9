"""The Python API: the documented example runs as it is, also from inside a running event loop
(as a Jupyter cell does), and its pieces give what the command line gives."""

from __future__ import annotations

import asyncio
import runpy
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest
from support.openai_standin import Script, StandinOpenAI

from explaincheck.core import api
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import Store

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "api_example.py"


def example() -> dict:
    return runpy.run_path(str(EXAMPLE))["main"]


def check(found: dict, folder: Path) -> None:
    frame = found["frame"]
    assert isinstance(frame, pd.DataFrame) and len(frame) == found["plan"].total == 48
    assert found["scores"]["oracle"] == 1.0 and found["scores"]["random"] < 0.5
    assert found["merged"].rows == 48 and found["merged"].shards == ["1/3", "2/3", "3/3"]
    merged = pd.read_parquet(folder / "all.parquet")
    key = ["case_key", "llm", "repeat"]
    columns = [*key, "reply", "verdict", "reason"]
    whole = frame[columns].sort_values(key).reset_index(drop=True)
    assert merged[columns].sort_values(key).reset_index(drop=True).equals(whole)


def test_the_example_runs(tmp_path, capsys):
    check(example()(tmp_path), tmp_path)
    assert "48 of 48 executions stored" in capsys.readouterr().out


def test_the_example_runs_verbatim_into_a_folder_that_does_not_exist_yet(tmp_path):
    """As docs/python-api.md says to run it: ``python docs/examples/api_example.py FOLDER``."""
    folder = tmp_path / "api-example" / "new"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(folder)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "48 of 48 executions stored" in done.stdout and "Traceback" not in done.stderr
    assert (folder / "all.parquet").is_file()


def test_the_example_runs_inside_a_running_loop(tmp_path):
    main = example()

    async def cell():  # a notebook cell: a loop runs, and sync code is called from it
        assert asyncio.get_running_loop().is_running()
        return main(tmp_path)

    check(asyncio.run(cell()), tmp_path)


def test_run_async_reports_progress_and_openai_usage(tmp_path):
    seen = []
    with StandinOpenAI({"m": Script(mode="reasoning")}) as server:
        plan = api.plan("frozen_lake", ["openai:m"], categories="satisfy", budget=2)

        async def go():
            return await api.run_async(
                plan,
                tmp_path / "r.sqlite",
                openai_base_urls=[server.base_url],
                prices=["m=1/2"],
                on_progress=lambda p: seen.append((p.done, threading.get_ident())),
            )

        outcome = asyncio.run(go())
    assert outcome.complete and outcome.progress.done == 2
    assert seen[-1][0] == 2
    frame = api.results(tmp_path / "r.sqlite")
    assert frame["reasoning_tokens"].tolist() == [7, 7]
    assert (frame["cost"] > 0).all()  # the prices given to run are kept with the campaign
    expected = (frame["prompt_tokens"] * 1 + frame["completion_tokens"] * 2) / 1e6
    assert frame["cost"].tolist() == pytest.approx(expected.tolist())


def test_bad_input_is_one_clear_error(tmp_path):
    with pytest.raises(ExplaincheckError, match="unknown LLM"):
        api.plan("frozen_lake", ["nonsense:x"])
    plan = api.plan("frozen_lake", ["random"], categories="satisfy", budget=1)
    with pytest.raises(ExplaincheckError, match="max_cost needs prices"):
        api.run(plan, tmp_path / "r.sqlite", max_cost=1.0)
    with pytest.raises(ExplaincheckError, match="must end in"):
        api.export(tmp_path / "r.sqlite", tmp_path / "r.txt")


def test_api_runs_record_their_options_for_a_campaign_file(tmp_path, capsys):
    from explaincheck.core.cli.main import main

    plan = api.plan("frozen_lake", ["random"], categories="satisfy", budget=2, seed=4)
    api.run(plan, tmp_path / "r.sqlite", concurrency=2)
    written = tmp_path / "again.toml"
    assert main(["results", "--db", str(tmp_path / "r.sqlite"), "--config", str(written)]) == 0
    text = written.read_text()
    assert 'env = "frozen_lake"' in text and "seed = 4" in text and "concurrency = 2" in text
    assert main(["run", "--config", str(written), "--db", str(tmp_path / "b.sqlite")]) == 0
    first = api.results(tmp_path / "r.sqlite")[["case_key", "reply", "verdict"]]
    again = api.results(tmp_path / "b.sqlite")[["case_key", "reply", "verdict"]]
    assert first.equals(again)


def test_open_model_gives_the_oracle_run_computes(tmp_path):
    """The API opens through the GUI's workspace with ``run``'s meaning of the choices: the
    oracle (its content hash) is the one ``run --const`` computes, and errors are raised."""
    from explaincheck.core.campaign.plan import Campaign, load_environment, oracle_for

    gambler = str(Path(__file__).resolve().parents[1] / "models" / "gambler.prism")
    model = api.open_model(gambler, constants="N=4")
    campaign = Campaign(gambler, ("oracle",), constants="N=4")
    expected = oracle_for(campaign, load_environment(campaign))
    assert model.states == 5 and model.oracle.model.content_hash == expected.model.content_hash
    with pytest.raises(ExplaincheckError, match="undefined constants N"):
        api.open_model(gambler)
    with pytest.raises(ExplaincheckError, match="nope"):
        api.open_model("frozen_lake", unsafe="nope")  # a named unsafe label must exist
    broken = tmp_path / "broken.prism"
    broken.write_text("mdp\nmodule m\n x : [0..1] init 0;\n [a] x=0 -> (x'=);\nendmodule\n")
    with pytest.raises(ExplaincheckError, match=r"broken\.prism:4"):
        api.open_model(broken)


def test_executions_are_the_records_stored(tmp_path):
    plan = api.plan("frozen_lake", ["random", "oracle"], categories="satisfy", budget=2)
    api.run(plan, tmp_path / "r.sqlite")
    read = api.executions(tmp_path / "r.sqlite")
    assert sorted(r.exec_key for r in read) == sorted(e.key for e in plan.executions)
    assert all(r.verdict == "pass" for r in api.executions(tmp_path / "r.sqlite", llm="oracle"))
    assert len({r.id for r in read}) == 4 and all(isinstance(r.states, list) for r in read)


def test_a_resume_under_another_rule_regrades_and_records_the_rule(tmp_path):
    """The API runs ``run``'s sequence: finishing re-grades the rows stored under the old
    satisfy rule from their replies and records the new rule in the campaign."""
    db = tmp_path / "r.sqlite"
    model = api.open_model("frozen_lake")
    first = api.plan(model, ["random"], categories="satisfy", budget=6)
    assert api.run(first, db).complete
    before = {row.exec_key: row.verdict for row in api.executions(db)}
    again = api.plan(model, ["random"], categories="satisfy", budget=6, satisfy_rule="half")
    assert api.run(again, db).progress.resumed == 6  # nothing asked again
    rows = api.executions(db)
    assert {row.exec_key for row in rows} == set(before)
    assert {tuple(sorted(r.grading.items())) for r in rows} == {
        (("satisfy_rule", "half"), ("satisfy_tolerance", 0.05))
    }
    with Store.open(db, readonly=True) as store:
        (campaign,) = store.campaigns()
    assert campaign.settings["grading"] == {"satisfy_rule": "half", "satisfy_tolerance": 0.05}


def test_a_whole_study_in_one_call_is_run_env_alls(tmp_path):
    db = tmp_path / "study.sqlite"
    seen = []
    options = {"categories": "satisfy,best_action", "budget": 2}
    outcome = api.study(["frozen_lake", "dam"], ["random", "oracle"], db, **options)
    assert outcome.progress.state == "finished"
    with Store.open(db, readonly=True) as store:
        campaigns = store.campaigns()
        stored = len(list(store.iter_executions()))
    assert [c.environment for c in campaigns] == ["frozen_lake", "dam"]  # one campaign each
    assert {c.status for c in campaigns} == {"finished"}
    assert stored == outcome.progress.total == sum(c.planned for c in campaigns) > 0
    # the command line's study over the same settings plans the very same executions
    cli_db = tmp_path / "cli.sqlite"
    from explaincheck.core.cli.main import main

    command = ["run", "--env", "frozen_lake", "--env", "dam", "--llm", "random", "--llm"]
    command += ["oracle", "--categories", "satisfy,best_action", "--budget", "2"]
    assert main([*command, "--db", str(cli_db)]) == 0
    with Store.open(cli_db, readonly=True) as store:
        cli_keys = {e["exec_key"] for e in store.iter_executions()}
    with Store.open(db, readonly=True) as store:
        assert {e["exec_key"] for e in store.iter_executions()} == cli_keys
    # called again, it resumes: nothing is asked twice, one progress over the whole study
    again = api.study(
        ["frozen_lake", "dam"], ["random", "oracle"], db, on_progress=seen.append, **options
    )
    assert again.progress.total == stored and seen and seen[-1].total == stored


def test_a_study_of_an_unknown_environment_or_llm_is_one_clear_error(tmp_path):
    with pytest.raises(ExplaincheckError, match="nowhere"):
        api.study(["frozen_lake", "nowhere"], "random", tmp_path / "s.sqlite", budget=1)
    with pytest.raises(ExplaincheckError):
        api.study("all", "bogus:model", tmp_path / "s.sqlite")
    assert not (tmp_path / "s.sqlite").exists()
