"""The data behind the factor panels of a window, fetched off the GUI thread and kept for the
session.

The fetching and keeping is the Qt-free ``FactorSource`` (``core/workspace/presentation/teach/
factors.py``): an environment's factors, the behavioural probes stored in a results database,
and the oracle of each intervened model (model-checked in the isolated child, cached on disk
like every oracle). This adapter gives it the GUI's worker threads and is the one object the
panels of a window share, so selecting the same factor again, on either side of the
comparison, is instant and the GUI thread never waits for Storm or SQLite.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject

from explaincheck.core.environments.types import Environment
from explaincheck.core.factors.types import Factor
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.teach.factors import FactorSource
from explaincheck.gui.support.tasks import in_thread


class FactorController(QObject):
    """Factors, behavioural probes and intervened oracles, computed once and cached."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.source = FactorSource(offload=in_thread)

    @property
    def computed(self) -> int:
        """Intervened oracles obtained (from Storm or the disk cache)."""
        return self.source.computed

    async def factors(self, environment: Environment, oracle: OracleResult) -> tuple[Factor, ...]:
        return await self.source.factors(environment, oracle)

    async def behaviour(
        self, db_path: str | None, row: Mapping[str, Any]
    ) -> Mapping[str, str | None]:
        return await self.source.behaviour(db_path, row)

    async def intervened(self, oracle: OracleResult, factor: Factor) -> OracleResult:
        return await self.source.intervened(oracle, factor)
