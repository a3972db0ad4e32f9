"""The report: every table and figure of the analysis, rendered as text, Markdown, CSV or HTML.

``build_report`` only computes (frames and figures); the ``render_*`` functions return strings
and ``write_report`` puts files in a folder, so the CLI prints and writes while the GUI can show
the same sections. Everything that came from the database (LLM names, replies, reasons) is
untrusted: HTML and Markdown escape it, CSV defuses spreadsheet formulas, the terminal text has
control characters removed.
"""

from __future__ import annotations

import base64
import html
import io
import math
import textwrap
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from explaincheck.core.analysis import (
    case_quality,
    chance,
    cost,
    difficulty,
    examples,
    facts,
    models,
    paired,
    plots,
    prioritization,
    robustness,
    satisfy,
    scores,
)
from explaincheck.core.analysis.layout import BASELINE_LLM, CEILING_LLM, category_label
from explaincheck.core.analysis.report_parts import (
    CSV,
    FORMATS,
    HTML,
    MARKDOWN,
    TEXT,
    Report,
    Section,
)
from explaincheck.core.atomic_files import (
    write_atomically,
    write_bytes_atomically,
    write_text_atomically,
)
from explaincheck.core.csv_text import defused_frame
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import CampaignRow, now, software_version
from explaincheck.core.taxonomy.base import PRIORITIZED
from explaincheck.core.taxonomy.case_rules import SMALL_GAP
from explaincheck.core.terminal_text import safe_terminal

DPI = 150


def build_report(
    results: pd.DataFrame,
    tolerance: float = satisfy.DEFAULT_TOLERANCE,
    campaigns: Sequence[CampaignRow] = (),
    exclude_reading: bool = False,
    only: Collection[str] | None = None,
) -> Report:
    """Compute all tables and figures of the evaluation (section 6.2 of "Automated Testing of
    LLM-Based Post Hoc Explainers Using Model Checking as an Oracle"; see docs/method.md) from
    a results frame; ``campaigns`` (the file's campaign rows) add the campaign facts;
    ``exclude_reading`` leaves the reading cases (docs/method.md §4) out of every score.

    ``only`` names the sections and figures to compute (their keys, or a group of ``GROUPS``,
    whose sections' keys depend on the data); None computes every one. A part asked for is the
    same as in the full report, so a view that shows a few parts computes only those."""
    scores.check_columns(results)
    asked = None if only is None else frozenset(only)

    def wanted(*keys: str) -> bool:
        return asked is None or not asked.isdisjoint(keys)

    quality = _quality_sections(results, exclude_reading) if wanted(*_QUALITY) else []
    if exclude_reading:
        results = case_quality.without_reading(results)
        if results.empty:
            raise ExplaincheckError("every stored case is a reading case: no score is left")
    counts = scores.execution_counts(results)
    report = Report(summary=_summary(results, counts))
    cells = scores.cell_scores(results)  # once per build: every score below is made from it
    figures = {
        "table1_heatmap": lambda: plots.table1_heatmap(results, cells),
        "difficulty": lambda: plots.difficulty_chart(results, cells=cells),
    }
    report.figures = {key: make() for key, make in figures.items() if wanted(key)}
    selections = "/".join(str(_prose(s)) for s in scores.selections_present(results)) or "none"
    left_out = f"the {CEILING_LLM} answerer is left out (1.00 by construction)"
    parts: list[tuple[tuple[str, ...], Callable[[], list[Section]]]] = [
        (_FACTS, lambda: _facts_sections(campaigns, results)),
        (
            ("table1",),
            lambda: [
                Section(
                    "table1",
                    f"Table 1 — score per category ({selections})",
                    scores.table1(results, cells),
                    note=_table1_note(campaigns, exclude_reading),
                    bold=scores.harder_mask(results, cells),
                    figure="table1_heatmap",
                )
            ],
        ),
        (
            ("table1_intervals",),
            lambda: [
                Section(
                    "table1_intervals",
                    f"Table 1 with 95% Wilson intervals and the number of cases ({selections})",
                    scores.interval_table(results, cells),
                    note=(
                        "score [low, high] n=cases: with 95% confidence the explainer's pass "
                        "rate on cases like these lies in the interval (Wilson score interval "
                        "over the cases). Wide intervals mean few cases: differences inside "
                        "them are not evidence."
                    ),
                )
            ],
        ),
        (_QUALITY, lambda: quality),
        (
            ("invalid_share",),
            lambda: [
                Section(
                    "invalid_share",
                    f"Share of invalid replies per category ({selections})",
                    scores.invalid_table(results, cells),
                )
            ],
        ),
        (
            ("executions",),
            lambda: [
                Section(
                    "executions",
                    "Executions per environment and LLM",
                    counts,
                    note="errors (no reply) are excluded from every score and retried on resume.",
                )
            ],
        ),
        (
            ("cases",),
            lambda: [
                Section(
                    "cases",
                    f"Scored cases per category ({selections})",
                    scores.cases_table(results, cells),
                    note="For the balanced binary categories this is 2k (k per class).",
                )
            ],
        ),
        (
            ("rq1_counts",),
            lambda: [
                Section(
                    "rq1_counts",
                    "RQ1 — prioritisation effect over comparable cells (the paper's count)",
                    prioritization.effect_counts(results, cells=cells),
                    note=(
                        "harder = prioritised score below random (uncorrected for chance, as "
                        f"in the paper: see the tests below); {left_out}."
                    ),
                )
            ],
        ),
        (("rq1_wilcoxon",), lambda: [_rq1_section(results, cells)]),
        (
            ("rq1_cells",),
            lambda: [
                Section(
                    "rq1_cells",
                    "RQ1 — comparable cells",
                    prioritization.comparable_cells(results, cells=cells),
                    formats=frozenset({CSV}),
                )
            ],
        ),
        (
            ("rq2_models",),
            lambda: [
                Section(
                    "rq2_models",
                    "RQ2 — mean score per LLM over environments",
                    models.model_comparison(results, cells=cells),
                    note=(
                        "mean = over environments of the Table 1 average; baseline = the "
                        "random answerer on the same environments; vs_baseline = mean − "
                        "baseline."
                    ),
                )
            ],
        ),
        (
            ("rq3_difficulty",),
            lambda: [
                Section(
                    "rq3_difficulty",
                    "RQ3 — category difficulty (hardest first)",
                    difficulty.category_difficulty(results, cells=cells)
                    .drop(columns=["dimension", "label"])
                    .rename(columns={"dimension_label": "dimension"}),
                    note=f"Mean cell score pooled over LLMs and both selections; {left_out}.",
                    figure="difficulty",
                )
            ],
        ),
        (
            ("satisfy_errors",),
            lambda: [
                Section(
                    "satisfy_errors",
                    "Satisfy — absolute error and both grading rules",
                    satisfy.satisfy_errors(results, tolerance),
                    note=(
                        f"score_absolute: |p − V(s)| ≤ {tolerance:g}; score_half: p and V(s) "
                        "on the same side of ½; score_stored: the verdicts stored by the run. "
                        "mae over answered (parsed) replies."
                    ),
                )
            ],
        ),
        (("chance",), lambda: _chance_section(results, cells)),
        (GROUPS["faults"], lambda: _fault_sections(results, report.figures)),
        (GROUPS["robustness"], lambda: _robustness_sections(results)),
        (GROUPS["paired"], lambda: _paired_sections(results, cells)),
        (("cost",), lambda: _cost_sections(results)),
        (("money",), lambda: _money_sections(results)),
        (
            ("invalid_examples",),
            lambda: [
                Section(
                    "invalid_examples",
                    "Examples of invalid replies",
                    examples.invalid_examples(results),
                    formats=frozenset({MARKDOWN, HTML, CSV}),
                )
            ],
        ),
        (
            ("cells",),
            lambda: [Section("cells", "All cells (numeric)", cells, formats=frozenset({CSV}))],
        ),
    ]
    report.sections = [
        section
        for names, make in parts
        if asked is None or any(_selects(key, names) for key in asked)
        for section in make()
        if asked is None or section.key in asked or (names[0] in GROUPS and names[0] in asked)
    ]
    return report


# Sections made together. A group's sections have keys that depend on the data (an LLM pair,
# the reference explainers that ran): it is asked for by its name or by any key that starts
# with one of the names after it (the prefixes of its sections' and figures' keys).
_FACTS = ("campaign_facts", "llm_settings")
_QUALITY = ("reading_share", "small_gap")
GROUPS = {
    "faults": ("faults", "fault_detection", "noisy_calibration", "detection_matrix"),
    "robustness": ("robustness", "wording_spread", "consistency", "repeats"),
    "paired": ("paired", "paired_", "rq1_per_llm"),
}


def _selects(key: str, names: tuple[str, ...]) -> bool:
    """Whether an asked-for key selects a part made under ``names``."""
    if names[0] in GROUPS:
        return key == names[0] or key.startswith(names[1:])
    return key in names


def _table1_note(campaigns: Sequence[CampaignRow], exclude_reading: bool) -> str:
    """How to read Table 1, with the categories' caveats and the degenerate campaigns."""
    return (
        "Score = share of passing cases (a case's score is the share of its passing "
        "repeats). – = not applicable (no case for that environment); err = no reply "
        "at all. Invalid replies count as not passed; errors are excluded. Bold: "
        "prioritised score lower than random (* on the terminal). "
        f"{scores.SMALL_MARK} = fewer than {scores.SMALL_CELL} cases: a rough "
        "estimate (see the intervals below)."
        + "".join(f" Note — {line}" for line in facts.category_caveats(campaigns))
        + "".join(f" Caveat — {line}" for line in case_quality.degenerate_notes(campaigns))
        + (" Reading cases are left out of every score." if exclude_reading else "")
    )


def _rq1_section(results: pd.DataFrame, cells: pd.DataFrame) -> Section:
    tests = prioritization.rq1_tests(results, cells=cells)
    return Section(
        "rq1_wilcoxon",
        "RQ1 — one-sided Wilcoxon signed-rank tests (headline: chance-corrected)",
        tests.drop(columns="conclusion"),
        note=_rq1_note(tests),
    )


def render_text(report: Report, width: int = 250) -> str:
    """Plain text for the terminal, no wider than ``width`` where words allow (aligned tables,
    split into column blocks, or listed row by row when a cell is too wide; prose wrapped;
    escape sequences and control characters removed from every cell, header and note, and once
    more from the whole text)."""
    parts = [*_wrap(_terminal(report.summary), width), ""]
    with pd.option_context("display.width", width, "display.max_columns", 50):
        for section in _shown(report, TEXT):
            table = _display(section.table, _terminal)
            table.columns = _clean_columns(table.columns)
            if section.bold is not None:
                table = _mark(table, section.bold, "{}*")
            parts += [section.title, "=" * len(section.title)]
            parts.append(_table_text(table, width) if len(table) else "(none)")
            if section.note:
                parts += _wrap(_terminal(section.note), width)
            parts.append("")
    return safe_terminal("\n".join(parts))


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    return textwrap.wrap(
        text, width, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False
    ) or [""]


def _joined(label: object) -> str:
    """A (multi-)index label as text: ("State", "Sat.") -> "State / Sat."."""
    return " / ".join(map(str, label)) if isinstance(label, tuple) else str(label)


def _table_text(table: pd.DataFrame, width: int) -> str:
    """The table aligned in blocks of columns that fit ``width``; where one cell alone is wider,
    each row as "row: column = value" lines, wrapped."""
    index = _has_index(table)
    text = table.to_string(index=index, line_width=width)
    if max(map(len, text.splitlines()), default=0) <= width:
        return text
    lines: list[str] = []
    for label, row in table.iterrows():
        if index:
            lines.append(_joined(label))
        for column, value in row.items():
            lines += _wrap(f"  {_joined(column)}: {value}", width, indent="      ")
    return "\n".join(lines)


def _terminal(text: object) -> str:
    """One terminal-safe line: escape sequences dropped, other controls become spaces."""
    return examples.printable(safe_terminal("" if text is None else str(text)))


def _clean_columns(columns: pd.Index) -> pd.Index:
    if isinstance(columns, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(
            [tuple(_terminal(part) for part in c) for c in columns], names=columns.names
        )
    return pd.Index([_terminal(c) for c in columns], name=columns.name)


def render_markdown(report: Report, figure_links: dict[str, str] | None = None) -> str:
    """Markdown with escaped cells; figures linked by relative file name."""
    figure_links = figure_links or {}
    lines = ["# explaincheck report", "", _md_escape(report.summary), ""]
    for section in _shown(report, MARKDOWN):
        lines += [f"## {_md_escape(section.title)}", ""]
        lines += _md_table(section) if len(section.table) else ["(none)"]
        lines.append("")
        if section.note:
            lines += [_md_escape(section.note), ""]
        if section.figure and section.figure in figure_links:
            lines += [f"![{section.figure}]({figure_links[section.figure]})", ""]
    return "\n".join(lines)


def render_html(report: Report, data_files: Sequence[str] = ()) -> str:
    """One self-contained HTML page: escaped tables, figures embedded as base64 SVG, and
    links to ``data_files`` (the exported executions, beside the page)."""
    body = [
        "<h1>explaincheck report</h1>",
        f"<p>{html.escape(report.summary)}</p>",
    ]
    if data_files:
        links = " · ".join(
            f'<a href="{html.escape(name)}">{html.escape(name)}</a>' for name in data_files
        )
        body.append(f'<p class="note">Every execution, one record each: {links}</p>')
    for section in _shown(report, HTML):
        body.append(f'<h2 id="{html.escape(section.key)}">{html.escape(section.title)}</h2>')
        body.append(
            f'<div class="scroll">{_html_table(section)}</div>'
            if len(section.table)
            else "<p>(none)</p>"
        )
        if section.note:
            body.append(f'<p class="note">{html.escape(section.note)}</p>')
        if section.figure and section.figure in report.figures:
            data = base64.b64encode(figure_bytes(report.figures[section.figure], "svg"))
            alt = html.escape(section.figure)
            body.append(
                f'<figure><img alt="{alt}" src="data:image/svg+xml;base64,{data.decode()}">'
                "</figure>"
            )
    return _HTML_PAGE.format(body="\n".join(body))


def write_report(
    report: Report, out_dir: Path, fmt: str = MARKDOWN, data_files: Sequence[str] = ()
) -> list[Path]:
    """Write the figures (PNG and SVG) and the tables in ``fmt``; return the files written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    links = {}
    for key, figure in report.figures.items():
        for kind in ("png", "svg"):
            path = out_dir / f"{key}.{kind}"
            write_bytes_atomically(path, figure_bytes(figure, kind))
            written.append(path)
        links[key] = f"{key}.png"
    if fmt == MARKDOWN:
        path = out_dir / "report.md"
        write_text_atomically(path, render_markdown(report, links))
        written.append(path)
    elif fmt == HTML:
        path = out_dir / "report.html"
        write_text_atomically(path, render_html(report, data_files))
        written.append(path)
    else:
        for section in _shown(report, CSV):
            path = out_dir / f"{section.key}.csv"
            table = csv_frame(section.table)
            write_atomically(path, lambda out, t=table: t.to_csv(out, index=False), binary=False)
            written.append(path)
    return written


def figure_bytes(figure: Figure, kind: str) -> bytes:
    """A figure as PNG or SVG bytes (no file, no pyplot)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format=kind, dpi=DPI, metadata=_METADATA[kind])
    return buffer.getvalue()


def csv_frame(table: pd.DataFrame) -> pd.DataFrame:
    """A flat frame for CSV: index as columns, one header row, formula-like text defused."""
    flat = table.copy()
    if isinstance(flat.columns, pd.MultiIndex):
        flat.columns = [column[-1] for column in flat.columns]
    if any(name is not None for name in flat.index.names):
        flat = flat.reset_index()
    return defused_frame(flat)


_METADATA = {"png": {"Software": None}, "svg": {"Date": None}}


def _prose(selection: object) -> object:
    """A selection in the report's prose: British "prioritised" (the stored value keeps the
    contract spelling ``prioritized``)."""
    return "prioritised" if selection == PRIORITIZED else selection


def _facts_sections(campaigns: Sequence[CampaignRow], results: pd.DataFrame) -> list[Section]:
    """The campaign facts and the LLM settings, first in every format."""
    if not campaigns:
        return []
    return [
        Section(
            "campaign_facts",
            "Campaign facts",
            facts.campaign_facts(campaigns),
            note=f"Report made by explaincheck {software_version()} on {now()[:10]}.",
        ),
        Section(
            "llm_settings",
            "LLMs and their settings",
            facts.llm_settings(results),
            note="hosts without credentials; options as sent with every request.",
        ),
    ]


def _quality_sections(results: pd.DataFrame, excluded: bool) -> list[Section]:
    """Per cell, the share of reading cases and the cases decided by less than 0.01."""
    return [
        Section(
            "reading_share",
            "Share of reading cases per cell"
            + (" (left out of every score here)" if excluded else ""),
            case_quality.reading_table(results),
            note=(
                "A reading case holds a state whose words give a failure away (an absorbing"
                " failure, an unsafe-labelled state): it is answered by reading, not by"
                " reasoning (docs/method.md §4). ? = stored before cases were marked."
                " `report --exclude-reading` leaves them out of the scores."
            ),
        ),
        Section(
            "small_gap",
            f"Cases whose deciding difference is below {SMALL_GAP:g}",
            case_quality.small_gap_table(results),
            note=(
                "The value difference that decides a pair, a ranking or a best/worst case;"
                " below 0.01 no explainer can be expected to resolve it. `run --min-gap G`"
                " leaves such cases out."
            ),
        ),
    ]


def _chance_section(results: pd.DataFrame, cells: pd.DataFrame) -> list[Section]:
    """Random baseline against chance, when the baseline ran and the schemas are stored."""
    if BASELINE_LLM not in set(results["llm"]) or "schema" not in results.columns:
        return []
    return [
        Section(
            "chance",
            f"The {BASELINE_LLM} baseline against chance",
            chance.chance_table(results, cells=cells),
            note=(
                "chance = expected score of a uniform random answer on the same cases (from the "
                f"stored schema and expected answer); score = the {BASELINE_LLM} answerer's. "
                "Means over environments; all = mean over categories."
            ),
        )
    ]


def _fault_sections(results: pd.DataFrame, figures: dict[str, Figure]) -> list[Section]:
    """Fault detection with the reference explainers (flaw:..., noisy:Q), when they ran. APFD
    needs the whole candidate pool, which a database does not hold: ``explaincheck faults``."""
    from explaincheck.core.analysis.fault_detection import fault_sections

    sections, found = fault_sections(results)
    figures.update(found)
    return sections


def _robustness_sections(results: pd.DataFrame) -> list[Section]:
    """Wording spread, metamorphic consistency and repeat stability, where the run has them."""
    found = []
    wordings = robustness.wording_table(results)
    if len(wordings) and len([c for c in wordings.columns if c.startswith("wording")]) > 1:
        found.append(
            Section(
                "wording_spread",
                "Robustness — score under each wording of the question",
                wordings,
                note=(
                    "Score per LLM and category (pooled over environments and selections, "
                    "metamorphic variants left out) for each phrasing of the question; all "
                    "phrasings have the same oracle answer. spread = max − min: a large spread "
                    "means the score measures the wording more than the explainer."
                ),
            )
        )
    consistency = robustness.consistency_table(results)
    if len(consistency):
        found.append(
            Section(
                "consistency",
                "Robustness — metamorphic consistency",
                consistency,
                note=(
                    "consistency = share of case families (a case and its variants, same LLM "
                    "and repeat) whose answers all agree once the transformation is undone "
                    "(swap: the answer letter swaps; rename: new letters for the same states; "
                    "actions / subset_order: listed in reverse). Per variant: share agreeing "
                    "with the untransformed case. Independent of correctness: a model can be "
                    "consistently wrong."
                ),
            )
        )
    repeats = robustness.repeat_table(results)
    if len(repeats):
        found.append(
            Section(
                "repeats",
                "Robustness — agreement between repeats",
                repeats,
                note=(
                    "Cases asked k times (temperature > 0). agreement = share of cases whose k "
                    "answers all agree; score = mean share of passing repeats; majority_vote = "
                    "share of cases where more than half of the repeats pass; pass^k = all k "
                    "pass; pass@k = at least one passes."
                ),
            )
        )
    return found


def _paired_sections(results: pd.DataFrame, cells: pd.DataFrame) -> list[Section]:
    """Paired comparison of every two LLMs under test, Wilson intervals per cell, RQ1 per LLM."""
    found = []
    family = paired.compare_family(results, paired.compared_llms(results))
    members = sum(int((t.index != paired.OVERALL).sum()) for t in family.values())
    for (llm_a, llm_b), table in family.items():
        survivors = [c for c in table.index if c != paired.OVERALL and table.at[c, "significant"]]
        overall = (
            f"overall p = {table.at[paired.OVERALL, 'p_mcnemar']:.3g} "
            f"(Holm {table.at[paired.OVERALL, 'p_holm']:.3g})"
            if paired.OVERALL in table.index
            else "no overall pairs"
        )
        found.append(
            Section(
                f"paired_{_slug(llm_a)}_vs_{_slug(llm_b)}",
                f"Paired comparison — a = {llm_a} vs b = {llm_b}",
                _p_text(table, ("p_mcnemar", "p_holm")),
                note=(
                    "Pairs = distinct cases answered by both: each side's repeats (and the same "
                    "question under both selections) are aggregated into one score per case "
                    "first, so a case counts once; errors are left out. Wilson 95% interval per "
                    "score; difference a − b with a paired bootstrap (BCa) 95% CI; McNemar's "
                    "exact test on the discordant cases (a_only, b_only: a or b scores higher; "
                    "with repeats the sign test of the per-case differences); p_holm = Holm over "
                    f"the whole family of {members} (LLM pair, category) tests of this report "
                    f"(the overall rows: Holm over the {len(family)} LLM pair(s)). Differences "
                    f"that survive Holm at 0.05: {', '.join(survivors) if survivors else 'none'}"
                    f"; {overall}."
                ),
            )
        )
    # per-cell Wilson intervals: the table1_intervals section (over cases, as Table 1 scores)
    rq1 = paired.rq1_per_llm(results, cells=cells)
    if len(rq1) and (rq1["cells"] > 0).any():
        found.append(
            Section(
                "rq1_per_llm",
                "RQ1 per LLM — prioritisation effect with effect size",
                _p_text(rq1, ("wilcoxon_p", "corrected_p")).rename(
                    columns={"prioritized": "prioritised"}
                ),
                note=(
                    "prioritised / random = pooled pass rate of each selection; cohens_h = "
                    "Cohen's h between them (negative: prioritised cases are harder; |h| 0.2 "
                    "small, 0.5 medium, 0.8 large); wilcoxon_p = the paper's one-sided "
                    "Wilcoxon over the LLM's comparable cells (– with fewer than 5 untied "
                    "cells); corrected_p = the same test on chance-corrected case scores, "
                    "corrected_difference its mean prioritised − random with a 95% bootstrap "
                    "interval over (environment, category) clusters. role: under test, or "
                    "negative control (random, noisy:Q: corrected_p must be ≥ 0.05), or "
                    "reference (flaw:...)."
                ),
            )
        )
    return found


def _rq1_note(tests: pd.DataFrame) -> str:
    """What the RQ1 rows are, the headline's conclusion and the negative controls beside it."""
    headline = tests.loc[prioritization.HEADLINE]
    return (
        "Headline: each case scored (score − chance) / (1 − chance) with its exact chance, over "
        "the answerers under test (random, oracle, noisy:Q and flaw:... left out): "
        f"{headline['conclusion']}. "
        + prioritization.controls_sentence(tests)
        + " The paper's test scores cases uncorrected over every answerer but the oracle; for "
        "best and worst action δ = 1 − chance, so it finds prioritised cases harder to *guess* "
        "even for the random answerer. mean_difference = prioritised − random over the cells "
        "(negative: prioritised harder), ci = 95% bootstrap over (environment, category) "
        "clusters: cells of different LLMs share their cases, so they are not independent "
        "(the p-values treat them as if they were)."
    )


def _cost_sections(results: pd.DataFrame) -> list[Section]:
    """Cost per LLM and category, when replies were timed."""
    if "latency" not in results.columns or "prompt_tokens" not in results.columns:
        return []
    table = cost.cost_table(results)
    if table.empty:
        return []
    return [
        Section(
            "cost",
            "Cost per execution",
            table,
            note=(
                "Generated replies only (cached replies and errors left out). seconds_each = "
                "mean wall time per reply; tokens = mean per reply; tokens_per_second = "
                "generated tokens / wall time. A campaign of N executions takes about N × "
                "seconds_each per LLM (cost.campaign_seconds)."
            ),
        )
    ]


def _money_sections(results: pd.DataFrame) -> list[Section]:
    """Money per LLM and for the campaign, when a price table applies (``--price``)."""
    from explaincheck.core.analysis.prices import money, money_table

    table = money_table(results)
    if table.empty:
        return []
    table["cost"] = table["cost"].map(money)  # 4 places: a reply costs fractions of a cent
    return [
        Section(
            "money",
            "Cost in money per LLM",
            table,
            note=(
                "From the stored token counts and the price table (per million prompt and "
                "completion tokens; reasoning tokens are part of the completion). Cached "
                "replies cost 0; replies without token counts are left out."
            ),
        )
    ]


def _p_text(table: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """p-values shown with 3 significant digits (the generic cell format rounds to 2 places)."""
    shown = table.copy()
    for column in columns:
        shown[column] = ["–" if pd.isna(v) else f"{float(v):.3g}" for v in shown[column].tolist()]
    return shown


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text)


def _summary(results: pd.DataFrame, counts: pd.DataFrame) -> str:
    environments = results["environment"].nunique()
    llms = ", ".join(sorted(map(str, results["llm"].unique())))
    errors = int(counts["errors"].sum()) if len(counts) else 0
    from explaincheck.core.plural import counted

    return (
        f"{counted(len(results), 'execution')} over {counted(environments, 'environment')};"
        f" LLMs: {llms}; {counted(errors, 'error')} excluded from scores."
    )


def _shown(report: Report, fmt: str) -> list[Section]:
    return [s for s in report.sections if fmt in s.formats]


def _display(table: pd.DataFrame, clean: Callable[[object], str]) -> pd.DataFrame:
    """Numbers rounded for reading, labels shortened, untrusted text passed through ``clean``."""
    shown = table.copy()
    if isinstance(shown.columns, pd.MultiIndex) and "category" in shown.columns.names:
        shown.columns = pd.MultiIndex.from_tuples(
            [(d, category_label(c)) for d, c in shown.columns], names=shown.columns.names
        )
    for column in shown.columns:
        shown[column] = [_cell(column, value, clean) for value in shown[column]]
    shown.index = shown.index.map(
        lambda v: tuple(clean(x) for x in v) if isinstance(v, tuple) else clean(v)
    )
    if not isinstance(shown.columns, pd.MultiIndex):  # a header is prose (CSV keeps the value)
        shown.columns = pd.Index([_prose(c) for c in shown.columns], name=shown.columns.name)
    return shown


def _cell(column: object, value: object, clean: Callable[[object], str]) -> str:
    """One displayed value: counts as integers, p-values with 3 digits, scores with 2."""
    name = column[-1] if isinstance(column, tuple) else column
    if value is None:
        return "–"
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        number = float(value)
        if math.isnan(number):
            return "–"
        if name in _COUNT_COLUMNS and number.is_integer():
            return str(int(number))
        return f"{number:.3g}" if name == "p_value" else f"{number:.2f}"
    return clean(value)


_COUNT_COLUMNS = {"cells", "untied", "cases", "answered", "environments", "executions", "errors"}


def _md_escape(text: object) -> str:
    return (
        html.escape(examples.printable(text), quote=False)
        .replace("|", "\\|")
        .replace("*", "\\*")
        .replace("_", "\\_")
        .replace("`", "\\`")
        .replace("[", "\\[")
    )


def _md_table(section: Section) -> list[str]:
    table = _display(section.table, examples.printable)
    index_names = [n or "" for n in table.index.names] if _has_index(table) else []
    headers = index_names + _flat_headers(table)
    lines = ["| " + " | ".join(_md_escape(h) for h in headers) + " |"]
    lines.append("|" + "|".join("---" for _ in headers) + "|")
    for r, (key, row) in enumerate(
        zip(_sparse_index(table), table.itertuples(index=False), strict=True)
    ):
        cells = [_md_escape(v) for v in row]
        if section.bold is not None:
            cells = [_bold_md(c, section.bold.iat[r, i]) for i, c in enumerate(cells)]
        lines.append("| " + " | ".join([*map(_md_escape, key), *cells]) + " |")
    return lines


def _mark(table: pd.DataFrame, bold: pd.DataFrame, pattern: str) -> pd.DataFrame:
    """The prioritised part of each marked "p/r" cell rewritten with ``pattern``."""
    marked = table.copy()
    for r in range(len(marked)):
        for c in range(marked.shape[1]):
            cell = marked.iat[r, c]
            if bold.iat[r, c] and "/" in cell:
                first, rest = cell.split("/", 1)
                marked.iat[r, c] = pattern.format(first) + "/" + rest
    return marked


def _bold_md(cell: str, bold: bool) -> str:
    if not bold or "/" not in cell:
        return cell
    first, rest = cell.split("/", 1)
    return f"**{first}**/{rest}"


def _html_table(section: Section) -> str:
    table = _display(section.table, str)
    rows = []
    index_names = [n or "" for n in table.index.names] if _has_index(table) else []
    if isinstance(table.columns, pd.MultiIndex):
        groups = _column_groups([c[0] for c in table.columns])
        top = "<th></th>" * len(index_names)
        top += "".join(
            f'<th colspan="{span}">{html.escape(str(name))}</th>' for name, span in groups
        )
        rows.append(f"<tr>{top}</tr>")
    header = [
        *index_names,
        *(str(c[-1]) if isinstance(c, tuple) else str(c) for c in table.columns),
    ]
    rows.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
    for r, (key, row) in enumerate(
        zip(_sparse_index(table), table.itertuples(index=False), strict=True)
    ):
        cells = [f"<th>{html.escape(str(k))}</th>" for k in key]
        for i, value in enumerate(row):
            text = html.escape(str(value))
            if section.bold is not None and section.bold.iat[r, i] and "/" in text:
                first, rest = text.split("/", 1)
                text = f"<b>{first}</b>/{rest}"
            cells.append(f"<td>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    kind = ' class="facts"' if section.key in _FACT_SECTIONS else ""
    return f"<table{kind}>\n" + "\n".join(rows) + "\n</table>"


_FACT_SECTIONS = frozenset({"campaign_facts", "llm_settings"})


def _has_index(table: pd.DataFrame) -> bool:
    return any(name is not None for name in table.index.names)


def _flat_headers(table: pd.DataFrame) -> list[str]:
    """Column headers; for grouped columns the group name prefixes its first column."""
    if not isinstance(table.columns, pd.MultiIndex):
        return [str(c) for c in table.columns]
    headers, previous = [], None
    for group, name in ((c[0], c[-1]) for c in table.columns):
        headers.append(f"{group} · {name}" if group and group != previous else str(name))
        previous = group
    return headers


def _sparse_index(table: pd.DataFrame) -> list[tuple[str, ...]]:
    """Index labels with a repeated leading level blanked, as pandas prints them."""
    if not _has_index(table):
        return [() for _ in range(len(table))]
    keys, previous = [], None
    for value in table.index:
        key = value if isinstance(value, tuple) else (value,)
        shown = tuple(
            ""
            if previous is not None and i < len(key) - 1 and key[: i + 1] == previous[: i + 1]
            else str(part)
            for i, part in enumerate(key)
        )
        keys.append(shown)
        previous = key
    return keys


def _column_groups(names: list[str]) -> list[tuple[str, int]]:
    groups: list[tuple[str, int]] = []
    for name in names:
        if groups and groups[-1][0] == name:
            groups[-1] = (name, groups[-1][1] + 1)
        else:
            groups.append((name, 1))
    return groups


# No scripts, no requests: a page that shows untrusted text can run nothing and fetch nothing
# (the report's; the teaching handout, core/workbench/handout.py, carries the same).
CSP_META = """<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">"""

_HTML_PAGE = (
    """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
"""
    + CSP_META
    + """
<title>explaincheck report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 2em; max-width: 80em;
        color: #222; }}
.scroll {{ overflow-x: auto; }}
table {{ border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }}
table.facts th, table.facts td {{ text-align: left; }}
th, td {{ border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }}
th {{ background: #f2f2f2; }}
td {{ font-variant-numeric: tabular-nums; white-space: pre-wrap; }}
.note {{ color: #555; font-size: 0.9em; }}
figure {{ margin: 1em 0; overflow-x: auto; }}
figure img {{ max-width: none; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""
)
