"""Flawed pictures of an MDP: exact oracles of a wrong model, for reference explainers whose
faults are known (command-line specs ``flaw:...``).

Each flaw replaces V, D and Q (``determinised`` also the transitions) by an exactly computed but
wrong version. A*, A°, tie groups and dead ends are then derived by the oracle's own code
(``columnar.choice_facts``, through ``derive_state_facts``) and bottlenecks by
``bottlenecks.by_dominators``, so a flawed explainer answers every category through the
category's ``oracle_answer`` on its picture, with no second implementation of any category.

- ``myopic:K``: V_K = Pmax [F<=K goal], D_K = Pmin [F<=K unsafe], Q_K(s, a) = Σ p · V_{K-1}(s'),
  from Storm's step-bounded properties (in the isolated child process, cached on disk). A state
  with V_K = 0 looks like a dead end.
- ``determinised``: every choice goes to its most likely successor with probability 1; where
  several outcomes are equally most likely, it keeps all of them with equal weight (a
  ⅓/⅓/⅓ slip stays as it is: none of them is "the" likely outcome). V and D of that MDP by
  exact policy iteration over Fractions (``exact_reach``); Q(s, a) = Σ p · V(successor).
- ``distance``: V̂ = 1/(1+d), d = fewest moves to the goal ignoring probabilities (V̂ = 0 when no
  move sequence reaches it); Q̂(s, a) = the largest V̂ among a's successors. Danger by the same
  habit: D̂ = 1/(1+e), e = fewest moves to an unsafe state (0 when none can be reached).
- ``danger-blind``: the true V and Q, but D = 1 − V (danger confused with not reaching the goal).

Bottlenecks of a picture: dominators of the goal in the picture's graph with the states it
believes lost (V = 0) cut off. For the true oracle this changes nothing; a myopic picture that
sees no goal within K steps from the start has no bottleneck. Centrality stays the true one: it
only feeds δ, which belongs to the tester, not to the explainer.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import partial

from explaincheck.core.errors import ExplaincheckError, ModelError
from explaincheck.core.oracle import bottlenecks, cache
from explaincheck.core.oracle.columnar import choice_facts
from explaincheck.core.oracle.graph_analysis import can_avoid_forever, predecessors
from explaincheck.core.oracle.property import BOUNDED, MAX, REACH, Property
from explaincheck.core.oracle.storm.structure import Choice, ModelStructure
from explaincheck.core.oracle.types import EXACT, OracleRequest, OracleResult, StateFacts
from explaincheck.core.oracle.values import TIE_TOLERANCE, Values

MYOPIC, DETERMINISED, DISTANCE, DANGER_BLIND = "myopic", "determinised", "distance", "danger-blind"
KINDS = (MYOPIC, DETERMINISED, DISTANCE, DANGER_BLIND)
NO_ACTION = "(no action)"  # how StateFacts.successors names an unlabelled choice
PICTURE_FORMAT = 1  # bump when a cached picture would be computed differently
FLOAT_TIE = 1e-12  # float probabilities this close count as equally likely

# One line per flaw, for help texts, reports and the GUI.
DESCRIPTIONS: dict[str, str] = {
    MYOPIC: "plans only K steps ahead: V = Pmax[F<=K goal], D = Pmin[F<=K unsafe]",
    DETERMINISED: "ignores chance: each action gets its most likely outcome with certainty",
    DISTANCE: "judges by how few moves remain: V = 1/(1+moves to the goal), probabilities ignored",
    DANGER_BLIND: "confuses danger with not reaching the goal: D = 1 - V",
}


@dataclass(frozen=True)
class Flaw:
    """Which wrong picture: ``kind`` (one of ``KINDS``) and the horizon K of ``myopic``."""

    kind: str
    steps: int = 0

    @property
    def spec(self) -> str:
        return f"flaw:{self.kind}" + (f":{self.steps}" if self.kind == MYOPIC else "")

    @property
    def belief(self) -> str:
        """What the explainer believes, as the start of each reply's reason."""
        if self.kind == MYOPIC:
            return f"plans {self.steps} step{'s' if self.steps != 1 else ''} ahead"
        return {
            DETERMINISED: "assumes every action has its most likely outcome",
            DISTANCE: "counts the moves left, ignoring chance",
            DANGER_BLIND: "takes the danger to be 1 - V",
        }[self.kind]


def parse_flaw(rest: str) -> Flaw:
    """``myopic:K``, ``determinised``, ``distance`` or ``danger-blind`` (the part after
    ``flaw:``), or a one-line error naming the valid forms."""
    kind, _, argument = rest.strip().partition(":")
    forms = "flaw:myopic:K (K >= 1), flaw:determinised, flaw:distance or flaw:danger-blind"
    if kind == MYOPIC:
        if not argument.isdigit() or int(argument) < 1:
            raise ExplaincheckError(
                f"flaw:{rest}: myopic needs a horizon K >= 1, e.g. flaw:myopic:2"
            )
        return Flaw(MYOPIC, int(argument))
    if kind in KINDS and not argument:
        return Flaw(kind)
    raise ExplaincheckError(f"unknown flaw {rest!r}: use {forms}")


_MEMORY: dict[tuple[str, str, Flaw], OracleResult] = {}


def refuse_unseen(truth: OracleResult, flaw: Flaw) -> None:
    """One line where ``flaw`` has no picture of ``truth``'s states: myopic under a deadline
    (its picture is of the model, the deadline's oracle of the product with the steps left).
    Called where the explainer is made, so a run stops before its first question."""
    if flaw.kind == MYOPIC and truth.prop.kind == BOUNDED:
        raise ExplaincheckError(
            f"flaw:myopic sees the model, not the steps left of {truth.prop.text}: its picture"
            " has other states than the deadline's oracle (use flaw:distance or"
            " flaw:determinised)"
        )


def flawed_oracle(
    truth: OracleResult, flaw: Flaw, *, use_cache: bool = True, timeout: float | None = None
) -> OracleResult:
    """The picture ``flaw`` has of the model of ``truth`` (same states and ids, wrong facts).

    Pictures that need Storm (myopic) are computed in the oracle's isolated child process and
    cached on disk; the others are derived from ``truth`` in this process in milliseconds."""
    key = (truth.model.content_hash, truth.method, flaw)
    if key in _MEMORY:
        return _MEMORY[key]
    refuse_unseen(truth, flaw)
    if flaw.kind == MYOPIC:
        picture = _myopic_isolated(truth, flaw.steps, use_cache, timeout)
    elif flaw.kind == DETERMINISED:
        picture = determinised_picture(truth)
    elif flaw.kind == DISTANCE:
        picture = distance_picture(truth)
    elif flaw.kind == DANGER_BLIND:
        picture = danger_blind_picture(truth)
    else:
        raise ExplaincheckError(f"unknown flaw {flaw.kind!r}")
    _MEMORY[key] = picture
    return picture


# ---------------------------------------------------------------- shared derivation


def structure_of(truth: OracleResult) -> ModelStructure:
    """The transition structure as stored in the oracle's facts (float probabilities)."""
    choices = [
        [
            Choice(None if action == NO_ACTION else action, dict(successors))
            for action, successors in state.successors.items()
        ]
        for state in truth.states
    ]
    return ModelStructure(
        initial=truth.model.initial,
        valuations=[dict(s.valuation) for s in truth.states],
        labels=[tuple(s.labels) for s in truth.states],
        choices=choices,
        variables=truth.model.variables,
        warnings=(),
    )


def _values(value: list, danger: list | None, q: list[list], *, exact: bool) -> Values:
    """Values from per-state numbers (Fractions when ``exact``); the scheduler takes the first
    choice of highest Q."""
    scheduler = [_first_best(row) for row in q]
    return Values(
        value=[float(v) for v in value],
        danger=[float(d) for d in danger] if danger is not None else None,
        q=[[float(x) for x in row] for row in q],
        scheduler=scheduler,
        value_exact=list(value) if exact else None,
        danger_exact=list(danger) if exact and danger is not None else None,
        q_exact=[list(row) for row in q] if exact else None,
    )


def _first_best(row: list) -> int:
    return max(range(len(row)), key=lambda i: (row[i], -i))


def _picture(
    truth: OracleResult,
    structure: ModelStructure,
    values: Values,
    *,
    exact: bool,
    own_values: bool = True,
) -> OracleResult:
    """A full OracleResult from a picture's values, derived like the true oracle's.

    A picture whose values it computes itself (``own_values``: myopic, determinised, distance)
    sees the chance of reaching the truth's target, ``Pmax [F target]``, whatever the truth's
    property (an expected time, a minimum): its model says so, so every category reads its
    numbers in that direction (the flaw's belief); danger-blind keeps the truth's values and
    property."""
    goal = [s.is_goal for s in truth.states]
    unsafe = [s.is_unsafe for s in truth.states] if truth.has_danger else None
    lost = [v == 0 for v in (values.value_exact if exact and values.value_exact else values.value)]
    found = bottlenecks.by_dominators(_cut(structure, lost), goal)
    scores = [s.centrality for s in truth.states]
    states = derive_state_facts(structure, values, goal, unsafe, found, scores, exact=exact)
    model = truth.model
    if own_values and not truth.prop.reaches_goal:
        target = truth.prop.target
        believed = Property(f"Pmax=? [F {target}]", REACH, MAX, target)
        model = replace(model, property=believed)
    return replace(
        truth,
        model=model,
        states=tuple(states),
        method=EXACT if exact else truth.method,
        tie_tolerance=0.0 if exact else truth.tie_tolerance,
        seconds=0.0,
        from_cache=False,
    )


def _cut(structure: ModelStructure, lost: list[bool]) -> ModelStructure:
    """The structure with every lost state made absorbing (nothing leads on from it)."""
    choices = [
        [Choice(None, {state: 1})] if lost[state] else state_choices
        for state, state_choices in enumerate(structure.choices)
    ]
    return replace(structure, choices=choices)


def derive_state_facts(
    structure: ModelStructure,
    values: Values,
    goal: list[bool],
    unsafe: list[bool] | None,
    bottleneck_set: set[int],
    scores: list[float],
    *,
    exact: bool,
) -> list[StateFacts]:
    """Per-state facts (A*, A°, tie groups, dead ends, ...) of a picture from its values, through
    ``choice_facts``, the derivation the oracle's columns make their facts with."""

    def tied(a: float | Fraction, b: float | Fraction) -> bool:
        return a == b if exact else abs(float(a) - float(b)) <= TIE_TOLERANCE

    facts = []
    for state in range(structure.size):
        choices = structure.choices[state]
        labelled = [(i, c.action) for i, c in enumerate(choices) if c.action]
        keys = None  # the Q to order by: exact ones under the exact method
        if exact:
            assert values.q_exact is not None  # exact values carry exact Q
            keys = values.q_exact[state]
        value_exact = values.value_exact[state] if values.value_exact else None
        facts.append(
            StateFacts(
                id=state,
                valuation=structure.valuations[state],
                labels=structure.labels[state],
                value=values.value[state],
                danger=values.danger[state] if values.danger is not None else None,
                dead_end=(value_exact == 0) if exact else values.value[state] == 0.0,
                bottleneck=state in bottleneck_set,
                centrality=scores[state],
                is_goal=goal[state],
                is_unsafe=bool(unsafe[state]) if unsafe is not None else False,
                is_initial=state == structure.initial,
                **choice_facts(
                    [c.action for c in choices],
                    values.q[state],
                    [{t: float(p) for t, p in c.probabilities.items()} for c in choices],
                    values.scheduler[state],
                    tied,
                    keys,
                ),
                value_exact=_fraction_text(value_exact),
                danger_exact=_fraction_text(values.danger_exact[state])
                if values.danger_exact
                else None,
                q_exact={name: str(values.q_exact[state][i]) for i, name in labelled}
                if values.q_exact
                else {},
                successors_exact={
                    (c.action or NO_ACTION): {t: str(p) for t, p in c.probabilities.items()}
                    for c in choices
                }
                if exact
                else {},
            )
        )
    return facts


def _fraction_text(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


# ---------------------------------------------------------------- in-process pictures


def most_likely(probabilities: dict[int, Fraction | float]) -> dict[int, Fraction | float]:
    """Every most likely successor, with equal weight: a 1/3-1/3-1/3 move stays one (its
    outcomes are equally likely, none is "the" likely one); a 0.8-0.2 move becomes certain."""
    top = max(probabilities.values())
    likeliest = [t for t, p in probabilities.items() if p >= top - FLOAT_TIE]
    return {t: Fraction(1, len(likeliest)) for t in likeliest}


def determinised_picture(truth: OracleResult) -> OracleResult:
    """The oracle of the MDP where every choice has its most likely outcomes only (ties keep
    every most likely outcome with equal weight): exact for an exact truth (policy iteration
    over Fractions, ``exact_reach``), else the verified float method."""
    from explaincheck.core.oracle.exact_reach import max_reach
    from explaincheck.core.oracle.values import verified_values

    base = structure_of(truth)
    choices = [
        [Choice(c.action, most_likely(c.probabilities)) for c in state_choices]
        for state_choices in base.choices
    ]
    structure = replace(base, choices=choices)
    goal = [s.is_goal for s in truth.states]
    unsafe = [s.is_unsafe for s in truth.states] if truth.has_danger else None
    floats = verified_values(structure, truth.has_danger, goal, unsafe)
    if truth.method != EXACT:
        return _picture(truth, structure, floats, exact=False)
    value, _ = max_reach(structure, goal, floats.scheduler)
    danger = None
    if unsafe is not None:
        safe = can_avoid_forever(structure, unsafe)
        escape, _ = max_reach(structure, safe, _safest_choices(structure, floats.danger or []))
        danger = [1 - e for e in escape]
    q = [
        [sum((p * value[t] for t, p in c.probabilities.items()), Fraction(0)) for c in cs]
        for cs in structure.choices
    ]
    return _picture(truth, structure, _values(value, danger, q, exact=True), exact=True)


def _safest_choices(structure: ModelStructure, danger: list[float]) -> list[int]:
    """Per state the choice least likely to lead into danger by the float D (where policy
    iteration for the escape probability 1 − D starts)."""

    def safety(choice: Choice) -> float:
        return sum(float(p) * (1 - danger[t]) for t, p in choice.probabilities.items())

    return [
        max(range(len(cs)), key=lambda i: safety(cs[i])) if cs and danger else 0
        for cs in structure.choices
    ]


def fewest_moves(structure: ModelStructure, targets: list[bool]) -> list[int | None]:
    """Per state the fewest moves to a target state (None when no move sequence gets there)."""
    preds = predecessors(structure)
    moves: list[int | None] = [0 if hit else None for hit in targets]
    queue = deque(i for i, hit in enumerate(targets) if hit)
    while queue:
        state = queue.popleft()
        reached = moves[state]
        assert reached is not None  # queued states are counted
        for pred in preds[state]:
            if moves[pred] is None:
                moves[pred] = reached + 1
                queue.append(pred)
    return moves


def _closeness(moves: list[int | None]) -> list[Fraction]:
    return [Fraction(0) if m is None else Fraction(1, 1 + m) for m in moves]


def distance_picture(truth: OracleResult) -> OracleResult:
    """V̂ = 1/(1+moves to the goal), Q̂ = best V̂ among the successors, D̂ = 1/(1+moves to unsafe)."""
    structure = structure_of(truth)
    value = _closeness(fewest_moves(structure, [s.is_goal for s in truth.states]))
    q = [
        [
            max((value[t] for t, p in c.probabilities.items() if p > 0), default=Fraction(0))
            for c in cs
        ]
        for cs in structure.choices
    ]
    danger = None
    if truth.has_danger:
        danger = _closeness(fewest_moves(structure, [s.is_unsafe for s in truth.states]))
    return _picture(truth, structure, _values(value, danger, q, exact=True), exact=True)


def danger_blind_picture(truth: OracleResult) -> OracleResult:
    """The true V and Q with D = 1 − V."""
    structure = structure_of(truth)
    exact = all(s.value_exact is not None for s in truth.states)
    value: list[Fraction] | list[float]
    q: list[list[Fraction]] | list[list[float]]
    if exact:
        value = [Fraction(s.value_exact or "0") for s in truth.states]  # all set (exact)
        q = [
            [Fraction(s.q_exact.get(c.action, "0")) if c.action else Fraction(0) for c in cs]
            for s, cs in zip(truth.states, structure.choices, strict=True)
        ]
    else:
        value = [s.value for s in truth.states]
        q = [
            [s.q.get(c.action, 0.0) if c.action else 0.0 for c in cs]
            for s, cs in zip(truth.states, structure.choices, strict=True)
        ]
    danger = [1 - v for v in value] if truth.has_danger else None
    values = _values(value, danger, q, exact=exact)
    return _picture(truth, structure, values, exact=exact, own_values=False)


# ---------------------------------------------------------------- myopic (Storm, isolated)


def request_of(truth: OracleResult) -> OracleRequest:
    """The request that reproduces ``truth``'s model (file, constants, labels, method)."""
    model = truth.model
    return OracleRequest(
        model_path=model.path,
        constants=model.constants,
        goal_label=model.goal_label,
        unsafe_label=model.unsafe_label,
        method=truth.method,
    )


def myopic_in_process(request: OracleRequest, steps: int, truth: OracleResult) -> OracleResult:
    """The myopic picture with Storm's step-bounded properties, in this process."""
    from explaincheck.core.oracle.storm import building
    from explaincheck.core.oracle.storm.checking import check_vectors
    from explaincheck.core.oracle.storm.structure import read_structure

    exact = truth.method == EXACT
    parsed = building.parse(request)
    model = building.build(
        parsed, exact=exact, state_limit=request.state_limit, path=request.model_path
    )
    structure = read_structure(model, exact=exact)
    if structure.valuations != [s.valuation for s in truth.states]:
        raise ModelError(f"{request.model_path}: the model changed since its oracle was computed")
    goal = parsed.formula(0)  # a label '"goal"' or an expression '(x = 3)'
    text = f"Pmax=? [F<={steps} {goal}]; Pmax=? [F<={steps - 1} {goal}]"
    if truth.has_danger:
        text += f"; Pmin=? [F<={steps} {parsed.formula(1)}]"
    vectors = check_vectors(model, parsed.program, text, structure.size, exact=exact)
    value, previous = vectors[0], vectors[1]
    danger = vectors[2] if truth.has_danger else None
    zero = Fraction(0) if exact else 0.0
    q = [
        [sum((p * previous[t] for t, p in c.probabilities.items()), zero) for c in cs]
        for cs in structure.choices
    ]
    return _picture(truth, structure, _values(value, danger, q, exact=exact), exact=exact)


def _myopic_isolated(
    truth: OracleResult, steps: int, use_cache: bool, timeout: float | None
) -> OracleResult:
    from explaincheck.core.oracle.isolation import OracleJob

    text = f"{truth.model.content_hash}/{truth.method}/flaw/myopic/{steps}/{PICTURE_FORMAT}"
    key = hashlib.sha256(text.encode()).hexdigest()
    if use_cache:
        hit = cache.load(key)
        if hit is not None:
            return hit
    compute = partial(myopic_in_process, steps=steps, truth=truth)
    picture = OracleJob(request_of(truth), compute=compute).wait(timeout)
    if use_cache:
        cache.store(key, picture)
    return picture
