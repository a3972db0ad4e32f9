"""Merging results databases: shards of one campaign (``run --shard I/N``) or copies of one
campaign resumed on several machines, into one database with one row per execution. A study
(``run --env all``: one campaign per environment in one file) merges campaign by campaign.

Why refuse differing campaigns: a merged table must mean one campaign (or one study), so every
campaign of one environment in the inputs must have one identity (environment, model hash and
every option that decides the plan) and one grading, and campaigns of different environments
must differ in nothing but their model; the first difference found is named. Why one row per
execution: shards never overlap, but copies do; which version is kept is settled by a rule
independent of the order of the inputs (``merge_conflicts``: a graded row wins over an
``error`` one; versions that disagree are counted and settled by ``--on-conflict``), and the
campaign row written is chosen the same way, so ``merge A B`` and ``merge B A`` write the same
rows. Replies of every reply cache are joined too, so a resumed merged campaign asks nothing
again.
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


# What the campaigns of one study differ in: their model (``run --env all`` gives every
# environment the same options; the property checked and what is degenerate follow the model).
MODEL_SETTINGS = frozenset(
    {"environment", "model_hash", "constants", "degenerate", "checked_property"}
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


def _study(campaign: CampaignRow) -> dict[str, Any]:
    """What every campaign of one study shares (``_compared`` without the model)."""
    return {k: v for k, v in _compared(campaign).items() if k not in MODEL_SETTINGS}


def _check_same(
    references: dict[str, tuple[Path, CampaignRow]], path: Path, campaign: CampaignRow
) -> None:
    """``campaign`` (of ``path``) is the campaign its environment's first one is, or, of an
    environment not seen yet, differs from the first campaign only in its model."""
    if not references:
        references[campaign.environment] = (path, campaign)
        return
    same = references.get(campaign.environment)
    if same is not None:
        first, compared = same, _compared
        if campaign.identity == first[1].identity and _compared(campaign) == _compared(first[1]):
            return
    else:
        first, compared = next(iter(references.values())), _study
        if _study(campaign) == _study(first[1]):
            references[campaign.environment] = (path, campaign)
            return
    raise MergeError(
        f"{path} holds another campaign than {first[0]}: they differ in"
        f" {_difference(compared(first[1]), compared(campaign))}"
    )


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
    references: dict[str, tuple[Path, CampaignRow]] = {}  # environment -> its first campaign
    campaigns_of: dict[str, list[CampaignRow]] = {}  # identity -> its rows in every input
    versions: dict[str, dict[str, list[tuple[str, StoredExecution]]]] = {}  # identity -> key ->
    replies: list[CachedReply] = []
    planned: dict[tuple[str, str], int] = {}  # (identity, shard) -> planned
    shard_paths: dict[str, list[str]] = {}
    for path in paths:
        with Store.open(path, readonly=True) as store:
            campaigns = store.campaigns()
            if not campaigns:
                raise MergeError(f"{path} holds no campaign")
            for campaign in campaigns:
                _check_same(references, path, campaign)
                campaigns_of.setdefault(campaign.identity, []).append(campaign)
                shard = str(campaign.settings.get("shard") or "")
                slot = (campaign.identity, shard)
                planned[slot] = max(planned.get(slot, 0), campaign.planned)
                shard_paths.setdefault(shard, []).append(str(path))
                if shard and shard not in report.shards:
                    report.shards.append(shard)
            identity_of = {campaign.id: campaign.identity for campaign in campaigns}
            rows = store.stored_executions()
            replies.extend(store.iter_replies())
        for row in rows:
            identity = identity_of.get(row.campaign_id) or _planned_by(row, campaigns)
            versions.setdefault(identity, {}).setdefault(row.exec_key, []).append((str(path), row))
        report.inputs.append((str(path), len(rows), 0))
    _check_shard_counts(shard_paths)
    report.shards.sort(key=_shard_order)
    settled_of = {
        identity: settle(versions.get(identity, {}), on_conflict) for identity in campaigns_of
    }
    settled = _together(list(settled_of.values()), on_conflict)
    report.settled, report.replaced_errors = settled, settled.replaced_errors
    report.inputs = [(p, n, settled.kept.get(p, 0)) for p, n, _ in report.inputs]
    report.duplicates = sum(n for _, n, _ in report.inputs) - len(settled.rows)
    merged = [
        MergedCampaign(
            _written_campaign(found),
            # a whole campaign's count if an input holds one, else the sum over its shards
            _planned(identity, planned),
            settled_of[identity],
        )
        for identity, found in sorted(campaigns_of.items(), key=_first_created)
    ]
    report.planned = sum(campaign.planned for campaign in merged)
    # Written under a temporary name and renamed at the end: a killed merge leaves nothing
    # under ``out`` (no empty file that looks like a finished campaign, none blocking a rerun).
    with temporary_beside(out, suffix=MERGING) as temporary:
        temporary.unlink()  # the store makes its own file
        try:
            _write_merged(temporary, out, merged, chosen_replies(replies), report)
        finally:
            for leftover in ("-wal", "-shm"):
                Path(f"{temporary}{leftover}").unlink(missing_ok=True)
        if out.exists():
            raise MergeError(f"{out} exists: merge into a new file")
    return report


def _planned_by(row: StoredExecution, campaigns: list[CampaignRow]) -> str:
    """The identity of the campaign that planned ``row`` when its campaign id names none of
    its file's campaigns: the one its key ends with, else the file's first."""
    for campaign in campaigns:
        if row.exec_key.endswith(f"|{campaign.identity}"):
            return campaign.identity
    return campaigns[0].identity


def _first_created(item: tuple[str, list[CampaignRow]]) -> tuple[str, str]:
    """The merged file's order of campaigns: as first begun in any input (then by identity),
    whatever the order of the inputs."""
    identity, found = item
    return (min(str(campaign.created_at) for campaign in found), identity)


@dataclass(frozen=True)
class MergedCampaign:
    """One campaign of the merged file: the row its settings come from, what it planned
    (whole) and its settled rows."""

    row: CampaignRow
    planned: int
    settled: Settled


def _planned(identity: str, planned: dict[tuple[str, str], int]) -> int:
    """A whole campaign's count if an input holds one, else the sum over its distinct shards."""
    if (identity, "") in planned:
        return planned[(identity, "")]
    return sum(n for (of, _), n in planned.items() if of == identity)


def _together(settled: list[Settled], rule: str) -> Settled:
    """The campaigns' settlements as one (the report's counts over the whole merge)."""
    whole = Settled(rule=rule)
    for one in settled:
        whole.rows.extend(one.rows)
        for path, kept in one.kept.items():
            whole.kept[path] = whole.kept.get(path, 0) + kept
        whole.replaced_errors += one.replaced_errors
        whole.conflicts += one.conflicts
        whole.verdict_conflicts += one.verdict_conflicts
        whole.added_repeats += one.added_repeats
    return whole


def _write_merged(
    path: Path,
    out: Path,
    merged: list[MergedCampaign],
    replies: list[CachedReply],
    report: MergeReport,
) -> None:
    with Store.open(path) as store:
        for campaign in merged:
            _write_campaign(store, out, campaign)
        with store.transaction():
            store.put_replies(replies)
        report.rows = sum(len(campaign.settled.rows) for campaign in merged)
        report.replies = len({(r.backend, r.host, r.model, r.request_hash) for r in replies})


def _write_campaign(store: Store, out: Path, campaign: MergedCampaign) -> None:
    first = campaign.row
    campaign_id = store.begin_campaign(
        identity=first.identity,
        settings=_merged_settings(first.settings, out),
        environment=first.environment,
        model_path=str(first.extra.get("model_path", "")),
        model_hash=first.model_hash,
        constants=str(first.extra.get("constants", "")),
        planned=campaign.planned,
    )
    ordered = sorted(campaign.settled.rows, key=lambda r: (str(r.started_at), r.exec_key))
    with store.transaction():
        for row in ordered:
            store.record(replace(row.record, campaign_id=campaign_id))
    # added repeats are extras beside the plan: they finish nothing planned
    done = sum(r.verdict != ERROR for r in ordered) - campaign.settled.added_repeats
    store.end_campaign(campaign_id, "finished" if done >= campaign.planned else "incomplete")
