"""Storm's check of a user's property (``core/oracle/property.py``) on a built model, returned
as plain arrays: values per state, sound bounds where Storm gives them, the scheduler's choice
per state, the named reward model's state and action rewards (read in bulk), the target and
stay sets, and which states have an infinite expected reward.

Exact models are checked with Storm's exact environment (``stormpy.environments.exact()``),
their values read as ``Fraction`` (``math.inf`` where Storm says ``inf``: the goal is not reached
almost surely, so the expected reward is infinite); float models with interval iteration forced
sound at absolute precision 1e-12, as the reachability values are (``checking.sound_bounds``).
Storm exposes the bounds for probabilities and for rewards where the target is reached almost
surely; for a minimal expected reward with states of infinite value it gives the values alone
(Storm's result has no bound vectors then), which ``bounds`` says by being None.

A step-bounded property (``F<=k``) has no memoryless optimal scheduler: the best action depends
on the steps left. Storm's values here are those of the full budget k, which is what
``property_values.bounded_product`` is checked against; its scheduler is not read
(``scheduler`` is None), the product's own backward induction gives the choice per (state, steps
left).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle.property import BOUNDED, Property
from explaincheck.core.oracle.storm.bulk import bits_to_array
from explaincheck.core.oracle.storm.checking import (
    SOUND_PRECISION,
    sound_iterations,
    transitions_of,
)
from explaincheck.core.oracle.storm.types import CheckResult, PrismProgram, SparseModel

Exact = Fraction | float  # a Fraction, or math.inf


@dataclass(frozen=True)
class CheckedProperty:
    """A property's values on one built model (state ids and choice rows as Storm numbers them).

    ``values`` are floats (``inf`` where infinite); ``exact`` the same as fractions on an exact
    model (``math.inf`` where infinite), else None. ``lower``/``upper``: Storm's sound bounds
    (None where Storm gives none: exact models, and rewards with infinite states). ``rewards``:
    per choice row, the state reward of its state plus its action reward (what taking that
    choice costs: Storm's total-reward semantics), None for a probability property."""

    values: np.ndarray
    exact: list[Exact] | None
    lower: np.ndarray | None
    upper: np.ndarray | None
    scheduler: np.ndarray | None  # choice index within each state (None: step-bounded)
    target: np.ndarray  # bool per state: the target set φ (ψ of an until)
    stay: np.ndarray | None  # bool per state: φ of [φ U ψ]
    state_rewards: np.ndarray | None
    action_rewards: np.ndarray | None  # per choice row
    rewards: np.ndarray | None  # per choice row: state reward + action reward
    rewards_exact: list[Fraction] | None
    reward_model: str | None  # the rewards block read (a bare R names the only one)
    method: str  # in words

    @property
    def infinite(self) -> np.ndarray:
        """States whose value is infinite (an expected reward where the goal is not reached
        almost surely)."""
        return np.isinf(self.values)


def check_property(
    model: SparseModel, program: PrismProgram, prop: Property, *, exact: bool, path: str = ""
) -> CheckedProperty:
    """Check ``prop`` on ``model`` (built from ``program`` with ``build_full``, so every reward
    model is kept). An unknown label, variable or reward model is one ``ModelError`` line."""
    import stormpy

    from explaincheck.core.oracle.storm.building import quiet_storm

    quiet_storm()
    where = f"{path}: " if path else ""
    _check_labels(model, prop, where)
    formula = _parse(prop.text, program, where, "the property")
    reward_name = _reward_model(model, prop, where) if prop.is_reward else None
    bounded = prop.kind == BOUNDED
    if exact:
        result = stormpy.model_checking(
            model,
            formula,
            extract_scheduler=not bounded,
            environment=stormpy.environments.exact(),
        )
        exact_values = [_exact(result.get_value(s)) for s in range(model.nr_states)]
        values = np.array([float(v) for v in exact_values], dtype=float)
        lower = upper = None
        method = "Storm's exact engine (rationals)"
    else:
        result = _sound(model, formula, scheduler=not bounded)
        exact_values = None
        values = np.asarray(result.get_value_vector(), dtype=float)
        lower, upper = _bounds(result)
        method = f"Storm's interval iteration to {SOUND_PRECISION:g}" + (
            ", with sound bounds" if lower is not None else " (no bounds exposed by Storm)"
        )
    scheduler = None
    if not bounded:
        scheduler = _choices(result, model.nr_states)
    target = _truth(model, program, prop.target, where)
    stay = _truth(model, program, prop.stay, where) if prop.stay is not None else None
    state_r = action_r = rewards = None
    rewards_exact = None
    if reward_name is not None:
        state_r, action_r, rewards, rewards_exact = _rewards(model, reward_name, exact)
    return CheckedProperty(
        values=values,
        exact=exact_values,
        lower=lower,
        upper=upper,
        scheduler=scheduler,
        target=target,
        stay=stay,
        state_rewards=state_r,
        action_rewards=action_r,
        rewards=rewards,
        rewards_exact=rewards_exact,
        reward_model=reward_name,
        method=method,
    )


_QUOTED = re.compile(r'"([^"]*)"')
BUILT_IN_LABELS = ("init", "deadlock")


def _check_labels(model: SparseModel, prop: Property, where: str) -> None:
    """Every label the property names is one of the model's (Storm would stop only while
    checking, with an exception of its own)."""
    known = set(model.labeling.get_labels())
    for formula in (prop.target, prop.stay or ""):
        for name in _QUOTED.findall(formula):
            if name not in known and name not in BUILT_IN_LABELS:
                labels = ", ".join(sorted(known - set(BUILT_IN_LABELS))) or "none"
                raise ModelError(
                    f'{where}the property {prop.text} names the label "{name}", which the model'
                    f" does not define; labels are: {labels}"
                )


def _parse(text: str, program: PrismProgram, where: str, what: str) -> object:
    import stormpy

    try:
        found = stormpy.parse_properties(text, program)
    except Exception as error:  # Storm's parser raises its own exception types
        message = re.sub(r"^\w+Exception:\s*", "", str(error).strip()).splitlines()
        detail = message[0] if message else type(error).__name__
        detail = re.sub(r",?\s*here:?$", "", detail.strip())
        raise ModelError(f"{where}cannot read {what} {text!r}: {detail}") from None
    if len(found) != 1:
        raise ModelError(f"{where}{what} {text!r} is not one property")
    return found[0]


def _reward_model(model: SparseModel, prop: Property, where: str) -> str:
    names = sorted(model.reward_models)
    if prop.reward is None:
        if len(names) == 1:
            return names[0]
        if not names:
            raise ModelError(f"{where}{prop.text} needs a rewards block; the model has none")
        raise ModelError(
            f"{where}{prop.text} does not say which rewards: the model has {', '.join(names)}"
            f' (write R{{"{names[0]}"}}...)'
        )
    if prop.reward not in names:
        shown = ", ".join(names) or "none"
        raise ModelError(
            f'{where}the model has no rewards block "{prop.reward}"; its rewards: {shown}'
        )
    return prop.reward


def _sound(model: SparseModel, formula: object, *, scheduler: bool) -> CheckResult:
    """Interval iteration forced sound (as ``checking.sound_bounds``), for any property."""
    import stormpy
    from stormpy.environments import MinMaxMethod

    environment = stormpy.Environment()
    environment.solver().force_soundness = True
    settings = environment.solver().min_max()
    settings.method = MinMaxMethod.INTERVAL_ITERATION
    settings.precision = stormpy.Rational(SOUND_PRECISION)
    settings.relative_termination_criterion = False
    settings.maximal_number_of_iterations = sound_iterations(transitions_of(model))
    return stormpy.model_checking(
        model, formula, environment=environment, extract_scheduler=scheduler
    )


def _choices(result: CheckResult, size: int) -> np.ndarray:
    """Storm's choice per state. A state where the scheduler leaves the choice open (its value
    is settled by graph analysis: csma's Pmin until has one) gets its first choice; a
    randomised one its likeliest."""
    if not result.has_scheduler():  # a DTMC
        return np.zeros(size, dtype=np.int64)
    scheduler = result.get_scheduler()
    found = np.zeros(size, dtype=np.int64)
    for state in range(size):
        choice = scheduler.get_choice(state)
        if not choice.defined:
            continue
        if choice.deterministic:
            found[state] = int(choice.get_deterministic_choice())
        else:
            found[state] = likeliest(str(choice.get_choice_as_distribution()))
    return found


_WEIGHT = re.compile(r"\[\s*([^:\]]+?)\s*:\s*(\d+)\s*\]")


def likeliest(distribution: str) -> int:
    """The likeliest choice of a randomised scheduler's choice, from Storm's text of it
    (``{[0.5: 0], [0.5: 1], }``: probability, then choice; stormpy 2.0 gives no other access);
    ties go to the first choice."""
    weights = [(float(p), int(c)) for p, c in _WEIGHT.findall(distribution)]
    return max(weights, key=lambda pair: (pair[0], -pair[1]))[1] if weights else 0


def _bounds(result: CheckResult) -> tuple[np.ndarray | None, np.ndarray | None]:
    if not (result.has_lower_bounds() and result.has_upper_bounds()):
        return None, None
    return (
        np.asarray(result.get_lower_bound_vector(), dtype=float),
        np.asarray(result.get_upper_bound_vector(), dtype=float),
    )


def _exact(value: object) -> Exact:
    """A Storm Rational as a ``Fraction``; Storm's ``inf`` as ``math.inf``."""
    text = str(value)
    if text in ("inf", "+inf", "infinity"):
        return math.inf
    return Fraction(text)


def _truth(model: SparseModel, program: PrismProgram, formula: str, where: str) -> np.ndarray:
    """The states where the state formula holds (Storm evaluates labels and expressions)."""
    import stormpy

    parsed = _parse(formula, program, where, "the state formula")
    result = stormpy.model_checking(model, parsed)
    return bits_to_array(result.get_truth_values_vector(), model.nr_states)


def _rewards(
    model: SparseModel, name: str, exact: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Fraction] | None]:
    """(state rewards, action rewards per row, their sum per row, the sum as fractions)."""
    rewards = model.reward_models[name]
    if rewards.has_transition_rewards:
        raise ModelError(f'the rewards block "{name}" has transition rewards, which are not read')
    matrix = model.transition_matrix
    rows = int(matrix.nr_rows)
    states = int(model.nr_states)
    state_of_row = np.repeat(
        np.arange(states),
        [matrix.get_row_group_end(s) - matrix.get_row_group_start(s) for s in range(states)],
    )
    if exact:
        per_state = (
            [Fraction(str(v)) for v in rewards.state_rewards]
            if rewards.has_state_rewards
            else [Fraction(0)] * states
        )
        per_row = (
            [Fraction(str(v)) for v in rewards.state_action_rewards]
            if rewards.has_state_action_rewards
            else [Fraction(0)] * rows
        )
        total = [per_state[s] + per_row[r] for r, s in enumerate(state_of_row.tolist())]
        return (
            np.array([float(v) for v in per_state]),
            np.array([float(v) for v in per_row]),
            np.array([float(v) for v in total]),
            total,
        )
    state_r = (
        np.asarray(rewards.state_rewards, dtype=float)
        if rewards.has_state_rewards
        else np.zeros(states)
    )
    action_r = (
        np.asarray(rewards.state_action_rewards, dtype=float)
        if rewards.has_state_action_rewards
        else np.zeros(rows)
    )
    return state_r, action_r, state_r[state_of_row] + action_r, None
