"""The result store: one SQLite file per campaign database, one row per executed test case.

Why SQLite (stdlib) in WAL mode with a commit per execution: a campaign against slow LLMs may run
for hours and be killed at any moment; every graded execution must survive that, and the same
command run again must continue where it stopped (finished executions kept, ``error`` ones
retried, nothing duplicated). Everything is JSON text or plain columns, never pickle, so a shared
results file cannot run code when opened. The reply cache lives in the same file.

``Store`` is the facade: each table has its owner (``campaigns``, ``executions``,
``reply_cache``, ``probes``) and ``Store`` forwards its methods to them, with their signatures
and docstrings, so a caller holds one object per open file.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from explaincheck.core.store.campaigns import CampaignTable
from explaincheck.core.store.connection import Connection, Transaction, open_database
from explaincheck.core.store.executions import ExecutionTable
from explaincheck.core.store.probes import ProbeTable
from explaincheck.core.store.reply_cache import ReplyCache

_P = ParamSpec("_P")
_R = TypeVar("_R")
_Owner = TypeVar("_Owner")


def _forward(
    owner: Callable[[Store], _Owner], method: Callable[Concatenate[_Owner, _P], _R]
) -> Callable[Concatenate[Store, _P], _R]:
    """``method`` of a table's owner as a method of ``Store`` (same signature and docstring)."""

    @functools.wraps(method)
    def forwarded(self: Store, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return method(owner(self), *args, **kwargs)

    return forwarded


class Store:
    """An open results database, used on the thread that opened it (SQLite refuses any other:
    a front end that runs a campaign on its own thread opens the store there)."""

    def __init__(self, path: Path, connection: sqlite3.Connection):
        self.path = path
        self._db = connection
        self._connection = Connection(path, connection)
        self.campaign_table = CampaignTable(self._connection)
        self.reply_cache = ReplyCache(self._connection)
        self.execution_table = ExecutionTable(self._connection, self.reply_cache)
        self.probe_table = ProbeTable(self._connection)

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, readonly: bool = False) -> Store:
        """Open (and create or migrate) a results database; refuse anything we cannot read.

        ``readonly`` is for reading commands: the file is opened with ``mode=ro`` (or
        ``immutable=1`` when not even the WAL index can be made, e.g. in a read-only folder)
        and nothing is ever created or written, not even a schema into an empty file."""
        path = Path(path)
        return cls(path, open_database(path, create=create, readonly=readonly))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> Transaction:
        """Group several writes (e.g. a whole re-grade) into one commit."""
        return self._connection.transaction()

    # -- campaigns (core/store/campaigns.py) ----------------------------------------------------
    begin_campaign = _forward(lambda s: s.campaign_table, CampaignTable.begin_campaign)
    end_campaign = _forward(lambda s: s.campaign_table, CampaignTable.end_campaign)
    campaigns = _forward(lambda s: s.campaign_table, CampaignTable.campaigns)
    record_grading = _forward(lambda s: s.campaign_table, CampaignTable.record_grading)

    # -- executions (core/store/executions.py) --------------------------------------------------
    stored = _forward(lambda s: s.execution_table, ExecutionTable.stored)
    record = _forward(lambda s: s.execution_table, ExecutionTable.record)
    update_grade = _forward(lambda s: s.execution_table, ExecutionTable.update_grade)
    executions = _forward(lambda s: s.execution_table, ExecutionTable.executions)
    stored_executions = _forward(lambda s: s.execution_table, ExecutionTable.stored_executions)
    iter_stored = _forward(lambda s: s.execution_table, ExecutionTable.iter_stored)
    iter_executions = _forward(lambda s: s.execution_table, ExecutionTable.iter_executions)
    count = _forward(lambda s: s.execution_table, ExecutionTable.count)
    counts_by_campaign = _forward(lambda s: s.execution_table, ExecutionTable.counts_by_campaign)

    # -- reply cache (core/store/reply_cache.py) ------------------------------------------------
    cached_reply = _forward(lambda s: s.reply_cache, ReplyCache.cached_reply)
    iter_replies = _forward(lambda s: s.reply_cache, ReplyCache.iter_replies)
    put_replies = _forward(lambda s: s.reply_cache, ReplyCache.put_replies)
    reply_hashes = _forward(lambda s: s.reply_cache, ReplyCache.reply_hashes)

    # -- behavioural probes (core/store/probes.py; asked by core/campaign/probes.py) ------------
    answered_probes = _forward(lambda s: s.probe_table, ProbeTable.answered_probes)
    record_probe = _forward(lambda s: s.probe_table, ProbeTable.record_probe)
