"""Settling the executions that several merged databases hold: which version of each is kept.

Why a rule of its own, independent of the order of the inputs: copies of one campaign resumed on
two machines may each have asked the same execution, and their replies (so their verdicts) may
differ. Keeping whichever input came first made ``merge A B`` and ``merge B A`` give different
pass rates with no word said. The rule (docs/scale-out.md, "Conflicts"):

- versions equal in everything but where they are stored are one execution (a duplicate);
- a graded version wins over an ``error`` one (an error is no answer: it is not a conflict);
- graded versions that differ in the verdict or the reply **disagree**: a conflict. ``newest``
  (the default) keeps the one that finished last; ``fail`` writes nothing and names the first
  conflict; ``keep-both-as-repeats`` keeps each differing version as one more repeat of the case,
  marked in its options as a merged version of the repeat it answered (``MERGED_VERSION_OF``: it
  counts in the case's score, never as an independent repeat in pass^k or stability);
- equal finishing times are broken by the content of the rows (a digest), never by the order
  of the inputs, so every input order gives the same merged file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace

from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import CachedReply, StoredExecution
from explaincheck.core.store.records import MERGED_VERSION_OF
from explaincheck.core.taxonomy.base import ERROR

NEWEST, FAIL, KEEP_BOTH = "newest", "fail", "keep-both-as-repeats"
RULES = (NEWEST, FAIL, KEEP_BOTH)
DEFAULT_RULE = NEWEST
# What differs between two runs of one execution: where the row is stored, not what it says.
_PLACE = ("id", "campaign_id")
_RULE_WORDS = {
    NEWEST: "kept the version that finished last (equal times: by content, never by input order)",
    KEEP_BOTH: "kept every differing version, the newest under its own repeat, the others as"
    " added repeats",
}


class MergeConflict(ExplaincheckError):
    """``--on-conflict fail`` and the inputs disagree (the message names the first conflict)."""


@dataclass
class Settled:
    """The rows to write and what settling them did (every count independent of input order)."""

    rows: list[StoredExecution] = field(default_factory=list)
    kept: dict[str, int] = field(default_factory=dict)  # input -> its rows in the merged file
    replaced_errors: int = 0  # executions whose error row gave way to a graded one
    conflicts: int = 0  # executions whose graded versions disagree
    verdict_conflicts: int = 0  # of them, in the verdict (not only the reply's text)
    added_repeats: int = 0  # versions kept as repeats (keep-both-as-repeats)
    rule: str = DEFAULT_RULE

    def line(self) -> str | None:
        """One line on the conflicts and the rule that settled them (None: there were none)."""
        if not self.conflicts:
            return None
        said = f"{_disagree(self)}: --on-conflict {self.rule} {_RULE_WORDS[self.rule]}"
        if self.added_repeats:
            said += f"; {self.added_repeats} repeats added"
        return said


def _disagree(settled: Settled) -> str:
    """How many executions disagree and in what (verdict, or the reply's text only)."""
    count, verdicts = settled.conflicts, settled.verdict_conflicts
    what = (
        "in the verdict"
        if verdicts == count
        else "in the reply only"
        if not verdicts
        else f"{verdicts} in the verdict, {count - verdicts} in the reply only"
    )
    verb = "execution disagrees" if count == 1 else "executions disagree"
    return f"{count} {verb} between the inputs ({what})"


def digest(row: StoredExecution | CachedReply) -> str:
    """A digest of what a row says (not where it is stored): equal rows, equal digests."""
    data = {k: v for k, v in asdict(row).items() if k not in _PLACE}
    text = json.dumps(data, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _newest_first(item: tuple[str, StoredExecution]) -> tuple[bool, str, str]:
    code, row = item
    return (row.verdict != ERROR, str(row.finished_at), code)


def _outcome(row: StoredExecution) -> tuple[str, str | None]:
    return (row.verdict, row.reply)


def settle(
    versions: dict[str, list[tuple[str, StoredExecution]]], rule: str = DEFAULT_RULE
) -> Settled:
    """The rows to write for ``versions`` (exec_key -> (input, row) of every input holding it)."""
    if rule not in RULES:
        raise ExplaincheckError(f"--on-conflict {rule!r} is not one of {', '.join(RULES)}")
    settled = Settled(rule=rule)
    first_conflict: tuple[str, list[tuple[str, StoredExecution]]] | None = None
    chosen: dict[str, list[StoredExecution]] = {}
    for key in sorted(versions):
        found = versions[key]
        if len(found) == 1:  # a shard's row: nothing to settle
            path, row = found[0]
            chosen[key] = [row]
            settled.kept[path] = settled.kept.get(path, 0) + 1
            continue
        codes = [(digest(row), path, row) for path, row in found]
        distinct = {code: row for code, _, row in codes}
        rows = [row for _, row in sorted(distinct.items(), key=_newest_first, reverse=True)]
        graded = [r for r in rows if r.verdict != ERROR]
        if graded and len(graded) < len(rows):
            settled.replaced_errors += 1
        newest_of: dict[tuple[str, str | None], StoredExecution] = {}
        for row in graded:
            newest_of.setdefault(_outcome(row), row)
        kept = [rows[0]]
        if len(newest_of) > 1:
            settled.conflicts += 1
            settled.verdict_conflicts += len({v for v, _ in newest_of}) > 1
            first_conflict = first_conflict or (key, found)
            if rule == KEEP_BOTH:
                kept = list(newest_of.values())
        chosen[key] = kept
        written = {code for code, row in distinct.items() if any(row is k for k in kept)}
        for code, path in {(code, path) for code, path, _ in codes}:  # an input named twice
            settled.kept[path] = settled.kept.get(path, 0) + (code in written)  # counts once
    if rule == FAIL and first_conflict is not None:
        raise MergeConflict(_conflict_text(settled, *first_conflict))
    settled.rows = _as_repeats(chosen)
    settled.added_repeats = len(settled.rows) - len(chosen)
    return settled


def _conflict_text(settled: Settled, key: str, found: list[tuple[str, StoredExecution]]) -> str:
    row = found[0][1]
    sides = sorted({(path, r.verdict) for path, r in found})
    held = ", ".join(f"{verdict} in {path}" for path, verdict in sides)
    return (
        f"{_disagree(settled)}; the first: {row.llm} on {row.category} case {row.case_key} repeat"
        f" {row.repeat} ({held}). Nothing written; --on-conflict newest keeps the version that"
        " finished last, keep-both-as-repeats keeps both"
    )


def _as_repeats(chosen: dict[str, list[StoredExecution]]) -> list[StoredExecution]:
    """Every kept row; a conflict's further versions under new repeat numbers (after every
    repeat its case already has), with keys of their own, each marked as a merged version of
    the repeat it answered."""
    used: dict[tuple[str, str], set[int]] = {}
    for rows in chosen.values():
        for row in rows:
            used.setdefault((row.llm, row.case_key), set()).add(row.repeat)
    written: list[StoredExecution] = []
    for key in sorted(chosen):
        first, *others = chosen[key]
        written.append(first)
        for row in others:
            taken = used[(row.llm, row.case_key)]
            repeat = max(taken) + 1
            taken.add(repeat)
            marked = {**(row.options or {}), MERGED_VERSION_OF: row.repeat}
            written.append(
                replace(row, repeat=repeat, exec_key=_repeat_key(key, row, repeat), options=marked)
            )
    return written


def _repeat_key(key: str, row: StoredExecution, repeat: int) -> str:
    """``key`` naming repeat ``repeat`` instead of the row's own (plan.execution_key's form)."""
    old, new = f"|r{row.repeat}|", f"|r{repeat}|"
    return key.replace(old, new) if key.count(old) == 1 else f"{key}|r{repeat}"


def chosen_replies(replies: Iterable[CachedReply]) -> list[CachedReply]:
    """One reply per request (backend, host, model, request hash): where inputs cached different
    replies to one request, the one with the smallest digest (the same for any input order)."""
    found: dict[tuple[str, str, str, str], CachedReply] = {}
    for reply in sorted(replies, key=digest):
        found.setdefault((reply.backend, reply.host, reply.model, reply.request_hash), reply)
    return list(found.values())
