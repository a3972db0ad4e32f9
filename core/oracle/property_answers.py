"""The values phase of ``compute.py`` for a user's property other than ``Pmax=? [F φ]``.

Why its own module: ``values.py`` and ``sound_values.py`` compute V = Pmax [F goal], whose every
piece (pinned zeros, policy iteration, the certificate's own bounds) is that of a maximal
reachability. A property (``property.py``: ``Pmin [F φ]``, ``[φ U ψ]``, ``R{"r"}min|max [F φ]``)
is checked by Storm itself (``storm/properties.py``'s ``check_property``: exact fractions under
the exact method, interval iteration's bounds under the verified one) and its Q, rows of the
states where its run has ended and rewards come from ``property_values.py``. The later phases
(choices, bottlenecks, certificate, facts) read the same ``ValueArrays`` as for Pmax, plus the
``PropertyAnswers`` for what only a property has: its direction, the target and stay sets and the
rewards per row. A step-bounded property (``[F<=k φ]``) is not computed here: its states are the
product with the steps left (``property_values.bounded_product``), refused until wired.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import property_values as pv
from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.certificate import storm_round_off
from explaincheck.core.oracle.property import MAX, Property, parse_property
from explaincheck.core.oracle.storm.checking import sound_iterations
from explaincheck.core.oracle.storm.properties import CheckedProperty, check_property
from explaincheck.core.oracle.storm.types import PrismProgram, SparseModel
from explaincheck.core.oracle.types import Certificate
from explaincheck.core.oracle.values import ValueArrays

# the verified method takes Storm's bounds of a property where they are at most this wide (after
# widening by their round-off): a tenth of the tie tolerance, as for Pmax (``sound_values``)
USABLE_WIDTH = 2e-10


@dataclass(frozen=True)
class PropertyAnswers:
    """Storm's check of the property and of the danger D = Pmin [F unsafe] (None: no unsafe
    set), while Storm's model lived; and the rows' worst-case round-off under floats."""

    prop: Property
    checked: CheckedProperty
    danger: CheckedProperty | None
    exact: bool
    round_off: float = 0.0

    @property
    def ended(self) -> np.ndarray:
        """States where the property's run has ended (targets; outside φ of [φ U ψ])."""
        return pv.terminal_states(self.prop, self.checked.target, self.checked.stay)

    @property
    def maximising(self) -> bool:
        return self.prop.direction == MAX


def asked_property(prop: Property | None) -> Property | None:
    """The property the values phase computes through this module: any but ``Pmax=? [F φ]``
    (that one is the pipeline's own V, computed as in every earlier round)."""
    return None if prop is None or prop.reaches_goal else prop


def property_answers(
    model: SparseModel,
    program: PrismProgram,
    prop: Property,
    unsafe_formula: str | None,
    exact: bool,
    path: str,
) -> PropertyAnswers:
    """Storm's check of ``prop`` (and of Pmin [F unsafe] where ``unsafe_formula`` is given)."""
    checked = check_property(model, program, prop, exact=exact, path=path)
    danger = None
    if unsafe_formula is not None:
        danger_prop = parse_property(f"Pmin=? [F {unsafe_formula}]")
        danger = check_property(model, program, danger_prop, exact=exact, path=path)
    return PropertyAnswers(prop, checked, danger, exact)


def property_arrays(
    arrays: ChoiceArrays, probabilities_exact: list[Fraction] | None, answers: PropertyAnswers
) -> ValueArrays:
    """V, D, Q per row and the scheduler of the property, from Storm's answers: exact fractions
    (Q summed exactly, ``math.inf`` where a successor's value is), or under the verified method
    the midpoints of Storm's bounds (refused in one line where Storm gave none usable)."""
    checked, danger = answers.checked, answers.danger
    ended = answers.ended
    scheduler = (
        checked.scheduler
        if checked.scheduler is not None
        else np.zeros(arrays.size, dtype=np.int64)
    )
    if answers.exact:
        assert checked.exact is not None and probabilities_exact is not None
        q_exact = _q_exact(arrays, probabilities_exact, checked, ended)
        danger_exact = danger.exact if danger is not None else None
        return ValueArrays(
            value=np.array([float(v) for v in checked.exact], dtype=float),
            danger=danger.values.copy() if danger is not None else None,
            q=np.array([float(x) for x in q_exact], dtype=float),
            scheduler=np.asarray(scheduler, dtype=np.int64),
            residual=0.0,
            rounds=0,
            words=f"{answers.prop.text}: {checked.method}; Q summed exactly",
            value_exact=list(checked.exact),
            danger_exact=list(danger_exact) if danger_exact is not None else None,
            q_exact=q_exact,
        )
    value = _midpoint(checked, answers.prop, arrays.size)
    q = pv.q_values(arrays, value, checked.rewards, ended)
    return ValueArrays(
        value=value,
        danger=_midpoint(danger, answers.prop, arrays.size) if danger is not None else None,
        q=q,
        scheduler=np.asarray(scheduler, dtype=np.int64),
        residual=0.0,
        rounds=0,
        words=f"{answers.prop.text}: {checked.method}, the midpoint of its sound bounds;"
        " Q from the model's matrix in one sparse product",
    )


def _q_exact(
    arrays: ChoiceArrays,
    probabilities: list[Fraction],
    checked: CheckedProperty,
    ended: np.ndarray,
) -> list[Fraction | float]:
    """Q per row in fractions (``property_values.q_values_exact`` on the model's columns)."""
    assert checked.exact is not None
    offsets = arrays.rows.indptr.tolist()
    columns = arrays.rows.indices.tolist()
    first = arrays.first_row.tolist()
    rows = [
        dict(zip(columns[low:high], probabilities[low:high], strict=True))
        for low, high in itertools.pairwise(offsets)
    ]
    choices = [rows[first[s] : first[s + 1]] for s in range(arrays.size)]
    found = pv.q_values_exact(choices, checked.exact, checked.rewards_exact, ended.tolist())
    return [q for per_state in found for q in per_state]


def _midpoint(checked: CheckedProperty, prop: Property, size: int) -> np.ndarray:
    """Storm's values under the verified method: the midpoint of its sound bounds where they
    met; a property whose bounds Storm did not give or did not close is refused in one line
    (the project's policy iteration computes Pmax [F φ] only)."""
    where = f"{prop.text} on this {size:,}-state model (above the exact method's limit)"
    if checked.lower is None or checked.upper is None:
        raise ModelError(f"{where}: Storm gave no sound bounds, so no certified value")
    finite = np.isfinite(checked.values)
    width = float((checked.upper[finite] - checked.lower[finite]).max(initial=0.0))
    if width > USABLE_WIDTH:
        raise ModelError(
            f"{where}: Storm's interval iteration stopped {width:.2g} wide (more than"
            f" {USABLE_WIDTH:g}), so no certified value"
        )
    return np.where(finite, (checked.lower + checked.upper) / 2.0, checked.values)


def property_bounds(
    arrays: ChoiceArrays, answers: PropertyAnswers, values: ValueArrays
) -> tuple[Certificate, tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
    """The bounded certificate of a property's verified values: Storm's bounds widened by their
    float round-off (``certificate.storm_round_off`` at its iteration cap), each interval
    widened to hold the reported value; infinite values stand as [inf, inf]."""
    widen = storm_round_off(arrays, sound_iterations(int(arrays.rows.nnz)))

    def interval(checked: CheckedProperty, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert checked.lower is not None and checked.upper is not None
        low = np.minimum(checked.lower - widen, value)
        high = np.maximum(checked.upper + widen, value)
        if not answers.prop.is_reward:
            low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        infinite = np.isinf(value)
        low[infinite] = high[infinite] = math.inf
        return low, high

    value_bounds = interval(answers.checked, values.value)
    danger_bounds = None
    if answers.danger is not None and values.danger is not None:
        danger_bounds = interval(answers.danger, values.danger)
    with np.errstate(invalid="ignore"):  # an infinite value's [inf, inf]: no width
        widths = [b[1] - b[0] for b in (value_bounds, danger_bounds) if b is not None]
    max_width = max(float(np.nan_to_num(w, nan=0.0).max(initial=0.0)) for w in widths)
    words = (
        f"Storm's interval iteration of {answers.prop.text} (lower and upper bounds, each widened"
        " by a bound on its float round-off)"
    )
    return Certificate("bounded", words, max_width), value_bounds, danger_bounds


def ordering_q(q: np.ndarray, maximising: bool) -> np.ndarray:
    """Q as the choices phase ranks it (largest first): Q, or −Q under a minimising property."""
    return q if maximising else -q


def dead_end_column(answers: PropertyAnswers, values: ValueArrays) -> np.ndarray:
    """The states whose value is the property's failing value (``failing_value``: Pmax 0,
    Pmin 1, Rmin ∞; none under Rmax), exactly under the exact method."""
    failing = pv.failing_value(answers.prop)
    if failing is None:
        return np.zeros(len(values.value), dtype=bool)
    if values.value_exact is not None:
        return np.array([v == failing for v in values.value_exact], dtype=bool)
    return values.value == failing
