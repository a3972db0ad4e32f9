"""The Workbench tab without Qt: the simulator's walk, the Bellman page's equation and policy
iteration, the sweep as shown, and the handout (issue 36: the pages used to run these
themselves).

Why here: a page only shows what this holds and forwards what the user does, so the rules
(who chooses the action, which outcome is sampled, which round is shown, what a handout holds)
are tested without a widget. Storm's long questions (exact transitions, k paths, sweeps, an LLM
as chooser) stay with the GUI's ``WorkbenchController``, off the GUI thread; what runs here is
quick (a step, a Bellman sum, policy iteration on at most ``LESSON_STATES`` states). Events
(``core.workspace.events.Event``), emitted on the caller's thread: ``SimulatorWorkspace.changed``
(the simulation), ``moved`` (the walk's state after the user's step, back, forward or restart:
the window's one selection follows it) and ``said`` (a one-line message);
``BellmanWorkspace.changed`` (the view or
None), ``rounds_changed`` (the round's text) and ``failed`` (why policy iteration could not
run); ``SweepWorkspace.ready`` (a ``SweepShown``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from explaincheck.core.atomic_files import write_text_atomically
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.plural import counted
from explaincheck.core.workbench.bellman import DANGER, VALUE, BellmanView, bellman_view
from explaincheck.core.workbench.bellman import number_text as number_text
from explaincheck.core.workbench.handout import (
    HandoutSection,
    bellman_section,
    lesson_section,
    path_section,
    render_handout,
)
from explaincheck.core.workbench.paths import RankedPath
from explaincheck.core.workbench.policy_iteration import LESSON_STATES, Round, policy_iteration
from explaincheck.core.workbench.simulator import (
    Chooser,
    Simulation,
    optimal_chooser,
    policy_chooser,
)
from explaincheck.core.workbench.sweep import Sweep
from explaincheck.core.workbench.sweep_output import render_table, sweep_figure, sweep_units
from explaincheck.core.workbench.sweep_range import OfferedRange, offered_range
from explaincheck.core.workbench.transitions import Transitions
from explaincheck.core.workspace.events import Event

# who chooses the simulator's action (the data of the page's chooser box)
YOU, OPTIMAL, POLICY, LLM = "you", "optimal", "policy", "llm"
RUN_STEPS = 20

__all__ = [
    "DANGER",
    "LESSON_STATES",
    "LLM",
    "OPTIMAL",
    "POLICY",
    "ROUND_HEADERS",
    "RUN_STEPS",
    "VALUE",
    "YOU",
    "BellmanView",
    "BellmanWorkspace",
    "Chooser",
    "OfferedRange",
    "RankedPath",
    "Round",
    "Simulation",
    "SimulatorWorkspace",
    "Sweep",
    "SweepShown",
    "SweepWorkspace",
    "Transitions",
    "WorkbenchWorkspace",
    "number_text",
    "offered_range",
    "policy_chooser",
]


# -- the simulator ---------------------------------------------------------------------------
def step_rows(simulation: Simulation) -> list[list[str]]:
    """The path's table: #, state, action, →, P (exact where known), chosen by."""
    rows = []
    for row, step in enumerate(simulation.taken):
        p = str(step.exact) if step.exact is not None else f"{step.probability:.4g}"
        who = step.chosen_by + (", sampled" if step.sampled else "")
        rows.append([str(row + 1), str(step.state), step.action, str(step.successor), p, who])
    return rows


def probability_text(simulation: Simulation) -> str:
    """The path's probability (and exactly, once a step is taken) and the seed."""
    exact = simulation.exact_probability()
    words = f"Path probability: {simulation.probability():.6g}"
    if exact is not None and simulation.taken:
        words += f" = {exact}"
    return f"{words} · seed {simulation.seed}"


def ranked_text(path: RankedPath) -> str:
    """One of Storm's most probable paths, as the list shows it."""
    p = f"{path.probability:.4g}" + (f" = {path.exact}" if path.exact is not None else "")
    return f"{path.rank}. P = {p}: " + " → ".join(str(s) for s in path.states)


class SimulatorWorkspace:
    """A walk through the open model: who chooses, the seed, back, forward and reset."""

    def __init__(self) -> None:
        self.oracle: OracleResult | None = None
        self.transitions: Transitions | None = None
        self.simulation: Simulation | None = None
        self.selected: int | None = None  # the graph's selected state (a start on request)
        self.loaded_policy: Chooser | None = None  # Open policy… plugs in here (issue 24)
        self.seed = 0
        self.changed = Event("changed")  # (Simulation): the path to show
        # (int): where the user's step, back, forward or restart left the walk; not told when
        # a new model starts a walk of its own (the selection then stays where it was)
        self.moved = Event("moved")
        self.said = Event("said")  # (str): one line about the last step ("" clears)

    def set_model(self, oracle: OracleResult) -> None:
        self.oracle = oracle
        self.transitions = None
        self._walk(None)

    def set_transitions(self, transitions: Transitions) -> None:
        self.transitions = transitions
        if self.simulation is not None:
            self.simulation.transitions = transitions

    def set_seed(self, seed: int) -> None:
        self.seed = seed
        if self.simulation is not None:
            self.simulation.seed = seed

    @property
    def start(self) -> int | None:
        return self.simulation.start if self.simulation is not None else None

    def restart(self, start: int | None) -> None:
        """A new path from ``start`` (None: the initial state) with the current seed."""
        if self._walk(start):
            self._moved()

    def _walk(self, start: int | None) -> bool:
        if self.oracle is None:
            return False
        self.simulation = Simulation(
            self.oracle, start, seed=self.seed, transitions=self.transitions
        )
        self.said.emit("")
        self.changed.emit(self.simulation)
        return True

    def _moved(self) -> None:
        if self.simulation is not None:
            self.moved.emit(self.simulation.current)

    def outcomes(self, action: str) -> dict[int, float]:
        """The successors of the current state under ``action`` with their probabilities."""
        if self.simulation is None or not action:
            return {}
        return self.simulation.outcomes(action)

    def chooser(self, kind: str) -> tuple[Chooser | None, str]:
        """The chooser of ``kind`` and its name in the table (None, "user": the user chooses)."""
        if kind == OPTIMAL and self.oracle is not None:
            return optimal_chooser(self.oracle), "optimal"
        if kind == POLICY:
            return self.loaded_policy, "policy"
        return None, "user"

    def step(self, kind: str, action: str | None, outcome: int | None) -> None:
        """One step: the user's ``action`` unless ``kind`` names a chooser; the user's
        ``outcome`` unless None (then sampled with the seed) or a chooser chooses."""
        chooser, who = self.chooser(kind)
        self.take(action if chooser is None else None, outcome, chooser, who)

    def llm_chose(self, action: str, state: int, outcome: int | None = None) -> None:
        """An LLM's answer for ``state``: taken if the walk is still there."""
        if self.simulation is not None and self.simulation.current == state:
            self.take(action, outcome, None, "llm")

    def take(
        self, action: str | None, outcome: int | None, chooser: Chooser | None, who: str
    ) -> None:
        if self.simulation is None:
            return
        outcome = None if chooser is not None else outcome
        try:
            step = self.simulation.step(action, outcome, chooser, chosen_by=who)
        except ExplaincheckError as error:
            self.said.emit(str(error))
            return
        self.said.emit(f"{step.action}: state {step.state} → {step.successor}")
        self.changed.emit(self.simulation)
        self._moved()

    def run(self, kind: str, steps: int = RUN_STEPS) -> None:
        """``steps`` steps by ``kind``'s chooser (the optimal policy when the user chooses)."""
        if self.simulation is None:
            return
        chooser, who = self.chooser(kind)
        if chooser is None:
            chooser, who = optimal_chooser(self.simulation.oracle), "optimal"
        try:
            self.simulation.run(chooser, steps, chosen_by=who)
        except ExplaincheckError as error:
            self.said.emit(str(error))
        self.changed.emit(self.simulation)
        self._moved()

    def move(self, back: bool) -> None:
        if self.simulation is None:
            return
        moved = self.simulation.back() if back else self.simulation.forward()
        if moved:
            self.changed.emit(self.simulation)
            self._moved()


# -- the Bellman page ------------------------------------------------------------------------
def sum_rows(view: BellmanView) -> list[tuple[list[str], bool]]:
    """Each action's row and whether it optimises: the action, then its sum written out, with
    the numbers plugged in, and its total (marked ◀ max or ◀ min where it optimises), one line
    each. The total starts its own line, so a narrow pane wraps the sums and never cuts it off
    (issue 50, point 7: at 1366 px the totals needed a sideways scroll)."""
    q = view.quantity
    how = view.how
    rows = []
    for line in view.sums:
        symbolic = " + ".join(
            f"{number_text(t.probability)}·{q}({t.successor})" for t in line.terms
        )
        plugged = " + ".join(
            f"{number_text(t.probability)}·{number_text(t.value)}" for t in line.terms
        )
        if line.reward is not None:  # V = r + Σ p·V′: the reward collected first
            symbolic = f"r + {symbolic}"
            plugged = f"{number_text(line.reward)} + {plugged}"
        total = number_text(line.total) + (f"  ◀ {how}" if line.optimal else "")
        rows.append(([line.action, f"{symbolic}\n= {plugged}\n= {total}"], line.optimal))
    return rows


def result_text(view: BellmanView) -> str:
    kind = "exact fractions" if view.exact else "floating point (over 1,000 states)"
    note = f" ({view.note})" if view.note else ""
    return f"{view.quantity}({view.state}) = {number_text(view.value)}{note} · {kind}"


def successor_entries(view: BellmanView) -> list[tuple[int, str]]:
    """(successor, its line) of every state the sums reach, by state id."""
    values = {t.successor: t.value for line in view.sums for t in line.terms}
    return [
        (successor, f"→ {successor}: {view.quantity} = {number_text(value)}")
        for successor, value in sorted(values.items())
    ]


def round_text(rounds: list[Round], index: int) -> str:
    """Round ``index`` of policy iteration: the policy, its values and the improvement."""
    current = rounds[index]
    lines = [f"Round {current.number} of {len(rounds)}", "", "Policy evaluated:"]
    lines += [f"  state {s}: {a}" for s, a in sorted(current.policy.items())]
    lines += ["", "Its values V_σ(s):"]
    lines += [f"  state {s}: {v}" for s, v in enumerate(current.values)]
    lines.append("")
    if current.switched:
        lines.append("Improvement (strictly better actions):")
        lines += [f"  state {s}: {a} → {b}" for s, (a, b) in sorted(current.switched.items())]
    else:
        lines.append("No state can do strictly better: this policy is optimal.")
    return "\n".join(lines)


ROUND_HEADERS = ["state", "σ(s)", "V_σ(s)", "switches to"]


def round_title(rounds: list[Round], index: int) -> str:
    """Round ``index`` in one line: which round, and what the improvement step does."""
    current = rounds[index]
    head = f"Round {current.number} of {len(rounds)}: the policy σ evaluated, its values"
    if current.switched:
        return (
            f"{head}; {counted(len(current.switched), 'state')} switch to a strictly better action"
        )
    return f"{head}; no state can do strictly better: σ is optimal"


def round_rows(rounds: list[Round], index: int) -> list[tuple[list[str], bool]]:
    """One row per state of round ``index`` (state, its action under σ, V_σ(s), the action it
    switches to or ""), and whether it switches: a table reads at a glance where a list of
    three blocks of lines did not (issue 50, point 7)."""
    current = rounds[index]
    rows = []
    for state, value in enumerate(current.values):
        switched = current.switched.get(state)
        action = current.policy.get(state, "—")
        rows.append(
            (
                [str(state), action, number_text(value), switched[1] if switched else ""],
                bool(switched),
            )
        )
    return rows


class BellmanWorkspace:
    """The state whose equation is shown, of V or D, and the policy-iteration lesson."""

    def __init__(self) -> None:
        self.oracle: OracleResult | None = None
        self.transitions: Transitions | None = None
        self.state: int | None = None
        self.quantity = VALUE
        self.view: BellmanView | None = None
        self.rounds: list[Round] = []
        self.round = 0
        self.changed = Event("changed")  # (BellmanView | None): None while transitions load
        self.rounds_changed = Event("rounds changed")  # (str): the round shown ("" cleared)
        self.failed = Event("failed")  # (str): why policy iteration cannot run

    def set_model(self, oracle: OracleResult) -> None:
        self.oracle = oracle
        self.transitions = None
        self.rounds = []
        self.rounds_changed.emit("")
        self.state = oracle.model.initial
        self.refresh()

    @property
    def lesson_allowed(self) -> bool:
        """Policy iteration is a lesson for small models only, and of Pmax=? [F goal] (the
        lesson's rounds solve that property)."""
        oracle = self.oracle
        return (
            oracle is not None and len(oracle.states) <= LESSON_STATES and oracle.prop.reaches_goal
        )

    def set_transitions(self, transitions: Transitions) -> None:
        self.transitions = transitions
        self.refresh()

    def show_state(self, state: int) -> None:
        self.state = state
        self.refresh()

    def set_quantity(self, quantity: str) -> None:
        self.quantity = quantity
        self.refresh()

    def refresh(self) -> None:
        if self.oracle is None or self.state is None:
            return
        if self.transitions is None:
            self.view = None  # the previous model's equation is not this one's
            self.changed.emit(None)
            return
        self.view = bellman_view(self.oracle, self.transitions, self.state, self.quantity)
        self.changed.emit(self.view)

    def start_policy_iteration(self) -> None:
        if self.oracle is None or self.transitions is None:
            return
        try:
            self.rounds = policy_iteration(self.oracle, self.transitions)
        except ExplaincheckError as error:
            self.failed.emit(str(error))
            return
        self.show_round(0)

    def show_round(self, index: int) -> None:
        if not self.rounds:
            return
        self.round = max(0, min(index, len(self.rounds) - 1))
        self.rounds_changed.emit(round_text(self.rounds, self.round))

    def round_text(self) -> str:
        """The round shown, in words ("" before policy iteration ran)."""
        return round_text(self.rounds, self.round) if self.rounds else ""


# -- the sweep page --------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepShown:
    """A finished sweep as the page shows it: the status, the plot, the table, the tips."""

    sweep: Sweep
    status: str
    figure: Figure
    headers: list[str]
    rows: list[list[str]]
    tipping: str


def sweep_shown(sweep: Sweep, text_scale: float = 1.0) -> SweepShown:
    """What the page shows of ``sweep``: the states asked to follow, else those whose best
    action flips (a flip inside the range first), each drawn once beside V(initial)."""
    followed = sweep.states or sweep.flipping
    failed = sum(p.failed for p in sweep.points)
    status = (
        f"{counted(len(sweep.points), 'point')}, {failed} failed, "
        f"{counted(len(sweep.tipping_points), 'tipping point')}"
    )
    at_bounds = sum(sweep.at_bound(tip) for tip in sweep.tipping_points)
    if at_bounds:
        status += f" ({at_bounds} at a bound of the range)"
    if not sweep.states and followed:
        status += " · following the states where A* flips: " + ", ".join(map(str, followed[:4]))
    shown = followed[:1]
    units = sweep_units(sweep)
    column = "V(initial)" if units is None or units.legacy else f"V(initial), {units.unit}"
    headers = [sweep.constant, column, *(f"A*({s})" for s in shown)]
    rows = []
    for point in sweep.points:
        if point.failed:
            rows.append([str(point.value), f"failed: {point.error}"])
            continue
        value = (
            point.v_exact
            if point.v_exact and "/" in point.v_exact
            else units.value_text(point.v_initial)
            if units is not None and point.v_initial is not None
            else f"{point.v_initial:.6g}"
        )
        rows.append([str(point.value), value, *(",".join(point.best.get(s, ())) for s in shown)])
    parts = render_table(sweep, followed).split("\n\n", 1)
    tipping = parts[1] if len(parts) > 1 else ""
    figure = sweep_figure(sweep, followed, text_scale)
    return SweepShown(sweep, status, figure, headers, rows, tipping)


class SweepWorkspace:
    """The last finished sweep, and the presentation size its plot is drawn at."""

    def __init__(self) -> None:
        self.sweep: Sweep | None = None
        self.text_scale = 1.0
        self.ready = Event("ready")  # (SweepShown)

    def show(self, sweep: Sweep) -> SweepShown:
        self.sweep = sweep
        shown = sweep_shown(sweep, self.text_scale)
        self.ready.emit(shown)
        return shown

    def set_text_scale(self, scale: float) -> None:
        """Draw the plot again at another presentation size."""
        self.text_scale = scale
        if self.sweep is not None:
            self.show(self.sweep)


def followed_states(text: str) -> tuple[int, ...]:
    """The sweep page's "follow" field, e.g. "0 13" or "0, 13"."""
    return tuple(int(t) for t in text.replace(",", " ").split() if t.isdigit())


# -- the whole tab ---------------------------------------------------------------------------
class WorkbenchWorkspace:
    """The simulator, the Bellman page, the sweep and the handout's Teach cases."""

    def __init__(self) -> None:
        self.oracle: OracleResult | None = None
        self.title = "explaincheck lesson"
        self.simulator = SimulatorWorkspace()
        self.bellman = BellmanWorkspace()
        self.sweeps = SweepWorkspace()
        self.lessons: list[Any] = []  # Teach lessons (core.taxonomy.teaching.Lesson)

    def set_model(self, oracle: OracleResult, title: str) -> None:
        self.title = f"{title}: a lesson"
        self.oracle = oracle
        self.simulator.set_model(oracle)
        self.bellman.set_model(oracle)

    def set_transitions(self, transitions: Transitions) -> None:
        self.simulator.set_transitions(transitions)
        self.bellman.set_transitions(transitions)

    def select_state(self, state: int) -> None:
        """The window's one selected state: the Bellman page shows it, and it is where the
        simulator starts on request."""
        self.simulator.selected = state
        self.bellman.show_state(state)

    # -- handout -----------------------------------------------------------------------------
    def add_lesson(self, lesson: object | None) -> str:
        """Add the Teach tab's case; what the handout holds now, in words."""
        if lesson is None:
            return "The Teach tab shows no case yet."
        self.lessons.append(lesson)
        return f"{counted(len(self.lessons), 'Teach case')} in the handout"

    def handout_sections(self) -> list[HandoutSection]:
        sections = [lesson_section(lesson) for lesson in self.lessons]
        simulation = self.simulator.simulation
        if simulation is not None and simulation.taken:
            sections.append(path_section(simulation))
        if self.bellman.view is not None:
            sections.append(bellman_section(self.bellman.view))
        return sections

    def handout_html(self) -> str:
        return render_handout(self.title, self.handout_sections())

    def save_handout(self, path: str | Path) -> str:
        """Write the handout; what happened, in words (OSError: why not)."""
        try:
            write_text_atomically(path, self.handout_html())
        except OSError as error:
            return f"Cannot save {path}: {error.strerror}"
        return f"Saved {path}"
