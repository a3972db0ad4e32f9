"""The ``campaigns`` table: one row per campaign of the file, found again by its identity so a
resumed campaign keeps its id, with the settings it ran under (and the grading applied since)."""

from __future__ import annotations

from typing import Any

from explaincheck.core.store.connection import Connection, StoreError
from explaincheck.core.store.records import CampaignRow
from explaincheck.core.store.values import VERSION_KEY, now, software_version, to_json


class CampaignTable:
    """Reads and writes the campaigns of one open file."""

    def __init__(self, connection: Connection):
        self._connection = connection

    def begin_campaign(
        self,
        *,
        identity: str,
        settings: dict[str, Any],
        environment: str,
        model_path: str,
        model_hash: str,
        constants: str,
        planned: int,
        created_at: str | None = None,
    ) -> int:
        """The id of this campaign (the same id when the same campaign is resumed).
        ``created_at``: when a new campaign really ran (a replayed Inspect log's start), else
        now."""
        connection, db = self._connection, self._connection.db
        stamp = now()
        # Look up inside the write transaction: two runs starting the same campaign at once
        # must not both insert it.
        with connection.writing(), connection.transaction():
            row = db.execute(
                "SELECT id FROM campaigns WHERE identity = ? ORDER BY id LIMIT 1", (identity,)
            ).fetchone()
            if row:
                db.execute(
                    "UPDATE campaigns SET updated_at = ?, status = 'running', planned = ? "
                    "WHERE id = ?",
                    (stamp, planned, row[0]),
                )
                return int(row[0])
            cursor = db.execute(
                "INSERT INTO campaigns (identity, settings, environment, model_path, model_hash,"
                " constants, planned, created_at, updated_at, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')",
                (
                    identity,
                    to_json({VERSION_KEY: software_version(), **settings}),
                    environment,
                    model_path,
                    model_hash,
                    constants,
                    planned,
                    created_at or stamp,
                    stamp,
                ),
            )
            assert cursor.lastrowid is not None  # set by every INSERT
            return cursor.lastrowid

    def end_campaign(self, campaign_id: int, status: str) -> None:
        """Mark a campaign ``finished``, ``cancelled`` or ``incomplete``."""
        connection = self._connection
        with connection.writing(), connection.transaction():
            connection.db.execute(
                "UPDATE campaigns SET status = ?, updated_at = ? WHERE id = ?",
                (status, now(), campaign_id),
            )

    def campaigns(self) -> list[CampaignRow]:
        """Every campaign of the file, oldest first (model path and constants in ``extra``)."""
        connection = self._connection
        with connection.reading():
            rows = connection.db.execute(
                "SELECT id, identity, settings, environment, model_hash, planned, status,"
                " created_at, updated_at, model_path, constants FROM campaigns ORDER BY id"
            ).fetchall()
        campaigns = []
        for r in rows:
            settings = connection.json(r[2], f"campaign {r[0]}", "settings")
            if not isinstance(settings, dict) or not all(isinstance(v, str) for v in r[3:5]):
                raise StoreError(
                    f"{connection.path} is damaged: campaign {r[0]} has malformed fields"
                )
            extra = {"model_path": r[9], "constants": r[10]}
            campaigns.append(
                CampaignRow(r[0], r[1], settings, r[3], r[4], r[5], r[6], r[7], r[8], extra)
            )
        return campaigns

    def record_grading(self, grading: dict[str, Any], identity: str | None = None) -> None:
        """Record the grading settings now applied to a campaign's rows (the campaign of
        ``identity``, or every campaign of the file after a whole-file ``regrade``), so its facts
        name the rule its table was graded under."""
        connection, db = self._connection, self._connection.db
        with connection.writing(), connection.transaction():
            rows = db.execute(
                "SELECT id, settings FROM campaigns WHERE ? IS NULL OR identity = ?",
                (identity, identity),
            ).fetchall()
            for campaign_id, text in rows:
                settings = connection.json(text, f"campaign {campaign_id}", "settings")
                if not isinstance(settings, dict) or settings.get("grading") == grading:
                    continue
                db.execute(
                    "UPDATE campaigns SET settings = ?, updated_at = ? WHERE id = ?",
                    (to_json({**settings, "grading": grading}), now(), campaign_id),
                )
