"""The values phase of ``compute.py`` for a user's property other than ``Pmax=? [F φ]``.

Why its own module: ``values.py`` and ``sound_values.py`` compute V = Pmax [F goal], whose every
piece (pinned zeros, policy iteration, the certificate's own bounds) is that of a maximal
reachability. A property (``property.py``: ``Pmin [F φ]``, ``[φ U ψ]``, ``R{"r"}min|max [F φ]``)
is checked by Storm itself (``storm/properties.py``'s ``check_property``: exact fractions under
the exact method, interval iteration's bounds under the verified one) and its Q, rows of the
states where its run has ended and rewards come from ``property_values.py``. The later phases
(choices, bottlenecks, certificate, facts) read the same ``ValueArrays`` as for Pmax, plus the
``PropertyAnswers`` for what only a property has: its direction, the target and stay sets and the
rewards per row. A step-bounded property (``[F<=k φ]``) is computed over the product of the model
with the steps left (``deadline_product``), which replaces the model's columns before the values.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import cast

import numpy as np

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import property_values as pv
from explaincheck.core.oracle.arrays import ChoiceArrays
from explaincheck.core.oracle.certificate import storm_round_off
from explaincheck.core.oracle.property import (
    BOUNDED,
    MAX,
    VARIABLE_STEPS,
    Property,
    parse_property,
)
from explaincheck.core.oracle.storm.bulk import BulkModel
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
    if answers.exact:
        assert checked.exact is not None and probabilities_exact is not None
        q_exact = _q_exact(arrays, probabilities_exact, checked, ended)
        danger_exact = danger.exact if danger is not None else None
        return ValueArrays(
            value=np.array([float(v) for v in checked.exact], dtype=float),
            danger=danger.values.copy() if danger is not None else None,
            q=np.array([float(x) for x in q_exact], dtype=float),
            scheduler=_scheduler(arrays, checked, q_exact, answers.maximising),
            residual=0.0,
            rounds=0,
            words=f"{answers.prop.text}: {checked.method}; Q summed exactly",
            # fractions, and math.inf where an expected reward is infinite
            value_exact=cast(list[Fraction], list(checked.exact)),
            danger_exact=cast(list[Fraction], list(danger_exact)) if danger_exact else None,
            q_exact=cast(list[Fraction], q_exact),
        )
    deadline = answers.prop.kind == BOUNDED  # by backward induction over the product
    value = checked.values if deadline else _midpoint(checked, answers.prop, arrays.size)
    q = pv.q_values(arrays, value, checked.rewards, ended)
    return ValueArrays(
        value=value,
        danger=_midpoint(danger, answers.prop, arrays.size) if danger is not None else None,
        q=q,
        scheduler=_scheduler(arrays, checked, q, answers.maximising),
        residual=0.0,
        rounds=0,
        words=f"{answers.prop.text}: {checked.method}, the midpoint of its sound bounds;"
        " Q from the model's matrix in one sparse product",
    )


def _scheduler(
    arrays: ChoiceArrays,
    checked: CheckedProperty,
    q: np.ndarray | list[Fraction | float],
    maximising: bool,
) -> np.ndarray:
    """Storm's choice per state, or where it gave none (a deadline's product) each state's
    first choice of the best Q in the property's direction."""
    if checked.scheduler is not None:
        return np.asarray(checked.scheduler, dtype=np.int64)
    first = arrays.first_row.tolist()
    found = np.zeros(arrays.size, dtype=np.int64)
    for state in range(arrays.size):
        own = list(q[first[state] : first[state + 1]])
        if own:
            best = max(own) if maximising else min(own)
            found[state] = own.index(best)
    return found


def _q_exact(
    arrays: ChoiceArrays,
    probabilities: list[Fraction],
    checked: CheckedProperty,
    ended: np.ndarray,
) -> list[Fraction | float]:
    """Q per row in fractions (``property_values.q_values_exact`` on the model's columns)."""
    assert checked.exact is not None
    choices = _exact_choices(arrays, probabilities)
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
        if checked.lower is None or checked.upper is None:  # a deadline's backward induction
            low, high = value - answers.round_off, value + answers.round_off
        else:
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
        if answers.prop.kind != BOUNDED
        else f"{answers.prop.text}: backward induction over the product with the steps left, each"
        " value widened by a bound on its float round-off (steps × (entries + 2) × ε, doubled)"
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


# ---------------------------------------------------------------------------------------------
# a deadline ([F<=k φ]): the product with the steps left replaces the model's columns


def deadline_product(
    table: BulkModel, answers: PropertyAnswers
) -> tuple[BulkModel, PropertyAnswers]:
    """The model's columns and Storm's answers carried over to the product of the model with
    a counter of the steps left (``property_values.bounded_product``): its states are the pairs
    (s, k) reachable from (s0, K), each with the valuation of s and ``steps left`` = k, the
    labels of s and D(s); its values by backward induction over its layers (exact fractions
    under the exact method). Every later phase then reads the product as it reads a model."""
    prop, checked = answers.prop, answers.checked
    assert prop.bound is not None
    product = pv.bounded_product(table.arrays, checked.target, prop.bound, table.initial)
    base, rows = product.base_state, product.base_row
    from_model = rows >= 0
    action_code = np.where(from_model, table.action_code[np.maximum(rows, 0)], -1)
    exact_probabilities = None
    values_exact: list[Fraction] | None = None
    if answers.exact:
        assert table.exact_probabilities is not None
        exact_probabilities = _product_fractions(table, product)
        model_choices = _exact_choices(table.arrays, table.exact_probabilities)
        values_exact, _ = pv.bounded_values_exact(product, model_choices, prop.direction)
        values = np.array([float(v) for v in values_exact], dtype=float)
    else:
        values, _ = pv.bounded_values(product, prop.direction)
    valuations = {name: column[base] for name, column in table.valuations.items()}
    valuations[VARIABLE_STEPS] = product.steps_left
    product_table = BulkModel(
        arrays=product.arrays,
        action_code=action_code.astype(table.action_code.dtype),
        action_names=table.action_names,
        labels={name: column[base] for name, column in table.labels.items()},
        valuations=valuations,
        initial=0,
        warnings=table.warnings,
        exact_probabilities=exact_probabilities,
    )
    found = replace(
        checked,
        values=values,
        exact=cast(list[Fraction | float], values_exact),
        lower=None,
        upper=None,
        scheduler=None,
        target=product.target,
    )
    danger = answers.danger
    if danger is not None:
        danger = replace(
            danger,
            values=danger.values[base],
            exact=[danger.exact[b] for b in base.tolist()] if danger.exact is not None else None,
            lower=danger.lower[base] if danger.lower is not None else None,
            upper=danger.upper[base] if danger.upper is not None else None,
            target=danger.target[base],
        )
    round_off = 0.0 if answers.exact else storm_round_off(product.arrays, prop.bound)
    return product_table, replace(answers, checked=found, danger=danger, round_off=round_off)


def _exact_choices(
    arrays: ChoiceArrays, probabilities: list[Fraction]
) -> list[list[dict[int, Fraction]]]:
    """Per state, per choice, the successor probabilities in fractions."""
    offsets = arrays.rows.indptr.tolist()
    columns = arrays.rows.indices.tolist()
    first = arrays.first_row.tolist()
    rows = [
        dict(zip(columns[low:high], probabilities[low:high], strict=True))
        for low, high in itertools.pairwise(offsets)
    ]
    return [rows[first[s] : first[s + 1]] for s in range(arrays.size)]


def _product_fractions(table: BulkModel, product: pv.BoundedProduct) -> list[Fraction]:
    """The product's exact probabilities, one per entry: a model row's in its order (the
    product copies them so), 1 for an ended state's self-loop."""
    assert table.exact_probabilities is not None
    offsets = table.arrays.rows.indptr.tolist()
    found: list[Fraction] = []
    for row in product.base_row.tolist():
        if row < 0:
            found.append(Fraction(1))
        else:
            found.extend(table.exact_probabilities[offsets[row] : offsets[row + 1]])
    return found
