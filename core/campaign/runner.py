"""The asynchronous campaign runner: executes a plan, grades each reply, stores it at once.

Why asyncio with a fixed set of workers per backend: LLM calls are I/O-bound, so one thread
keeps many requests in flight, and ``concurrency`` workers per backend are its cap (an Ollama
backend's cap is the sum of its hosts' caps; the host pool enforces each host's own). Each
execution is graded and written before the next is taken, and committed on the next turn of
the event loop (executions that finish in the same turn share one commit). A reply is costly to
get again, so it is not held back to save commits: killing the process loses only the requests
in flight. Cancelling (Ctrl-C, the GUI's Stop) commits what is written. The same plan run again
skips what is stored and retries the rest and ``error`` rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from explaincheck.core.backends.base import (
    ANSWERED_AT,
    ASKED_AT,
    MAX_REPLY_CHARS,
    Backend,
    BackendError,
    Reply,
    bounded_reply,
)
from explaincheck.core.backends.llm import LLMBackend, RequestIdentity
from explaincheck.core.campaign.cache import ReplyCache
from explaincheck.core.campaign.plan import Plan, PlannedExecution
from explaincheck.core.campaign.progress import Progress, ProgressEvents, Tally
from explaincheck.core.store import (
    CachedReply,
    ExecutionRecord,
    Store,
    StoreError,
    copy_reply,
    now,
)
from explaincheck.core.taxonomy.base import ERROR, Grade, TestCase
from explaincheck.core.taxonomy.grading import grade_reply
from explaincheck.core.terminal_text import safe_terminal

log = logging.getLogger("explaincheck.campaign")

Grader = Callable[[TestCase, str], Grade]
COMMIT_INTERVAL = 0.0  # seconds a written execution may wait for its commit (next loop turn)
LOADING_NOTE_AFTER = 0.5  # seconds of preparing after which "loading LLM…" is said


class _CommitBatch:
    """One open transaction that collects the executions written within ``interval`` seconds;
    a timer on the event loop commits it, so no result waits longer whatever the LLM's pace."""

    def __init__(self, store: Store, interval: float):
        self.store = store
        self.interval = interval
        # the store's transaction while executions are being collected
        self._open: contextlib.AbstractContextManager[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._failure: StoreError | None = None

    def begin(self) -> None:
        """Make sure a transaction is open (and raise a failed commit's error, if any)."""
        if self._failure is not None:
            raise self._failure
        if self._open is None:
            transaction = self.store.transaction()
            try:
                transaction.__enter__()
            except sqlite3.OperationalError as error:  # locked too long, read-only file
                raise StoreError(f"cannot write to {self.store.path}: {error}") from None
            self._open = transaction
            self._timer = asyncio.get_running_loop().call_later(self.interval, self._timed)

    def _timed(self) -> None:
        self._timer = None
        try:
            self.commit()
        except StoreError as error:  # raised by the next write, or at the end of the run
            self._failure = error

    def commit(self) -> None:
        """Commit what is written now (before the campaign's status changes, or at the end)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        transaction, self._open = self._open, None
        if transaction is not None:
            try:
                transaction.__exit__(None, None, None)
            except sqlite3.OperationalError as error:  # disk full
                raise StoreError(f"cannot write to {self.store.path}: {error}") from None
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure


@dataclass
class RunOutcome:
    """How a run ended: the last progress snapshot and why backends stopped early, if any."""

    progress: Progress
    stopped: dict[str, str] = field(default_factory=dict)  # llm -> why it was given up

    @property
    def complete(self) -> bool:
        return self.progress.done == self.progress.total


class CampaignRunner:
    """Runs one plan into one store. ``cancel()`` stops it cleanly (call it on the loop's
    thread, e.g. from a signal handler or a qasync slot; ``cancel_threadsafe`` elsewhere)."""

    def __init__(
        self,
        plan: Plan,
        store: Store,
        backends: Mapping[str, Backend],
        *,
        grade: Grader | None = None,
        events: ProgressEvents | None = None,
        max_consecutive_errors: int | None = None,
        ran_at: str | None = None,
    ):
        missing = [llm for llm in plan.campaign.llms if llm not in backends]
        if missing:
            raise ValueError(f"no backend for {', '.join(missing)}")
        self.plan = plan
        self.store = store
        self.backends = dict(backends)
        self.grade = grade or self._default_grader()
        self.events = events or ProgressEvents()
        self.max_consecutive_errors = max_consecutive_errors
        self.ran_at = ran_at  # when a replayed run really started (an Inspect log's); None: now
        self.cache = ReplyCache(store)
        self._tally = Tally(plan.total)
        self._cancelled = False
        self._tasks: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queues: dict[str, deque[PlannedExecution]] = {}
        self._consecutive: dict[str, int] = {}
        self._stopped: dict[str, str] = {}
        self._campaign_id = 0
        self._grading = asdict(plan.campaign.grading)
        self._batch = _CommitBatch(store, COMMIT_INTERVAL)
        self._loading: set[str] = set()  # LLMs whose backend is still being prepared
        self._attempts: dict[str, int] = {}

    # -- control ------------------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop taking executions and abandon those in flight; everything stored stays."""
        self._cancelled = True
        for task in self._tasks:
            task.cancel()

    def cancel_threadsafe(self) -> None:
        """``cancel`` from another thread (the GUI's), also before ``run`` has started."""
        self._cancelled = True  # seen by ``run`` and the workers even if the loop is not up yet
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.cancel)

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    # -- running ------------------------------------------------------------------------------

    async def run(self) -> RunOutcome:
        """Execute everything not yet stored. Each LLM starts answering as soon as its own
        backend is prepared (a local model loads while the instant answerers already answer);
        the campaign record is begun before the first answer is stored, so a backend that
        fails to prepare before anything was asked leaves no campaign behind."""
        self._loop = asyncio.get_running_loop()
        plan = self.plan
        stored = self.store.stored()
        attempts: dict[str, int] = {}
        for execution in plan.executions:
            verdict, tries = stored.get(execution.key, (None, 0))
            if verdict is not None and verdict != ERROR:
                self._tally.count(verdict, resumed=True)
                continue
            attempts[execution.key] = tries + 1
            self._queues.setdefault(execution.llm, deque()).append(execution)
        self._attempts = attempts
        self.events.emit(self._tally.snapshot(message=self._resume_message()))
        if not self._queues or any(
            not isinstance(self.backends[llm], LLMBackend) for llm in self._queues
        ):
            self._begin_campaign()  # an answerer that needs no preparing starts at once
        self._tasks.extend(
            asyncio.create_task(self._answer(llm), name=f"explaincheck {llm}")
            for llm in self._queues
        )
        if self._cancelled:  # cancelled before it started
            for task in self._tasks:
                task.cancel()
        try:
            await self._wait_for_workers()
        except asyncio.CancelledError:  # the task running ``run`` was cancelled: same as cancel()
            self.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            self._finish()
            raise
        finally:
            self._tasks = []
        return self._finish()

    async def _wait_for_workers(self) -> None:
        """Wait for every worker; a worker that crashed (e.g. the disk is full) stops the others
        and its error is raised, never swallowed."""
        if not self._tasks:
            return
        done, pending = await asyncio.wait(self._tasks, return_when=asyncio.FIRST_EXCEPTION)
        crashed = [t for t in done if not t.cancelled() and t.exception() is not None]
        if crashed:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            with contextlib.suppress(StoreError):  # keep what was written, if the disk lets us
                self._batch.commit()
            if self._campaign_id:
                self.store.end_campaign(self._campaign_id, "incomplete")
            raise crashed[0].exception()  # type: ignore[misc]
        await asyncio.gather(*pending, return_exceptions=True)

    def _resume_message(self) -> str:
        if self._tally.resumed:
            return f"resuming: {self._tally.resumed} of {self.plan.total} already stored"
        return ""

    def _begin_campaign(self) -> None:
        """The campaign record (once): before the first execution is stored."""
        if self._campaign_id:
            return
        self._campaign_id = begin_plan(self.store, self.plan, created_at=self.ran_at)

    def _finish(self) -> RunOutcome:
        self._begin_campaign()  # a run cancelled while its backends were preparing
        self._batch.commit()
        if self._cancelled:
            state = "cancelled"
        elif self._stopped:
            state = "stopped"
        else:
            state = "finished"
        snapshot = self._tally.snapshot(state=state, message="; ".join(self._stopped.values()))
        if snapshot.done == snapshot.total:
            status = "finished"
        else:
            status = "cancelled" if self._cancelled else "incomplete"
        missing = self._missing(snapshot.done)
        if missing:
            self.store.end_campaign(self._campaign_id, "incomplete")
            raise StoreError(
                f"{self.store.path}: {missing} of the {snapshot.done} executions this campaign"
                " counted as stored are missing from the file after the run (something else"
                " deleted them); run again to redo them, or use a new --db"
            )
        self.store.end_campaign(self._campaign_id, status)
        self.events.emit(snapshot)
        return RunOutcome(snapshot, dict(self._stopped))

    def _missing(self, done: int) -> int:
        """How many of the ``done`` executions the file no longer holds (a foreign writer, a
        trigger, a restored copy): a campaign is never called finished on a count alone."""
        stored = self.store.stored()
        kept = sum(
            1
            for execution in self.plan.executions
            if stored.get(execution.key, (ERROR, 0))[0] != ERROR
        )
        return max(0, done - kept)

    async def _answer(self, llm: str) -> None:
        """Prepare ``llm``'s backend (saying so when it takes a while: a local model loads for
        seconds to minutes), then answer its queue with its workers."""
        backend = self.backends[llm]
        if isinstance(backend, LLMBackend):
            await self._prepare(llm, backend)
        self._begin_campaign()
        queue = self._queues[llm]
        workers = max(1, min(int(backend.concurrency), len(queue)))
        tasks = [
            asyncio.create_task(self._worker(llm), name=f"explaincheck {llm} {i}")
            for i in range(workers)
        ]
        try:
            await asyncio.gather(*tasks)
        except BaseException:  # one worker crashed, or this LLM was cancelled: stop them all
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def _prepare(self, llm: str, backend: LLMBackend) -> None:
        preparing = asyncio.ensure_future(backend.prepare())
        try:
            done, _ = await asyncio.wait({preparing}, timeout=LOADING_NOTE_AFTER)
            if not done:
                self._loading.add(llm)
                self.events.emit(self._tally.snapshot(message=f"loading {llm}…"))
            await preparing
        except asyncio.CancelledError:
            preparing.cancel()
            raise
        finally:
            self._loading.discard(llm)

    def _loading_note(self) -> str:
        """What every snapshot says while a backend is still loading (the window's line)."""
        return "; ".join(f"loading {llm}…" for llm in sorted(self._loading))

    async def _worker(self, llm: str) -> None:
        queue = self._queues[llm]
        backend = self.backends[llm]
        while queue and not self._cancelled:
            execution = queue.popleft()
            record, reply = await self._execute(execution, backend)
            record = self._store(record, reply)  # written before the next one is taken
            self._after(llm, record)
            # An instant answerer (random, oracle) never suspends in ``_execute``: yield here,
            # so the commit timer, Ctrl-C and the other backends' requests get their turn.
            await asyncio.sleep(0)

    def _store(self, record: ExecutionRecord, reply: CachedReply | None) -> ExecutionRecord:
        """Store the execution; if its reply holds something the database refuses, store it as
        an ``error`` row with the reason instead (retried on the next run). A failing database
        (disk full, read-only: ``StoreError``) still stops the run."""
        self._batch.begin()
        try:
            self.store.record(record, reply)
            return record
        except StoreError:
            raise
        except (ValueError, OverflowError, sqlite3.Error) as error:
            log.warning("cannot store the reply of %s: %r", record.case_key, error)
            failed = replace(
                record,
                reply=None,
                thinking="",
                answer=None,
                abs_error=None,
                prompt_tokens=None,
                completion_tokens=None,
                verdict=ERROR,
                reason=f"the reply could not be stored ({type(error).__name__})",
                error=f"the reply could not be stored ({type(error).__name__})",
            )
            self.store.record(failed)
            return failed

    def _after(self, llm: str, record: ExecutionRecord) -> None:
        self._tally.count(record.verdict)
        if record.verdict == ERROR:
            self._consecutive[llm] = self._consecutive.get(llm, 0) + 1
            limit = self.max_consecutive_errors or max(10, 2 * int(self.backends[llm].concurrency))
            queue = self._queues[llm]
            if self._consecutive[llm] >= limit and queue:
                self._stopped[llm] = safe_terminal(  # shown on terminals: server text is untrusted
                    f"stopped asking {llm} after {self._consecutive[llm]} errors in a row"
                    f" ({record.reason[:300]}); {len(queue)} executions left for the next run"
                )
                log.warning("%s", self._stopped[llm])
                queue.clear()
        else:
            self._consecutive[llm] = 0
        self.events.emit(self._tally.snapshot(last=record, message=self._loading_note()))

    # -- one execution ------------------------------------------------------------------------

    async def _execute(
        self, execution: PlannedExecution, backend: Backend
    ) -> tuple[ExecutionRecord, CachedReply | None]:
        started = now()
        identity = self._identity(execution, backend)
        try:
            reply, entry = await self._reply(execution, backend, identity)
        except BackendError as error:
            return self._record(execution, identity, started, error=str(error)), None
        except Exception as error:  # a backend bug: keep the campaign going, retry on resume
            log.exception("%s failed on %s", execution.llm, execution.case.key)
            return self._record(
                execution, identity, started, error=f"backend failed: {error!r}"
            ), None
        try:
            grade = self.grade(execution.case, reply.text)
        except Exception as error:
            log.exception("grading failed on %s", execution.case.key)
            record = self._record(
                execution, identity, started, reply=reply, error=f"grading failed: {error!r}"
            )
            return record, entry
        return self._record(execution, identity, started, reply=reply, grade=grade), entry

    def _identity(self, execution: PlannedExecution, backend: Backend) -> RequestIdentity | None:
        if isinstance(backend, LLMBackend):
            return backend.request_identity(execution.prompt, execution.repeat)
        return None

    async def _reply(
        self,
        execution: PlannedExecution,
        backend: Backend,
        identity: RequestIdentity | None,
    ) -> tuple[Reply, CachedReply | None]:
        if identity is None:
            reply = await backend.answer_repeat(execution.prompt, execution.case, execution.repeat)
            return bounded_reply(reply), None
        assert isinstance(backend, LLMBackend)

        async def ask() -> Reply:
            reply = await backend.answer(execution.prompt, execution.case, repeat=execution.repeat)
            return bounded_reply(reply)  # storable and capped before anyone shares it

        reply, entry = await self.cache.fetch(identity, execution.prompt, ask)
        if "cut" in reply.extra or "thinking_cut" in reply.extra:
            entry = None  # a cut reply is stored once, with its execution, not in the cache
        return reply, entry

    def _record(
        self,
        execution: PlannedExecution,
        identity: RequestIdentity | None,
        started: str,
        *,
        reply: Reply | None = None,
        grade: Grade | None = None,
        error: str | None = None,
    ) -> ExecutionRecord:
        case = execution.case
        return copy_reply(
            reply,
            ExecutionRecord,
            exec_key=execution.key,
            campaign_id=self._campaign_id,
            environment=self.plan.environment_name,
            model_hash=self.plan.model_hash,
            llm=execution.llm,
            category=case.category,
            dimension=execution.dimension,
            selection=case.selection,
            case_index=case.index,
            case_key=case.key,
            positive=case.positive,
            reading=case.reading,
            gap=case.gap,
            states=list(case.states),
            valuations=[dict(v) for v in execution.valuations],
            delta=float(case.delta),
            repeat=execution.repeat,
            prompt=execution.prompt.text,
            schema=execution.prompt.schema,
            options=dict(identity.options) if identity else {},
            verdict=grade.verdict if grade else ERROR,
            reason=_with_cut(grade.reason if grade else (error or "no reply"), reply),
            answer=grade.answer if grade else None,
            expected=grade.expected if grade else None,
            abs_error=grade.abs_error if grade else None,
            grading=self._grading,
            error=error,
            attempts=self._attempts.get(execution.key, 1),
            started_at=_logged_time(reply, ASKED_AT) or started,
            finished_at=_logged_time(reply, ANSWERED_AT) or now(),
        )

    def _default_grader(self) -> Grader:
        oracle, settings = self.plan.oracle, self.plan.campaign.grading
        return lambda case, text: grade_reply(case, text, oracle, settings)


def _logged_time(reply: Reply | None, key: str) -> str | None:
    """When a replayed reply was really asked or answered (``extra``), else None (now)."""
    found = reply.extra.get(key) if reply is not None else None
    return found if isinstance(found, str) and found else None


def _with_cut(reason: str, reply: Reply | None) -> str:
    """The reason, saying so when the reply was cut (the row then shows why it looks odd)."""
    if reply is None or "cut" not in reply.extra:
        return reason
    total = reply.extra["cut"]
    return f"{reason} (reply cut: {total} characters, the first {MAX_REPLY_CHARS} kept)"


def begin_plan(store: Store, plan: Plan, created_at: str | None = None) -> int:
    """The campaign record of ``plan`` in ``store`` (the same id when it is resumed);
    ``created_at``: when its run began (None: now)."""
    return store.begin_campaign(
        identity=plan.identity,
        settings=plan.stored_settings(),
        environment=plan.environment_name,
        model_path=plan.oracle.model.path,
        model_hash=plan.model_hash,
        constants=plan.oracle.model.constants,
        planned=plan.total,
        created_at=created_at,
    )
