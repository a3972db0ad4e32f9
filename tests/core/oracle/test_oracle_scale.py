"""Scale: approximate centrality keeps the bottleneck ranking, warm-started policy iteration,
progress from the child, and the hostile cases (far beyond the state limit, SIGTERM to the
parent, an inherited hard ``ulimit -v``)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau

from explaincheck.core.errors import ModelTooLargeError
from explaincheck.core.oracle import centrality, compute_in_process, compute_oracle
from explaincheck.core.oracle.arrays import choice_arrays
from explaincheck.core.oracle.bottlenecks import by_dominators
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.storm.structure import read_structure
from explaincheck.core.oracle.types import OracleRequest
from explaincheck.core.oracle.values import verified_values

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from gridworld import gridworld_prism

PHASES = ["building", "structure", "values", "danger", "bottlenecks", "centrality", "facts"]


@pytest.fixture(scope="module")
def grid30(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("grid") / "grid30.prism"
    path.write_text(gridworld_prism(30))
    return path


def test_approximate_centrality_keeps_the_bottleneck_ranking(grid30):
    request = OracleRequest(str(grid30))
    parsed = building.parse(request)
    structure = read_structure(
        building.build(parsed, exact=False, state_limit=10**6, path=str(grid30)), exact=False
    )
    arrays = choice_arrays(structure)
    exact = centrality.estimate(structure.size, arrays.edge_sources, arrays.edge_targets)
    approx = centrality.estimate(
        structure.size, arrays.edge_sources, arrays.edge_targets, exact_up_to=0
    )
    assert exact.method == "exact" and approx.method == "approximate"
    assert "±0.1" in approx.describe() and "probability 0.9" in approx.describe()
    # the guarantee itself (it may fail with probability δ; the seed is fixed)
    assert np.abs(approx.scores - exact.scores).max() <= approx.epsilon
    bottlenecks = by_dominators(structure, structure.with_label("goal"))
    candidates = sorted(set(np.argsort(-exact.scores)[:10].tolist()) | bottlenecks)
    tau = kendalltau(exact.scores[candidates], approx.scores[candidates]).statistic
    assert tau >= 0.7, tau


def test_policy_iteration_from_the_attractor_matches_exact_in_a_few_rounds(tmp_path):
    """The fallback of the verified method (where Storm stops unconverged), run on its own."""
    path = tmp_path / "grid8.prism"
    path.write_text(gridworld_prism(8))
    exact = compute_in_process(OracleRequest(str(path), method="exact"))
    assert "exact rationals" in exact.values_method
    parsed = building.parse(OracleRequest(str(path)))
    model = building.build(parsed, exact=False, state_limit=10**6, path=str(path))
    structure = read_structure(model, exact=False)
    found = verified_values(
        structure, True, structure.with_label("goal"), structure.with_label("unsafe")
    )
    assert found.rounds <= 10, found.rounds
    for state, truth in enumerate(exact.states):
        assert found.value[state] == pytest.approx(truth.value, abs=1e-9)
        assert found.danger is not None
        assert found.danger[state] == pytest.approx(truth.danger, abs=1e-9)
        chosen = structure.choices[state][found.scheduler[state]].action
        assert chosen in truth.best or not truth.best


def test_progress_reports_every_phase_in_order(grid30):
    seen: list[str] = []
    compute_oracle(
        OracleRequest(str(grid30), method="verified"),
        use_cache=False,
        on_progress=lambda p: seen.append(p.phase) if p.phase not in seen else None,
    )
    assert [phase for phase in seen if phase in PHASES] == PHASES


HUGE = """mdp
module counters
  a : [0..200] init 0;
  b : [0..200] init 0;
  c : [0..200] init 0;
  d : [0..200] init 0;
  [ia] a<200 -> (a'=a+1);
  [ib] b<200 -> (b'=b+1);
  [ic] c<200 -> (c'=c+1);
  [id] d<200 -> (d'=d+1);
endmodule
label "goal" = a=200 & b=200 & c=200 & d=200;
"""


def test_a_model_far_beyond_the_state_limit_is_refused_quickly(tmp_path):
    path = tmp_path / "huge.prism"
    path.write_text(HUGE)  # 1.6e9 states by its variable ranges
    with pytest.raises(ModelTooLargeError, match="more than the limit of 100,000 states"):
        compute_oracle(OracleRequest(str(path), state_limit=100_000), use_cache=False)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def test_sigterm_to_the_parent_ends_the_storm_child(tmp_path):
    path = tmp_path / "huge.prism"
    path.write_text(HUGE)
    script = textwrap.dedent(f"""
        from explaincheck.core.oracle import compute_oracle
        from explaincheck.core.oracle.types import OracleRequest
        compute_oracle(OracleRequest({str(path)!r}, state_limit=10**9), use_cache=False)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], env=os.environ.copy())
    try:
        deadline = time.monotonic() + 60
        children: list[int] = []
        while time.monotonic() < deadline and not children:
            time.sleep(0.5)
            children = [c for c in _children(parent.pid) if _is_oracle_child(c, parent.pid)]
        assert children, "the oracle child never started"
        time.sleep(2)  # let it get busy in Storm's build
        parent.send_signal(signal.SIGTERM)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(c) for c in children):
            time.sleep(0.2)
        assert not any(_alive(c) for c in children)
    finally:
        parent.kill()


def _is_oracle_child(pid: int, parent: int) -> bool:
    """A spawned child runs multiprocessing's entry point; a forked one (this lone-threaded
    parent's) runs the parent's own command line."""
    try:
        line = Path(f"/proc/{pid}/cmdline").read_bytes()
        return b"multiprocessing" in line or line == Path(f"/proc/{parent}/cmdline").read_bytes()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_an_inherited_hard_ulimit_does_not_break_the_oracle(grid30):
    # 6 GiB hard limit on the address space, below the oracle's default of 3/4 of memory
    script = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))\n"
        "from explaincheck.core.oracle import compute_oracle\n"
        "from explaincheck.core.oracle.types import OracleRequest\n"
        f"r = compute_oracle(OracleRequest({str(grid30)!r}), use_cache=False)\n"
        "print(r.model.states)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 800


def test_progress_line_on_a_log_stream():
    import io

    from explaincheck.core.cli.oracle_command import OracleProgressLine
    from explaincheck.core.oracle import OracleProgress

    stream = io.StringIO()
    line = OracleProgressLine(stream)
    line(OracleProgress("building", {"states": 0}, 20.0, 100 << 20))  # quick runs: silent
    assert stream.getvalue() == ""
    line(OracleProgress("values", {"states": 1_002_001}, 75.0, 512 << 20))
    line(OracleProgress("values", {"states": 1_002_001}, 76.0, 512 << 20))  # within 10 s
    assert (
        stream.getvalue() == "oracle: values (1,002,001 states)  01:15  512 MB  (Ctrl-C cancels)\n"
    )


def test_centrality_beside_the_values_gives_the_same_scores(grid30):
    """Large models sample centrality on a second thread while the values are solved; the
    scores are the ones a direct call gives, and both timings are kept."""
    result = compute_in_process(OracleRequest(str(grid30), method="verified"), columnar_from=0)
    parsed = building.parse(OracleRequest(str(grid30)))
    model = building.build(parsed, exact=False, state_limit=10**6, path=str(grid30))
    arrays = choice_arrays(read_structure(model, exact=False))
    direct = centrality.estimate(arrays.size, arrays.edge_sources, arrays.edge_targets)
    scores = np.array([state.centrality for state in result.states])
    assert np.abs(scores - direct.scores).max() <= 1e-12
    assert direct.method == "exact" and result.centrality_method == direct.describe()
    assert result.phases["centrality (own)"] > 0 and "centrality" in result.phases


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal():
    """On a terminal a run of more than 2 s redraws one line: a bar of the phases done, the
    phase, its counts, time and memory (issue 48.6)."""
    from explaincheck.core.cli.oracle_command import OracleProgressLine
    from explaincheck.core.oracle import OracleProgress

    stream = _Terminal()
    line = OracleProgressLine(stream)
    line(OracleProgress("building", {"states": 0}, 1.5, 100 << 20))  # under 2 s: silent
    assert stream.getvalue() == ""
    line(OracleProgress("values", {"states": 98_932}, 3.0, 190 << 20))
    assert stream.getvalue() == (
        "\roracle: [##########..........] values (98,932 states)  00:03  190 MB"
        "  (Ctrl-C cancels)\x1b[K"
    )
    line.close()
    assert stream.getvalue().endswith("\r\x1b[K")
