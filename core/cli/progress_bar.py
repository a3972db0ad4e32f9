"""A terminal progress bar for ``explaincheck run`` (a ``ProgressEvents`` subscriber).

Why its own module: the runner only emits events; how they look on a terminal (one redrawn line
on a TTY, a line every few seconds in a log file or CI) is the command line's business. Its ETA
is the window's: per LLM (``core.campaign.eta``), the slowest one's, because one rate over all
answers counts the instant baselines with the slow models ("ETA 00:21" for 273 s of work).
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TextIO

from explaincheck.core.campaign.eta import EtaEstimator, format_duration
from explaincheck.core.campaign.progress import Progress

WIDTH = 28


def line(progress: Progress, eta: float | str | None = "") -> str:
    """``[#####.....] 120/400 30%  pass 64%  3.1/s  ETA 01:30  (2 errors)``; ``eta`` (seconds
    or None) replaces the progress's own single-rate estimate."""
    seconds = progress.eta if isinstance(eta, str) else eta
    filled = int(WIDTH * progress.fraction)
    bar = "#" * filled + "." * (WIDTH - filled)
    rate = f"{progress.pass_rate:.0%}" if progress.pass_rate is not None else "--"
    text = (
        f"[{bar}] {progress.done}/{progress.total} {progress.fraction:.0%}  pass {rate}"
        f"  {progress.rate:.1f}/s  ETA {format_duration(seconds)}"
    )
    if progress.errors:
        text += f"  ({progress.errors} error{'s' if progress.errors != 1 else ''})"
    return text


class TerminalProgress:
    """Redraws one line on a TTY (at most 10 times a second); elsewhere prints a line every
    ``interval`` seconds, so logs stay short."""

    def __init__(self, stream: TextIO | None = None, interval: float = 5.0):
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = 0.1 if self.tty else interval
        self._last = 0.0
        self._shown = False
        self._text = ""
        self._held: Progress | None = None  # the newest snapshot not drawn yet
        self._redraw: asyncio.TimerHandle | None = None
        self.estimator: EtaEstimator | None = None  # set once the backends are made

    def __call__(self, progress: Progress) -> None:
        last = progress.last
        if self.estimator is not None and last is not None:
            self.estimator.record(last.llm, last.latency, finished=last.verdict != "error")
        if progress.message and progress.state == "running" and progress.last is None:
            self._write_line(progress.message)
        now = time.monotonic()
        final = progress.state != "running"
        if not final and now - self._last < self.interval:
            self._hold(progress, self.interval - (now - self._last))
            return
        self._draw(progress, now, final)

    def _hold(self, progress: Progress, wait: float) -> None:
        """Draw ``progress`` once the interval is over, unless a newer snapshot is drawn first:
        instant answers that arrive together while a local model loads would otherwise leave
        the line at "0/48" until the model's first answer (issue 50)."""
        self._held = progress
        if self._redraw is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside a loop (a test, a script): the next call draws
            return
        self._redraw = loop.call_later(max(wait, 0.0), self._draw_held)

    def _draw_held(self) -> None:
        self._redraw = None
        held, self._held = self._held, None
        if held is not None:
            self._draw(held, time.monotonic(), False)

    def _draw(self, progress: Progress, now: float, final: bool) -> None:
        self._held = None
        if self._redraw is not None:
            self._redraw.cancel()
            self._redraw = None
        self._last = now
        eta = progress.eta if self.estimator is None else self.estimator.eta()
        text = line(progress, eta)
        if text == self._text and not (final and self._shown):
            return  # nothing new to say (e.g. a resumed campaign with nothing left)
        self._text = text
        if self.tty:
            self.stream.write("\r" + text + "\x1b[K")
            self._shown = True
            if final:
                self.stream.write("\n")
                self._shown = False
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _write_line(self, text: str) -> None:
        if self._shown:
            self.stream.write("\n")
            self._shown = False
        self.stream.write(text + "\n")
        self.stream.flush()
