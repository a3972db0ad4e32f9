"""The Campaign tab's "about N min" before Run, priced at the rates measured in the open
results file and by earlier runs on this machine (read again when another file opens, and at
most every few seconds while a campaign adds rows). The arithmetic is
``gui/campaign_estimate``'s; this only follows the page's set-up and the file."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel

from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.campaign_categories import CategoryBox
from explaincheck.gui.views.campaign_form import SelectionForm


class EstimatedPage(Protocol):
    """What the line reads of the Campaign tab (``CampaignView``, which builds the line: a
    protocol, so this module does not import the page that imports it)."""

    estimate_text: QLabel
    form: SelectionForm
    category_box: CategoryBox

    def selected_llms(self) -> list[str]: ...


class EstimateLine(QObject):
    """Writes the estimate into the run bar's ``estimate_text``."""

    def __init__(self, page: Any, tasks: Tasks) -> None:
        super().__init__(page)
        self.page: EstimatedPage = page
        self.tasks = tasks
        self.rates: dict[str, float] = {}  # measured seconds per answer, from the results file
        self.ollama_concurrency = 4
        self._results: Any = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(3000)
        self._timer.timeout.connect(self._reread)

    def watch_results(self, results: Any) -> None:
        """Follow ``results`` (``ResultsData``): a new file, or rows arriving from a run."""
        self._results = results
        results.reset.connect(self._reread)
        results.rows_added.connect(lambda *_: self._timer.isActive() or self._timer.start())

    def _reread(self) -> None:
        self.tasks.start(self._read_rates(), "measured rates")

    async def _read_rates(self) -> None:
        from explaincheck.core.workspace.presentation.campaign_estimate import known_rates

        self.set_rates(await in_thread(known_rates, list(self._results.rows)))

    def set_rates(self, rates: dict[str, float]) -> None:
        """Measured seconds per answer per LLM (from the open results file)."""
        self.rates = dict(rates)
        self.update()

    def update(self, *_args: object) -> None:
        """ "about N min" for the set-up as it stands."""
        from explaincheck.core.workspace.presentation.campaign_estimate import (
            estimate,
            executions_per_llm,
        )

        page = self.page
        llms = page.selected_llms()
        if not llms:
            page.estimate_text.setText("Estimate: choose at least one LLM")
            return
        form = page.form
        per_llm = executions_per_llm(
            len(page.category_box.selected_categories()),
            form.budget.value(),
            2 if form.selection.currentData() == "both" else 1,
            form.repeat.value(),
            form.wording_count(),
            form.metamorphic.isChecked(),
        )
        found = estimate(llms, per_llm, self.rates, self.ollama_concurrency)
        page.estimate_text.setText(found.text)
