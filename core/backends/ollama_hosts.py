"""A pool of Ollama hosts: which host answers the next request for a model.

Why a pool: one Ollama server may be too slow for a campaign, so ``--ollama-host`` may be given
several times. Requests for a model spread over the hosts that list it (least busy first), each
host has its own concurrency cap, and a host that fails is skipped (circuit breaker) until a trial
request after a growing pause shows it answers again.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import re
import time
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the clients load in seconds on a busy machine: only when a host is used
    import ollama

from explaincheck.core.credentials import redact
from explaincheck.core.errors import ExplaincheckError

log = logging.getLogger("explaincheck.backends.ollama")

DEFAULT_HOST = "http://127.0.0.1:11434"


# Up to the LAST "@" before the query: a password may hold "@" or "/" itself ("pa@ss/KEY"),
# and stopping at the first would leave the rest of the key in the URL.
_USERINFO = re.compile(r"^((?:[A-Za-z][A-Za-z0-9+.-]*:)?//)?[^?#]*@")
CREDENTIALS_WORDS = (
    "carries a user name or key (user:password@), which would be stored with every result:"
    " give the key in the environment (OLLAMA_API_KEY, OPENAI_API_KEY) instead"
)


def has_credentials(url: str) -> bool:
    """Whether ``url`` has a userinfo part (an "@" before its query or fragment)."""
    return "@" in str(url).strip().split("#", 1)[0].split("?", 1)[0]


def redact_url(url: str) -> str:
    """``url`` without the places where credentials hide: the userinfo (``user:key@``), the
    query and the fragment. Never raises, so it is safe on any text, even a malformed URL."""
    url = str(url).strip()
    url = url.split("#", 1)[0].split("?", 1)[0]
    return _USERINFO.sub(lambda m: m.group(1) or "", url, count=1)


class BadHostError(ExplaincheckError):
    """An Ollama host URL that cannot be used (the message never shows its credentials)."""


def normalize_host(url: str) -> str:
    """``scheme://host:port[/path]`` as the ollama client would use it (no credentials, no
    query); a ``BadHostError`` naming the problem for a URL that cannot be used."""
    shown = redact_url(url)
    if has_credentials(url):
        raise BadHostError(f"Ollama host {shown!r} {CREDENTIALS_WORDS}")
    url = redact_url(url)
    port = 11434
    scheme, separator, rest = url.partition("://")
    if not separator:
        scheme, rest = "http", url
    elif scheme == "http":
        port = 80
    elif scheme == "https":
        port = 443
    if scheme not in ("http", "https"):
        raise BadHostError(f"Ollama host {shown!r}: the scheme must be http or https")
    try:
        split = urllib.parse.urlsplit(f"{scheme}://{rest}")
        given_port = split.port
    except ValueError as error:
        raise BadHostError(f"Ollama host {shown!r} is not a valid URL ({error})") from None
    host = split.hostname
    if not host:
        raise BadHostError(f"Ollama host {shown!r} has no host name")
    if given_port == 0:
        raise BadHostError(f"Ollama host {shown!r}: port 0 is not a port")
    try:
        if isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address):
            host = f"[{host}]"
    except ValueError:
        if not _HOSTNAME.fullmatch(host):
            raise BadHostError(f"Ollama host {shown!r} has an invalid host name") from None
    path = split.path.strip("/")
    base = f"{scheme}://{host}:{given_port or port}"
    return f"{base}/{path}" if path else base


_HOSTNAME = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_.-]{0,252})?")


def configured_hosts(hosts: Iterable[str] = ()) -> tuple[str, ...]:
    """Hosts from ``--ollama-host`` (repeatable), else OLLAMA_HOST, else the local default."""
    chosen = [h for h in hosts if h] or [os.environ.get("OLLAMA_HOST") or DEFAULT_HOST]
    unique: dict[str, None] = {}
    for host in chosen:
        unique[normalize_host(host)] = None
    return tuple(unique)


def model_name(name: str) -> str:
    """Ollama's canonical name: a model without a tag means ``:latest``."""
    return name if ":" in name.split("/")[-1] else f"{name}:latest"


class NoHostAvailable(Exception):
    """Every host that lists the model is failing (raised after waiting ``max_wait``)."""


class ModelNotListed(Exception):
    """No host lists the model."""


@dataclass
class Host:
    """One Ollama server: its client, its cap and its health."""

    url: str
    client: ollama.AsyncClient
    capacity: int
    models: set[str] = field(default_factory=set)
    listed: bool = False  # /api/tags answered at least once
    in_flight: int = 0
    failures: int = 0  # consecutive
    retry_at: float = 0.0  # monotonic time of the next trial; 0 = healthy
    trial: bool = False  # a trial request is in flight
    last_error: str = ""

    @property
    def healthy(self) -> bool:
        return self.retry_at == 0.0

    def lists(self, model: str) -> bool:
        return model_name(model) in self.models


@dataclass(frozen=True)
class Lease:
    """One slot on one host; ``trial`` when it tests a failing host."""

    host: Host
    trial: bool = False


class HostPool:
    """Hosts shared by every Ollama backend of a campaign (so caps are per server)."""

    kind = "Ollama host"  # what its log lines call a host (the OpenAI pool names its own)

    def __init__(
        self,
        urls: Iterable[str],
        *,
        capacity: int = 4,
        timeout: float = 120.0,
        pause: float = 0.5,
        max_pause: float = 30.0,
    ):
        if timeout is None or timeout <= 0:
            raise ValueError("an Ollama timeout must be a positive number of seconds")
        self.timeout = float(timeout)
        self.pause = pause
        self.max_pause = max_pause
        self.hosts = [
            Host(url, _client(url, self.timeout), max(1, capacity))
            for url in configured_hosts(urls)
        ]
        self._changed: asyncio.Condition | None = None
        self._listing: asyncio.Lock | None = None

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(h.url for h in self.hosts)

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:  # created lazily: it binds to the running loop
            self._changed = asyncio.Condition()
        return self._changed

    # -- listing ------------------------------------------------------------------------------

    async def refresh(self, *, force: bool = False) -> None:
        """Ask every host for its models (``/api/tags``); a host that does not answer is marked
        failing. Runs once unless ``force``."""
        if self._listing is None:
            self._listing = asyncio.Lock()
        async with self._listing:
            todo = [h for h in self.hosts if force or not h.listed]
            results = await asyncio.gather(*(self._list(h) for h in todo), return_exceptions=True)
            for host, result in zip(todo, results, strict=True):
                if isinstance(result, BaseException):
                    host.last_error = describe_error(result)
                    host.failures = max(host.failures, 1)
                    host.retry_at = time.monotonic() + self.pause
                    log.warning("%s %s does not answer: %s", self.kind, host.url, host.last_error)
                else:
                    host.models = result
                    host.listed = True

    async def _list(self, host: Host) -> set[str]:
        response = await asyncio.wait_for(host.client.list(), timeout=min(self.timeout, 15.0))
        return {model_name(m.model) for m in response.models if m.model}

    def hosts_for(self, model: str) -> list[Host]:
        return [h for h in self.hosts if h.lists(model)]

    def capacity_for(self, model: str) -> int:
        """Requests that may be in flight for ``model`` at once (over all hosts listing it)."""
        return sum(h.capacity for h in self.hosts_for(model)) or max(
            (h.capacity for h in self.hosts), default=1
        )

    def answering(self) -> list[Host]:
        return [h for h in self.hosts if h.listed]

    async def require_answering(self, servers: str, hint: str) -> None:
        """Refresh the listings; when no host answers, one ``ExplaincheckError`` that names each
        host's error and what to do (``hint``): both backends' ``prepare`` start here."""
        await self.refresh()
        if not self.answering():
            errors = "; ".join(f"{h.url}: {h.last_error}" for h in self.hosts)
            raise ExplaincheckError(f"no {servers} answers ({errors}): {hint}")

    # -- scheduling ---------------------------------------------------------------------------

    async def acquire(
        self, model: str, *, max_wait: float, avoid: frozenset[str] = frozenset()
    ) -> Lease:
        """A host for one request: a healthy host listing the model with a free slot (least
        busy first, hosts whose URL is in ``avoid`` — those a retry already asked — last),
        else a failing one whose pause is over (as a trial), else wait."""
        condition = self._condition()
        deadline = time.monotonic() + max_wait
        async with condition:
            while True:
                listing = self.hosts_for(model)
                if not listing:
                    raise ModelNotListed(model)
                now = time.monotonic()
                free = [h for h in listing if h.healthy and h.in_flight < h.capacity]
                if free:
                    host = min(
                        free, key=lambda h: (h.url in avoid, h.in_flight / h.capacity, h.failures)
                    )
                    host.in_flight += 1
                    return Lease(host)
                due = [h for h in listing if not h.healthy and not h.trial and now >= h.retry_at]
                if due:
                    host = min(due, key=lambda h: h.retry_at)
                    host.trial = True
                    host.in_flight += 1
                    return Lease(host, trial=True)
                if any(h.healthy for h in listing):
                    await condition.wait()  # busy, not failing: wait for a free slot
                    continue
                if now >= deadline:
                    raise NoHostAvailable("; ".join(f"{h.url}: {h.last_error}" for h in listing))
                wake = min([deadline, *(h.retry_at for h in listing if not h.trial)])
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(condition.wait(), timeout=max(wake - now, 0.001))

    async def release(self, lease: Lease, outcome: str, error: str = "") -> None:
        """Give the slot back. ``outcome``: ``ok`` (host answered), ``failed`` (connection error,
        5xx, dropped, no reply within the timeout: skip the host for a while) or ``neutral``
        (a client error).
        Only a healthy host's first failure or a failed trial lengthens the pause, so requests
        that were in flight together when a host went down count once."""
        host = lease.host
        condition = self._condition()
        async with condition:
            host.in_flight -= 1
            if lease.trial:
                host.trial = False
            if outcome == "ok":
                if not host.healthy:
                    log.warning("%s %s answers again", self.kind, host.url)
                host.failures = 0
                host.retry_at = 0.0
            elif outcome == "failed" and (host.healthy or lease.trial):
                host.failures += 1
                host.last_error = error
                pause = min(self.pause * 2 ** (host.failures - 1), self.max_pause)
                if host.healthy:
                    log.warning(
                        "%s %s failed (%s); skipping it for now", self.kind, host.url, redact(error)
                    )
                host.retry_at = time.monotonic() + pause
            condition.notify_all()

    async def forget_model(self, host: Host, model: str) -> None:
        """The host said it does not have the model (404): stop sending it requests for it."""
        async with self._condition():
            host.models.discard(model_name(model))
            self._condition().notify_all()

    async def close(self) -> None:
        for host in self.hosts:
            await host.client.close()


def _client(url: str, timeout: float) -> ollama.AsyncClient:
    """The official client with a timeout always set (its default is none). The client adds
    ``Authorization: Bearer $OLLAMA_API_KEY`` itself; the key is never kept elsewhere."""
    import httpx
    import ollama

    return ollama.AsyncClient(
        host=url,
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
    )


def describe_error(error: BaseException) -> str:
    """One line for logs and the ``reason`` column, with configured keys redacted (a server or
    proxy may echo the bearer token in its error body)."""
    return redact(_describe(error))


def _describe(error: BaseException) -> str:
    import httpx
    import ollama

    if isinstance(error, ollama.ResponseError):
        return f"HTTP {error.status_code}: {error.error}"
    if isinstance(error, httpx.TimeoutException | TimeoutError):
        return "timed out"
    if isinstance(error, httpx.RemoteProtocolError):
        return "connection dropped without a reply"
    if isinstance(error, ConnectionError | httpx.ConnectError):
        return "connection refused"
    text = str(error) or type(error).__name__
    return text.splitlines()[0]
