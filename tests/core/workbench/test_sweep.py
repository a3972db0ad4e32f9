"""Sweeps: the flip model's best action changes at p = 1/2, found by a tie and by Storm's
parametric engine; a failing point is kept as failed."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.workbench.sweep import parse_range
from explaincheck.core.workbench.sweep_output import render_table, to_json
from explaincheck.core.workbench.sweep_run import run_sweep
from explaincheck.core.workbench.tipping import root_between


def test_parse_range_is_exact_decimal():
    sweep = parse_range("p=0.1:0.9:0.05")
    assert sweep.name == "p" and len(sweep.values) == 17
    assert sweep.values[8] == Decimal("0.50")
    assert parse_range("N=2:6:2").values == (2, 4, 6) and parse_range("N=2:6:2").integer
    for bad in ("p=0.1:0.9", "p", "p=a:b:c", "p=0.9:0.1:0.1", "p=0:1:0"):
        with pytest.raises(ExplaincheckError):
            parse_range(bad)
    for bad in ("p=nan:1:0.1", "p=0.1:inf:0.1", "p=0:1:nan", "p=-inf:1:1"):  # issue 34.13
        with pytest.raises(ExplaincheckError, match="must be finite numbers"):
            parse_range(bad)


def test_tie_at_a_point_gives_one_half(flip_request):
    sweep = run_sweep(flip_request, parse_range("p=0.3:0.7:0.1"), [0])
    assert [p.best[0] for p in sweep.points] == [
        ("safe",),
        ("safe",),
        ("safe", "risky"),
        ("risky",),
        ("risky",),
    ]
    (tip,) = sweep.tipping_points
    assert tip.state == 0 and tip.at == Fraction(1, 2) and tip.method == "tie"
    assert tip.between == (Decimal("0.4"), Decimal("0.6"))
    assert [p.v_exact for p in sweep.points] == ["1/2", "1/2", "1/2", "3/5", "7/10"]


def test_parametric_engine_between_points(flip_request):
    sweep = run_sweep(flip_request, parse_range("p=0.05:0.95:0.3"), [0])
    (tip,) = sweep.tipping_points
    assert (tip.before, tip.after) == (("safe",), ("risky",))
    assert tip.at == Fraction(1, 2) and tip.method == "parametric"
    data = to_json(sweep)
    assert data["tipping_points"] == [
        {
            "state": 0,
            "between": [0.35, 0.65],
            "at": 0.5,
            "before": ["safe"],
            "after": ["risky"],
            "method": "parametric",
            "at_exact": "1/2",
        }
    ]
    assert [p["value"] for p in data["points"]] == [0.05, 0.35, 0.65, 0.95]
    assert data["points"][2]["best"] == {"0": ["risky"]}
    assert "at 1/2 = 0.5 (parametric)" in render_table(sweep, (0,))


def test_failed_point_is_kept(flip_request):
    # p = 1.5 is no probability: Storm refuses to build that point; the others stand
    sweep = run_sweep(flip_request, parse_range("p=0.5:1.5:0.5"), [0], exact_points=False)
    assert [p.failed for p in sweep.points] == [False, False, True]
    assert sweep.points[1].v_initial == 1.0
    assert "failed" in render_table(sweep, (0,))


def test_root_between_is_exact_for_quadratics():
    assert root_between("(p^2)/(1)", "1/4", "p", Fraction(0), Fraction(1)) == Fraction(1, 2)
    assert root_between("(p^2)/(1)", "1/2", "p", Fraction(0), Fraction(1)) == pytest.approx(2**-0.5)
    assert root_between("p", "1/2", "p", Fraction(3, 5), Fraction(1)) is None


def test_bisection_where_the_parametric_engine_does_not_apply():
    from explaincheck.core.oracle.types import OracleRequest

    models = Path(__file__).resolve().parents[2] / "models"
    request = OracleRequest(str(models / "flip_guard.prism"))
    sweep = run_sweep(request, parse_range("p=0.5:0.9:0.4"), [0])
    (tip,) = sweep.tipping_points
    assert tip.method == "bisection" and tip.bracket is not None
    low, high = tip.bracket
    assert low < 2**-0.5 < high and high - low <= 1e-6 and low <= tip.at <= high
    assert any("parametric engine does not apply" in note for note in sweep.notes)


def test_a_double_swept_over_an_integer_grid_is_still_a_double(flip_request):
    """flip.prism declares ``const double p``: -5:5:1 walks whole numbers, but the flip at 1/2
    between 0 and 1 is located (issue 35.6), not left as an integer gap."""
    sweep = run_sweep(flip_request, parse_range("p=-5:5:1"), [0])
    assert sum(not p.failed for p in sweep.points) == 2  # p = 0 and p = 1
    (tip,) = sweep.tipping_points
    assert tip.between == (0, 1) and tip.at == Fraction(1, 2)


def two_gambles_sweep():
    from explaincheck.core.oracle.types import OracleRequest

    models = Path(__file__).resolve().parents[2] / "models"
    request = OracleRequest(str(models / "two_gambles.prism"))
    return run_sweep(request, parse_range("p=0.7:0.9:0.1"), [0])


def test_the_two_gambles_flip_from_the_parametric_engine():
    """Issue 33.9: forcing ``gamble`` at s=0 leaves the last-numbered parametric state (s=2)
    unentered; the induced chain must keep all five states (it had four, and Storm refused its
    labelling of five), so the parametric engine gives the irrational root itself."""
    sweep = two_gambles_sweep()
    (tip,) = sweep.tipping_points
    assert tip.before == ("steady",) and tip.after == ("gamble",)
    assert tip.method == "parametric", sweep.notes
    assert abs(float(tip.at) - (13 / 20) ** 0.5) < 1e-12
    assert not any("does not apply" in note for note in sweep.notes)


def test_the_two_gambles_flip_is_bracketed_by_bisection(monkeypatch):
    """Bisection stays the honest fallback: with the parametric engine out of reach (models
    over ``PARAMETRIC_STATES``), the flip at sqrt(13/20) is bracketed within 1e-6."""
    from explaincheck.core.workbench import tipping

    monkeypatch.setattr(tipping, "PARAMETRIC_STATES", 0)
    sweep = two_gambles_sweep()
    (tip,) = sweep.tipping_points
    assert tip.method == "bisection" and tip.before == ("steady",)
    low, high = tip.bracket
    assert low < (13 / 20) ** 0.5 < high and high - low <= 1e-6 and low <= tip.at <= high
    assert to_json(sweep)["tipping_points"][0]["bracket"] == [low, high]


def test_integer_constant_is_bisected_to_its_tie():
    from explaincheck.core.oracle.types import OracleRequest

    models = Path(__file__).resolve().parents[2] / "models"
    sweep = run_sweep(OracleRequest(str(models / "flip_int.prism")), parse_range("K=0:8:4"), [0])
    (tip,) = sweep.tipping_points
    assert (tip.at, tip.method, tip.between) == (5, "tie", (4, 8))


def test_irrational_root_from_the_parametric_engine(tmp_path):
    from explaincheck.core.oracle.types import OracleRequest

    models = Path(__file__).resolve().parents[2] / "models"
    square = tmp_path / "square.prism"
    square.write_text((models / "flip_guard.prism").read_text().replace(" & p <= 1", ""))
    sweep = run_sweep(OracleRequest(str(square)), parse_range("p=0.5:0.9:0.4"), [0])
    (tip,) = sweep.tipping_points
    assert tip.method == "parametric" and tip.at == pytest.approx(2**-0.5, abs=1e-12)


def test_states_keep_their_names_where_storm_numbers_them_otherwise():
    """At p = 1 the gamble's losing branch has probability 0, and Storm explores the five
    states in another order (s=3 is state 2 there, s=4 at 0.95): the sweep names states by the
    first point's ids, matched by valuation, so no state is compared with another and the only
    tipping point is the real one (before, a false one between 0.95 and 1 crashed the sweep)."""
    from explaincheck.core.oracle.types import OracleRequest

    models = Path(__file__).resolve().parents[2] / "models"
    request = OracleRequest(str(models / "two_gambles.prism"))
    sweep = run_sweep(request, parse_range("p=0.5:1:0.05"))
    last = sweep.points[-1]
    assert last.oracle is not None and last.own_id != {s: s for s in last.own_id}
    first = sweep.points[0].oracle
    assert first is not None
    for state, own in last.own_id.items():
        assert last.oracle.state(own).valuation == first.state(state).valuation
    (tip,) = sweep.tipping_points
    assert tip.state == 0 and tip.between == (Decimal("0.80"), Decimal("0.85"))
    assert abs(float(tip.at) - (13 / 20) ** 0.5) < 1e-12


def test_the_range_offered_for_a_probability_finds_a_flip_below_a_tenth():
    """Issue 50, point 9: ``const double slip;`` used in an update's probability is offered its
    whole range, 0 to 1 (the page offered 0.1 to 0.9 and the flip at 0.0975 was never seen),
    and the sweep over that range finds the flip, exactly."""
    from explaincheck.core.oracle.program import describe_program
    from explaincheck.core.oracle.types import OracleRequest
    from explaincheck.core.workbench.sweep_range import offered_range

    model = Path(__file__).resolve().parents[2] / "models" / "slip.prism"
    offered = offered_range(describe_program(str(model)), "slip")
    assert (offered.low, offered.high, offered.step) == ("0", "1", "0.05")
    assert "probability" in offered.why and "(1 - slip)" in offered.why
    request = OracleRequest(str(model))
    sweep = run_sweep(request, parse_range(f"slip={offered.low}:{offered.high}:{offered.step}"))
    (tip,) = sweep.tipping_points
    assert (tip.state, tip.before, tip.after) == (0, ("dash",), ("detour",))
    assert tip.at == Fraction(39, 400) and tip.method == "parametric"
    assert sweep.flipping == (0,) and sweep.initial == 0
    # the range offered before saw no flip at all
    assert run_sweep(request, parse_range("slip=0.1:0.9:0.05")).tipping_points == ()


def test_a_flip_at_a_bound_is_that_bound_once():
    """At slip = 0 and slip = 1 both actions arrive alike (a tie there): each flip is reported
    at the bound, by the tie, for every state alike (the CLI said 3.81e-07 by bisection for
    some states and 0 by the parametric engine for others)."""
    from explaincheck.core.oracle.types import OracleRequest

    model = Path(__file__).resolve().parents[2] / "models" / "tie_at_bounds.prism"
    sweep = run_sweep(OracleRequest(str(model)), parse_range("slip=0:1:0.05"))
    first, last = sweep.tipping_points
    assert (first.at, first.method, first.before, first.after) == (
        0,
        "tie",
        ("steady", "brisk"),
        ("brisk",),
    )
    assert (last.at, last.method, last.after) == (1, "tie", ("steady", "brisk"))
    assert "at 0 (tie)" in render_table(sweep) and "at 1 (tie)" in render_table(sweep)
    assert sweep.flipping == (0,) and all(sweep.at_bound(tip) for tip in sweep.tipping_points)


def test_the_flips_inside_the_range_are_listed_first():
    """On a lake with a slip probability every state flips at both bounds (every move alike
    at 0, and at 1), and state 8 flips inside the range: it leads the list and is followed."""
    from explaincheck.core.oracle.types import OracleRequest
    from explaincheck.core.workspace.presentation.workbench import sweep_shown

    model = Path(__file__).resolve().parents[2] / "models" / "slip_lake.prism"
    sweep = run_sweep(OracleRequest(str(model)), parse_range("slip=0:1:0.1"))
    inside = [tip for tip in sweep.tipping_points if not sweep.at_bound(tip)]
    assert [tip.state for tip in inside] == [8] and 0.5 < float(inside[0].at) < 0.55
    assert sweep.flipping[0] == 8
    tips = render_table(sweep).split("\n\n", 1)[1].splitlines()
    assert tips[0].startswith("state 8: A* up -> left,right between 0.5 and 0.6")
    shown = sweep_shown(sweep)
    at_bounds = len(sweep.tipping_points) - 1
    assert f"tipping points ({at_bounds} at a bound of the range) ·" in shown.status
    assert "following the states where A* flips: 8," in shown.status
    # the plot: one label per dashed line (the bounds' labels were drawn over one another)
    from explaincheck.core.workbench.sweep_output import sweep_figure

    labels = [text.get_text() for text in sweep_figure(sweep).axes[0].texts]
    assert len(labels) == 3 and labels[0].startswith("A* of ") and "A*(8): left,right" in labels


def test_states_are_named_by_the_open_model_when_given(flip_request):
    """The GUI names states by the model it shows: a sweep ``named_by`` its oracle follows
    those ids (and knows its initial state), whatever the first point's numbering."""
    from explaincheck.core.oracle import compute_oracle
    from explaincheck.core.oracle.types import OracleRequest

    models = Path(__file__).resolve().parents[2] / "models"
    request = OracleRequest(str(models / "two_gambles.prism"))
    shown = compute_oracle(replace(request, constants="p=1"))  # numbered otherwise than p=0.5
    sweep = run_sweep(request, parse_range("p=0.5:1:0.25"), named_by=shown)
    assert sweep.initial == shown.model.initial
    point = sweep.points[0]
    for state, own in point.own_id.items():
        assert point.oracle.state(own).valuation == shown.state(state).valuation
