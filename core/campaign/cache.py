"""The reply cache: an identical request is never sent twice.

Why: LLM calls are the slow, costly part. A request is identified by (backend, host, model,
backend settings, prompt, schema, options), so each LLM spec gets its own replies. Replies are
kept in the results database (``replies`` table) so a resumed or re-planned campaign reuses them,
and identical requests in flight at the same moment (the same case picked by both selections)
share one call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

from explaincheck.core.backends.base import Reply
from explaincheck.core.backends.llm import RequestIdentity
from explaincheck.core.store import CachedReply, Store, copy_reply
from explaincheck.core.taxonomy.base import Prompt


class ReplyCache:
    """Look-ups in the store plus sharing of in-flight requests (one event loop)."""

    def __init__(self, store: Store):
        self.store = store
        self._in_flight: dict[tuple[str, tuple[str, ...], str], asyncio.Future[Reply]] = {}
        # request hashes that may have a stored reply: read once, then kept up to date with the
        # replies this run fetches, so a new request costs no database query (a reply stored by
        # another process meanwhile is merely asked for again)
        self._known: set[str] | None = None

    def lookup(
        self, identity: RequestIdentity, prompt: Prompt, key: str | None = None
    ) -> Reply | None:
        key = key or identity.request_hash(prompt)
        if self._known is None:
            self._known = self.store.reply_hashes()
        if key not in self._known:
            return None
        hit = self.store.cached_reply(identity.backend, identity.hosts, identity.model, key)
        if hit is None:
            return None
        return copy_reply(hit, Reply, latency=hit.latency or 0.0, cached=True)

    async def fetch(
        self,
        identity: RequestIdentity,
        prompt: Prompt,
        ask: Callable[[], Awaitable[Reply]],
    ) -> tuple[Reply, CachedReply | None]:
        """The reply (cached, shared or fresh) and, for a fresh one, the cache entry to store
        with the execution (one commit for both)."""
        key = identity.request_hash(prompt)
        hit = self.lookup(identity, prompt, key)
        if hit is not None:
            return hit, None
        flight = identity.flight_key(key)
        shared = self._in_flight.get(flight)
        if shared is not None:
            reply = await asyncio.shield(shared)
            return replace(reply, cached=True), None
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_consume)
        self._in_flight[flight] = future
        try:
            reply = await ask()
        except asyncio.CancelledError:
            future.cancel()  # the run is being cancelled: waiters stop too
            raise
        except Exception as error:
            future.set_exception(error)
            raise
        else:
            future.set_result(reply)
        finally:
            del self._in_flight[flight]
        entry = copy_reply(
            reply,
            CachedReply,
            backend=identity.backend,
            host=reply.host or (identity.hosts[0] if identity.hosts else ""),
            model=identity.model,
            request_hash=key,
            options=identity.options,
        )
        if self._known is not None:
            self._known.add(key)  # stored with its execution next
        return reply, entry


def _consume(future: asyncio.Future[Reply]) -> None:
    """Mark a shared failure as retrieved (its owner already handles it)."""
    if not future.cancelled():
        future.exception()
