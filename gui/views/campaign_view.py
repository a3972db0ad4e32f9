"""The Campaign tab: a set-up page with LLMs, categories, budget and selection; Run and Pause.

A page of its own (not a second dock under the model panel) so every category, the selection
settings and Run with the progress fit without scrolling: two columns on a wide window, one on a
narrow one, with Run and the progress pinned at the bottom.

Categories are grouped by dimension; those that do not apply to the open model are greyed out
with the reason. Ollama models are listed from the host after a connection check (asked of
the window's controller through ``check_requested``). Progress shows done/total, pass rate so
far and the ETA. The view hands its set-up over as plain data (``setup()``); the controller
builds the ``Campaign`` from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.taxonomy.degeneracy import degenerate_categories
from explaincheck.core.taxonomy.registry import applicability
from explaincheck.gui.campaign_cost import CostSettings
from explaincheck.gui.factor_campaign import BEHAVIOURAL_TIP, factors_offer
from explaincheck.gui.safe_text import plain_label
from explaincheck.gui.tasks import Tasks, in_thread
from explaincheck.gui.views.cost_fields import CostFields
from explaincheck.gui.views.llm_choices import LlmChoices

DIMENSION_TITLES = (
    ("state", "State (object)"),
    ("preference", "Preference (object)"),
    ("scope", "Scope"),
    ("mode", "Mode"),
    ("explanation", "Explanation (why)"),
)
NOISY_PREFIX = "noisy:"
WORDING_CHOICES = (("0", "0 (the original question)"), ("1", "1"), ("2", "2"), ("all", "all three"))


DEGENERATE_MARK = "⚠ "  # before a category that measures nothing on this model


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def default_database() -> str:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return str(Path(base or Path.home()) / "results.sqlite")


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


class TimeLeft(Protocol):
    """The per-LLM time left of a running campaign (``core.campaign.eta.EtaEstimator``)."""

    def eta(self) -> float | None: ...

    def per_llm(self) -> dict[str, float | None]: ...


class CampaignView(QWidget):
    """Gives its set-up as plain data; the window runs it through the controller."""

    run_requested = Signal()
    stop_requested = Signal()
    check_requested = Signal(str)  # list the models of this Ollama host (empty: the default)
    openai_check_requested = Signal(str)  # list /v1/models of this OpenAI-compatible server
    progress_message = Signal(str)  # the progress line, for the window's status bar

    def __init__(
        self, tasks: Tasks, parent: QWidget | None = None, *, answerers: LlmChoices
    ) -> None:
        super().__init__(parent)
        self.tasks = tasks
        self.answerers = answerers  # the registered answerers (``gui/backend_choices``)
        self.oracle: OracleResult | None = None
        self.environment: Environment | None = None
        self.reasons: dict[str, str] = {}
        self.wanted_categories: set[str] | None = None  # the user's choice (None: all)
        self._updating = False
        self.pending = False  # a large model waits for the tab to be shown (set_model)
        self.applied: OracleResult | None = None  # the oracle the category rows reflect
        left, right = self._build_columns()
        left.addWidget(self._build_llm_box())
        references = self._reference_box()
        self._offer_answerers()
        right.addWidget(self._build_category_tree(), 1)
        # Budget and Selection above the reference explainers: in view on a 1366x768 screen
        left.addWidget(self._build_settings_form())
        left.addWidget(references)
        left.addStretch(1)
        run_row = self._build_run_row()
        self._build_progress()
        self._build_page(run_row)
        self.set_running(False)
        self._connect_signals()
        self.update_estimate()

    # -- building the page (called once, in this order, by ``__init__``) --------------------
    def _build_columns(self) -> tuple[QVBoxLayout, QVBoxLayout]:
        """The two columns (``resizeEvent`` stacks them on a narrow window) and the heading."""
        self.columns = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        left, right = QVBoxLayout(), QVBoxLayout()
        self.columns.addLayout(left, 1)
        self.columns.addLayout(right, 1)
        self.heading = plain_label("Open a model, choose what to ask, and run.")
        heading_font = self.heading.font()
        heading_font.setBold(True)
        self.heading.setFont(heading_font)
        self.heading.setWordWrap(True)
        return left, right

    def _build_llm_box(self) -> QGroupBox:
        """The LLMs under test, the Ollama host with its Check, and a box to add any spec."""
        llm_box = QGroupBox("LLMs under test")
        llm_layout = QVBoxLayout(llm_box)
        self.llms = QListWidget(self)
        self.llms.setMinimumHeight(90)
        self.llms.setMaximumHeight(160)
        llm_layout.addWidget(self.llms)
        host_row = QHBoxLayout()
        self.host = QLineEdit(self)
        self.host.setPlaceholderText("Ollama host, e.g. http://127.0.0.1:11434")
        host_row.addWidget(self.host, 1)
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("Connect to the Ollama host and list its models")
        self.check_button.clicked.connect(self.check_host)
        host_row.addWidget(self.check_button)
        llm_layout.addLayout(host_row)
        llm_layout.addLayout(self._build_openai_row())
        self.host_status = plain_label("")
        self.host_status.setWordWrap(True)
        llm_layout.addWidget(self.host_status)
        add_row = QHBoxLayout()
        self.extra_spec = QLineEdit(self)
        self.extra_spec.setPlaceholderText(
            "another LLM spec, e.g. ollama:gemma3:1b@http://host:11434"
        )
        self.extra_spec.returnPressed.connect(self._add_spec)
        add_row.addWidget(self.extra_spec, 1)
        add_button = QPushButton("Add")
        add_button.clicked.connect(self._add_spec)
        add_row.addWidget(add_button)
        llm_layout.addLayout(add_row)
        return llm_box

    def _build_openai_row(self) -> QHBoxLayout:
        """An OpenAI-compatible server (vLLM, SGLang, llama-server, LM Studio, Ollama's /v1)
        and the button that lists its models (``/v1/models``) into the LLM list."""
        row = QHBoxLayout()
        self.openai_host = QLineEdit(self)
        self.openai_host.setPlaceholderText(
            "OpenAI-compatible server, e.g. http://gpu1:8000/v1 (key: OPENAI_API_KEY)"
        )
        row.addWidget(self.openai_host, 1)
        self.openai_button = QPushButton("List models")
        self.openai_button.setToolTip("Ask the server for its models (/v1/models)")
        self.openai_button.clicked.connect(self.check_openai)
        row.addWidget(self.openai_button)
        return row

    def check_openai(self) -> None:
        url = self.openai_base_url()
        self.openai_button.setEnabled(False)
        self.host_status.setText(f"Connecting to {url or 'OPENAI_BASE_URL'}…")
        self.openai_check_requested.emit(url)

    def show_openai_models(self, url: str, listing: dict[str, list[str]]) -> None:
        """Add ``openai:MODEL@URL`` for each model the server lists."""
        self.openai_button.setEnabled(True)
        if not listing:
            self.host_status.setText(f"✗ no OpenAI-compatible server answers at {url or '—'}")
            return
        count = 0
        for base, models in listing.items():
            for model in models:
                self._add_llm(f"openai:{model}@{base}", f"openai:{model} ({base})", checked=False)
                count += 1
        self.host_status.setText(f"✓ connected: {count} models listed")

    def show_openai_error(self, url: str, message: str) -> None:
        self.openai_button.setEnabled(True)
        self.host_status.setText(f"✗ {url}: {message}")

    def openai_base_url(self) -> str:
        return self.openai_host.text().strip()

    def _offer_answerers(self) -> None:
        """List the registered answerers that are not reference explainers."""
        for choice in self.answerers.offered:
            if not choice.reference:  # baselines pre-ticked, then the bundled models
                self._add_llm(
                    choice.spec,
                    choice.text,
                    checked=choice.baseline,
                    enabled=choice.enabled,
                    tip=choice.tip,
                )

    def _build_category_tree(self) -> QGroupBox:
        """Categories grouped by dimension, ticked or not."""
        categories_box = QGroupBox("Categories")
        categories_layout = QVBoxLayout(categories_box)
        self.categories = QTreeWidget(self)
        self.categories.setHeaderHidden(True)
        # cut in the middle: "Which state is…(safer)" keeps each category's own end in view
        self.categories.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.categories.setIndentation(14)
        self.categories.setMinimumHeight(200)
        self.category_items: dict[str, QTreeWidgetItem] = {}
        self._fill_categories()
        self.categories.itemChanged.connect(self._category_toggled)
        categories_layout.addWidget(self.categories)
        return categories_box

    def _build_settings_form(self) -> QGroupBox:
        """Budget, repeat and seed, selection, wording, the satisfy rule and the results file."""
        settings_box = QGroupBox("Selection and grading")
        form = QFormLayout(settings_box)
        self._build_budget_rows(form)
        self._build_wording_row(form)
        self._build_rule_row(form)
        self._build_database_row(form)
        self.cost_fields = CostFields(form, self)  # Prices and Stop at cost
        self._build_campaign_file_row(form)
        return settings_box

    def _build_campaign_file_row(self, form: QFormLayout) -> None:
        """Open and save the set-up as a campaign file (``explaincheck run --config``)."""
        row = QHBoxLayout()
        opened = QPushButton("Open…")
        opened.setToolTip("Set the tab from a campaign file (TOML, as run --config reads)")
        opened.clicked.connect(self._open_campaign_file)
        saved = QPushButton("Save…")
        saved.setToolTip("Save this set-up as a campaign file: explaincheck run --config FILE")
        saved.clicked.connect(self._save_campaign_file)
        row.addWidget(opened)
        row.addWidget(saved)
        row.addStretch(1)
        form.addRow("Campaign file:", row)

    def _save_campaign_file(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save campaign file", "campaign.toml", "Campaign files (*.toml)"
        )
        if path:
            self.save_campaign_file(path)

    def _open_campaign_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open campaign file", "", "Campaign files (*.toml);;All files (*)"
        )
        if path:
            self.open_campaign_file(path)

    def save_campaign_file(self, path: str) -> None:
        from explaincheck.core.errors import ExplaincheckError
        from explaincheck.gui.campaign_files import save_campaign

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
        from explaincheck.gui.campaign_files import open_campaign

        try:
            choices, env = open_campaign(path)
        except ExplaincheckError as error:
            self.show_message(str(error))
            return
        if choices.pop("only_llms", False):
            for i in range(self.llms.count()):
                self.llms.item(i).setCheckState(Qt.CheckState.Unchecked)
        self.apply_choices(choices)
        where = f" (for {env})" if env else ""
        self.show_message(f"Opened the campaign {path}{where}")

    def _build_budget_rows(self, form: QFormLayout) -> None:
        self.budget = QSpinBox(self)
        self.budget.setRange(1, 10_000)
        self.budget.setValue(20)
        self.budget.setToolTip("Test cases per category and selection")
        self.selection = QComboBox(self)
        for value, text in (
            ("prioritized", "prioritised (by δ)"),
            ("random", "random"),
            ("both", "both"),
        ):
            self.selection.addItem(text, value)
        self.repeat = QSpinBox(self)
        self.repeat.setRange(1, 100)
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        row = QHBoxLayout()
        row.addWidget(self.repeat)
        row.addWidget(plain_label("seed"))
        row.addWidget(self.seed, 1)
        form.addRow("Budget:", self.budget)
        form.addRow("Repeat:", row)
        form.addRow("Selection:", self.selection)

    def _build_wording_row(self, form: QFormLayout) -> None:
        wording_row = QHBoxLayout()
        self.wording = QComboBox(self)
        for value, text in WORDING_CHOICES:
            self.wording.addItem(text, value)
        self.wording.setToolTip("Which phrasing of each question to ask (--wording)")
        self.metamorphic = QCheckBox("Metamorphic variants", self)
        self.metamorphic.setToolTip(
            "Also ask each case swapped, with the actions reordered and the states renamed, "
            "and score whether the answers stay consistent (--metamorphic)"
        )
        wording_row.addWidget(self.wording, 1)
        self.behavioural = QCheckBox("Behavioural check", self)
        self.behavioural.setToolTip(BEHAVIOURAL_TIP)
        also_row = QHBoxLayout()  # a row of their own: the column stays narrow on a laptop
        also_row.addWidget(self.metamorphic)
        also_row.addWidget(self.behavioural)
        also_row.addStretch(1)
        form.addRow("Wording:", wording_row)
        form.addRow("", also_row)

    def _build_rule_row(self, form: QFormLayout) -> None:
        rule_row = QHBoxLayout()
        self.satisfy_rule = QComboBox(self)
        self.satisfy_rule.addItem("|p − V| ≤ tolerance", "absolute")
        self.satisfy_rule.addItem("same side of ½", "half")
        self.tolerance = QDoubleSpinBox(self)
        self.tolerance.setRange(0.0, 1.0)
        self.tolerance.setDecimals(3)
        self.tolerance.setSingleStep(0.01)
        self.tolerance.setValue(0.05)
        self.satisfy_rule.currentIndexChanged.connect(
            lambda _: self.tolerance.setEnabled(self.satisfy_rule.currentData() == "absolute")
        )
        rule_row.addWidget(self.satisfy_rule, 1)
        rule_row.addWidget(self.tolerance)
        self.keep_do_nothing = QCheckBox("Keep do-nothing actions", self)
        self.keep_do_nothing.setToolTip(
            "Offer actions whose every outcome is the state itself (always among the best) in"
            " best/worst/ranking questions; left out by default (--keep-do-nothing)"
        )
        form.addRow("Satisfy:", rule_row)
        form.addRow("Actions:", self.keep_do_nothing)

    def _build_database_row(self, form: QFormLayout) -> None:
        db_row = QHBoxLayout()
        self.database = QLineEdit(self)
        self.database.setText(default_database())
        db_row.addWidget(self.database, 1)
        browse = QPushButton("…")
        browse.setMaximumWidth(30)
        browse.clicked.connect(self._choose_database)
        db_row.addWidget(browse)
        form.addRow("Results file:", db_row)

    def _build_run_row(self) -> QHBoxLayout:
        """Run, Pause and the progress bar, side by side."""
        run_row = QHBoxLayout()
        self.run_button = QPushButton("Run ▶")
        self.run_button.setToolTip("Run the campaign (F5); a stopped one resumes")
        self.run_button.clicked.connect(self.run_requested)
        run_row.addWidget(self.run_button)
        self.pause_button = QPushButton("Pause ❚❚")
        self.pause_button.setToolTip("Stop after the requests in flight; Run resumes")
        self.pause_button.clicked.connect(self.stop_requested)
        run_row.addWidget(self.pause_button)
        self.progress = QProgressBar(self)
        self.progress.setFormat("not started")
        self.progress.setValue(0)
        run_row.addWidget(self.progress, 1)
        return run_row

    def _build_progress(self) -> None:
        """The progress line, the estimate before Run, and what the estimate is priced at."""
        self.progress_text = plain_label("")
        self.progress_text.setWordWrap(True)
        self.estimate_text = plain_label("")
        self.estimate_text.setWordWrap(True)
        self.rates: dict[str, float] = {}  # measured seconds per answer, from the results file
        from explaincheck.gui.campaign_cost import CostMeter

        self.cost_meter = CostMeter()  # tokens and money of this run (prices settings file)
        self.ollama_concurrency = 4

    def _build_page(self, run_row: QHBoxLayout) -> None:
        """The columns scroll; the footer with Run and the progress stays at the bottom."""
        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addWidget(self.heading)
        body_layout.addLayout(self.columns, 1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(body)
        footer = QFrame(self)
        footer.setFrameShape(QFrame.Shape.StyledPanel)
        footer_layout = QVBoxLayout(footer)
        footer_layout.setContentsMargins(6, 4, 6, 4)
        footer_layout.addWidget(self.estimate_text)
        footer_layout.addLayout(run_row)
        footer_layout.addWidget(self.progress_text)
        footer_layout.addWidget(self.cost_fields.lines)  # the cost per LLM
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(scroll, 1)
        layout.addWidget(footer)  # Run and the progress never scroll out of sight

    def _connect_signals(self) -> None:
        """Any change to the set-up prices the estimate again."""
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
            signal.connect(self.update_estimate)

    def resizeEvent(self, event) -> None:
        """Two columns when there is room, one (scrolling) when there is not."""
        wide = event.size().width() >= 640
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.columns.direction() != direction:
            self.columns.setDirection(direction)
        super().resizeEvent(event)

    # -- reference explainers ----------------------------------------------------------------
    def _reference_box(self) -> QGroupBox:
        """Answerers with known flaws, beside the baselines: a campaign that includes them shows
        which categories catch which flaw (docs/fault-detection.md)."""
        box = QGroupBox("Reference explainers (known flaws)")
        layout = QVBoxLayout(box)
        self.references = QListWidget(self)
        self.references.setMinimumHeight(150)
        self.references.setMaximumHeight(220)
        self.references.setWordWrap(True)  # each description stays readable, on its lines
        self.references.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for choice in self.answerers.offered:
            if not choice.reference:
                continue
            text = choice.text
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, choice.spec)
            item.setFlags(
                Qt.ItemFlag.ItemIsUserCheckable
                | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsEnabled
            )
            item.setCheckState(Qt.CheckState.Unchecked)
            item.setToolTip(text)
            self.references.addItem(item)
        self.noisy_item = QListWidgetItem(
            "noisy:Q — the oracle's answer with probability Q, else a random guess"
        )
        self.noisy_item.setData(Qt.ItemDataRole.UserRole, NOISY_PREFIX)
        self.noisy_item.setFlags(self.references.item(0).flags())
        self.noisy_item.setCheckState(Qt.CheckState.Unchecked)
        self.references.addItem(self.noisy_item)
        layout.addWidget(self.references)
        q_row = QHBoxLayout()
        q_row.addWidget(plain_label("noisy Q:"))
        self.noisy_share = QDoubleSpinBox(self)
        self.noisy_share.setRange(0.0, 1.0)
        self.noisy_share.setDecimals(2)
        self.noisy_share.setSingleStep(0.25)
        self.noisy_share.setValue(0.5)
        self.noisy_share.setToolTip("Share of cases the noisy explainer answers like the oracle")
        q_row.addWidget(self.noisy_share)
        q_row.addStretch(1)
        layout.addLayout(q_row)
        return box

    def reference_specs(self) -> list[str]:
        """The ticked reference explainers as LLM specs (``noisy:Q`` with the Q box's value)."""
        specs = []
        for i in range(self.references.count()):
            item = self.references.item(i)
            if item.checkState() != Qt.CheckState.Checked:
                continue
            spec = item.data(Qt.ItemDataRole.UserRole)
            specs.append(
                f"{NOISY_PREFIX}{self.noisy_share.value():g}" if spec == NOISY_PREFIX else spec
            )
        return specs

    def set_reference_checked(self, spec: str, checked: bool) -> None:
        for i in range(self.references.count()):
            item = self.references.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == spec:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def wording_count(self) -> int:
        """Phrasings asked of each question: one, or every single one listed for "all"."""
        return self.wording.count() - 1 if self.wording.currentData() == "all" else 1

    # -- estimate ---------------------------------------------------------------------------
    def watch_results(self, results) -> None:
        """Price the estimate at the rates measured in the open results file (``ResultsData``),
        read again whenever another file is opened."""
        self._results = results
        results.reset.connect(lambda: self.tasks.start(self._read_rates(), "measured rates"))
        # rows arriving from a campaign refine the rates, read at most every few seconds
        self._rates_timer = QTimer(self)
        self._rates_timer.setSingleShot(True)
        self._rates_timer.setInterval(3000)
        self._rates_timer.timeout.connect(
            lambda: self.tasks.start(self._read_rates(), "measured rates")
        )
        results.rows_added.connect(
            lambda *_: self._rates_timer.isActive() or self._rates_timer.start()
        )

    async def _read_rates(self) -> None:
        from explaincheck.gui.campaign_estimate import measured_rates

        self.set_rates(await in_thread(measured_rates, list(self._results.rows)))

    def set_rates(self, rates: dict[str, float]) -> None:
        """Measured seconds per answer per LLM (from the open results file)."""
        self.rates = dict(rates)
        self.update_estimate()

    def update_estimate(self, *_args) -> None:
        """ "about N min" for the set-up as it stands, before Run."""
        from explaincheck.gui.campaign_estimate import estimate, executions_per_llm

        if not hasattr(self, "estimate_text"):
            return
        llms = self.selected_llms()
        if not llms:
            self.estimate_text.setText("Estimate: choose at least one LLM")
            return
        per_llm = executions_per_llm(
            len(self.selected_categories()),
            self.budget.value(),
            2 if self.selection.currentData() == "both" else 1,
            self.repeat.value(),
            self.wording_count(),
            self.metamorphic.isChecked(),
        )
        found = estimate(llms, per_llm, self.rates, self.ollama_concurrency)
        self.estimate_text.setText(found.text)

    # -- LLMs ------------------------------------------------------------------------------
    def _add_llm(
        self, spec: str, text: str, checked: bool, enabled: bool = True, tip: str = ""
    ) -> QListWidgetItem:
        for i in range(self.llms.count()):
            if self.llms.item(i).data(Qt.ItemDataRole.UserRole) == spec:
                return self.llms.item(i)
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, spec)
        flags = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable
        if enabled:
            flags |= Qt.ItemFlag.ItemIsEnabled
        item.setFlags(flags)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        item.setToolTip(tip or spec)
        self.llms.addItem(item)
        return item

    def _add_spec(self) -> None:
        spec = self.extra_spec.text().strip()
        if spec:
            self._add_llm(spec, spec, checked=True)
            self.extra_spec.clear()

    def set_llm_checked(self, spec: str, checked: bool) -> None:
        for i in range(self.llms.count()):
            item = self.llms.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == spec:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def selected_llms(self) -> list[str]:
        """Ticked LLMs, then ticked reference explainers (each spec once)."""
        chosen = [
            self.llms.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.llms.count())
            if self.llms.item(i).checkState() == Qt.CheckState.Checked
            and self.llms.item(i).flags() & Qt.ItemFlag.ItemIsEnabled
        ]
        if not hasattr(self, "references"):
            return chosen
        return list(dict.fromkeys(chosen + self.reference_specs()))

    def check_host(self) -> None:
        """Ask the controller to list the host's models (``show_host_models`` shows them)."""
        host = self.ollama_host()
        self.check_button.setEnabled(False)
        self.host_status.setText(f"Connecting to {host or 'the default host'}…")
        self.check_requested.emit(host)

    def show_host_error(self, host: str, message: str) -> None:
        self.check_button.setEnabled(True)
        self.host_status.setText(f"✗ {host}: {message}")

    def show_host_models(self, host: str, listing: dict[str, list[str]]) -> None:
        """Add the models each answering host lists (``{}``: none answered)."""
        self.check_button.setEnabled(True)
        if not listing:
            self.host_status.setText(f"✗ no Ollama server answers at {host or 'the default host'}")
            return
        count = 0
        for url, models in listing.items():
            for model in models:
                self._add_llm(
                    f"ollama:{model}@{url}" if host else f"ollama:{model}",
                    f"ollama:{model} ({url})",
                    checked=False,
                )
                count += 1
        self.host_status.setText(f"✓ connected: {count} models listed")

    # -- categories ------------------------------------------------------------------------
    def _fill_categories(self) -> None:
        try:
            from explaincheck.core.taxonomy.registry import CATEGORIES
        except ImportError:
            return
        parents: dict[str, QTreeWidgetItem] = {}
        for dimension, title in DIMENSION_TITLES:
            parent = QTreeWidgetItem([title])
            parent.setFlags(
                Qt.ItemFlag.ItemIsEnabled
                | Qt.ItemFlag.ItemIsUserCheckable
                | Qt.ItemFlag.ItemIsAutoTristate
            )
            parent.setCheckState(0, Qt.CheckState.Checked)
            self.categories.addTopLevelItem(parent)
            parents[dimension] = parent
        for category_id, category in CATEGORIES.items():
            parent = parents.get(category.dimension)
            if parent is None:
                continue
            item = QTreeWidgetItem([f"{category.title}  ({category_id})"])
            item.setToolTip(0, f"{category.title}  ({category_id})")
            item.setData(0, Qt.ItemDataRole.UserRole, category_id)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked)
            parent.addChild(item)
            self.category_items[category_id] = item
        self.categories.expandAll()

    def set_model(self, oracle: OracleResult | None, environment: Environment | None) -> None:
        """A new model: grey out the categories that do not apply (computed off the thread)."""
        self.oracle, self.environment = oracle, environment
        if oracle is not None and environment is not None:
            self.heading.setText(
                f"Campaign on {environment.title} ({oracle.model.states} states): choose the "
                "LLMs and categories, then Run (F5)."
            )
        # a large (columnar) model's applicability is Python over every state: it waits until
        # the tab is shown rather than compete with the main graph for the GIL (issue 17)
        self.pending = oracle is not None and oracle.columnar and not self.isVisible()
        if oracle is not None and environment is not None and not self.pending:
            self.tasks.start(self._update_applicability(oracle, environment), "categories")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.pending:
            self.set_model(self.oracle, self.environment)

    async def _update_applicability(self, oracle: OracleResult, environment: Environment) -> None:
        found = await in_thread(applicability, oracle)  # candidates can be costly
        offer = await in_thread(factors_offer, environment, oracle)  # factors: on request
        # degenerate categories from their candidates; a large (columnar) model is left to
        # ``run``, which warns as it plans (making every state's facts here would take seconds)
        idle = {} if oracle.columnar else await in_thread(degenerate_categories, oracle)
        if oracle is not self.oracle:
            return
        self.reasons = {cid: f.reason for cid, f in found.items() if f.reason}
        wanted = self.wanted_categories
        self._updating = True
        for category_id, item in self.category_items.items():
            applies = found[category_id]
            base = item.text(0).split("  —")[0].removeprefix(DEGENERATE_MARK)
            if category_id == "factors" and applies.reason and offer is not None:
                item.setDisabled(False)
                item.setText(0, f"{base}  — {offer.label}")
                item.setToolTip(0, offer.tooltip)
                on = wanted is not None and category_id in wanted
                item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
                continue
            if applies.reason:
                item.setText(0, f"{base}  — not applicable")
                item.setToolTip(0, applies.reason)
                item.setCheckState(0, Qt.CheckState.Unchecked)
                item.setDisabled(True)
                continue
            item.setDisabled(False)
            if applies.caveat:
                item.setText(0, f"{base}  — repeats another category here")
                item.setToolTip(0, f"Left out by default: {applies.caveat}. Tick it to ask anyway.")
                on = wanted is not None and category_id in wanted
                item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            elif category_id in idle:
                item.setText(0, f"{DEGENERATE_MARK}{base}  — measures nothing here")
                item.setToolTip(0, f"Runs, but its cases decide nothing: {idle[category_id]}.")
                on = wanted is None or category_id in wanted
                item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            else:
                item.setText(0, base)
                item.setToolTip(0, base)
                on = wanted is None or category_id in wanted
                item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self._updating = False
        self.applied = oracle

    def _category_toggled(self, item: QTreeWidgetItem, _column: int) -> None:
        """Remember what the user ticks (not what applicability greys out)."""
        category_id = item.data(0, Qt.ItemDataRole.UserRole)
        if self._updating or not category_id or item.isDisabled():
            return
        if self.wanted_categories is None:
            # the first tick the user makes: start from what is shown ticked (greyed-out
            # categories count as wanted, so they come back on a model where they apply)
            self.wanted_categories = {
                cid
                for cid, other in self.category_items.items()
                if other.isDisabled() or other.checkState(0) == Qt.CheckState.Checked
            }
        if item.checkState(0) == Qt.CheckState.Checked:
            self.wanted_categories.add(category_id)
        else:
            self.wanted_categories.discard(category_id)

    def selected_categories(self) -> list[str]:
        return [
            cid
            for cid, item in self.category_items.items()
            if item.checkState(0) == Qt.CheckState.Checked and not item.isDisabled()
        ]

    def set_categories(self, ids: list[str]) -> None:
        self.wanted_categories = set(ids)
        for cid, item in self.category_items.items():
            if not item.isDisabled():
                item.setCheckState(
                    0, Qt.CheckState.Checked if cid in ids else Qt.CheckState.Unchecked
                )

    # -- remembered between sessions --------------------------------------------------------
    def choices(self) -> dict:
        """The set-up as plain data (kept in the settings between sessions)."""
        llms = []
        for i in range(self.llms.count()):
            item = self.llms.item(i)
            checked = item.checkState() == Qt.CheckState.Checked
            llms.append([item.data(Qt.ItemDataRole.UserRole), item.text(), checked])
        wanted = self.wanted_categories
        return {
            "llms": llms,
            "categories": sorted(wanted) if wanted is not None else None,
            "budget": self.budget.value(),
            "selection": self.selection.currentData(),
            "repeat": self.repeat.value(),
            "seed": self.seed.value(),
            "satisfy_rule": self.satisfy_rule.currentData(),
            "tolerance": self.tolerance.value(),
            "database": self.database.text(),
            "references": [
                self.references.item(i).data(Qt.ItemDataRole.UserRole)
                for i in range(self.references.count())
                if self.references.item(i).checkState() == Qt.CheckState.Checked
            ],
            "noisy_share": self.noisy_share.value(),
            "wording": self.wording.currentData(),
            "metamorphic": self.metamorphic.isChecked(),
            "behavioural": self.behavioural.isChecked(),
            "keep_do_nothing": self.keep_do_nothing.isChecked(),
            "openai_host": self.openai_base_url(),
            **self.cost_fields.choices(),
        }

    def apply_choices(self, choices: dict) -> None:
        """Restore ``choices()`` from an earlier session; unknown or bad entries are skipped."""
        for entry in choices.get("llms") or []:
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
                continue
            spec, text, checked = entry
            item = self._add_llm(spec, str(text), checked=bool(checked))
            if item.flags() & Qt.ItemFlag.ItemIsEnabled:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        categories = choices.get("categories")
        if isinstance(categories, list):
            self.wanted_categories = {str(c) for c in categories if str(c) in self.category_items}
            self._updating = True
            for cid, item in self.category_items.items():
                if not item.isDisabled():
                    on = cid in self.wanted_categories
                    item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            self._updating = False
        for key, box in (("budget", self.budget), ("repeat", self.repeat), ("seed", self.seed)):
            if isinstance(choices.get(key), int):
                box.setValue(choices[key])
        for key, combo in (("selection", self.selection), ("satisfy_rule", self.satisfy_rule)):
            index = combo.findData(choices.get(key))
            if index >= 0:
                combo.setCurrentIndex(index)
        if isinstance(choices.get("tolerance"), int | float):
            self.tolerance.setValue(float(choices["tolerance"]))
        if isinstance(choices.get("database"), str) and choices["database"].strip():
            self.database.setText(choices["database"])
        references = choices.get("references")
        if isinstance(references, list):
            for i in range(self.references.count()):
                item = self.references.item(i)
                on = item.data(Qt.ItemDataRole.UserRole) in references
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        if isinstance(choices.get("noisy_share"), int | float):
            self.noisy_share.setValue(float(choices["noisy_share"]))
        index = self.wording.findData(choices.get("wording"))
        if index >= 0:
            self.wording.setCurrentIndex(index)
        if isinstance(choices.get("metamorphic"), bool):
            self.metamorphic.setChecked(choices["metamorphic"])
        if isinstance(choices.get("keep_do_nothing"), bool):
            self.keep_do_nothing.setChecked(choices["keep_do_nothing"])
        if isinstance(choices.get("behavioural"), bool):
            self.behavioural.setChecked(choices["behavioural"])
        if isinstance(choices.get("openai_host"), str):
            self.openai_host.setText(choices["openai_host"])
        self.cost_fields.apply(choices)

    # -- campaign --------------------------------------------------------------------------
    def _choose_database(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Results database",
            self.database.text(),
            "SQLite (*.sqlite *.db);;All files (*)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.database.setText(path)

    def setup(self) -> CampaignSetup:
        """The set-up as it stands (applicable ticked categories, ticked LLMs and references)."""
        return CampaignSetup(
            llms=tuple(self.selected_llms()),
            categories=tuple(self.selected_categories()),
            budget=self.budget.value(),
            selection=self.selection.currentData(),
            repeat=self.repeat.value(),
            seed=self.seed.value(),
            wording=self.wording.currentData(),
            metamorphic=self.metamorphic.isChecked(),
            satisfy_rule=self.satisfy_rule.currentData(),
            tolerance=self.tolerance.value(),
            database=self.database.text().strip() or default_database(),
            keep_do_nothing=self.keep_do_nothing.isChecked(),
        )

    def set_running(self, running: bool) -> None:
        if running:
            self.cost_meter.reset()
            self.cost_fields.show_lines([])
        self.cost_fields.set_enabled(not running)
        self.run_button.setEnabled(not running)
        self.pause_button.setEnabled(running)

    def show_progress(self, progress, eta: TimeLeft | None = None) -> None:
        """Done/total, pass rate and the time left (per LLM when ``eta`` follows the run:
        instant baselines would otherwise make a pooled rate promise seconds)."""
        self.progress.setFormat("%v / %m")
        self.progress.setMaximum(max(1, progress.total))
        self.progress.setValue(progress.done)
        rate = progress.pass_rate
        parts = [f"{progress.done}/{progress.total} done"]
        parts.append(f"pass rate {rate:.0%}" if rate is not None else "pass rate —")
        if progress.invalid:
            parts.append(f"{progress.invalid} invalid")
        if progress.errors:
            parts.append(f"{progress.errors} errors")
        self.cost_meter.add(progress.last)
        self.cost_fields.show_lines(self.cost_meter.lines())
        if self.cost_meter.text():
            parts.append(self.cost_meter.text())
        if progress.state == "running":
            seconds = eta.eta() if eta is not None else progress.eta
            parts.append(f"ETA {format_eta(seconds)}")
            if eta is not None:
                self.progress_text.setToolTip(
                    "\n".join(f"{llm}: {format_eta(t)} left" for llm, t in eta.per_llm().items())
                )
        else:
            parts.append(progress.state)
        if progress.message:
            parts.append(progress.message)
        self.progress_text.setText(" · ".join(parts))
        self.progress_message.emit(self.progress_text.text())

    # -- what the window reads and sets (it never reaches into the widgets) -----------------
    def apply_preferences(self, host: str, concurrency: int) -> None:
        """The Ollama host and concurrency of the Settings dialog (the estimate follows)."""
        self.host.setText(host)
        self.ollama_concurrency = concurrency
        self.update_estimate()

    def set_budget(self, budget: int) -> None:
        self.budget.setValue(budget)

    def wants_behavioural(self) -> bool:
        """Whether the behavioural check of the factors cases follows the run."""
        return self.behavioural.isChecked()

    def ollama_host(self) -> str:
        """The host typed in the panel ("" when empty)."""
        return self.host.text().strip()

    def set_database(self, path: str) -> None:
        self.database.setText(path)

    def cost_settings(self) -> CostSettings:
        """The prices and Stop at cost of the run (an ExplaincheckError if unusable)."""
        return self.cost_fields.settings()

    def start_costs(self, prices: dict, tally) -> None:
        """A run starts with these prices; ``tally``: what its stored executions cost."""
        self.cost_meter.start(prices, tally)
        self.cost_fields.show_lines(self.cost_meter.lines())

    def show_message(self, text: str) -> None:
        """A one-line message where the progress goes (why a run did not start, ...)."""
        self.progress_text.setText(text)
