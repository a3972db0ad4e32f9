"""A model whose float probabilities sum to one only up to rounding is built in floats without
Storm's exploration checks; the Rational re-build that re-checks it runs only where it decides
something: where interval arithmetic cannot show every update within its variable's range
(issue 48.3)."""

from __future__ import annotations

import pytest
from test_real_prism import key_grid

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import compute_oracle
from explaincheck.core.oracle.storm import building, wellformed
from explaincheck.core.oracle.types import OracleRequest

# 4/5 + 1/10 + 1/10 is not 1 in doubles (the rounding path); x'=x+2 leaves [0..3] from x = 2
OUT_OF_RANGE = """mdp
module m
  x : [0..3] init 0;
  [a] x < 3 -> 0.8 : (x'=x+2) + 0.1 : (x'=x) + 0.1 : (x'=0);
endmodule
label "goal" = x = 3;
"""


def _program(text: str, tmp_path):
    path = tmp_path / "m.prism"
    path.write_text(text)
    return building.parse_program(path)


@pytest.mark.parametrize(
    ("update", "guard", "shown"),
    [
        ("x'=min(3,x+1)", "true", True),  # clamped: the drifting grid
        ("x'=max(0,min(3,x-1))", "true", True),  # the slippery gridworld
        ("x'=x+1", "x < 3", True),  # the guard bounds it
        ("x'=x+1", "3 > x & y=0", True),  # a conjunct, literal on the left
        ("x'=x+1", "x <= 3", False),  # x = 3 would reach 4
        ("x'=x+1", "x < 3 | y=1", False),  # a disjunction bounds nothing
        ("x'=2*x", "x < 2", True),
        ("x'=x/2", "true", False),  # a division is not read
        ("x'=(y=0 ? 1 : 3)", "true", True),
        ("x'=(y=0 ? 1 : 4)", "true", False),
        ("x'=mod(x+5,4)", "true", True),
    ],
)
def test_interval_arithmetic_over_the_updates(tmp_path, update, guard, shown):
    text = (  # y changes too: Storm takes a variable no command sets for its initial value
        "mdp\nmodule m\n  x : [0..3] init 0;\n  y : [0..1] init 0;\n"
        f"  [a] {guard} -> 1 : ({update});\n  [b] true -> 1 : (y'=1-y);\nendmodule\n"
    )
    assert wellformed.updates_stay_in_range(_program(text, tmp_path)) is shown


def test_an_update_in_range_costs_no_rational_build(tmp_path, monkeypatch):
    """The key grid (0.8/0.1/0.1 slips, every move guarded or clamped): no Rational re-build
    at any size, and nothing noted below the re-check size."""
    path = tmp_path / "key12.prism"
    path.write_text(key_grid(12))
    builds: list[tuple[bool, bool]] = []
    real = building._build

    def counted(parsed, *, exact, checks, path, state_limit):
        builds.append((exact, checks))
        return real(parsed, exact=exact, checks=checks, path=path, state_limit=state_limit)

    monkeypatch.setattr(building, "_build", counted)
    parsed = building.parse(OracleRequest(str(path)))
    building.build(parsed, exact=False, state_limit=10**6, path=str(path))
    assert builds == [(False, True), (False, False)]
    assert parsed.notes == []


def test_an_update_out_of_range_is_still_refused(tmp_path):
    path = tmp_path / "out.prism"
    path.write_text(OUT_OF_RANGE)
    assert not wellformed.updates_stay_in_range(building.parse_program(path))
    with pytest.raises(ModelError, match="outside its range"):
        compute_oracle(OracleRequest(str(path)), use_cache=False)
