"""The data behind the factor panel, fetched off the GUI thread and kept for the session.

Views get everything about factors through this controller: the environment's factors, the
behavioural probes stored in a results database, and the oracle of each intervened model. An
intervened oracle is model-checked in the isolated child process (``compute_oracle_async``,
cached on disk like every oracle) and kept here by request, so selecting the same factor again
is instant and the GUI thread never waits for Storm or SQLite.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject

from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.types import Factor
from explaincheck.core.oracle.types import OracleResult
from explaincheck.gui.support.tasks import in_thread


def _factors(environment: Environment, oracle: OracleResult) -> tuple[Factor, ...]:
    from explaincheck.core.factors.declare import factors_of

    return factors_of(environment, oracle.model.variables)


def _behaviour(db_path: str, row: Mapping[str, Any]) -> dict[str, str | None]:
    from explaincheck.core.analysis.factor_picture import read_behaviour

    return read_behaviour(db_path, row)


class FactorController(QObject):
    """Factors, behavioural probes and intervened oracles, computed once and cached."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._factors: dict[tuple[str, str], tuple[Factor, ...]] = {}
        self._oracles: dict[tuple[str, str], OracleResult] = {}
        self._running: dict[tuple[str, str], asyncio.Future] = {}
        self.computed = 0  # intervened oracles obtained (from Storm or the disk cache)

    async def factors(self, environment: Environment, oracle: OracleResult) -> tuple[Factor, ...]:
        """The declared factors of the environment, or the automatic ones of a bare model."""
        key = (environment.model_path, oracle.model.content_hash)
        if key not in self._factors:
            self._factors[key] = await in_thread(_factors, environment, oracle)
        return self._factors[key]

    async def behaviour(
        self, db_path: str | None, row: Mapping[str, Any]
    ) -> Mapping[str, str | None]:
        """probe -> action the behavioural check stored for one execution (empty: not asked)."""
        if not db_path or not row.get("llm"):
            return {}
        return await in_thread(_behaviour, db_path, row)

    async def intervened(self, oracle: OracleResult, factor: Factor) -> OracleResult:
        """The oracle of ``oracle``'s model with the model factor ``factor`` neutral."""
        from explaincheck.core.factors.intervene import base_request, intervened_request
        from explaincheck.core.oracle import compute_oracle_async

        request = await in_thread(intervened_request, base_request(oracle), factor.constants)
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
