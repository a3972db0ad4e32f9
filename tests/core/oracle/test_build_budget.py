"""The build's memory bound: the program's fan-out and ranges, and the watchdog that uses it to
stop a build beyond the state limit before it ends (without stopping one within it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import stormpy

from explaincheck.core.errors import ModelTooLargeError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.storm import build_budget
from explaincheck.core.oracle.types import OracleRequest

SYNC = """mdp
module m1
  x : [0..3] init 0;
  [go] x<3 -> 0.5:(x'=x+1) + 0.5:(x'=x);
  [go] x>0 -> (x'=x-1);
  [] x=3 -> (x'=0);
endmodule
module m2
  y : bool init false;
  [go] true -> 0.5:(y'=!y) + 0.25:(y'=y) + 0.25:(y'=false);
endmodule
label "goal" = x=3;
"""

# A 4-action grid of three updates a command (the fattest calibration shape) and a variable that
# never changes (a disabled command assigns it: Storm makes a never-assigned one a constant), so
# its ranges promise more states than it reaches.
FAT = """mdp
module m
  a : [0..{n}] init 0;
  b : [0..{n}] init 0;
  z : [0..100] init 0;
  [n] a<{n} -> 0.5:(a'=a+1) + 0.25:(a'=a) + 0.25:(b'=min(b+1,{n}));
  [e] b<{n} -> 0.5:(b'=b+1) + 0.25:(b'=b) + 0.25:(a'=min(a+1,{n}));
  [s] a>0 -> 0.5:(a'=a-1) + 0.25:(a'=a) + 0.25:(b'=max(b-1,0));
  [w] b>0 -> 0.5:(b'=b-1) + 0.25:(b'=b) + 0.25:(a'=max(a-1,0));
  [r] a<0 -> (z'=z+1);
endmodule
label "goal" = a={n} & b={n};
"""

GRID = """mdp
module m
  a : [0..{n}] init 0;
  b : [0..{n}] init 0;
  [ia] a<{n} -> 0.5:(a'=a+1) + 0.5:(a'=a);
  [ib] b<{n} -> 0.5:(b'=b+1) + 0.5:(b'=b);
endmodule
label "goal" = a={n} & b={n};
"""


def _program(tmp_path, text):
    path = tmp_path / "m.prism"
    path.write_text(text)
    return stormpy.parse_prism_program(str(path))


def test_fanout_counts_synchronised_commands_as_products(tmp_path):
    # [go]: 2 commands of m1 times 1 of m2 = 2 choices, (2+1) * 3 = 9 transitions; [] adds 1, 1
    assert build_budget.fanout(_program(tmp_path, SYNC)) == (3, 10)


def test_range_bound_multiplies_the_variables_ranges(tmp_path):
    assert build_budget.range_bound(_program(tmp_path, SYNC)) == 4 * 2
    assert build_budget.range_bound(_program(tmp_path, FAT.format(n=9))) == 10 * 10 * 101


def test_no_bound_when_the_ranges_keep_the_model_within_the_limit(tmp_path):
    program = _program(tmp_path, SYNC)
    assert build_budget.growth_bound(program, 8) is None
    assert build_budget.resident_bound(program, 8) == 0
    assert build_budget.growth_bound(program, 7) == build_budget.SLACK_BYTES + int(
        7 * (128 + 32 * 3 + 40 * 10) * 1.25
    )


def test_a_model_beyond_the_limit_is_stopped_while_it_builds(tmp_path):
    """Stopped, not built whole: Storm explores one state more than the limit."""
    path = tmp_path / "grid.prism"
    path.write_text(GRID.format(n=800))  # 641,601 states
    # Storm's exploration stops at 50,001 states (``building._build``), before the memory
    # watchdog's bound for 50,000 states of this shape is reached
    with pytest.raises(ModelTooLargeError, match="more than the limit of 50,000 states"):
        compute_oracle(OracleRequest(str(path), state_limit=50_000), use_cache=False)


CHILD = """
import sys
from explaincheck.core.oracle.storm import building
from explaincheck.core.oracle.types import OracleRequest
request = OracleRequest(sys.argv[1])
parsed = building.parse(request)
bounds = []
model = building.build(parsed, exact=False, state_limit=int(sys.argv[2]), path=sys.argv[1],
                       watch=bounds.append)
# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across fork and exec, so it would be the test
# runner's own peak; the high-water mark of this address space starts at exec
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) * 1024
print(model.nr_states, bounds[0], peak)
"""


def test_a_fat_model_at_the_limit_stays_under_its_bound(tmp_path):
    # the watchdog's promise: a build within the limit never passes the bound it was told
    path = tmp_path / "fat.prism"
    path.write_text(FAT.format(n=400))  # 160,801 states, 12 transitions each, ranges 16 million
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), "160801"], capture_output=True, text=True
    )
    states, bound, peak = map(int, done.stdout.split())
    assert states == 160_801
    assert peak < bound
    growth_per_state = (bound - build_budget.SLACK_BYTES) / states
    assert growth_per_state > 600  # fan-out counted: 4 choices of 3 updates each


def test_rational_builds_leave_the_watchdog_its_default():
    from explaincheck.core.environments.registry import list_builtin
    from explaincheck.core.oracle.storm import building

    transporter = next(e for e in list_builtin() if e.id == "transporter")
    parsed = building.parse(transporter.request())
    told: list[int] = []
    path = transporter.model_path
    # 4/5 + 1/10 + 1/10: the rounding path; within the limit, its Rational re-check is announced
    # 471 states, ranges of 912: a bound is told, then the re-check's default
    building.build(parsed, exact=False, state_limit=500, path=path, watch=told.append)
    assert told[0] > 0 and told[1:] == [build_budget.NOT_CALIBRATED]
    told.clear()
    with pytest.raises(ModelTooLargeError):  # beyond it, refused before any Rational build
        building.build(parsed, exact=False, state_limit=10, path=path, watch=told.append)
    assert told[0] > 0 and told[1:] == []
    told.clear()
    with pytest.raises(ModelTooLargeError):
        building.build(parsed, exact=True, state_limit=10, path=path, watch=told.append)
    assert told == [build_budget.NOT_CALIBRATED]


def test_the_cli_refuses_a_model_beyond_the_limit_in_one_line(tmp_path):
    """Issue 34.20: a real model past --state-limit is refused once Storm has explored one
    state more than the limit, with the one-line "too large" error, exit 2; how long that takes
    is measured in benchmarks/state_limit_refusal.py, not here."""
    path = tmp_path / "grid.prism"
    path.write_text(GRID.format(n=800))  # 641,601 states
    launch = "import sys; from explaincheck.gui.launcher import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", launch, "oracle", str(path), "--state-limit", "50000", "--no-cache"],
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(lines) == 1 and "the model is too large" in lines[0]
    assert "more than the limit of 50,000 states" in lines[0] and str(path) in lines[0]
    assert done.stdout == ""
