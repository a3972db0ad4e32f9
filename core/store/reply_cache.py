"""The ``replies`` table: the reply cache, what one backend/host/model answered to one exact
request, so the same request is never paid for twice (docs/method.md, the reply cache)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from explaincheck.core.store.connection import Connection
from explaincheck.core.store.records import CachedReply
from explaincheck.core.store.values import now, storable, storable_json, to_json

_COLUMNS = (
    "backend, host, model, request_hash, options, text, thinking, latency,"
    " prompt_tokens, completion_tokens, reasoning_tokens, output_mode, cached_prompt_tokens"
)


class ReplyCache:
    """Reads and writes the cached replies of one open file."""

    def __init__(self, connection: Connection):
        self._connection = connection

    def cached_reply(
        self, backend: str, hosts: Iterable[str], model: str, request_hash: str
    ) -> CachedReply | None:
        """A reply to exactly this request from any of ``hosts`` (oldest first), if stored."""
        hosts = list(hosts)
        marks = ", ".join("?" for _ in hosts)
        row = self._connection.db.execute(
            f"SELECT {_COLUMNS} FROM replies WHERE backend = ? AND model = ?"
            f" AND request_hash = ? AND host IN ({marks}) ORDER BY created_at LIMIT 1",
            (backend, model, request_hash, *hosts),
        ).fetchone()
        if row is None:
            return None
        return CachedReply(row[0], row[1], row[2], row[3], json.loads(row[4]), *row[5:])

    def iter_replies(self) -> Iterator[CachedReply]:
        """Every reply of the cache (for ``explaincheck merge``)."""
        connection = self._connection
        with connection.reading():
            rows = connection.db.execute(
                f"SELECT {_COLUMNS} FROM replies ORDER BY created_at"
            ).fetchall()
        for row in rows:
            options = connection.json(row[4], "a cached reply", "options")
            yield CachedReply(row[0], row[1], row[2], row[3], options, *row[5:])

    def put_replies(self, replies: Iterable[CachedReply]) -> None:
        """Add replies to the cache (one already there is kept), in one transaction."""
        with self._connection.transaction():
            for reply in replies:
                self.put_reply(reply)

    def reply_hashes(self) -> set[str]:
        """The request hashes of every stored reply (one query, so that a run asks the
        database only about requests that may be there)."""
        connection = self._connection
        with connection.reading():
            rows = connection.db.execute("SELECT DISTINCT request_hash FROM replies")
            return {row[0] for row in rows}

    def put_reply(self, reply: CachedReply) -> None:
        """Add one reply (kept if already there), inside the caller's transaction."""
        self._connection.db.execute(
            "INSERT OR IGNORE INTO replies (backend, host, model, request_hash, options, text,"
            " thinking, latency, prompt_tokens, completion_tokens, created_at,"
            " reasoning_tokens, output_mode, cached_prompt_tokens)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            tuple(
                storable(value)
                for value in (
                    reply.backend,
                    reply.host,
                    reply.model,
                    reply.request_hash,
                    to_json(storable_json(reply.options)),
                    reply.text,
                    reply.thinking,
                    reply.latency,
                    reply.prompt_tokens,
                    reply.completion_tokens,
                    now(),
                    reply.reasoning_tokens,
                    reply.output_mode,
                    reply.cached_prompt_tokens,
                )
            ),
        )
