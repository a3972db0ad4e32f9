"""Merging results databases: shards of one campaign (``run --shard I/N``) or copies of one
campaign resumed on several machines, into one database with one row per execution.

Why refuse differing campaigns: a merged table must mean one campaign, so every campaign in the
inputs must have one identity (environment, model hash and every option that decides the plan)
and one grading; the first difference found is named. Why one row per execution: shards never
overlap, but copies do; which version is kept is settled by a rule independent of the order of
the inputs (``merge_conflicts``: a graded row wins over an ``error`` one; versions that disagree
are counted and settled by ``--on-conflict``), and the campaign row written is chosen the same
way, so ``merge A B`` and ``merge B A`` write the same rows. Replies of every reply cache are
joined too, so a resumed merged campaign asks nothing again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from explaincheck.core.atomic_files import temporary_beside
from explaincheck.core.campaign.merge_conflicts import (
    DEFAULT_RULE,
    Settled,
    chosen_replies,
    settle,
)
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
    duplicates: int = 0  # rows read and not written (a copy's, a version that lost)
    replaced_errors: int = 0  # an error row replaced by a graded one from another input
    replies: int = 0
    shards: list[str] = field(default_factory=list)
    planned: int = 0
    settled: Settled = field(default_factory=Settled)  # conflicts and the rule applied

    @property
    def conflicts(self) -> int:
        """Executions whose graded versions disagree (verdict or reply) between the inputs."""
        return self.settled.conflicts

    def lines(self, out: str) -> list[str]:
        """What the merge did, the same for any order of the inputs (inputs by name)."""
        text = [
            f"{path}: {rows} executions, {kept} kept" for path, rows, kept in sorted(self.inputs)
        ]
        shards = f" (shards {', '.join(self.shards)})" if self.shards else ""
        text.append(
            f"merged {len(self.inputs)} databases{shards} into {out}: {self.rows} executions"
            f" of {self.planned} planned, {self.duplicates} duplicates dropped"
            f" ({self.replaced_errors} error rows replaced by a graded one), {self.replies}"
            " cached replies"
        )
        conflicts = self.settled.line()
        text.append(conflicts or "no execution disagrees between the inputs")
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


def _shard_order(shard: str) -> tuple[int, str]:
    index = shard.partition("/")[0].strip()
    return (int(index) if index.isdigit() else 0, shard)


def _written_campaign(campaigns: list[CampaignRow]) -> CampaignRow:
    """The campaign row the merged file takes its settings from: the one updated last, equal
    times broken by its settings' text (never by the order of the inputs)."""

    def order(campaign: CampaignRow) -> tuple[str, str, str]:
        text = json.dumps(campaign.settings, sort_keys=True, default=str)
        return (str(campaign.updated_at), text, json.dumps(campaign.extra, sort_keys=True))

    return max(campaigns, key=order)


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


def merge_databases(
    inputs: Iterable[str | Path], out: str | Path, on_conflict: str = DEFAULT_RULE
) -> MergeReport:
    """Merge the results databases ``inputs`` into a new database ``out``; executions the
    inputs disagree on are settled by ``on_conflict`` (``merge_conflicts.RULES``)."""
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
    every_campaign: list[CampaignRow] = []
    versions: dict[str, list[tuple[str, StoredExecution]]] = {}
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
                every_campaign.append(campaign)
                shard = str(campaign.settings.get("shard") or "")
                planned[shard] = max(planned.get(shard, 0), campaign.planned)
                shard_paths.setdefault(shard, []).append(str(path))
                if shard and shard not in report.shards:
                    report.shards.append(shard)
            rows = store.stored_executions()
            replies.extend(store.iter_replies())
        for row in rows:
            versions.setdefault(row.exec_key, []).append((str(path), row))
        report.inputs.append((str(path), len(rows), 0))
    assert reference is not None
    _check_shard_counts(shard_paths)
    report.shards.sort(key=_shard_order)
    settled = settle(versions, on_conflict)
    report.settled, report.replaced_errors = settled, settled.replaced_errors
    report.inputs = [(p, n, settled.kept.get(p, 0)) for p, n, _ in report.inputs]
    report.duplicates = sum(n for _, n, _ in report.inputs) - len(settled.rows)
    first = _written_campaign(every_campaign)
    # a whole campaign's count if an input holds one, else the sum over the distinct shards
    report.planned = planned[""] if "" in planned else sum(planned.values())
    # Written under a temporary name and renamed at the end: a killed merge leaves nothing
    # under ``out`` (no empty file that looks like a finished campaign, none blocking a rerun).
    with temporary_beside(out, suffix=MERGING) as temporary:
        temporary.unlink()  # the store makes its own file
        try:
            _write_merged(temporary, out, first, settled.rows, chosen_replies(replies), report)
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
    chosen: list[StoredExecution],
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
        ordered = sorted(chosen, key=lambda r: (str(r.started_at), r.exec_key))
        with store.transaction():
            for row in ordered:
                store.record(replace(row.record, campaign_id=campaign_id))
            store.put_replies(replies)
        # added repeats are extras beside the plan: they finish nothing planned
        done = sum(r.verdict != ERROR for r in ordered) - report.settled.added_repeats
        store.end_campaign(campaign_id, "finished" if done >= report.planned else "incomplete")
        report.rows = len(ordered)
        report.replies = len({(r.backend, r.host, r.model, r.request_hash) for r in replies})
