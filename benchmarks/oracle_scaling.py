"""Oracle scaling: ``explaincheck oracle`` against raw stormpy in the same run (default), or the
oracle's time per phase in process (--phases).

Default mode (issue 48): one row per model, each run in fresh processes under GNU time (the
1e4 and 1e5 rows ``--repeat`` times per side, the 1e6 row three times (at most ``--repeat``), in
turns, the median of each figure shown; wall,
CPU = user + sys with the oracle's child included, peak resident memory of the largest
process), the load average before and after beside it (the machine is shared):

- ``1e4``, ``1e5``, ``1e6``, ``1e7``: the drifting grid (``DRIFT``: two actions, each moving one
  way with 0.8 and slipping to the other axis or staying with 0.1 each, about 5 % holes that
  are unsafe and absorbing, the goal in the far corner) at 100², 317², 1000² and 3163² cells;
- ``slip1e5``: the slippery gridworld with slips both ways (``benchmarks/gridworld.py``: four
  actions, 0.8 the intended way and 0.1 to either side, walls, holes) at 317² cells, where
  Storm's own iteration stalls: raw stormpy runs there with ``--storm-timeout``.

explaincheck's bytecode is written first, as an install writes it (``compile_package``).

Per row: ``explaincheck oracle M --json --no-cache --state-limit 20000000`` (the full command:
child process, values, certificate, the JSON on stdout, written to a file) and raw stormpy
(parse, build, ``Pmax=? [F "goal"]`` with Storm's default sound engine); the paired ratios; the
exit status; the largest difference between the two values over 200 states sampled by
valuation (read from the JSON file as a stream, so the 10^7 row's 4 GB of text need not fit
in memory); the certificate's width. With ``1e4`` the CPU of each part is printed below the
table (start-up is most of it at that size); with ``1e4``, ``1e5`` and ``1e6`` the CPU of
``oracle MODEL`` (the summary, without --json, median of the same turns) and its ratio: the same
pipeline without writing every state's facts as text, which raw stormpy does not do either.

    python benchmarks/oracle_scaling.py [--rows 1e4,1e5,1e6,slip1e5] [--timeout 1800]
                                        [--storm-timeout 120] [--repeat 5]
    python benchmarks/oracle_scaling.py --rows 1e7      # about 10 minutes and 8 GB

--phases mode: per model, ``compute_in_process`` in a fresh process, seconds (wall) per phase,
its total and its peak memory; the models are the same row names.

    python benchmarks/oracle_scaling.py --phases [--rows 1e4,1e5,slip1e5]

Goals (issue 48; a quiet 2-core machine for the walls): 10^4 CPU <= 2.5x stormpy's, wall <=
1.5 s; 10^5 CPU <= 2x, memory <= 2x, wall <= 10 s; 10^6 CPU <= 1.5x, memory <= 1.5x, wall <= 60 s;
10^7 <= 8 GB, <= 10 min; the slippery 10^5 <= 20 s. The measured table is in docs/method.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gridworld import gridworld_prism

DRIFT = """mdp
const int N = {side};
formula hole = !(x<=1 & y<=1) & !(x>=N-2 & y>=N-2) & mod(3*x*x+5*x*y+7*y*y+11*x+13*y+1,37)<2;
formula done = hole | (x=N-1 & y=N-1);
module drift
  x : [0..N-1] init 0;
  y : [0..N-1] init 0;
  [right] !done -> 0.8:(x'=min(N-1,x+1)) + 0.1:(y'=min(N-1,y+1)) + 0.1:true;
  [up] !done -> 0.8:(y'=min(N-1,y+1)) + 0.1:(x'=min(N-1,x+1)) + 0.1:true;
endmodule
label "goal" = x=N-1 & y=N-1;
label "unsafe" = hole;
"""

ROWS = {
    "1e4": ("drift", 100),
    "1e5": ("drift", 317),
    "1e6": ("drift", 1000),
    "1e7": ("drift", 3163),
    "slip1e5": ("slippery", 317),
}
DEFAULT_ROWS = ["1e4", "1e5", "1e6", "slip1e5"]
SUMMARY_ROWS = {"1e4", "1e5", "1e6"}  # also timed without --json, in the same turns
SMALL_ROWS = {"1e4", "1e5"}  # rows run ``--repeat`` times each (median): seconds, noisy
MEDIUM_REPEAT = {"1e6": 3}  # at most this often (median): its ratio moved by a tenth between runs


def runs_of(row: str, repeat: int) -> int:
    """How often each side of ``row`` runs, in turns (the median of each figure is shown)."""
    if row in SMALL_ROWS:
        return repeat
    return min(repeat, MEDIUM_REPEAT.get(row, 1))


def model_text(row: str) -> str:
    kind, side = ROWS[row]
    return DRIFT.format(side=side) if kind == "drift" else gridworld_prism(side)


STORM_RUN = """
import json, sys
import numpy as np
import stormpy
program = stormpy.parse_prism_program(sys.argv[1])
prop = stormpy.parse_properties('Pmax=? [F "goal"]', program)
options = stormpy.BuilderOptions(prop)
options.set_build_state_valuations()
model = stormpy.build_model(program, options=options)
result = stormpy.model_checking(model, prop[0])
values = np.array(result.get_value_vector())
sample = [int(s) for s in np.linspace(0, model.nr_states - 1, 200).astype(int)]
rows = [[json.loads(str(model.state_valuations.to_json(s))), float(values[s])] for s in sample]
print(json.dumps({"states": model.nr_states, "sample": rows}))
"""

LAUNCH = "import sys; from explaincheck.gui.launcher import main; sys.exit(main())"
OURS = [sys.executable, "-c", LAUNCH, "oracle"]


@dataclass
class Timed:
    """One run under GNU time: wall and CPU seconds, peak resident MB, exit status, output."""

    wall: float
    cpu: float
    peak_mb: float
    status: int
    out: str
    err: str


def under_time(command: list[str], timeout: float, stdout: Path | None = None) -> Timed:
    """``command`` under ``/usr/bin/time``: its CPU includes the children it waited for (the
    oracle's child process), its peak is the largest of them. ``stdout``: a file for the
    output (large JSON) instead of memory; a timeout is exit status -9, and ends the command's
    whole process group: killing GNU time alone left a stalled raw stormpy run spinning on a
    core for an hour, under every later figure."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.monotonic()
        sink = stdout.open("w") if stdout is not None else subprocess.PIPE
        process = subprocess.Popen(
            ["/usr/bin/time", "-o", report.name, "-f", "%e %U %S %M", *command],
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group, ended whole on a timeout
        )
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return Timed(time.monotonic() - started, float("nan"), float("nan"), -9, "", "")
        finally:
            if stdout is not None:
                sink.close()  # type: ignore[union-attr]
        wall, user, system, peak = report.read().split()[-4:]
    cpu = float(user) + float(system)
    return Timed(float(wall), cpu, int(peak) / 1024, process.returncode, out or "", err)


def median_run(runs: list[Timed]) -> Timed:
    """The median wall, CPU and peak of repeated runs (a second's runs vary by a tenth from one
    to the next on this shared machine), with the last run's status and output."""
    last = runs[-1]
    return Timed(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.peak_mb for r in runs),
        max((r.status for r in runs), key=abs),
        last.out,
        last.err,
    )


def _key(valuation: dict) -> tuple:
    return tuple(sorted((name, int(value)) for name, value in valuation.items()))


_STATE = re.compile(r'\{"id": (\d+), "valuation": (\{[^}]*\}), "labels": \[[^\]]*\], "V": ([^,]+),')


def sampled_values(path: Path, wanted: set[tuple]) -> tuple[dict, dict]:
    """(the contract's model object, V by valuation key for the ``wanted`` keys), read from
    the JSON file a chunk at a time."""
    found: dict[tuple, float] = {}
    model: dict = {}
    tail = ""
    with path.open() as stream:
        head = stream.read(1 << 16)
        start = head.index(', "states": [')
        model = json.loads(head[len('{"model": ') : start])
        tail = head[start:]
        while True:
            chunk = stream.read(1 << 24)
            text = tail + chunk
            last = 0
            for match in _STATE.finditer(text):
                key = _key(json.loads(match.group(2)))
                if key in wanted:
                    found[key] = float(match.group(3))
                last = match.end()
            tail = text[last:] if chunk else ""
            if not chunk:
                break
    return model, found


def load() -> float:
    return os.getloadavg()[0]


def compile_package() -> None:
    """Write explaincheck's bytecode first, as pip does when it installs the package (stormpy's
    was written at its install): an editable checkout under PYTHONDONTWRITEBYTECODE (this
    machine's shell sets it) would otherwise compile every module from source on each run,
    0.06 s of CPU a run that an installed explaincheck never pays."""
    import compileall

    import explaincheck
    import explaincheck.core
    import explaincheck.gui

    for package in (explaincheck, explaincheck.core, explaincheck.gui):
        for folder in package.__path__:
            compileall.compile_dir(folder, quiet=1, maxlevels=0 if package is explaincheck else 20)


def versus_main(rows: list[str], timeout: float, storm_timeout: float, repeat: int) -> int:
    compile_package()
    print(
        "| model | states | explaincheck wall | CPU | peak | stormpy wall | CPU | peak "
        "| wall ratio | CPU ratio | peak ratio | exit | max abs V diff (200 states) | max width "
        "| load |"
    )
    print("|" + "---|" * 15)
    ok = True
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for row in rows:
            path = Path(folder) / f"{row}.prism"
            path.write_text(model_text(row))
            before = load()
            output = Path(folder) / f"{row}.json"
            storms, ourses, summaries = [], [], []
            for _ in range(runs_of(row, repeat)):  # in turns: all see the load
                storms.append(
                    under_time(
                        [sys.executable, "-c", STORM_RUN, str(path)],
                        storm_timeout if row.startswith("slip") else timeout,
                    )
                )
                ourses.append(
                    under_time(
                        [*OURS, str(path), "--json", "--no-cache", "--state-limit", "20000000"],
                        timeout,
                        stdout=output,
                    )
                )
                if row in SUMMARY_ROWS:
                    summaries.append(under_time([*OURS, str(path), "--no-cache"], timeout))
            storm, ours = median_run(storms), median_run(ourses)
            loads = f"{before:.1f}/{load():.1f}"
            if ours.status != 0:
                ok = False
                last = (ours.err.strip().splitlines() or [""])[-1]
                print(f"| {row} | exit {ours.status}: {last[:160]} |" + " |" * 12 + f" {loads} |")
                continue
            stalled = storm.status != 0
            reference = json.loads(storm.out) if not stalled else {"sample": [], "states": 0}
            wanted = {_key(valuation) for valuation, _ in reference["sample"]}
            model, values = sampled_values(output, wanted)
            output.unlink()
            diff = max(
                (abs(values[_key(v)] - value) for v, value in reference["sample"]), default=0.0
            )
            states = model["states"]
            if not stalled and (states != reference["states"] or diff > 1e-6):
                ok = False
            width = model["certificate"]["max_width"]
            storm_cells = (
                f"stalled (> {storm_timeout:.0f} s) | – | – | – | – | –"
                if stalled
                else f"{storm.wall:.1f} s | {storm.cpu:.1f} s | {storm.peak_mb:,.0f} MB "
                f"| {ours.wall / storm.wall:.2f}× | {ours.cpu / storm.cpu:.2f}× "
                f"| {ours.peak_mb / storm.peak_mb:.2f}×"
            )
            print(
                f"| {row} | {states:,} | {ours.wall:.1f} s | {ours.cpu:.1f} s "
                f"| {ours.peak_mb:,.0f} MB | {storm_cells} | {ours.status} "
                f"| {diff:.1e} | {width:.1e} | {loads} |",
                flush=True,
            )
            notes.append(f"{row}: {model['values_method']}")
            if row == "1e4":
                notes.append(breakdown(path))
            if summaries:  # issue 48.5: the summary computes nothing it does not print
                summary = median_run(summaries)
                ratio = f" = {summary.cpu / storm.cpu:.2f}× stormpy's" if not stalled else ""
                notes.append(
                    f"{row}: oracle MODEL (the summary: the same pipeline without the JSON text)"
                    f" {summary.cpu:.2f} s CPU{ratio}, peak {summary.peak_mb:,.0f} MB;"
                    f" oracle MODEL --json {ours.cpu:.2f} s CPU (exit {summary.status})"
                )
    for note in notes:
        print("  " + note)
    return 0 if ok else 1


BREAKDOWN = """
import json, sys, time
import explaincheck.core.cli.oracle_command, explaincheck.core.oracle  # the command's own
from explaincheck.core.oracle.blas_threads import one_blas_thread
one_blas_thread()  # as the command does, before NumPy's import
start = time.process_time()
from explaincheck.core.oracle.scipy_import import import_sparse
import_sparse()  # as the child does, before the oracle's modules
from explaincheck.core.oracle.compute import compute_in_process
from explaincheck.core.oracle.page_faults import fewer_page_faults
import stormpy  # the building phase's first step imports it (counted here, as an import)
from explaincheck.core.oracle.serialization import from_cache, to_cache, write_contract
from explaincheck.core.oracle.types import OracleRequest
fewer_page_faults()  # as the command and its child do
imported = time.process_time()
marks = []
result = compute_in_process(
    OracleRequest(sys.argv[1], centrality=False, state_limit=10**8),
    lambda phase, **_: marks.append((phase, time.process_time())),
)
computed = time.process_time()
copy = from_cache(to_cache(result))
with open("/dev/null", "w") as out:
    write_contract(copy, out)
written = time.process_time()
phases = {}
for (phase, at), (_, end) in zip(marks, marks[1:] + [("", computed)]):
    phases[phase] = phases.get(phase, 0.0) + end - at
print(json.dumps({"imports": imported - start, "phases": phases, "json": written - computed}))
"""


def breakdown(path: Path) -> str:
    """Where the CPU of a small model goes: the command's start, the child's imports, each
    phase, the JSON; and raw stormpy's start and work."""

    def cpu(code: str, *arguments: str) -> tuple[float, str]:
        run = under_time([sys.executable, "-c", code, *arguments], 600)
        return run.cpu, run.out

    start, _ = cpu(LAUNCH, "oracle", "--help")
    storm_start, _ = cpu("import stormpy, numpy")
    _, measured = cpu(BREAKDOWN, str(path))
    parts = json.loads(measured.strip().splitlines()[-1])
    phases = ", ".join(f"{name} {seconds:.3f}" for name, seconds in parts["phases"].items())
    return (
        f"CPU breakdown at 10^4 (s): the command's interpreter and its imports {start:.3f};"
        f" the child (forked: no interpreter of its own) imports Storm, SciPy and the oracle"
        f" {parts['imports']:.3f};"
        f" phases: {phases}; the JSON text {parts['json']:.3f}."
        f" Raw stormpy's interpreter with stormpy and numpy: {storm_start:.3f}"
    )


PHASES_RUN = """
import json, resource, sys, time
from explaincheck.core.oracle.blas_threads import one_blas_thread
one_blas_thread()  # as the oracle's child does, before NumPy's import
from explaincheck.core.oracle.compute import compute_in_process
from explaincheck.core.oracle.page_faults import fewer_page_faults
from explaincheck.core.oracle.types import OracleRequest
fewer_page_faults()  # as the oracle's child does
started = time.perf_counter()
result = compute_in_process(OracleRequest(sys.argv[1], centrality=False, state_limit=10**8))
print(json.dumps({
    "states": result.model.states, "phases": result.phases,
    "total": time.perf_counter() - started,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "values": result.values_method, "width": result.certificate.max_width,
}))
"""


def phases_main(rows: list[str], timeout: float) -> int:
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
    with tempfile.TemporaryDirectory() as folder:
        for row in rows:
            path = Path(folder) / f"{row}.prism"
            path.write_text(model_text(row))
            done = subprocess.run(
                [sys.executable, "-c", PHASES_RUN, str(path)],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            if done.returncode != 0:
                print(f"{row}: failed: {done.stderr.strip().splitlines()[-1:]}")
                continue
            found = json.loads(done.stdout.strip().splitlines()[-1])
            phases = ", ".join(f"{k} {v:.2f}" for k, v in found["phases"].items())
            print(
                f"{row}: {found['states']:,} states, {found['total']:.2f} s, peak"
                f" {found['peak_mb']:,.0f} MB; {phases}; load {load():.1f}\n"
                f"  values: {found['values']}; max width {found['width']:.1e}",
                flush=True,
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", action="store_true", help="time per phase, in process")
    parser.add_argument(
        "--rows",
        type=lambda text: [part for part in text.split(",") if part.strip()],
        default=DEFAULT_ROWS,
        help=f"comma-separated rows of {', '.join(ROWS)} (default: {','.join(DEFAULT_ROWS)})",
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument(
        "--storm-timeout",
        type=float,
        default=120.0,
        help="seconds raw stormpy may take on the slippery grid, where its iteration stalls",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="runs of each side on the 1e4 and 1e5 rows (the 1e6 row: at most 3), the median"
        " reported (default 5)",
    )
    args = parser.parse_args(argv)
    unknown = [row for row in args.rows if row not in ROWS]
    if unknown:
        parser.error(f"unknown rows {', '.join(unknown)}: choose from {', '.join(ROWS)}")
    if args.phases:
        return phases_main(args.rows, args.timeout)
    return versus_main(args.rows, args.timeout, args.storm_timeout, max(1, args.repeat))


if __name__ == "__main__":
    sys.exit(main())
