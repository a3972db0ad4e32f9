"""Read a built stormpy model into plain Python: states, labels, valuations and choices.

Everything after this step (values, bottlenecks, centrality) works on ``ModelStructure`` and so is
testable without Storm, and the exact and float engines share one code path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

from explaincheck.core.oracle.storm.types import SparseModel, StormValue


@dataclass(frozen=True)
class Choice:
    """One nondeterministic choice of a state: its action name and successor distribution."""

    action: str | None  # None for an unlabelled choice (e.g. Storm's deadlock self-loop)
    probabilities: dict[int, Fraction | float]  # successor id -> probability


@dataclass(frozen=True)
class ModelStructure:
    """The reachable state space of an MDP as plain lists indexed by state id."""

    initial: int
    valuations: list[dict[str, int | bool | float]]
    labels: list[tuple[str, ...]]
    choices: list[list[Choice]]
    variables: tuple[str, ...]
    warnings: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.choices)

    def with_label(self, label: str) -> list[bool]:
        return [label in state_labels for state_labels in self.labels]


def _number(value: StormValue, exact: bool) -> Fraction | float:
    return Fraction(str(value)) if exact else float(value)


def _valuation(model: SparseModel, state: int) -> dict[str, int | bool | float]:
    return json.loads(str(model.state_valuations.to_json(state)))


def read_structure(model: SparseModel, *, exact: bool) -> ModelStructure:
    """Extract the structure; unlabelled or multi-labelled real decisions become warnings."""
    matrix = model.transition_matrix
    labeling = model.labeling
    has_choice_labels = model.has_choice_labeling()
    choice_labeling = model.choice_labeling if has_choice_labels else None
    warnings: list[str] = []
    multi_label: set[str] = set()
    unlabelled_states = 0
    valuations, labels, choices = [], [], []
    for state in range(model.nr_states):
        valuations.append(_valuation(model, state) if model.has_state_valuations() else {})
        labels.append(tuple(sorted(labeling.get_labels_of_state(state))))
        start, end = matrix.get_row_group_start(state), matrix.get_row_group_end(state)
        state_choices = []
        for row in range(start, end):
            names = sorted(choice_labeling.get_labels_of_choice(row)) if choice_labeling else []
            if len(names) > 1:
                multi_label.add("+".join(names))
            action = "+".join(names) if names else None
            probabilities = {e.column: _number(e.value, exact) for e in matrix.get_row(row)}
            state_choices.append(Choice(action, probabilities))
        if len(state_choices) > 1 and any(c.action is None for c in state_choices):
            unlabelled_states += 1
        choices.append(state_choices)
    if multi_label:
        warnings.append(
            "choices with several action labels (synchronised commands) are named by joining "
            f"their labels: {', '.join(sorted(multi_label)[:5])}"
        )
    if unlabelled_states:
        warnings.append(
            f"{unlabelled_states} states offer a choice between unlabelled commands; unlabelled "
            "choices are left out of Q, A* and A° (label every command of a real decision)"
        )
    duplicates = sum(
        1
        for state_choices in choices
        if len([c.action for c in state_choices if c.action])
        != len({c.action for c in state_choices if c.action})
    )
    if duplicates:
        warnings.append(
            f"{duplicates} states have several choices with the same action label; they are "
            "told apart as name#2, name#3, ..."
        )
        choices = [_disambiguate(state_choices) for state_choices in choices]
    variables = tuple(valuations[0]) if valuations else ()
    initial, more = first_initial(model)
    if more:
        warnings.append(more)
    return ModelStructure(initial, valuations, labels, choices, variables, tuple(warnings))


def first_initial(model: SparseModel) -> tuple[int, str]:
    """The initial state the oracle uses, and a warning when the model has several (an
    ``init ... endinit`` block): V(s0), bottlenecks ("every run from the initial state") and
    the questions name one initial state, so the others are said, not silently dropped."""
    initial = sorted(int(s) for s in model.initial_states)
    if len(initial) == 1:
        return initial[0], ""
    shown = ", ".join(str(s) for s in initial[:5]) + (", ..." if len(initial) > 5 else "")
    return initial[0], (
        f"the model has {len(initial)} initial states ({shown}); the oracle uses state"
        f" {initial[0]}: V(s0), the bottlenecks and every question's initial state refer to it"
    )


def _disambiguate(state_choices: list[Choice]) -> list[Choice]:
    seen: dict[str, int] = {}
    result = []
    for choice in state_choices:
        if choice.action is None:
            result.append(choice)
            continue
        seen[choice.action] = seen.get(choice.action, 0) + 1
        name = (
            choice.action if seen[choice.action] == 1 else f"{choice.action}#{seen[choice.action]}"
        )
        result.append(Choice(name, choice.probabilities))
    return result
