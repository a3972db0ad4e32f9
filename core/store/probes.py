"""The ``factor_behaviour`` table: the behavioural probes' replies (``core/campaign/probes.py``
asks them), made on the first probe stored, so most files have none."""

from __future__ import annotations

from explaincheck.core.store.connection import Connection
from explaincheck.core.store.schema import PROBE_TABLE
from explaincheck.core.store.values import storable


class ProbeTable:
    """Reads and writes the behavioural probes of one open file."""

    def __init__(self, connection: Connection):
        self._connection = connection

    def answered_probes(self, llm: str, exec_key: str) -> set[str]:
        """The probe names of one execution that already have an answered action."""
        connection = self._connection
        with connection.writing(), connection.transaction():
            connection.db.execute(PROBE_TABLE)
        with connection.reading():
            rows = connection.db.execute(
                "SELECT probe FROM factor_behaviour"
                " WHERE llm = ? AND exec_key = ? AND action IS NOT NULL",
                (llm, exec_key),
            )
            return {row[0] for row in rows}

    def record_probe(
        self,
        llm: str,
        exec_key: str,
        probe: str,
        state: int,
        prompt: str,
        reply: str | None,
        action: str | None,
    ) -> None:
        """Store one behavioural probe's reply (cleaned like every reply) in one commit."""
        values = [storable(v) for v in (llm, exec_key, probe, state, prompt, reply, action)]
        connection = self._connection
        with connection.writing(), connection.transaction():
            connection.db.execute(PROBE_TABLE)
            connection.db.execute(
                "INSERT OR REPLACE INTO factor_behaviour VALUES (?, ?, ?, ?, ?, ?, ?)", values
            )
