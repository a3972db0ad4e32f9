"""Merging results databases: shards of one campaign (``run --shard I/N``) or copies of one
campaign resumed on several machines, into one database with one row per execution.

Why refuse differing campaigns: a merged table must mean one campaign, so every campaign in the
inputs must have one identity (environment, model hash and every option that decides the plan)
and one grading; the first difference found is named. Why one row per execution: shards never
overlap, but copies do; a graded row wins over an ``error`` one, then the one that finished
last. Replies of every reply cache are joined too, so a resumed merged campaign asks nothing
again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from explaincheck.core.atomic_files import temporary_beside
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import CachedReply, CampaignRow, Store, StoredExecution
from explaincheck.core.taxonomy.base import ERROR

MERGING = ".merging"  # the suffix of a merge being written (beside --out)

# Campaign settings that may differ between inputs: bookkeeping, not what was tested.
VOLATILE = frozenset(
    {"explaincheck_version", "run_options", "prices", "shard", "skipped", "caveats"}
)


class MergeError(ExplaincheckError):
    """Inputs that cannot be merged (the message says which and why)."""


@dataclass
class MergeReport:
    """What a merge did, per input and in total."""

    inputs: list[tuple[str, int, int]] = field(default_factory=list)  # (path, rows, kept)
    rows: int = 0  # rows written
    duplicates: int = 0  # rows seen again (a copy's)
    replaced_errors: int = 0  # an error row replaced by a graded one from another input
    replies: int = 0
    shards: list[str] = field(default_factory=list)
    planned: int = 0

    def lines(self, out: str) -> list[str]:
        text = [f"{path}: {rows} executions, {kept} kept" for path, rows, kept in self.inputs]
        shards = f" (shards {', '.join(self.shards)})" if self.shards else ""
        text.append(
            f"merged {len(self.inputs)} databases{shards} into {out}: {self.rows} executions"
            f" of {self.planned} planned, {self.duplicates} duplicates dropped"
            f" ({self.replaced_errors} error rows replaced by a graded one), {self.replies}"
            " cached replies"
        )
        return text


def _compared(campaign: CampaignRow) -> dict[str, Any]:
    settings = {k: v for k, v in campaign.settings.items() if k not in VOLATILE}
    return {
        **settings,
        "environment": campaign.environment,
        "model_hash": campaign.model_hash,
        "constants": campaign.extra.get("constants"),
    }


def _difference(first: dict[str, Any], other: dict[str, Any]) -> str:
    for key in sorted({*first, *other}):
        if first.get(key) != other.get(key):
            return f"{key}: {first.get(key)!r} vs {other.get(key)!r}"
    return "their identities"


def _better(new: StoredExecution, old: StoredExecution) -> bool:
    if (new.verdict == ERROR) != (old.verdict == ERROR):
        return old.verdict == ERROR
    return str(new.finished_at) > str(old.finished_at)


def _merged_settings(settings: dict[str, Any], out: Path) -> dict[str, Any]:
    """The first campaign's settings without its shard (the merged campaign is whole), its run
    options naming the merged file (a campaign file written from it resumes that one)."""
    merged = {k: v for k, v in settings.items() if k != "shard"}
    if isinstance(merged.get("run_options"), dict):
        options = {k: v for k, v in merged["run_options"].items() if k != "shard"}
        merged["run_options"] = {**options, "db": str(out)} if "db" in options else options
    return merged


def _shard_count(shard: str) -> int | None:
    """N of a stored ``I/N`` (None for a whole campaign or a text that is no shard)."""
    index, slash, count = shard.partition("/")
    return int(count) if slash and index.strip().isdigit() and count.strip().isdigit() else None


def _check_shard_counts(found: dict[str, list[str]]) -> None:
    """Shards cut with different N cover the plan in different ways: their union is no
    campaign (1/3 and 2/2 overlap in some cases and miss others)."""
    by_count: dict[int, list[str]] = {}
    for shard, paths in found.items():
        count = _shard_count(shard)
        if count is not None:
            by_count.setdefault(count, []).extend(paths)
    if len(by_count) > 1:
        (first, one), (second, other) = sorted(by_count.items())[:2]
        raise MergeError(
            f"{one[0]} is a shard of {first} and {other[0]} a shard of {second}: shards of one"
            " campaign must be cut with the same N (run every shard with the same --shard I/N)"
        )


def merge_databases(inputs: Iterable[str | Path], out: str | Path) -> MergeReport:
    """Merge the results databases ``inputs`` into a new database ``out``."""
    paths = [Path(p) for p in inputs]
    out = Path(out)
    if len(paths) < 1:
        raise MergeError("give at least one database to merge")
    if out.exists():
        raise MergeError(f"{out} exists: merge into a new file")
    if not out.parent.is_dir():
        raise MergeError(f"--out {out}: folder {out.parent} does not exist")
    if any(p.resolve() == out.resolve() for p in paths if p.exists()):
        raise MergeError(f"{out} is one of the inputs")
    report = MergeReport()
    reference: tuple[Path, CampaignRow] | None = None
    chosen: dict[str, StoredExecution] = {}
    replies: list[CachedReply] = []
    planned: dict[str, int] = {}
    shard_paths: dict[str, list[str]] = {}
    for path in paths:
        with Store.open(path, readonly=True) as store:
            campaigns = store.campaigns()
            if not campaigns:
                raise MergeError(f"{path} holds no campaign")
            for campaign in campaigns:
                if reference is None:
                    reference = (path, campaign)
                elif campaign.identity != reference[1].identity or _compared(campaign) != _compared(
                    reference[1]
                ):
                    raise MergeError(
                        f"{path} holds another campaign than {reference[0]}: they differ in"
                        f" {_difference(_compared(reference[1]), _compared(campaign))}"
                    )
                shard = str(campaign.settings.get("shard") or "")
                planned[shard] = max(planned.get(shard, 0), campaign.planned)
                shard_paths.setdefault(shard, []).append(str(path))
                if shard and shard not in report.shards:
                    report.shards.append(shard)
            rows = store.stored_executions()
            replies.extend(store.iter_replies())
        kept = 0
        for row in rows:
            old = chosen.get(row.exec_key)
            if old is None:
                chosen[row.exec_key] = row
                kept += 1
                continue
            report.duplicates += 1
            if _better(row, old):
                if old.verdict == ERROR and row.verdict != ERROR:
                    report.replaced_errors += 1
                chosen[row.exec_key] = row
        report.inputs.append((str(path), len(rows), kept))
    assert reference is not None
    _check_shard_counts(shard_paths)
    first = reference[1]
    # a whole campaign's count if an input holds one, else the sum over the distinct shards
    report.planned = planned[""] if "" in planned else sum(planned.values())
    # Written under a temporary name and renamed at the end: a killed merge leaves nothing
    # under ``out`` (no empty file that looks like a finished campaign, none blocking a rerun).
    with temporary_beside(out, suffix=MERGING) as temporary:
        temporary.unlink()  # the store makes its own file
        try:
            _write_merged(temporary, out, first, chosen, replies, report)
        finally:
            for leftover in ("-wal", "-shm"):
                Path(f"{temporary}{leftover}").unlink(missing_ok=True)
        if out.exists():
            raise MergeError(f"{out} exists: merge into a new file")
    return report


def _write_merged(
    path: Path,
    out: Path,
    first: CampaignRow,
    chosen: dict[str, StoredExecution],
    replies: list[CachedReply],
    report: MergeReport,
) -> None:
    with Store.open(path) as store:
        campaign_id = store.begin_campaign(
            identity=first.identity,
            settings=_merged_settings(first.settings, out),
            environment=first.environment,
            model_path=str(first.extra.get("model_path", "")),
            model_hash=first.model_hash,
            constants=str(first.extra.get("constants", "")),
            planned=report.planned,
        )
        ordered = sorted(chosen.values(), key=lambda r: (str(r.started_at), r.exec_key))
        with store.transaction():
            for row in ordered:
                store.record(replace(row.record, campaign_id=campaign_id))
            store.put_replies(replies)
        done = sum(r.verdict != ERROR for r in ordered)
        store.end_campaign(campaign_id, "finished" if done >= report.planned else "incomplete")
        report.rows = len(ordered)
        report.replies = len({(r.backend, r.host, r.model, r.request_hash) for r in replies})
