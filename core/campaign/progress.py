"""Progress of a running campaign as plain events any front end can subscribe to.

Why a plain callback object: the terminal bar and the Qt status bar both need done/total, pass
rate, rate and ETA, and the core must not know about Qt. Subscribers are called on the event
loop's thread; a GUI forwards them to its own thread with a signal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from explaincheck.core.store import ExecutionRecord
from explaincheck.core.taxonomy.base import ERROR, FAIL, INVALID, PASS

log = logging.getLogger("explaincheck.campaign")


@dataclass(frozen=True)
class Progress:
    """A snapshot after each execution. ``done`` counts executions finished in earlier runs too;
    ``rate`` and ``eta`` only this run's."""

    total: int
    done: int
    passed: int
    failed: int
    invalid: int
    errors: int  # executions ending in ``error`` (not counted in ``done``; retried on resume)
    resumed: int  # finished before this run started
    elapsed: float  # seconds of this run
    rate: float  # executions per second in this run
    eta: float | None  # seconds left, None before anything finished
    state: str = "running"  # "running", "finished", "cancelled", "stopped"
    last: ExecutionRecord | None = None
    message: str = ""

    @property
    def graded(self) -> int:
        return self.passed + self.failed + self.invalid

    @property
    def pass_rate(self) -> float | None:
        """Passing share of graded executions (``invalid`` counts as not passed)."""
        return self.passed / self.graded if self.graded else None

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


Subscriber = Callable[[Progress], None]


@dataclass
class ProgressEvents:
    """A list of subscribers; a failing subscriber is logged, never stops the campaign."""

    _subscribers: list[Subscriber] = field(default_factory=list)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns the function that removes it again."""
        self._subscribers.append(subscriber)
        return lambda: self._subscribers.remove(subscriber)

    def emit(self, progress: Progress) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(progress)
            except Exception:
                log.exception("a progress subscriber failed")


@dataclass
class Tally:
    """Counts behind the ``Progress`` snapshots."""

    total: int
    resumed: int = 0
    passed: int = 0
    failed: int = 0
    invalid: int = 0
    errors: int = 0
    new: int = 0  # finished in this run
    started: float = field(default_factory=time.monotonic)

    def count(self, verdict: str, *, resumed: bool = False) -> None:
        if verdict == ERROR:
            self.errors += 1
            return
        if resumed:
            self.resumed += 1
        else:
            self.new += 1
        if verdict == PASS:
            self.passed += 1
        elif verdict == FAIL:
            self.failed += 1
        elif verdict == INVALID:
            self.invalid += 1

    def snapshot(
        self, state: str = "running", last: ExecutionRecord | None = None, message: str = ""
    ) -> Progress:
        elapsed = time.monotonic() - self.started
        done = self.resumed + self.new
        rate = self.new / elapsed if elapsed > 0 else 0.0
        left = self.total - done
        eta = 0.0 if left <= 0 else (left / rate if rate > 0 else None)
        return Progress(
            total=self.total,
            done=done,
            passed=self.passed,
            failed=self.failed,
            invalid=self.invalid,
            errors=self.errors,
            resumed=self.resumed,
            elapsed=elapsed,
            rate=rate,
            eta=eta,
            state=state,
            last=last,
            message=message,
        )
