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
    examples,
    plots,
    satisfy,
    scores,
    selfcheck_report,
    stability_report,
)
from explaincheck.core.analysis import report_sections as sections
from explaincheck.core.analysis.layout import category_label
from explaincheck.core.analysis.report_parts import (
    CSV,
    FORMATS,
    HTML,
    MARKDOWN,
    TEXT,
    Report,
    Section,
)
from explaincheck.core.analysis.report_sections import prose as _prose
from explaincheck.core.atomic_files import (
    write_atomically,
    write_bytes_atomically,
    write_text_atomically,
)
from explaincheck.core.csv_text import defused_frame
from explaincheck.core.errors import ExplaincheckError
from explaincheck.core.store import CampaignRow
from explaincheck.core.terminal_text import safe_terminal

DPI = 150


def build_report(
    results: pd.DataFrame,
    tolerance: float = satisfy.DEFAULT_TOLERANCE,
    campaigns: Sequence[CampaignRow] = (),
    exclude_reading: bool = False,
    only: Collection[str] | None = None,
    include_degenerate: bool = False,
) -> Report:
    """Compute all tables and figures of the evaluation (section 6.2 of "Automated Testing of
    LLM-Based Post Hoc Explainers Using Model Checking as an Oracle"; see docs/method.md) from
    a results frame; ``campaigns`` (the file's campaign rows) add the campaign facts;
    ``exclude_reading`` leaves the reading cases (docs/method.md §4) out of every score; the
    cells of a category that measures nothing on its model (``case_quality``: degenerate) are
    marked in Table 1 and left out of its averages, RQ1's headline and the other means unless
    ``include_degenerate``.

    ``only`` names the sections and figures to compute (their keys, or a group of ``GROUPS``,
    whose sections' keys depend on the data); None computes every one. A part asked for is the
    same as in the full report, so a view that shows a few parts computes only those."""
    scores.check_columns(results)
    asked = None if only is None else frozenset(only)
    scored = case_quality.without_reading(results) if exclude_reading else results
    if scored.empty and exclude_reading:
        raise ExplaincheckError("every stored case is a reading case: no score is left")
    scored = case_quality.with_degenerate(scored, campaigns)
    counts = scores.execution_counts(scored)
    cells = scores.cell_scores(scored)  # once per build: every score below is made from it
    cells = cells.assign(counted=include_degenerate | (cells["degenerate"] == ""))
    inputs = sections.ReportInputs(
        scored,
        results,
        cells,
        counts,
        campaigns,
        tolerance,
        exclude_reading,
        include_degenerate=include_degenerate,
    )
    report = Report(summary=sections.summary(scored, counts), figures=inputs.figures)
    figures = {
        "table1_heatmap": lambda: plots.table1_heatmap(scored, cells),
        "difficulty": lambda: plots.difficulty_chart(scored, cells=cells),
    }
    inputs.figures.update({key: make() for key, make in figures.items() if wanted(asked, key)})
    report.sections = [
        section
        for names, make in PARTS
        if asked is None or any(_selects(key, names) for key in asked)
        for section in make(inputs)
        if asked is None or section.key in asked or (names[0] in GROUPS and names[0] in asked)
    ]
    return report


def wanted(asked: frozenset[str] | None, *keys: str) -> bool:
    """Whether a build asked for any of these keys (None asks for all)."""
    return asked is None or not asked.isdisjoint(keys)


# Sections made together. A group's sections have keys that depend on the data (an LLM pair,
# the reference explainers that ran): it is asked for by its name or by any key that starts
# with one of the names after it (the prefixes of its sections' and figures' keys).
GROUPS = {
    "faults": ("faults", "fault_detection", "noisy_calibration", "detection_matrix"),
    "robustness": ("robustness", "wording_spread", "consistency", "repeats"),
    "paired": ("paired", "paired_", "rq1_per_llm"),
}

# The report's parts in their order: the keys a part's sections have (or its group), and the
# one function (report_sections.py) that makes them.
PARTS: list[tuple[tuple[str, ...], Callable[[sections.ReportInputs], list[Section]]]] = [
    (("campaign_facts", "llm_settings"), sections.campaign_facts),
    (("table1",), sections.table1),
    (("table1_intervals",), sections.table1_intervals),
    (stability_report.KEYS, lambda i: stability_report.stability_sections(i.results)),
    (("reading_share", "small_gap"), sections.quality),
    (("invalid_share",), sections.invalid_share),
    (("executions",), sections.executions),
    (("cases",), sections.cases),
    (("rq1_counts",), sections.rq1_counts),
    (("rq1_wilcoxon",), sections.rq1_wilcoxon),
    (("rq1_cells",), sections.rq1_cell_table),
    (("rq2_models",), sections.rq2_models),
    (("rq3_difficulty",), sections.rq3_difficulty),
    (("satisfy_errors",), sections.satisfy_errors),
    (("chance",), sections.chance_baseline),
    (GROUPS["faults"], sections.faults),
    (GROUPS["robustness"], sections.robustness_checks),
    (GROUPS["paired"], sections.paired_llms),
    (("cost",), sections.cost_per_execution),
    (("money",), sections.money_per_llm),
    (("selfcheck",), selfcheck_report.selfcheck),
    (("invalid_examples",), sections.invalid_examples),
    (("cells",), sections.all_cells),
]


def _selects(key: str, names: tuple[str, ...]) -> bool:
    """Whether an asked-for key selects a part made under ``names``."""
    if names[0] in GROUPS:
        return key == names[0] or key.startswith(names[1:])
    return key in names


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
            write_atomically(path, csv_frame(section.table).to_csv, binary=False, index=False)
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
