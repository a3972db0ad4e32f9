"""How much of each Table 1 cell measures reasoning: reading cases, unresolvable differences and
categories that measure nothing on a model.

Why: a pair that holds a hole, or a ranking decided by a difference of 4.5e-5, is a case an
explainer passes by reading or fails by a coin flip (docs/method.md §4). The report shows, per
cell, the share of reading cases and the number of cases whose deciding difference is below
``SMALL_GAP``, and can leave reading cases out of every score. A category that measures nothing
on a model (every candidate δ = 0 or a reading case: the campaign stored it as ``degenerate``,
and ``run`` warned) makes **degenerate cells**: there "always answer 1" passed 40 of 40 satisfy
cases. They are shown and marked (``DEGENERATE_MARK``) but left out of Table 1's averages, RQ1's
headline and the other means unless a report asks for them (``--include-degenerate``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from explaincheck.core.analysis.facts import stored_notes
from explaincheck.core.analysis.scores import CELL_KEYS, DEGENERATE_MARK, _text_table
from explaincheck.core.store import CampaignRow
from explaincheck.core.taxonomy.case_rules import SMALL_GAP

UNKNOWN = -1.0  # the reading share of a cell stored before cases were marked (shown "?")


def _cases(results: pd.DataFrame) -> pd.DataFrame:
    """One row per case of a cell (repeats and LLM rows of the same case counted once)."""
    keys = [*CELL_KEYS, "case_key"]
    columns = [c for c in ("reading", "gap") if c in results.columns]
    return results.drop_duplicates(keys)[[*keys, *columns]]


def _flag(value: object) -> bool:
    return value is True or value == 1


def reading_cells(results: pd.DataFrame) -> pd.DataFrame:
    """Per cell: cases, reading cases and their share, cases with a known reading mark, and
    cases whose deciding difference is below ``SMALL_GAP``."""
    cases = _cases(results)
    reading = cases["reading"] if "reading" in cases.columns else pd.Series(None, index=cases.index)
    gap = cases["gap"] if "gap" in cases.columns else pd.Series(float("nan"), index=cases.index)
    frame = cases[CELL_KEYS].assign(
        reading=[_flag(v) for v in reading],
        known=reading.notna().to_numpy(),
        small=(pd.to_numeric(gap) < SMALL_GAP).to_numpy(),
    )
    cells = frame.groupby(CELL_KEYS, sort=False, as_index=False).agg(
        cases=("reading", "size"),
        reading=("reading", "sum"),
        known=("known", "sum"),
        small_gap=("small", "sum"),
    )
    share = (cells["reading"] / cells["cases"]).where(cells["known"] > 0, UNKNOWN)
    return cells.assign(reading_share=share, errors=0)


def _totals(cells: pd.DataFrame, value: str) -> pd.DataFrame:
    keys = ["environment", "llm", "selection"]
    totals = cells.groupby(keys, as_index=False)[["reading", "cases", "small_gap"]].sum()
    if value == "reading_share":
        totals[value] = totals["reading"] / totals["cases"]
    return totals


def reading_table(results: pd.DataFrame) -> pd.DataFrame:
    """Table 1's layout, each side the share of reading cases ("?" for rows stored before
    cases were marked)."""
    cells = reading_cells(results)
    return _text_table(
        results, cells, _totals(cells, "reading_share"), "reading_share", _share, last="all"
    )


def small_gap_table(results: pd.DataFrame) -> pd.DataFrame:
    """Table 1's layout, each side the number of cases decided by less than ``SMALL_GAP``."""
    cells = reading_cells(results)
    return _text_table(
        results, cells, _totals(cells, "small_gap"), "small_gap", _count, last="total"
    )


def _share(value: float) -> str:
    return "?" if value < 0 else f"{value:.2f}"


def _count(value: float) -> str:
    return str(int(value))


def without_reading(results: pd.DataFrame) -> pd.DataFrame:
    """The results without their reading cases (rows not known to be one are kept)."""
    if "reading" not in results.columns:
        return results
    return results[[not _flag(v) for v in results["reading"]]]


def degenerate_notes(campaigns: Sequence[CampaignRow], included: bool = False) -> list[str]:
    """Footnotes for categories that ran although they measure nothing on that model: their
    cells are marked, and left out of the means unless ``included``."""
    where = (
        "counted in Avg. and the means (--include-degenerate)"
        if included
        else "left out of Avg., RQ1's headline and the means"
    )
    return [
        f"{DEGENERATE_MARK} {cid} measures nothing in {', '.join(envs)}: {why}; its cells are"
        f" {where}."
        for cid, why, envs in stored_notes(campaigns, "degenerate")
    ]


def degenerate_reasons(results: pd.DataFrame, campaigns: Sequence[CampaignRow]) -> list[str]:
    """Per row: why its (environment, category) cell measures nothing, as the campaign that
    asked it stored (its ``degenerate`` setting), or "" where it measures. Rows are matched to
    their campaign by ``campaign_id``; without one, by environment."""
    by_campaign = {c.id: dict(c.settings.get("degenerate") or {}) for c in campaigns}
    by_environment: dict[str, dict[str, str]] = {}
    for campaign in campaigns:
        by_environment.setdefault(campaign.environment, {}).update(by_campaign[campaign.id])
    ids = results["campaign_id"] if "campaign_id" in results.columns else [None] * len(results)
    found = []
    for campaign_id, environment, category in zip(
        ids, results["environment"], results["category"], strict=True
    ):
        known = campaign_id is not None and campaign_id == campaign_id  # not NaN
        notes = (
            by_campaign.get(int(campaign_id), {}) if known else by_environment.get(environment, {})
        )
        found.append(str(notes.get(category, "")))
    return found


def with_degenerate(results: pd.DataFrame, campaigns: Sequence[CampaignRow]) -> pd.DataFrame:
    """``results`` with the column ``degenerate`` (``degenerate_reasons``)."""
    if not campaigns or results.empty:
        return results.assign(degenerate="")
    return results.assign(degenerate=degenerate_reasons(results, campaigns))


def measured(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of cells that measure something (the ``degenerate`` ones left out)."""
    if "degenerate" not in results.columns:
        return results
    return results[results["degenerate"].astype(str) == ""]
