"""Figures from a results frame: the Table 1 heatmap and the category-difficulty chart.

Each function returns a ``matplotlib.figure.Figure`` built without pyplot, so no global state or
GUI backend is touched: the CLI saves it (PNG/SVG) and the Qt report view embeds the same object.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from explaincheck.core.analysis import scores
from explaincheck.core.analysis.difficulty import category_difficulty
from explaincheck.core.analysis.examples import printable
from explaincheck.core.analysis.layout import (
    CEILING_LLM,
    DIMENSION_COLOURS,
    DIMENSION_LABELS,
    OTHER_COLOUR,
    category_label,
    category_name,
    dimension_label,
    dimension_of,
    environment_label,
    order_llms,
)
from explaincheck.core.analysis.scores import score_matrix, selections_present, table1
from explaincheck.core.taxonomy.base import PRIORITIZED

NO_DATA = "no scored results"


def table1_heatmap(results: pd.DataFrame, cells: pd.DataFrame | None = None) -> Figure:
    """Table 1 as a heatmap: colour = score (mean of the selections), text = the table cell;
    ``cells``: ``cell_scores(results)`` if computed already."""
    cells = scores.cells_for(results, cells)
    text = table1(results, cells)
    values = score_matrix(results, cells=cells).to_numpy(dtype=float)
    rows, cols = values.shape
    if rows == 0:
        return _empty(NO_DATA)
    # Sizes in points, for a figure shown at 100 %: cell text 9 pt = 12 px (readable).
    # 11 columns of "0.25/0.50" fit 1,200 px (a 1280 px window) without scaling the text.
    cell_width = 0.78 if len(selections_present(results)) > 1 else 0.5
    fig = Figure(figsize=(3.2 + cell_width * cols, 1.9 + 0.36 * rows), layout="constrained")
    ax = fig.add_subplot()
    cmap = colormaps["RdYlGn"].with_extremes(bad="#e6e6e6")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    for r in range(rows):
        for c in range(cols):
            value = values[r, c]
            colour = "#333333" if np.isnan(value) else _ink(cmap(value))
            ax.text(c, r, text.iat[r, c], ha="center", va="center", fontsize=9, color=colour)
    categories = [category for _, category in text.columns]
    ax.set_xticks(range(cols), [category_label(c) for c in categories], fontsize=9)
    ax.set_yticks(
        range(rows),
        [printable(f"{environment_label(env)} · {llm}") for env, llm in text.index],
        fontsize=9,
    )
    ax.tick_params(length=0)
    _dimension_header(ax, [d for d, _ in text.columns])
    environments = [env for env, _ in text.index]
    for r in range(1, rows):
        if environments[r] != environments[r - 1]:
            ax.axhline(r - 0.5, color="white", linewidth=2.5)
    shown = ["prioritised" if s == PRIORITIZED else s for s in selections_present(results)]
    selections = "/".join(shown) or "none"
    title = (
        f"Scores per category ({selections}); colour: mean over selections; "
        f"{scores.SMALL_MARK} fewer than {scores.SMALL_CELL} cases"
    )
    marked = cells["degenerate"].astype(str) != "" if "degenerate" in cells.columns else None
    if marked is not None and marked.any():
        counted = "counted" in cells.columns and cells.loc[marked, "counted"].astype(bool).all()
        where = "counted in Avg." if counted else "out of Avg."
        title += f"; {scores.DEGENERATE_MARK} measures nothing on that model ({where})"
    # wrapped to the figure: a table of few columns is narrower than the title in one line
    ax.set_title(textwrap.fill(title, width=_title_chars(fig, 10)), fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8, label="score")
    return fig


def difficulty_chart(
    results: pd.DataFrame,
    exclude: Iterable[str] = (CEILING_LLM,),
    cells: pd.DataFrame | None = None,
) -> Figure:
    """Figure 3: mean score per category, hardest at the top, bars coloured by dimension."""
    difficulty = category_difficulty(results, exclude, cells)
    if difficulty.empty:
        return _empty(NO_DATA)
    fig = Figure(figsize=(6.4, 1.5 + 0.36 * len(difficulty)), layout="constrained")
    ax = fig.add_subplot()
    colours = [DIMENSION_COLOURS.get(d, OTHER_COLOUR) for d in difficulty["dimension"]]
    positions = np.arange(len(difficulty))
    ax.barh(positions, difficulty["score"], color=colours)
    for y, score, cells in zip(positions, difficulty["score"], difficulty["cells"], strict=True):
        ax.text(score + 0.01, float(y), f"{score:.2f}  ({cells} cells)", va="center", fontsize=9)
    ax.set_yticks(positions, [category_name(c) for c in difficulty["category"]], fontsize=9)
    ax.invert_yaxis()  # hardest first, at the top
    ax.set_xlim(0.0, 1.25)
    ax.set_xticks(np.linspace(0, 1, 6))
    ax.set_xlabel("mean score (lower is harder)")
    ax.spines[["top", "right"]].set_visible(False)
    shown = dict(zip(difficulty["dimension"], difficulty["dimension_label"], strict=True))
    order = [d for d in DIMENSION_LABELS if d in shown] + sorted(set(shown) - set(DIMENSION_LABELS))
    handles = [Patch(color=DIMENSION_COLOURS.get(d, OTHER_COLOUR), label=shown[d]) for d in order]
    fig.legend(
        handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False
    )
    excluded = set(exclude)
    pooled = ", ".join(printable(llm) for llm in order_llms(set(results["llm"]) - excluded))
    left_out = sorted(excluded & set(results["llm"]))
    note = f" ({', '.join(left_out)} left out)" if left_out else ""
    llms = textwrap.fill(f"LLMs: {pooled}{note}", width=70)
    ax.set_title(f"Category difficulty, pooled over both selections\n{llms}", fontsize=10)
    return fig


def _title_chars(fig: Figure, fontsize: float) -> int:
    """About how many characters of a ``fontsize`` title fit across ``fig`` (an average
    character is ~0.6 em wide; the colour bar and margins take a sixth)."""
    width_points = fig.get_size_inches()[0] * 72 * 5 / 6
    return max(24, int(width_points / (0.6 * fontsize)))


def _dimension_header(ax: Axes, dimensions: list[str]) -> None:
    """Dimension names over their column groups, with a white line between the groups."""
    groups: list[tuple[str, int, int]] = []
    for index, dimension in enumerate(dimensions):
        if groups and groups[-1][0] == dimension:
            groups[-1] = (dimension, groups[-1][1], index)
        else:
            groups.append((dimension, index, index))
    top = ax.secondary_xaxis("top")
    top.set_xticks(
        [(first + last) / 2 for _, first, last in groups], [name for name, _, _ in groups]
    )
    top.tick_params(length=0, labelsize=9)
    for _, first, _ in groups[1:]:
        ax.axvline(first - 0.5, color="white", linewidth=2.5)


def _ink(background: tuple[float, float, float, float]) -> str:
    """Black or white text, whichever reads better on the cell colour."""
    red, green, blue = to_rgb(background)
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.5 else "white"


def _empty(message: str) -> Figure:
    fig = Figure(figsize=(5, 2))
    fig.text(0.5, 0.5, message, ha="center", va="center")
    return fig


def detection_heatmap(matrix: pd.DataFrame) -> Figure:
    """Fault-detection matrix: flawed explainers × categories, colour = fail rate (mean of the
    two selections), text = "prioritised/random" fail rates. Red = the category catches the
    flaw often."""
    if matrix.empty:
        return _empty(NO_DATA)
    categories = list(dict.fromkeys(c for c, _ in matrix.columns))
    values = np.array(
        [
            [
                matrix.loc[llm, [c for c in matrix.columns if c[0] == cat]].mean()
                for cat in categories
            ]
            for llm in matrix.index
        ],
        dtype=float,
    )
    rows, cols = values.shape
    fig = Figure(figsize=(2.8 + 0.95 * cols, 1.7 + 0.42 * rows), layout="constrained")
    ax = fig.add_subplot()
    cmap = colormaps["Reds"].with_extremes(bad="#e6e6e6")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    for r, llm in enumerate(matrix.index):
        for c, category in enumerate(categories):
            pair = [
                matrix.at[llm, (category, s)]
                for s in ("prioritized", "random")
                if (category, s) in matrix.columns
            ]
            text = "/".join("–" if np.isnan(v) else f"{v:.2f}" for v in pair)
            colour = "#333333" if np.isnan(values[r, c]) else _ink(cmap(values[r, c]))
            ax.text(c, r, text, ha="center", va="center", fontsize=7, color=colour)
    ax.set_xticks(range(cols), [category_label(c) for c in categories], fontsize=8)
    ax.set_yticks(range(rows), list(matrix.index), fontsize=8)
    ax.tick_params(length=0)
    _dimension_header(ax, [dimension_label(dimension_of(c)) for c in categories])
    ax.set_title(
        "Which questions catch which flaw: fail rate (prioritised/random), over environments",
        fontsize=9,
    )
    fig.colorbar(image, ax=ax, shrink=0.8, label="fail rate (mean of selections)")
    return fig


def calibration_curve(table: pd.DataFrame) -> Figure:
    """noisy:Q calibration: measured score against Q, next to the expected Q + (1 − Q)·chance
    and the chance level; ``table`` is indexed by Q with score, chance and expected."""
    if table.empty:
        return _empty(NO_DATA)
    shares = table.index.to_numpy(dtype=float)
    fig = Figure(figsize=(5.2, 3.8), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(
        shares,
        table["expected"],
        color="#999999",
        linestyle="--",
        marker="",
        label="expected: Q + (1 − Q)·chance",
    )
    ax.plot(shares, table["score"], color="#0072B2", marker="o", label="measured score")
    ax.axhline(
        float(table["chance"].mean()),
        color="#E69F00",
        linestyle=":",
        label=f"chance ({float(table['chance'].mean()):.2f})",
    )
    for q, score in zip(shares, table["score"], strict=True):
        ax.annotate(
            f"{score:.2f}", (q, score), textcoords="offset points", xytext=(6, -12), fontsize=8
        )
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(0.0, 1.05)
    ax.set_xticks(shares)
    ax.set_xlabel("Q (share of oracle answers)")
    ax.set_ylabel("mean score")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    ax.set_title("noisy:Q calibration: the score should follow the expected line", fontsize=10)
    return fig
