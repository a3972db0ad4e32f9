"""The parts a report is made of: formats, ``Section`` and ``Report``.

Why apart from report.py: modules that contribute sections (``fault_detection``) build them
without importing the report that reads them, so report.py → fault_detection runs one way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

TEXT, MARKDOWN, CSV, HTML = "text", "md", "csv", "html"
FORMATS = (MARKDOWN, CSV, HTML)
EVERYWHERE = frozenset({TEXT, MARKDOWN, CSV, HTML})


@dataclass
class Section:
    """One titled table of the report, with an optional note and figure beneath it."""

    key: str  # file stem for CSV, anchor for HTML
    title: str
    table: pd.DataFrame
    note: str = ""
    bold: pd.DataFrame | None = None  # True where the prioritised part is shown bold
    figure: str | None = None  # key into Report.figures
    formats: frozenset[str] = EVERYWHERE


@dataclass
class Report:
    summary: str
    sections: list[Section] = field(default_factory=list)
    figures: dict[str, Figure] = field(default_factory=dict)
