"""The Campaign tab's categories on the open model, without Qt: which apply, which are offered on
request, which would measure nothing (issue 36: the view used to compute applicability and
degeneracy itself).

Computed off the GUI thread (``offload``): a category's candidates can be costly, and a large
(columnar) model's degeneracy is left to ``run``, which warns as it plans (making every state's
facts here would take seconds). Only the latest model's facts are shown: an answer for a model
replaced meanwhile is dropped. Events (``core.workspace.events.Event``), emitted on the
caller's thread: ``ready(CategoryFacts)``. How each category then shows is
``category_marks.category_mark``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.base import RequestOffer
from explaincheck.core.taxonomy.degeneracy import degenerate_categories
from explaincheck.core.taxonomy.registry import CATEGORIES, Applicability, applicability
from explaincheck.core.workspace.events import Event
from explaincheck.core.workspace.presentation.category_offers import request_offers

Offload = Callable[..., Awaitable[Any]]  # runs a blocking function off the caller's thread


@dataclass(frozen=True)
class CategoryEntry:
    """A registered category as the tab lists it, before any model is open."""

    id: str
    title: str
    dimension: str


@dataclass(frozen=True)
class CategoryFacts:
    """What the open model says of every category."""

    oracle: OracleResult
    applicability: Mapping[str, Applicability]  # category id -> reason / caveat
    offers: Mapping[str, RequestOffer]  # the on-request categories offered here, by id
    idle: Mapping[str, str]  # category id -> why its cases decide nothing here


def category_entries() -> list[CategoryEntry]:
    """Every registered category, in the registry's order."""
    return [CategoryEntry(cid, found.title, found.dimension) for cid, found in CATEGORIES.items()]


class CampaignSetupWorkspace:
    """The facts of the categories on the latest model the tab was given."""

    def __init__(self, offload: Offload | None = None) -> None:
        self._offload: Offload = offload or asyncio.to_thread
        self.oracle: OracleResult | None = None  # the model the tab shows (facts or not yet)
        self.facts: CategoryFacts | None = None
        self.ready = Event("ready")  # (CategoryFacts): the latest model's facts

    def watch(self, oracle: OracleResult | None) -> None:
        """The tab's model changed: facts of any other model are stale from now on."""
        self.oracle = oracle

    async def refresh(self, oracle: OracleResult, environment: Environment) -> CategoryFacts | None:
        """Compute the facts of ``oracle``; emit ``ready`` unless the tab moved to another
        model meanwhile (then None)."""
        self.oracle = oracle
        found = await self._offload(applicability, oracle)  # candidates can be costly
        offers = await self._offload(request_offers, environment, oracle)  # e.g. factors
        idle = {} if oracle.columnar else await self._offload(degenerate_categories, oracle)
        if oracle is not self.oracle:
            return None
        self.facts = CategoryFacts(oracle, found, offers, idle)
        self.ready.emit(self.facts)
        return self.facts
