"""Plain data produced by the oracle: exact ground truth per reachable state.

These dataclasses are the contract between the oracle and every later stage (environments,
taxonomy, runner, GUI). They hold only JSON-friendly values so the oracle can run in a child
process and be cached on disk as JSON.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, cast

from explaincheck.core.oracle.property import Property, reach_goal

# progress(phase, **counts), e.g. ("building", states=0): how the oracle reports its phases
Progress = Callable[..., None]

# The oracle's phases in order (``compute.py``) and the share of a typical run each takes (the
# drifting grids at 10^4-10^6 states): how far a progress bar stands when one starts.
PHASES = (
    ("building", 0.45),
    ("structure", 0.05),
    ("values", 0.1),
    ("product", 0.05),  # a deadline's product with the steps left (``compute._product``)
    ("danger", 0.1),
    ("choices", 0.05),
    ("bottlenecks", 0.05),
    ("certificate", 0.05),
    ("centrality", 0.05),
    ("facts", 0.05),
)


def phase_fraction(phase: str) -> float | None:
    """The share of a run done when ``phase`` starts (None for a phase not listed)."""
    done = 0.0
    for name, share in PHASES:
        if name == phase:
            return done
        done += share
    return None


# Value methods: "exact" = Storm's Rational engine, values are exact fractions, ties exact;
# "verified" = float policy evaluation of Storm's scheduler with a sparse direct solver, checked
# against the Bellman equations; ties use ``OracleResult.tie_tolerance``.
EXACT = "exact"
VERIFIED = "verified"


@dataclass(frozen=True)
class OracleRequest:
    """What to model-check: a PRISM file plus constants and the two property labels."""

    model_path: str
    constants: str = ""  # PRISM style "N=3,p=0.5"
    goal_label: str = "goal"
    unsafe_label: str = "unsafe"
    state_limit: int = 2_000_000
    exact_state_limit: int = 1_000  # above this many states the verified float method is used
    method: str = "auto"  # "auto" | "exact" | "verified"
    # A missing unsafe label normally just leaves D absent; when the user named the label
    # explicitly (--unsafe L) its absence is an error.
    require_unsafe: bool = False
    # Betweenness centrality is a picture aid (the graph view, the bottleneck questions' δ), not
    # ground truth: False leaves it to be computed on demand (large models only: columnar.py),
    # which ``oracle`` does unless asked (--centrality). Not part of the cache key: a result
    # without it computes it when first read.
    centrality: bool = True
    # The property V is computed for (``property.py``); None: Pmax=? [F goal_label], the one
    # property of every earlier round. A ``Pmax=? [F φ]`` property sets ``goal_label`` to φ.
    property: Property | None = None


@dataclass(frozen=True)
class Certificate:
    """How the values were obtained (``model.certificate`` of ``oracle --json``): ``exact``
    fractions, or ``bounded`` by a sound method whose widest interval is ``max_width``."""

    kind: str  # "exact" | "bounded"
    method: str  # in words, e.g. "Storm's interval iteration (sound, absolute precision 1e-07)"
    max_width: float  # 0 under "exact"


@dataclass(frozen=True)
class StateFacts:
    """Everything the oracle knows about one reachable state.

    ``q`` has one entry per labelled action; states without labelled actions (goal, trap or
    deadlock self-loops) have an empty ``q`` and empty ``best``/``worst``.
    ``value_exact``/``danger_exact``/``q_exact``/``successors_exact`` are "num/den" strings
    under the exact method.
    """

    id: int
    valuation: dict[str, int | bool | float]
    labels: tuple[str, ...]
    value: float  # V(s) = Pmax [F goal]
    danger: float | None  # D(s) = Pmin [F unsafe]; None when the model has no unsafe label
    q: dict[str, float]  # Q(s, a) for every labelled action a
    best: tuple[str, ...]  # A*(s)
    worst: tuple[str, ...]  # A°(s)
    action_order: tuple[tuple[str, ...], ...]  # actions grouped by equal Q, best group first
    optimal_action: str | None  # the optimal scheduler's choice (None without labelled actions)
    dead_end: bool  # V(s) = 0
    bottleneck: bool
    centrality: float  # normalised betweenness centrality C_B(s)
    is_goal: bool
    is_unsafe: bool
    is_initial: bool
    successors: dict[str, dict[int, float]]  # action -> {successor id: probability}
    value_exact: str | None = None
    danger_exact: str | None = None
    q_exact: dict[str, str] = field(default_factory=dict)
    # exact method: ``successors`` as "num/den" strings (what an induced chain is solved with)
    successors_exact: dict[str, dict[int, str]] = field(default_factory=dict)
    # the "bounded" certificate: sound [lo, hi] holding V (and D); None under "exact"
    value_interval: tuple[float, float] | None = None
    danger_interval: tuple[float, float] | None = None
    # a reward property: what taking each choice collects (state reward + action reward), keyed
    # like ``successors``; "num/den" strings under the exact method. Empty: no rewards (V is a
    # probability). V and Q are ``math.inf`` where the target is not reached almost surely;
    # their exact strings are then absent (``value_exact`` None, the action not in ``q_exact``).
    rewards: dict[str, float] = field(default_factory=dict)
    rewards_exact: dict[str, str] = field(default_factory=dict)

    @property
    def roles(self) -> tuple[str, ...]:
        """What kind of state this is, in display order: initial, goal, unsafe, dead_end,
        bottleneck (empty for an ordinary state)."""
        flags = (
            ("initial", self.is_initial),
            ("goal", self.is_goal),
            ("unsafe", self.is_unsafe),
            ("dead_end", self.dead_end),
            ("bottleneck", self.bottleneck),
        )
        return tuple(name for name, holds in flags if holds)

    @property
    def actions(self) -> tuple[str, ...]:
        """Labelled actions available here, in model order."""
        return tuple(self.q)

    @property
    def do_nothing(self) -> tuple[str, ...]:
        """Labelled actions whose every outcome is this state itself (a pure self-loop: a
        ``quit``, or a move against a wall). Q(s, a) = V(s) for them, so they are always among
        the best: preference questions leave them out by default (docs/method.md §4)."""
        return tuple(
            action
            for action in self.q
            if (targets := self.successors.get(action)) and all(t == self.id for t in targets)
        )

    def exact_value(self) -> Fraction | None:
        return Fraction(self.value_exact) if self.value_exact is not None else None

    @property
    def infinite(self) -> bool:
        """V(s) is infinite: an expected reward where the target is not reached for sure."""
        return math.isinf(self.value)


@dataclass(frozen=True)
class ModelSummary:
    """Facts about the built model as a whole (the ``model`` object of ``oracle --json``)."""

    path: str
    constants: str
    goal_label: str
    unsafe_label: str
    states: int
    choices: int
    transitions: int
    initial: int
    variables: tuple[str, ...]
    labels: tuple[str, ...]  # all labels the model defines
    actions: tuple[str, ...]  # all action names used by labelled choices
    content_hash: str  # sha256 of the file content + constants + labels
    # the property V is computed for (``oracle --json``'s ``model.property``); None: an older
    # result, whose property is Pmax=? [F goal_label]
    property: Property | None = None


@dataclass(frozen=True)
class OracleResult:
    """The exact test oracle of one model: per-state facts plus how they were obtained."""

    model: ModelSummary
    # indexed by state id: a tuple, or for large verified models a ``ColumnarStates`` sequence
    # that builds each state's facts when asked (columnar.py)
    states: Sequence[StateFacts]
    method: str  # EXACT or VERIFIED
    tie_tolerance: float  # 0.0 under EXACT
    has_danger: bool  # False when the model has no unsafe label (D absent, never zero-filled)
    warnings: tuple[str, ...]  # e.g. unlabelled choices of a real decision, multi-label choices
    seconds: float  # wall time of the computation (0 when loaded from cache)
    from_cache: bool = False
    # which method gave which numbers, in words (``oracle --json`` and the GUI show them)
    values_method: str = ""  # e.g. "exact rationals (Storm)" or "policy iteration ..."
    centrality_method: str = "exact (Brandes)"  # or "approximate ...: ±ε with probability 1-δ"
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase (fresh runs)
    certificate: Certificate | None = None  # None: an older cache entry (exact or unstated)
    # facts a category attaches beyond the oracle (``Category.with_facts``), by name, e.g. the
    # factor truth under "factors": kept by every copy (``replace``, a policy attached later),
    # never written to the oracle cache (``serialization.to_cache``)
    attachments: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def state(self, state_id: int) -> StateFacts:
        return self.states[state_id]

    def peek(self, state_id: int) -> StateFacts:
        """One state's facts for a glance (a summary line): a columnar result whose centrality
        is not computed yet leaves it at NaN rather than compute it for every state
        (``ColumnarStates.glance``); use ``state`` for facts that are read on."""
        glance = getattr(self.states, "glance", None)
        return glance(state_id) if glance is not None else self.states[state_id]

    @property
    def centrality_described(self) -> str:
        """How the centrality was obtained: a columnar result computes it on demand, so its
        states say it (``ColumnarStates.centrality_method``), else ``centrality_method``."""
        return getattr(self.states, "centrality_method", None) or self.centrality_method

    def attached(self, name: str) -> Any:
        """What a category attached under ``name`` (None: nothing)."""
        return self.attachments.get(name)

    def attach(self, name: str, facts: Any) -> OracleResult:
        """A copy (of the same class) with ``facts`` attached under ``name``."""
        return replace(self, attachments={**self.attachments, name: facts})

    @property
    def initial(self) -> StateFacts:
        return self.states[self.model.initial]

    @property
    def prop(self) -> Property:
        """The property V is computed for: the model's, or Pmax=? [F goal] for a result that
        names none (every result of the rounds before properties)."""
        return self.model.property or reach_goal(self.model.goal_label, self.model.labels)

    @property
    def columnar(self) -> bool:
        return hasattr(self.states, "bottleneck_ids")

    @property
    def bottlenecks(self) -> tuple[int, ...]:
        if self.columnar:
            return cast(Any, self.states).bottleneck_ids  # ColumnarStates
        return tuple(s.id for s in self.states if s.bottleneck)

    @property
    def dead_ends(self) -> tuple[int, ...]:
        if self.columnar:
            return cast(Any, self.states).dead_end_ids
        return tuple(s.id for s in self.states if s.dead_end)

    def compare(self, first: StateFacts, second: StateFacts, quantity: str = "value") -> int:
        """-1, 0 or 1 as ``quantity`` ("value" = V or "danger" = D) of ``first`` is below, tied
        with or above that of ``second``; exact fractions decide under the exact method."""
        exact_a = getattr(first, f"{quantity}_exact")
        exact_b = getattr(second, f"{quantity}_exact")
        if exact_a is not None and exact_b is not None:
            fa, fb = Fraction(exact_a), Fraction(exact_b)
            return (fa > fb) - (fa < fb)
        a, b = getattr(first, quantity), getattr(second, quantity)
        if a is None or b is None:
            raise ValueError(f"the oracle has no {quantity} for these states")
        if a == b or abs(a - b) <= self.tie_tolerance:  # a == b: two infinite expected rewards
            return 0
        return 1 if a > b else -1
