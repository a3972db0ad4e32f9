"""The factor panel of a ``factors`` case (Results and Teach) without Qt: its words, the
factors, behavioural probes and intervened oracles it reads, and one panel's state.

``FactorSource`` fetches and keeps for the session what every panel of a window shares: an
environment's factors, the behavioural probes a results file stored, and the oracle of each
intervened model (model-checked in the isolated child, cached on disk like every oracle, so
selecting a factor again is instant). ``FactorWorkspace`` is one panel: the case's marks
(``FactorPicture``) and the selected factor's intervention. Blocking reads run through the
``offload`` given (a worker thread in the GUI). Events, emitted on the caller's thread:
``picture_ready(FactorPicture)``, ``intervention_ready(Intervention)`` and ``said(str)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any

from explaincheck.core.analysis.factor_picture import (
    FactorMark,
    FactorPicture,
    Intervention,
    case_picture,
    intervention,
    lesson_row,
    read_behaviour,
)
from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.types import MODEL, Factor
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.events import Event
from explaincheck.core.workspace.presentation.teach.categories import shown_by

__all__ = [
    "COLUMNS",
    "MODEL",
    "NOT_ASKED",
    "PANEL",
    "Factor",
    "FactorMark",
    "FactorPicture",
    "FactorSource",
    "FactorWorkspace",
    "Intervention",
    "after_title",
    "has_factor_panel",
    "is_factor_case",
    "lesson_row",
    "mark_texts",
]

PANEL = "factors"  # the ``Category.panel`` of the categories whose cases this panel shows
COLUMNS = ("Factor", "Cited", "Necessary", "Sufficient", "Behaviour", "N / S")
NOT_ASKED = "not asked"
_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}

Offload = Callable[..., Awaitable[Any]]  # runs a blocking function off the caller's thread


def mark_texts(mark: FactorMark, asked: bool) -> tuple[str, str, str, str, str, str]:
    """The table row of one factor, as the user reads it."""
    if not asked:
        behaviour = NOT_ASKED
    elif mark.changed is None:
        behaviour = "no reply"
    else:
        behaviour = "changes" if mark.changed else "keeps"
    return (
        mark.id,
        _ORDINAL.get(mark.cited or 0, "—"),
        "yes" if mark.necessary else "no",
        "yes" if mark.sufficient else "no",
        behaviour,
        _graded(mark),
    )


def _graded(mark: FactorMark) -> str:
    """Graded necessity / sufficiency (how far the best action falls behind when the factor
    changes / its lead when only the factor is kept); the strength for older results."""
    if mark.necessity is None or mark.sufficiency is None:
        return f"strength {mark.strength:.3f}"
    return f"{mark.necessity:+.3f} / {mark.sufficiency:+.3f}"


def after_title(factor: Factor) -> str:
    """The title above the intervened Q bars."""
    return f"{factor.id} neutral" if factor.kind == MODEL else f"{factor.id} changed"


def has_factor_panel(category_id: str | None) -> bool:
    """Whether the cases of this category are shown with this panel: it names it as its
    ``Category.panel`` (``factors`` does), so the panel lists no category id."""
    return shown_by(category_id, PANEL)


def is_factor_case(row: Mapping[str, Any] | None) -> bool:
    return row is not None and has_factor_panel(row.get("category")) and bool(row.get("expected"))


def _factors_of(environment: Environment, oracle: OracleResult) -> tuple[Factor, ...]:
    from explaincheck.core.factors.declare import factors_of

    return factors_of(environment, oracle.model.variables)


class FactorSource:
    """Factors, behavioural probes and intervened oracles, computed once and kept."""

    def __init__(self, offload: Offload | None = None) -> None:
        self._offload: Offload = offload or asyncio.to_thread
        self._factors: dict[tuple[str, str], tuple[Factor, ...]] = {}
        self._oracles: dict[tuple[str, str], OracleResult] = {}
        self._running: dict[tuple[str, str], asyncio.Future] = {}
        self.computed = 0  # intervened oracles obtained (from Storm or the disk cache)

    async def factors(self, environment: Environment, oracle: OracleResult) -> tuple[Factor, ...]:
        """The declared factors of the environment, or the automatic ones of a bare model."""
        key = (environment.model_path, oracle.model.content_hash)
        if key not in self._factors:
            self._factors[key] = await self._offload(_factors_of, environment, oracle)
        return self._factors[key]

    async def behaviour(
        self, db_path: str | None, row: Mapping[str, Any]
    ) -> Mapping[str, str | None]:
        """probe -> action the behavioural check stored for one execution (empty: not asked)."""
        if not db_path or not row.get("llm"):
            return {}
        found: Mapping[str, str | None] = await self._offload(read_behaviour, db_path, row)
        return found

    async def intervened(self, oracle: OracleResult, factor: Factor) -> OracleResult:
        """The oracle of ``oracle``'s model with the model factor ``factor`` neutral."""
        from explaincheck.core.factors.intervene import base_request, intervened_request
        from explaincheck.core.oracle import compute_oracle_async

        request = await self._offload(intervened_request, base_request(oracle), factor.constants)
        key = (request.model_path, request.constants)
        if key in self._oracles:
            return self._oracles[key]
        running = self._running.get(key)
        if running is None:  # two selections of one factor share one model check
            running = asyncio.ensure_future(compute_oracle_async(request))
            self._running[key] = running
        try:
            result = await asyncio.shield(running)
        finally:
            if running.done():
                self._running.pop(key, None)
        if key not in self._oracles:
            self._oracles[key] = result
            self.computed += 1
        return self._oracles[key]


class FactorWorkspace:
    """One factor panel: the case's marks and the selected factor's intervention. A newer
    case or selection supersedes an older one still being computed."""

    def __init__(self, source: FactorSource) -> None:
        self.source = source
        self.picture: FactorPicture | None = None
        self.oracle: OracleResult | None = None  # the open model's (None: marks only)
        self.factors: tuple[Factor, ...] = ()
        self.shown: Intervention | None = None
        self.picture_ready = Event("picture_ready")  # (FactorPicture)
        self.intervention_ready = Event("intervention_ready")  # (Intervention)
        self.said = Event("said")  # (str): the panel's status line
        self._generation = 0

    def begin(self, row: Mapping[str, Any] | None, oracle: OracleResult | None) -> bool:
        """A new case: True when it is a factors case (then ``load`` reads its marks)."""
        self._generation += 1
        self.picture, self.oracle, self.shown = None, oracle, None
        return is_factor_case(row)

    def load(
        self,
        row: Mapping[str, Any],
        environment: Environment | None,
        db_path: str | None,
    ) -> Coroutine[Any, Any, FactorPicture | None]:
        """The case's marks, to await: the factors, the stored behaviour, the truth the row
        was graded with (None when a newer case came meanwhile)."""
        return self._load(dict(row), environment, db_path, self._generation)

    async def _load(
        self,
        row: dict[str, Any],
        environment: Environment | None,
        db_path: str | None,
        generation: int,
    ) -> FactorPicture | None:
        oracle = self.oracle
        factors: tuple[Factor, ...] = ()
        if oracle is not None and environment is not None:
            factors = await self.source.factors(environment, oracle)
        actions = await self.source.behaviour(db_path, row)
        if generation != self._generation:
            return None
        self.factors = factors
        picture = case_picture(row, factors, actions)
        self.set_picture(picture)
        return picture

    def set_picture(self, picture: FactorPicture) -> None:
        self.picture = picture
        self.picture_ready.emit(picture)

    def picture_note(self) -> str:
        """The status line under a new picture."""
        if self.has_state():
            return "Select a factor to see the model with it neutralised."
        return "Open this case's model to see the interventions."

    def has_state(self) -> bool:
        """Whether the picture's state is one of the open model's (its Q bars can be shown)."""
        return (
            self.picture is not None
            and self.oracle is not None
            and 0 <= self.picture.state < len(self.oracle.states)
        )

    def factor(self, factor_id: str) -> Factor | None:
        return next((f for f in self.factors if f.id == factor_id), None)

    def intervene(self, factor_id: str) -> Coroutine[Any, Any, Intervention | None] | None:
        """The selected factor's intervention, to await: the case's state in the intervened
        model and the states where A* changes (a model factor is model-checked first). None
        when there is nothing to intervene on (said on ``said``)."""
        factor, oracle, picture = self.factor(factor_id), self.oracle, self.picture
        if factor is None or oracle is None or picture is None:
            self.said.emit(f"{factor_id}: open this case's model to see the intervention.")
            return None
        self._generation += 1
        if factor.kind == MODEL:
            self.said.emit(f"Model checking the model with {factor.id} neutral…")
        return self._intervene(factor, oracle, picture.state, self._generation)

    async def _intervene(
        self, factor: Factor, oracle: OracleResult, state: int, generation: int
    ) -> Intervention | None:
        try:
            intervened = (
                await self.source.intervened(oracle, factor) if factor.kind == MODEL else None
            )
            shown = intervention(factor, oracle, state, intervened)
        except Exception as error:  # an intervened model that does not build: say so
            if generation == self._generation:
                self.said.emit(f"{factor.id}: the intervened model cannot be checked: {error}")
            return None
        if generation != self._generation:
            return None
        self.shown = shown
        count = len(shown.changed)
        where = "state" if count == 1 else "states"
        self.said.emit(
            f"{factor.id}: {shown.note}. A* changes at {count} {where}"
            + (" (highlighted on the graph)." if count else ".")
        )
        self.intervention_ready.emit(shown)
        return shown
