"""Error cases through ``compute_oracle`` (isolated child) and ``explaincheck oracle`` (exit 2,
one line on stderr, no traceback); memory limit, cancellation and timeout of an ``OracleJob``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from oracle_helpers import explaincheck_command, model

from explaincheck.core.errors import (
    ExplaincheckError,
    ModelError,
    ModelTooLargeError,
    OracleCancelled,
)
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.isolation import OracleJob
from explaincheck.core.oracle.types import EXACT, OracleRequest

# A counter with 50 million states: building it needs gigabytes.
HUGE_MODEL = """mdp
const int M = 50000000;
module counter
  x : [0..M] init 0;
  [inc] x<M -> 0.5:(x'=x+1) + 0.5:(x'=x);
endmodule
label "goal" = x=M;
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory, gridworld) -> dict[str, str]:
    """Paths of the broken inputs (empty, binary, huge) next to the test models."""
    folder: Path = tmp_path_factory.mktemp("broken")
    (folder / "empty.prism").write_text("  \n")
    (folder / "binary.prism").write_bytes(b"mdp\n\x00\x01\x02\xff" * 8)
    (folder / "huge.prism").write_text(HUGE_MODEL)
    return {
        "empty": str(folder / "empty.prism"),
        "binary": str(folder / "binary.prism"),
        "huge": str(folder / "huge.prism"),
        "grid30": gridworld(30),
    }


# case -> (CLI arguments, request fields, expected error type, words the message must contain)
CASES = {
    "syntax": (
        ["{models}/syntax_error.prism"],
        {"model_path": "{models}/syntax_error.prism"},
        ModelError,
        ["syntax_error.prism:5:32:", "syntax error"],
    ),
    "missing_goal": (
        ["{models}/no_goal.prism"],
        {"model_path": "{models}/no_goal.prism"},
        ModelError,
        ["goal label 'goal' is not defined", "target", "--goal"],
    ),
    "missing_goal_named": (
        ["{models}/chain.prism", "--goal", "done"],
        {"model_path": "{models}/chain.prism", "goal_label": "done"},
        ModelError,
        ["'done' is not defined"],
    ),
    "undefined_constant": (
        ["{models}/gambler.prism"],
        {"model_path": "{models}/gambler.prism"},
        ModelError,
        ["undefined constant N", "--const N="],
    ),
    "empty": (["{empty}"], {"model_path": "{empty}"}, ModelError, ["empty"]),
    "binary": (["{binary}"], {"model_path": "{binary}"}, ModelError, ["binary file"]),
    "too_many_states": (
        ["{grid30}", "--state-limit", "100"],
        {"model_path": "{grid30}", "state_limit": 100},
        ModelTooLargeError,
        ["too large", "more than the limit of 100 states"],
    ),
    "pomdp": (
        ["{models}/pomdp.prism"],
        {"model_path": "{models}/pomdp.prism"},
        ModelError,
        ["POMDP is not supported"],
    ),
}


def fill(text: str, files: dict[str, str]) -> str:
    return text.format(models=Path(model("chain")).parent, **files)


@pytest.mark.parametrize("case", sorted(CASES))
def test_compute_oracle_errors(files, case):
    _, fields, error_type, words = CASES[case]
    fields = {k: fill(v, files) if isinstance(v, str) else v for k, v in fields.items()}
    with pytest.raises(error_type) as raised:
        compute_oracle(OracleRequest(**fields), use_cache=False, timeout=60)
    message = str(raised.value)
    assert "\n" not in message
    for word in words:
        assert word in message
    if case == "syntax":
        assert (raised.value.line, raised.value.column) == (5, 32)


def test_missing_file(tmp_path):
    with pytest.raises(ModelError, match="no such file"):
        compute_oracle(OracleRequest(str(tmp_path / "nothing.prism")))


@pytest.fixture(scope="module")
def cli_runs(files) -> dict[str, subprocess.CompletedProcess]:
    """Every CLI error case, started all at once (each pays for a Python and a Storm start)."""
    started = {}
    for case, (arguments, *_rest) in CASES.items():
        command = [*explaincheck_command(), "oracle", *(fill(a, files) for a in arguments)]
        started[case] = subprocess.Popen(
            [*command, "--no-cache"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
    return {
        case: subprocess.CompletedProcess(p.args, p.wait(120), *p.communicate())
        for case, p in started.items()
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_errors(cli_runs, case):
    run = cli_runs[case]
    words = CASES[case][3]
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert lines[0].startswith("explaincheck oracle: ")
    for word in words:
        assert word in lines[0]


def test_cli_unknown_model_or_environment(tmp_path):
    run = subprocess.run(
        [*explaincheck_command(), "oracle", str(tmp_path / "missing.prism")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1
    assert "missing.prism" in run.stderr and "Traceback" not in run.stderr


def memory_limit_for_test() -> int:
    """Room for what the oracle child imports (measured in a fresh interpreter) plus 250 MB:
    enough to start, far too little for ``HUGE_MODEL``."""
    probe = (
        "import pathlib, stormpy, numpy, scipy.sparse, rustworkx\n"
        "import explaincheck.core.oracle.compute, explaincheck.core.oracle.serialization\n"
        "status = pathlib.Path('/proc/self/status').read_text().splitlines()\n"
        "print(next(ln for ln in status if ln.startswith('VmPeak')).split()[1])\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    return int(run.stdout) * 1024 + (250 << 20)


def test_memory_limit_gives_model_too_large(files):
    job = OracleJob(OracleRequest(files["huge"]), memory_limit=memory_limit_for_test())
    with pytest.raises(ModelTooLargeError) as raised:
        job.wait(120)
    assert "too large" in str(raised.value) and "\n" not in str(raised.value)


def test_cancel_a_running_job(files):
    job = OracleJob(OracleRequest(files["grid30"], method=EXACT))  # takes >10 s
    time.sleep(1.5)
    job.cancel()
    with pytest.raises(OracleCancelled):
        job.wait(30)
    assert not job._process.is_alive()


def test_cancel_right_after_start(files):
    job = OracleJob(OracleRequest(files["grid30"], method=EXACT))
    job.cancel()
    with pytest.raises(OracleCancelled):
        job.wait(30)


def test_timeout_stops_the_child(files):
    job = OracleJob(OracleRequest(files["grid30"], method=EXACT))
    with pytest.raises(ExplaincheckError, match="longer than"):
        job.wait(1)
    job._process.join(5)
    assert not job._process.is_alive()


def test_an_explicitly_named_unsafe_label_must_exist():
    """Without --unsafe a missing label only leaves D absent; naming one that is missing fails."""
    request = OracleRequest(model("no_unsafe"), unsafe_label="crash")
    assert compute_oracle(request).has_danger is False
    with pytest.raises(ModelError, match="unsafe label 'crash' is not defined"):
        compute_oracle(OracleRequest(model("no_unsafe"), unsafe_label="crash", require_unsafe=True))
