"""A lesson as one self-contained HTML page: Teach steps, a simulator path, a Bellman view.

Escaped like the report (``core/analysis/report.py``): every text, LLM replies included, goes
through ``html.escape`` after control characters are removed, and the page carries the same
Content-Security-Policy (no scripts, no outside requests; the only images are data: URLs).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explaincheck.core.analysis.examples import printable
from explaincheck.core.analysis.report import CSP_META
from explaincheck.core.workbench.bellman import equation_lines

if TYPE_CHECKING:
    from explaincheck.core.taxonomy.teaching import Lesson
    from explaincheck.core.workbench.bellman import BellmanView
    from explaincheck.core.workbench.simulator import Simulation


@dataclass(frozen=True)
class HandoutSection:
    """A titled block: paragraphs, then optional preformatted lines, then a table."""

    title: str
    paragraphs: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()  # shown monospaced (equations, prompts)
    table: tuple[tuple[str, ...], ...] = ()  # the first row is the header
    figure_svg: str | None = field(default=None, repr=False)  # base64 SVG


def _text(value: object) -> str:
    return html.escape(printable(value))


def _section(section: HandoutSection) -> str:
    parts = [f"<h2>{_text(section.title)}</h2>"]
    parts += [f"<p>{_text(p)}</p>" for p in section.paragraphs]
    if section.lines:
        # newlines kept, every line escaped on its own
        body = "\n".join(html.escape(printable(line)) for line in section.lines)
        parts.append(f"<pre>{body}</pre>")
    if section.table:
        head, *rows = section.table
        cells = ["<tr>" + "".join(f"<th>{_text(h)}</th>" for h in head) + "</tr>"]
        cells += ["<tr>" + "".join(f"<td>{_text(c)}</td>" for c in row) + "</tr>" for row in rows]
        parts.append("<table>" + "".join(cells) + "</table>")
    if section.figure_svg:
        data = "".join(ch for ch in section.figure_svg if ch.isalnum() or ch in "+/=")
        parts.append(f'<figure><img alt="figure" src="data:image/svg+xml;base64,{data}"></figure>')
    return "\n".join(parts)


def render_handout(title: str, sections: Sequence[HandoutSection]) -> str:
    body = [f"<h1>{_text(title)}</h1>", *(_section(s) for s in sections)]
    return _PAGE.format(title=_text(title), body="\n".join(body))


_PAGE = (
    """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
"""
    + CSP_META
    + """
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 2em; max-width: 60em;
        color: #222; line-height: 1.4; }}
pre {{ background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }}
table {{ border-collapse: collapse; margin: 0.5em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }}
th {{ background: #f2f2f2; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""
)


def lesson_section(lesson: Lesson) -> HandoutSection:
    """A Teach lesson (``core/taxonomy/teaching.Lesson``): situation, question, answer, why."""
    states = ", ".join(str(s) for s in lesson.case.states)
    return HandoutSection(
        f"{lesson.case.category}: state {states}",
        (lesson.situation, f"Question: {lesson.question}", f"Oracle's answer: {lesson.answer}"),
        tuple(lesson.why),
    )


def path_section(simulation: Simulation) -> HandoutSection:
    """A simulator path (``simulator.Simulation``): its steps and probability."""
    exact = simulation.exact_probability()
    total = f"{simulation.probability():.6g}" + (f" = {exact}" if exact is not None else "")
    rows = [("step", "state", "action", "to", "P", "chosen by")]
    for i, step in enumerate(simulation.taken, 1):
        p = str(step.exact) if step.exact is not None else f"{step.probability:.6g}"
        rows.append(
            (
                str(i),
                str(step.state),
                step.action,
                str(step.successor),
                p,
                step.chosen_by + (", sampled" if step.sampled else ""),
            )
        )
    return HandoutSection(
        f"A path from state {simulation.start} (seed {simulation.seed})",
        (f"Path: {' → '.join(str(s) for s in simulation.path)}", f"Probability: {total}"),
        (),
        tuple(rows),
    )


def bellman_section(view: BellmanView) -> HandoutSection:
    """A Bellman view (``bellman.BellmanView``) as its written-out equation."""
    kind = "exact fractions" if view.exact else "floating point"
    return HandoutSection(
        f"Bellman equation of {view.quantity} at state {view.state}",
        (f"Numbers in {kind}; ◀ marks the optimising actions.",),
        tuple(equation_lines(view)),
    )
