"""Storm's answers to the teaching workbench's questions (each runs in ``call_isolated``'s child).

- ``exact_choices``: every state's choices with their probabilities as exact fractions (the
  oracle's ``StateFacts.successors`` hold floats), for the Bellman view and policy iteration.
- ``most_probable_paths``: the k most probable paths from a state to the goal on the chain a
  policy induces, by Storm's own ``ShortestPathsGenerator`` (Eppstein-style k shortest paths).
- ``parametric_values``: V(s) as a rational function of one constant when s takes a given
  action and every other state follows a given policy, by Storm's parametric engine on the
  induced parametric DTMC.

State ids are the oracle's: the same program built the same way numbers its states the same;
the parametric build is matched to them by valuation, since a parameter can merge nothing but
may number differently.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from explaincheck.core.errors import ModelError
from explaincheck.core.oracle import constants_text
from explaincheck.core.oracle.storm.targets import label_expressions, target
from explaincheck.core.oracle.storm.types import ChoiceLabeling, SparseMatrix, SparseModel
from explaincheck.core.oracle.types import OracleRequest

Policy = list[str | None]  # an action name per state id (None: the state's first choice)


def exact_choices(request: OracleRequest) -> dict[str, Any]:
    """{"exact": bool, "states": [[[action, [[successor, "num/den"], ...]], ...], ...]}:
    fractions from the Rational engine where the oracle uses it (≤ ``exact_state_limit``
    states), else the float engine's numbers as text."""
    from explaincheck.core.oracle.storm import building
    from explaincheck.core.oracle.storm.structure import read_structure

    parsed = building.parse(request)
    model = building.build(
        parsed, exact=False, state_limit=request.state_limit, path=request.model_path
    )
    exact = request.method != "verified" and model.nr_states <= request.exact_state_limit
    if exact:
        model = building.build(
            parsed, exact=True, state_limit=request.state_limit, path=request.model_path
        )
    structure = read_structure(model, exact=exact)
    states = [
        [
            [choice.action, [[t, str(p)] for t, p in sorted(choice.probabilities.items())]]
            for choice in choices
        ]
        for choices in structure.choices
    ]
    return {"exact": exact, "states": states}


def _row_of(
    matrix: SparseMatrix, labeling: ChoiceLabeling | None, state: int, action: str | None
) -> int:
    """The matrix row of ``action`` at ``state`` (named as ``structure.read_structure`` names
    them, "name#2" for a second choice of one name); the first row when it is not found."""
    start, end = matrix.get_row_group_start(state), matrix.get_row_group_end(state)
    if action is None or labeling is None:
        return start
    seen: dict[str, int] = {}
    for row in range(start, end):
        name = "+".join(sorted(labeling.get_labels_of_choice(row)))
        seen[name] = seen.get(name, 0) + 1
        if (name if seen[name] == 1 else f"{name}#{seen[name]}") == action:
            return row
    return start


def _induced_dtmc(
    model: SparseModel,
    value_type: type,
    policy: Policy,
    initial: int,
    targets: set[int],
    forced: dict[int, str],
) -> SparseModel:
    """The DTMC of ``model`` under ``policy`` (``forced``: {state: action} overrides) with
    ``initial`` its only initial state and ``targets`` labelled "target" (reaching a target
    ends every question asked of it, so what the targets do after does not matter)."""
    from stormpy import datastructures, models

    matrix = model.transition_matrix
    labeling = model.choice_labeling if model.has_choice_labeling() else None
    n = model.nr_states
    # force_dimensions: n × n whatever is entered. Without it the matrix is as wide as its
    # largest column, so when the policy (a forced action) leaves the last-numbered states
    # unentered the chain had fewer states than its labelling ("Invalid item count (5) of state
    # labeling (states: 4)", issue 33.9).
    builder = datastructures.SparseMatrixBuilder[value_type](
        rows=n, columns=n, entries=0, force_dimensions=True
    )
    for state in range(n):
        action = forced.get(state, policy[state] if state < len(policy) else None)
        row = _row_of(matrix, labeling, state, action)
        for entry in matrix.get_row(row):
            builder.add_next_value(state, entry.column, entry.value)
    labels = models.StateLabeling(n)
    labels.add_label("init")
    labels.add_label("target")
    labels.add_label_to_state("init", initial)
    for state in targets:
        labels.add_label_to_state("target", state)
    components = models.SparseModelComponents[value_type](
        transition_matrix=builder.build(), state_labeling=labels
    )
    return models.SparseDtmc[value_type](components)


def most_probable_paths(
    request: OracleRequest, start: int, policy: Policy, k: int
) -> list[tuple[list[int], float]]:
    """Up to ``k`` paths from ``start`` to a goal state, most probable first, each ending where
    it first reaches the goal, on the chain ``policy`` induces (Storm's
    ``ShortestPathsGenerator``; fewer when fewer exist)."""
    from stormpy.developer.utility import ShortestPathsGenerator

    from explaincheck.core.oracle.storm import building

    parsed = building.parse(request)
    model = building.build(
        parsed, exact=False, state_limit=request.state_limit, path=request.model_path
    )
    labeling = model.labeling
    targets = {
        s for s in range(model.nr_states) if request.goal_label in labeling.get_labels_of_state(s)
    }
    if not targets:
        return []
    dtmc = _induced_dtmc(model, float, policy, start, targets, {})
    generator = ShortestPathsGenerator(dtmc, sorted(targets))
    found: list[tuple[list[int], float]] = []
    for rank in range(1, k + 1):
        try:
            probability = float(generator.get_distance(rank))
            states = list(generator.get_path_as_list(rank))
        except Exception:  # Storm: "K-SP does not exist for k=…"
            break
        if probability <= 0:
            break
        states.reverse()
        found.append(([int(s) for s in states], probability))
    return found


def parametric_values(
    request: OracleRequest,
    constant: str,
    valuations: list[dict[str, Any]],
    policy: Policy,
    state: int,
    actions: list[str],
) -> dict[str, str]:
    """{action: V(state) as Storm's text of a rational function in ``constant``} when
    ``state`` takes the action and the others follow ``policy``. ``request.constants`` holds
    the other constants; ``valuations`` are the oracle's (to match the parametric states)."""
    import stormpy

    from explaincheck.core.oracle.storm.building import parse_program, quiet_storm

    quiet_storm()
    program = parse_program(Path(request.model_path))
    if request.constants.strip():
        program, _ = stormpy.instantiate_constants(program, request.constants, [])
    labels = tuple(label.name for label in program.labels)
    goal = target(request.goal_label, "goal", program, labels, Path(request.model_path))
    formula = f"Pmax=? [F {goal.formula if goal else repr(request.goal_label)}]"
    stormpy.parse_properties(formula, program)  # a goal Storm cannot state is refused here
    kept = [goal.keep] if goal is not None and goal.keep is not None else []
    options = stormpy.BuilderOptions(kept, build_full=True)
    model = stormpy.build_model[stormpy.RationalFunction](program, options=options)
    if goal is not None:
        label_expressions(model, [goal])
    names = {p.name for p in model.collect_probability_parameters()}
    if names != {constant}:
        raise ModelError(
            f"{constant} is not the only parameter of the transition probabilities "
            f"(parameters: {', '.join(sorted(names)) or 'none'})"
        )
    index = {
        json.dumps(json.loads(str(model.state_valuations.to_json(s))), sort_keys=True): s
        for s in range(model.nr_states)
    }
    mapping = [index.get(json.dumps(v, sort_keys=True)) for v in valuations]
    if any(m is None for m in mapping):
        raise ModelError("the parametric model's states differ from the oracle's")
    own_policy: Policy = [None] * model.nr_states
    for oracle_id, own in enumerate(mapping):
        assert own is not None
        own_policy[own] = policy[oracle_id]
    labeling = model.labeling
    targets = {
        s for s in range(model.nr_states) if request.goal_label in labeling.get_labels_of_state(s)
    }
    own_state = mapping[state]
    assert own_state is not None
    check = stormpy.parse_properties('P=? [F "target"]')[0]
    values = {}
    for action in actions:
        dtmc = _induced_dtmc(
            model, stormpy.RationalFunction, own_policy, own_state, targets, {own_state: action}
        )
        result = stormpy.model_checking(dtmc, check)
        values[action] = str(result.get_value(own_state))
    return values


def without_constant(request: OracleRequest, name: str) -> OracleRequest:
    """``request`` with ``name`` left out of its constants (it becomes the parameter)."""
    return replace(request, constants=constants_text.without_constant(request.constants, name))
