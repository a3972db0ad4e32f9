"""``explaincheck oracle``: the ``--json`` contract and the readable summary."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction

import pytest
from oracle_helpers import explaincheck_command, model

MODEL_KEYS = {"path", "states", "choices", "transitions", "initial"}
STATE_KEYS = {
    "id",
    "valuation",
    "labels",
    "V",
    "D",
    "Q",
    "best",
    "worst",
    "dead_end",
    "bottleneck",
    "centrality",
    "do_nothing",
}
RUNS = {
    "chain": [model("chain"), "--json"],
    "gambler": [model("gambler"), "--const", "N=3", "--json"],
    "no_unsafe": [model("no_unsafe"), "--json"],
    "relabelled": [model("no_goal"), "--goal", "target", "--json"],
    "frozen_lake": ["frozen_lake", "--json"],
    "summary": [model("chain")],
    "verified": [model("chain"), "--method", "verified", "--json"],
}


@pytest.fixture(scope="module")
def runs() -> dict[str, subprocess.CompletedProcess]:
    started = {
        name: subprocess.Popen(
            [*explaincheck_command(), "oracle", *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, arguments in RUNS.items()
    }
    return {
        name: subprocess.CompletedProcess(p.args, p.wait(120), *p.communicate())
        for name, p in started.items()
    }


def contract(runs, name: str) -> dict:
    run = runs[name]
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["model"].keys() >= MODEL_KEYS
    assert data["model"]["states"] == len(data["states"])
    assert [s["id"] for s in data["states"]] == list(range(len(data["states"])))
    for facts in data["states"]:
        assert facts.keys() >= STATE_KEYS
        assert isinstance(facts["valuation"], dict) and isinstance(facts["Q"], dict)
        assert 0.0 <= facts["V"] <= 1.0 and 0.0 <= facts["centrality"] <= 1.0
        assert set(facts["best"]) <= facts["Q"].keys() and set(facts["worst"]) <= facts["Q"].keys()
        assert facts["dead_end"] == (facts["V"] == 0)
    return data


def by_s(data: dict, value: int) -> dict:
    (facts,) = [s for s in data["states"] if s["valuation"].get("s") == value]
    return facts


@pytest.mark.parametrize("name", [n for n in RUNS if n != "summary"])
def test_json_contract(runs, name):
    contract(runs, name)


def test_json_values_of_the_chain(runs):
    data = contract(runs, "chain")
    assert data["model"]["states"] == 7
    assert data["model"]["choices"] == 8
    assert data["model"]["transitions"] == 13
    start = data["states"][data["model"]["initial"]]
    assert start["valuation"] == {"s": 0}
    assert start["V"] == float(Fraction(36, 55)) and start["D"] == float(Fraction(19, 55))
    assert start["Q"] == {"up": 9 / 22, "down": float(Fraction(36, 55))}
    assert start["best"] == ["down"] and start["worst"] == ["up"]
    assert {s["valuation"]["s"] for s in data["states"] if s["bottleneck"]} == {3, 4}
    pit = by_s(data, 6)
    assert pit["Q"] == {} and pit["best"] == [] and pit["worst"] == []
    assert pit["V"] == 0 and pit["D"] == 1 and pit["dead_end"]
    assert "unsafe" in pit["labels"]


def test_json_with_constants_and_without_danger(runs):
    gambler = contract(runs, "gambler")
    (x1,) = [s for s in gambler["states"] if s["valuation"] == {"x": 1}]
    assert x1["V"] == 4 / 19 and x1["D"] == 15 / 19
    no_unsafe = contract(runs, "no_unsafe")
    assert all(s["D"] is None for s in no_unsafe["states"])
    relabelled = contract(runs, "relabelled")
    assert relabelled["states"][relabelled["model"]["initial"]]["V"] == 1.0


def test_json_of_a_builtin_environment(runs):
    data = contract(runs, "frozen_lake")
    assert data["model"]["states"] == 16
    assert sum(s["bottleneck"] for s in data["states"]) == 1


def test_verified_and_exact_json_agree(runs):
    exact, verified = contract(runs, "chain"), contract(runs, "verified")
    for e, v in zip(exact["states"], verified["states"], strict=True):
        assert e["V"] == pytest.approx(v["V"], abs=1e-12)
        assert e["best"] == v["best"] and e["bottleneck"] == v["bottleneck"]


def test_summary_text(runs):
    run = runs["summary"]
    assert run.returncode == 0, run.stderr
    text = run.stdout
    for words in ("7 states", "8 choices", "36/55", "dead ends    1", "bottlenecks  2", "exact"):
        assert words in text
    assert "time" in text and run.stderr == ""


def test_the_parent_leaves_the_computing_modules_to_the_child():
    """``explaincheck oracle`` only starts the child and waits: importing the oracle package and
    the command must not load scipy, Storm, rustworkx or networkit (half a second before the
    child even starts), while ``compute_in_process`` still works from the package."""
    import sys

    probe = (
        "import sys\n"
        "import explaincheck.core.cli.oracle_command\n"
        "from explaincheck.core.oracle import compute_in_process, compute_oracle\n"
        "heavy = ('scipy', 'stormpy', 'rustworkx', 'networkit', 'pymetis')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_compute_in_process_from_the_package_passes_its_arguments_on():
    from explaincheck.core.oracle import OracleRequest, compute_in_process
    from explaincheck.core.oracle.columnar import ColumnarStates

    request = OracleRequest(model("chain"), method="verified")
    phases = []
    columns = compute_in_process(request, lambda phase, **_: phases.append(phase), columnar_from=0)
    assert isinstance(columns.states, ColumnarStates)
    assert phases[0] == "building" and "values" in phases
    listed = compute_in_process(request)
    assert not isinstance(listed.states, ColumnarStates)
    assert [s.value for s in columns.states] == [s.value for s in listed.states]


def test_do_nothing_actions_are_found_and_shown(capsys):
    """A pure self-loop (the corridor's "wait", the dead end's "wait") is a do-nothing action:
    Q = V there, so preference questions leave it out (docs/method.md §4)."""
    from explaincheck.core.cli.main import main

    corridor = model("corridor")
    assert main(["oracle", corridor, "--const", "TARGET=4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    idle = {s["id"]: s["do_nothing"] for s in data["states"]}
    moving = [s for s in data["states"] if s["Q"]]
    assert moving and all(idle[s["id"]] == ["wait"] for s in moving)
    assert all(s["Q"]["wait"] == s["V"] for s in moving)  # always among the best
    assert data["model"]["do_nothing_states"] == len(moving)
    assert main(["oracle", corridor, "--const", "TARGET=4"]) == 0
    out = capsys.readouterr().out
    assert f"do-nothing   {len(moving)} states (wait): every outcome is the state itself" in out
    assert main(["oracle", model("shortcut")]) == 0
    assert "do-nothing   none" in capsys.readouterr().out


def test_a_forked_child_inherits_numpy_from_the_parent():
    """The command only starts the child, waits and prints. The child needs numpy whatever the
    model, the parent to read a large result: imported once before the fork, the child inherits
    it instead of importing it again (0.05 s of CPU at 10^4 states, where raw stormpy's whole run
    is three tenths)."""
    import sys

    probe = (
        "import sys, multiprocessing.context as c\n"
        "seen = []\n"
        "start = c.ForkProcess._Popen\n"
        "def popen(process):\n"
        "    seen.append('numpy' in sys.modules)\n"
        "    return start(process)\n"
        "c.ForkProcess._Popen = staticmethod(popen)\n"
        "from explaincheck.core.cli.main import main\n"
        f"main(['oracle', {model('chain')!r}, '--json', '--no-cache'])\n"
        "print(seen, file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["model"]["states"] == 7
    assert run.stderr.strip().splitlines()[-1] == "[True]"  # forked once, numpy already there
