"""``--property`` on the command line (issue 49, point 1): PRISM text, FILE.props[:NAME] or an
environment's own property; every bad one is one line and exit status 2; a property's target is
the goal; the campaign stores it and its identity holds it. Every form is computed end to end by
the one pipeline (``core/oracle/compute.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from explaincheck.core.campaign.plan import Campaign, oracle_request, plan_campaign
from explaincheck.core.cli.main import main
from explaincheck.core.environments.registry import load_builtin

MODEL = """mdp
module m
  x : [0..2] init 0;
  [go] x<2 -> 1/2 : (x'=x+1) + 1/2 : true;
  [stay] x<2 -> true;
endmodule
label "done" = x=2;
rewards "steps"
  x<2 : 1;
endrewards
"""
PROPS = """// the walk's properties
const int T;
"reach": Pmax=? [ F "done" ];
"steps": R{"steps"}min=? [ F "done" ];
"soon": Pmax=? [ F<=T "done" ];
"""


@pytest.fixture()
def walk(tmp_path):
    path = tmp_path / "walk.prism"
    path.write_text(MODEL)
    (tmp_path / "walk.props").write_text(PROPS)
    return path


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    script = Path(sys.executable).parent / "explaincheck"
    return subprocess.run(
        [str(script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_a_reach_property_is_the_goal_end_to_end(walk, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path / "cache"))
    by_goal = run_cli("oracle", str(walk), "--goal", "done", "--json", "--no-cache")
    by_text = run_cli("oracle", str(walk), "--property", 'Pmax=? [F "done"]', "--json")
    by_file = run_cli("oracle", str(walk), "--property", f"{walk.parent / 'walk.props'}:reach")
    by_name = run_cli("oracle", str(walk), "--property", "reach", "--json")  # walk.props beside
    for done in (by_goal, by_text, by_file, by_name):
        assert done.returncode == 0, done.stderr
    goal, text, named = (json.loads(d.stdout) for d in (by_goal, by_text, by_name))
    assert [s["V"] for s in text["states"]] == [s["V"] for s in goal["states"]]
    assert text["model"]["property"]["text"] == 'Pmax=? [F "done"]'
    assert goal["model"]["property"]["text"] == 'Pmax=? [F "done"]'  # --goal X: Pmax [F X]
    assert named["model"]["property"]["name"] == "reach"


DEEP = "the property expression 'Pmax=? [(((((((((((((((((((((((((((((((((((((((((((((((((((("


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--property", 'P>=0.5 [F "done"]'), "only queries are supported"),
        (("--property", 'Pmax=? [G "done"]'), "supported properties: Pmax=? or Pmin=?"),
        (("--property", "nope"), "'nope' is no property of this model (its properties: reach"),
        (("--property", "walk.props:soon"), "needs the constant T"),
        (("--property", 'Pmax=? [F "done"]', "--goal", "done"), "give --goal or --property"),
        # the limits of a goal expression, on the whole property as it is read: the old
        # 4,096-character guard let both through, to be refused as the goal, or as the formula
        # to stay in only after the child had built the model
        (("--property", f'Pmax=? [{"(" * 2_000}x<2{")" * 2_000} U "done"]'), DEEP),
        (("--property", f"Pmax=? [F {'x=1|' * 1_000}x=2]"), "(4,014 characters) has 2,004 terms"),
    ],
)
def test_a_bad_property_is_one_line(walk, args, says, monkeypatch):
    monkeypatch.chdir(walk.parent)
    line = one_line_error(run_cli("oracle", str(walk), *args))
    assert says in line


def test_oracle_computes_an_expected_reward_end_to_end(walk, tmp_path, monkeypatch):
    """R{"steps"}min: V(x) = 2 per rung still to climb (each "go" advances with 1/2, every
    step costs 1); "stay" costs a step and leaves V as it was, Q = 1 + 4, the worst."""
    monkeypatch.setenv("EXPLAINCHECK_CACHE", str(tmp_path / "cache"))
    done = run_cli("oracle", str(walk), "--property", 'R{"steps"}min=? [F "done"]', "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["model"]["property"]["kind"] == "reward"
    start = found["states"][found["model"]["initial"]]
    assert start["V_exact"] == "4" and start["best"] == ["go"] and start["worst"] == ["stay"]
    assert start["Q"] == {"go": 4.0, "stay": 5.0} and start["R"] == {"go": 1.0, "stay": 1.0}


def test_run_takes_an_environments_property_and_refuses_an_unknown_one(tmp_path):
    unknown = run_cli(
        "run", "--env", "frozen_lake", "--llm", "oracle", "--property", "nope",
        "--db", str(tmp_path / "r.sqlite"),
    )  # fmt: skip
    assert "its properties: deadline" in one_line_error(unknown)
    both = run_cli(
        "run", "--env", "frozen_lake", "--llm", "oracle", "--property", "deadline",
        "--goal", "goal", "--db", str(tmp_path / "r.sqlite"),
    )  # fmt: skip
    assert "give --goal or --property" in one_line_error(both)
    export = run_cli("bench", "export", "--out", str(tmp_path / "b"), "--property", "nope")
    assert "no environment has a property of that name" in one_line_error(export)


def test_the_campaign_holds_the_property_in_its_identity_and_request():
    env = load_builtin("job_shop")
    plain = Campaign("job_shop", ("oracle",))
    asked = Campaign("job_shop", ("oracle",), property_text="hours")
    assert plain.identity("h") != asked.identity("h")
    assert "property_text" not in json.dumps(plain.settings()) or plain.property_text is None
    assert asked.run_options()["property"] == "hours"
    request = oracle_request(asked, env)
    assert request.property is not None and request.property.text == (
        'R{"hours"}min=? [F "goal" | "unsafe"]'
    )
    assert request.goal_label == '"goal" | "unsafe"'  # the target is the goal set
    assert request.property.reward_words.startswith("every hour the machines work")


def test_envs_lists_the_properties(capsys):
    assert main(["envs", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["job_shop"]["properties"] == {"hours": 'R{"hours"}min=? [F "goal" | "unsafe"]'}
    assert rows["frozen_lake"]["properties"] == {"deadline": 'Pmax=? [F<=20 "goal"]'}
    assert rows["dam"]["properties"] == {}


def test_run_job_shop_hours_end_to_end(tmp_path):
    """``run --property hours`` with the oracle, a control and two flawed explainers, through
    the oracle's own pipeline (tests/core/analysis/test_property_controls.py shows the same on
    the property's exact oracle assembled from its pieces)."""
    db = tmp_path / "hours.sqlite"
    done = run_cli(
        "run", "--env", "job_shop", "--property", "hours", "--llm", "oracle", "--llm", "hedge",
        "--llm", "flaw:distance", "--llm", "flaw:determinised", "--budget", "4",
        "--selection", "both", "--db", str(db),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    plan = plan_campaign(Campaign("job_shop", ("oracle",), budget=4, property_text="hours"))
    assert plan.oracle.prop.is_reward


def test_run_frozen_lake_deadline_end_to_end(tmp_path):
    done = run_cli(
        "run", "--env", "frozen_lake", "--property", "deadline", "--llm", "oracle", "--budget",
        "4", "--db", str(tmp_path / "deadline.sqlite"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_selfcheck_under_a_reward_property_end_to_end(tmp_path):
    # a budget that asks every state the optimal policy reaches from the start (as
    # tests/core/workspace/test_property_selfcheck.py): with 5 the other states take the
    # uniform default, which loses hours, so the loss could not be 0
    done = run_cli(
        "selfcheck", "--env", "job_shop", "--property", "hours", "--llm", "oracle", "--budget",
        "200", "--db", str(tmp_path / "self.sqlite"), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["value_loss"] == 0


def test_a_campaign_file_names_the_property(tmp_path):
    from explaincheck.core.cli.run_arguments import campaign_from, run_parser
    from explaincheck.core.cli.run_scale import apply_config

    config = tmp_path / "hours.toml"
    config.write_text('env = "job_shop"\nllm = ["oracle"]\nproperty = "hours"\nbudget = 3\n')
    parser = run_parser()
    args = parser.parse_args(["--config", str(config)])
    apply_config(args, parser)
    campaign = campaign_from(args)
    assert campaign.property_text == "hours"
    assert campaign.run_options()["property"] == "hours"  # written back as the same key


def test_myopic_under_a_deadline_is_refused_before_the_run(tmp_path):
    """flaw:myopic has no picture of a deadline's product states: one line, exit status 2,
    before any question (it was 14 executions ended in error, exit 1)."""
    done = run_cli(
        "run", "--env", "frozen_lake", "--property", "deadline", "--llm", "flaw:myopic:2",
        "--budget", "2", "--db", str(tmp_path / "m.sqlite"),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "flaw:myopic sees the model, not the steps left" in last
    assert "Traceback" not in done.stderr
