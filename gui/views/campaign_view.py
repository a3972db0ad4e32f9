"""The Campaign tab: a set-up page with LLMs, categories, budget and selection; Run and Pause.

A page of its own (not a second dock under the model panel) so every category, the selection
settings and Run with the progress fit without scrolling: two columns on a wide window, one on a
narrow one, with Run and the progress pinned at the bottom.

The page only lays out and joins its parts, each a widget with one job: the LLM picker
(``campaign_llm_box``), the reference explainers (``campaign_references``), the category tree
(``campaign_categories``), the selection and grading form (``campaign_form``), the run bar with
progress and time left (``campaign_run_bar``) and the estimate before Run
(``campaign_estimate_line``). The page hands its set-up over as plain data (``setup()``); the
controller builds the ``Campaign`` from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QBoxLayout, QScrollArea, QVBoxLayout, QWidget

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.workspace.presentation.campaign_cost import CostMeter, CostSettings
from explaincheck.core.workspace.presentation.campaign_setup import (
    CampaignSetupWorkspace,
    CategoryFacts,
)
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.support.tasks import Tasks, in_thread
from explaincheck.gui.views.campaign_categories import CategoryBox
from explaincheck.gui.views.campaign_estimate_line import EstimateLine
from explaincheck.gui.views.campaign_form import SelectionForm, default_database
from explaincheck.gui.views.campaign_llm_box import LlmBox
from explaincheck.gui.views.campaign_references import ReferenceBox
from explaincheck.gui.views.campaign_run_bar import RunBar
from explaincheck.gui.views.llm_choices import LlmChoices

if TYPE_CHECKING:
    from explaincheck.core.workspace.presentation.run_clock import TimeLeft

__all__ = ["CampaignSetup", "CampaignView", "default_database"]


@dataclass(frozen=True)
class CampaignSetup:
    """What the widgets say, as plain data (``campaign_controller.build_campaign`` makes the
    ``Campaign`` of it)."""

    llms: tuple[str, ...]
    categories: tuple[str, ...]
    budget: int
    selection: str
    repeat: int
    seed: int
    wording: str  # "0", "1", "2" or "all"
    metamorphic: bool
    satisfy_rule: str
    tolerance: float
    database: str  # the results file as typed (the default when the box is empty)
    keep_do_nothing: bool = False  # offer do-nothing actions in preference questions


class CampaignView(QWidget):
    """Gives its set-up as plain data; the window runs it through the controller."""

    run_requested = Signal()
    stop_requested = Signal()
    progress_message = Signal(str)  # the progress line, for the window's status bar

    def __init__(
        self, tasks: Tasks, parent: QWidget | None = None, *, answerers: LlmChoices
    ) -> None:
        super().__init__(parent)
        self.tasks = tasks
        self.oracle: OracleResult | None = None
        self.environment: Environment | None = None
        self.pending = False  # a large model waits for the tab to be shown (set_model)
        self.cost_meter = CostMeter()  # tokens and money of this run (prices settings file)
        self.llm_box = LlmBox(self)
        self.references_box = ReferenceBox(answerers, self)
        self.llm_box.offer(answerers)
        self.category_box = CategoryBox(self)
        # the categories' facts on the open model, computed off the GUI thread
        self.workspace = CampaignSetupWorkspace(offload=in_thread)
        self.workspace.ready.connect(self._show_facts)
        self.form = SelectionForm(self)
        self.cost_fields = self.form.cost_fields
        self.run_bar = RunBar(self.cost_fields.lines, self)
        self.estimate = EstimateLine(self, tasks)
        self._name_parts()
        self._build_page()
        self.set_running(False)
        self._connect_signals()
        self.estimate.update()

    def _name_parts(self) -> None:
        """The parts' widgets by the names the window, the tests and the screenshot scripts
        use (each is one widget; the part that owns it builds and reads it)."""
        llm_box, form, bar = self.llm_box, self.form, self.run_bar
        self.llms, self.host, self.host_status = llm_box.llms, llm_box.host, llm_box.host_status
        self.check_button, self.extra_spec = llm_box.check_button, llm_box.extra_spec
        self.openai_host, self.openai_button = llm_box.openai_host, llm_box.openai_button
        self.references = self.references_box.references
        self.noisy_share = self.references_box.noisy_share
        self.categories = self.category_box.categories
        self.category_items = self.category_box.category_items
        self.budget, self.selection, self.repeat = form.budget, form.selection, form.repeat
        self.seed, self.wording, self.metamorphic = form.seed, form.wording, form.metamorphic
        self.behavioural, self.keep_do_nothing = form.behavioural, form.keep_do_nothing
        self.satisfy_rule, self.tolerance = form.satisfy_rule, form.tolerance
        self.database = form.database
        self.run_button, self.pause_button = bar.run_button, bar.pause_button
        self.progress, self.progress_text = bar.progress, bar.progress_text
        self.estimate_text = bar.estimate_text

    def _build_page(self) -> None:
        """Two columns (``resizeEvent`` stacks them on a narrow window) under a heading; they
        scroll, and the run bar stays at the bottom."""
        self.heading = plain_label("Open a model, choose what to ask, and run.")
        heading_font = self.heading.font()
        heading_font.setBold(True)
        self.heading.setFont(heading_font)
        self.heading.setWordWrap(True)
        self.columns = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        left, right = QVBoxLayout(), QVBoxLayout()
        self.columns.addLayout(left, 1)
        self.columns.addLayout(right, 1)
        left.addWidget(self.llm_box)
        right.addWidget(self.category_box, 1)
        # Budget and Selection above the reference explainers: in view on a 1366x768 screen
        left.addWidget(self.form)
        left.addWidget(self.references_box)
        left.addStretch(1)
        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addWidget(self.heading)
        body_layout.addLayout(self.columns, 1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.run_bar)  # Run and the progress never scroll out of sight

    def _connect_signals(self) -> None:
        """Run and Pause; a campaign file chosen; any change to the set-up re-prices."""
        self.run_button.clicked.connect(self.run_requested)
        self.pause_button.clicked.connect(self.stop_requested)
        self.form.open_file_chosen.connect(self.open_campaign_file)
        self.form.save_file_chosen.connect(self.save_campaign_file)
        for signal in (
            self.llms.itemChanged,
            self.references.itemChanged,
            self.categories.itemChanged,
            self.budget.valueChanged,
            self.selection.currentIndexChanged,
            self.repeat.valueChanged,
            self.wording.currentIndexChanged,
            self.metamorphic.toggled,
            self.noisy_share.valueChanged,
        ):
            signal.connect(self.estimate.update)
        # an LLM added (typed or listed from a server) changes no item, so itemChanged is silent
        self.llms.model().rowsInserted.connect(self.estimate.update)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Two columns when there is room, one (scrolling) when there is not."""
        wide = event.size().width() >= 640
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.columns.direction() != direction:
            self.columns.setDirection(direction)
        super().resizeEvent(event)

    # -- the open model ----------------------------------------------------------------------
    def set_model(self, oracle: OracleResult | None, environment: Environment | None) -> None:
        """A new model: grey out the categories that do not apply (computed off the thread)."""
        self.oracle, self.environment = oracle, environment
        self.workspace.watch(oracle)
        if oracle is not None and environment is not None:
            self.heading.setText(
                f"Campaign on {environment.title} ({oracle.model.states} states): choose the "
                "LLMs and categories, then Run (F5)."
            )
        # a large (columnar) model's applicability is Python over every state: it waits until
        # the tab is shown rather than compete with the main graph for the GIL (issue 17)
        self.pending = oracle is not None and oracle.columnar and not self.isVisible()
        if oracle is not None and environment is not None and not self.pending:
            self.tasks.start(self.workspace.refresh(oracle, environment), "categories")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.pending:
            self.set_model(self.oracle, self.environment)

    def _show_facts(self, facts: CategoryFacts) -> None:
        self.category_box.show_applicability(
            facts.oracle, facts.applicability, facts.offers, facts.idle
        )

    # -- the set-up as plain data ------------------------------------------------------------
    def selected_llms(self) -> list[str]:
        """Ticked LLMs, then ticked reference explainers (each spec once)."""
        chosen = self.llm_box.ticked() + self.references_box.reference_specs()
        return list(dict.fromkeys(chosen))

    def setup(self) -> CampaignSetup:
        """The set-up as it stands (applicable ticked categories, ticked LLMs and references)."""
        form = self.form
        return CampaignSetup(
            llms=tuple(self.selected_llms()),
            categories=tuple(self.category_box.selected_categories()),
            budget=form.budget.value(),
            selection=form.selection.currentData(),
            repeat=form.repeat.value(),
            seed=form.seed.value(),
            wording=form.wording.currentData(),
            metamorphic=form.metamorphic.isChecked(),
            satisfy_rule=form.satisfy_rule.currentData(),
            tolerance=form.tolerance.value(),
            database=form.database_path(),
            keep_do_nothing=form.keep_do_nothing.isChecked(),
        )

    def choices(self) -> dict[str, Any]:
        """The set-up as plain data (kept in the settings between sessions)."""
        return {
            **self.llm_box.choices(),
            **self.category_box.choices(),
            **self.references_box.choices(),
            **self.form.choices(),
        }

    def apply_choices(self, choices: dict[str, Any]) -> None:
        """Restore ``choices()`` from an earlier session; unknown or bad entries are skipped."""
        self.llm_box.apply(choices)
        self.category_box.apply(choices)
        self.form.apply(choices)
        self.references_box.apply(choices)

    def save_campaign_file(self, path: str) -> None:
        from explaincheck.core.errors import ExplaincheckError
        from explaincheck.gui.adapters.campaign_files import save_campaign

        env = self.environment.id or self.environment.model_path if self.environment else None
        try:
            save_campaign(path, self.setup(), env, self.choices())
        except OSError as error:
            self.show_message(f"Cannot save {path}: {error.strerror or error}")
            return
        except ExplaincheckError as error:  # a price or limit run --config would refuse
            self.show_message(f"Cannot save {path}: {error}")
            return
        self.show_message(f"Saved the campaign to {path}")

    def open_campaign_file(self, path: str) -> None:
        from explaincheck.core.errors import ExplaincheckError
        from explaincheck.gui.adapters.campaign_files import open_campaign

        try:
            choices, env = open_campaign(path)
        except ExplaincheckError as error:
            self.show_message(str(error))
            return
        if choices.pop("only_llms", False):
            self.llm_box.untick_all()
        self.apply_choices(choices)
        where = f" (for {env})" if env else ""
        self.show_message(f"Opened the campaign {path}{where}")

    # -- a run -------------------------------------------------------------------------------
    def set_running(self, running: bool) -> None:
        if running:
            self.cost_meter.reset()
            self.cost_fields.show_lines([])
        self.cost_fields.set_enabled(not running)
        self.run_bar.set_running(running)

    def start_costs(self, prices: dict, tally: Any) -> None:
        """A run starts with these prices; ``tally``: what its stored executions cost."""
        self.cost_meter.start(prices, tally)
        self.cost_fields.show_lines(self.cost_meter.lines())

    def show_progress(self, progress: Any, time_left: TimeLeft | None = None) -> None:
        """Done/total, pass rate, cost and the time left (per LLM, from ``gui/run_clock``:
        instant baselines would otherwise make a pooled rate promise seconds)."""
        self.cost_meter.add(progress.last)
        self.cost_fields.show_lines(self.cost_meter.lines())
        line = self.run_bar.show_progress(progress, time_left, self.cost_meter.text())
        self.progress_message.emit(line)

    def show_message(self, text: str) -> None:
        """A one-line message where the progress goes (why a run did not start, ...)."""
        self.progress_text.setText(text)

    # -- what the window reads and sets (it never reaches into the widgets) -------------------
    def apply_preferences(self, host: str, concurrency: int) -> None:
        """The Ollama host and concurrency of the Settings dialog (the estimate follows)."""
        self.host.setText(host)
        self.estimate.ollama_concurrency = concurrency
        self.estimate.update()

    def set_budget(self, budget: int) -> None:
        self.budget.setValue(budget)

    def set_database(self, path: str) -> None:
        self.database.setText(path)

    def wants_behavioural(self) -> bool:
        """Whether the behavioural check of the factors cases follows the run."""
        return self.behavioural.isChecked()

    def ollama_host(self) -> str:
        return self.llm_box.ollama_host()

    def openai_base_url(self) -> str:
        return self.llm_box.openai_base_url()

    def cost_settings(self) -> CostSettings:
        """The prices and Stop at cost of the run (an ExplaincheckError if unusable)."""
        return self.cost_fields.settings()

    def watch_results(self, results: Any) -> None:
        """Price the estimate at the rates measured in the open results file."""
        self.estimate.watch_results(results)
