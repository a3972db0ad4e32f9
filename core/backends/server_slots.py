"""How many requests an OpenAI-compatible server says it runs at once, and the warnings that
follow from it: more requests in flight than slots, or most requests timing out.

Why: ``--timeout`` counts from sending a request to its last word, so the time a request waits
in a server's queue counts too. On a 2-slot llama-server with ``--concurrency 4`` and 120 s,
half the requests wait for the other half and nothing at all was stored in 10 minutes. The
server knows its slots: llama-server reports ``total_slots`` at ``/props`` (and one entry per
slot at ``/slots``); a server that reports nothing is left alone.
"""

from __future__ import annotations

import logging
import urllib.parse
from typing import Any

import httpx

log = logging.getLogger("explaincheck.backends.openai")

PROBE_SECONDS = 3.0
MIN_FINISHED = 4  # requests finished before "most time out" is said


def server_root(base_url: str) -> str:
    """``http://gpu1:8080/v1`` -> ``http://gpu1:8080`` (where llama-server serves /props)."""
    split = urllib.parse.urlsplit(base_url)
    path = split.path.rstrip("/")
    path = path[: -len("/v1")] if path.endswith("/v1") else path
    return urllib.parse.urlunsplit((split.scheme, split.netloc, path, "", ""))


async def reported_slots(base_url: str, key: str | None) -> int | None:
    """The slots the server reports, or None when it reports none (or does not answer)."""
    headers = {"authorization": f"Bearer {key}"} if key else {}
    root = server_root(base_url)
    async with httpx.AsyncClient(timeout=PROBE_SECONDS, headers=headers) as client:
        for path, read in (("/props", _total_slots), ("/slots", _slot_list)):
            try:
                response = await client.get(root + path)
                if response.status_code == 200 and len(response.content) < 1 << 20:
                    found = read(response.json())
                    if found:
                        return found
            except (httpx.HTTPError, ValueError):
                continue
    return None


def _total_slots(data: Any) -> int | None:
    value = data.get("total_slots") if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _slot_list(data: Any) -> int | None:
    return len(data) if isinstance(data, list) and data else None


def slots_warning(url: str, slots: int, concurrency: int, timeout: float) -> str | None:
    if concurrency <= slots:
        return None
    return (
        f"{url} reports {slots} slot{'s' if slots != 1 else ''} but --concurrency is"
        f" {concurrency}: {concurrency - slots} requests wait in its queue, and --timeout"
        f" ({timeout:g} s) counts that wait; use --concurrency {slots} or a longer --timeout"
    )


class TimeoutWatch:
    """Counts finished requests and timeouts; says once when most requests time out."""

    def __init__(self) -> None:
        self.finished = 0
        self.timeouts = 0
        self.said = False

    def count(self, timed_out: bool, url: str, timeout: float) -> None:
        self.finished += 1
        self.timeouts += timed_out
        if self.said or self.finished < MIN_FINISHED or 2 * self.timeouts <= self.finished:
            return
        self.said = True
        log.warning(
            "%d of %d requests to %s timed out after %g s: --timeout counts the time a request"
            " waits in the server's queue; lower --concurrency (to the server's slots) or raise"
            " --timeout",
            self.timeouts,
            self.finished,
            url,
            timeout,
        )
