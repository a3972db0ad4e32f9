"""The model panel (left dock): choose a model, set constants and labels, watch the oracle build.

Built-in environments (title, size, description), a PRISM file dialog, recent files, goal/unsafe
pickers filled from the model's labels, a busy indicator with Cancel, and errors shown in the
panel (with line and column and the offending source line for syntax errors), never as a crash.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explaincheck.core.environments.types import Environment
from explaincheck.core.oracle.types import OracleResult
from explaincheck.core.plural import counted
from explaincheck.core.workspace.presentation.model_errors import error_text
from explaincheck.gui.adapters.model_controller import ModelController, size_key
from explaincheck.gui.support.safe_text import plain_label
from explaincheck.gui.views.property_box import PropertyBox

PRISM_FILTER = "PRISM models (*.prism *.nm *.pm);;All files (*)"


# the goal and unsafe boxes take a label or a PRISM expression (docs/method.md, "Goals")
TARGET_TIP = (
    "The {role}: one of the model's labels, or a PRISM expression over its variables, formulas"
    " and labels, e.g. {example}"
)


class ModelView(QWidget):
    """Left-dock panel over a ``ModelController``."""

    def __init__(self, controller: ModelController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.environments: list[Environment] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self._build_builtin_box())
        layout.addWidget(self._build_model_box())
        layout.insertWidget(1, self._build_error_frame())  # under the list, above the model
        layout.addStretch(1)
        self._set_busy(False)
        self.error_frame.hide()
        self._connect_controller()

    def _build_builtin_box(self) -> QGroupBox:
        """The built-in list with its description, Open environment, Open PRISM file, Recent."""
        builtin_box = QGroupBox("Built-in environments")
        builtin_layout = QVBoxLayout(builtin_box)
        self.builtin = QListWidget(self)
        self.builtin.setAlternatingRowColors(True)
        self.builtin.itemActivated.connect(self._open_selected)
        self.builtin.currentItemChanged.connect(self._describe_selected)
        self.builtin.setMinimumHeight(120)
        self.builtin.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.builtin.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.builtin.setMaximumHeight(280)  # all seven built-ins at a usual window height
        builtin_layout.addWidget(self.builtin)
        self.builtin_description = plain_label("")
        self.builtin_description.setWordWrap(True)
        builtin_layout.addWidget(self.builtin_description)
        row = QHBoxLayout()
        self.open_builtin_button = QPushButton("Open environment")
        self.open_builtin_button.clicked.connect(self._open_selected)
        self.open_file_button = QPushButton("Open PRISM file…")
        self.open_file_button.setToolTip("Open a PRISM MDP (or drop a .prism file on the window)")
        self.open_file_button.clicked.connect(self.choose_file)
        row.addWidget(self.open_file_button)
        self.recent_button = QToolButton(self)
        self.recent_button.setText("Recent")
        self.recent_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.recent_menu = QMenu(self)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.recent_button.setMenu(self.recent_menu)
        row.addWidget(self.recent_button)
        # two rows: three buttons side by side would set the panel's minimum width
        builtin_layout.addWidget(self.open_builtin_button)
        builtin_layout.addLayout(row)
        return builtin_box

    def _build_model_box(self) -> QGroupBox:
        """The open model: title, file, constants, goal/unsafe labels, Build/Cancel, status."""
        model_box = QGroupBox("Model")
        form = QFormLayout(model_box)
        self.title = plain_label("No model open")
        bold = QFont(self.title.font())
        bold.setBold(True)
        self.title.setFont(bold)
        self.title.setWordWrap(True)
        form.addRow(self.title)
        self.path = plain_label("")
        self.path.setWordWrap(True)
        self.path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        form.addRow("File:", self.path)
        self.constants = QLineEdit(self)
        self.constants.setPlaceholderText("N=4,p=0.5")
        self.constants.returnPressed.connect(self.rebuild)
        form.addRow("Constants:", self.constants)
        self.goal = QComboBox(self)
        self.goal.setEditable(True)
        self.goal.setToolTip(TARGET_TIP.format(role="goal", example="s1=12 & s2=12"))
        form.addRow("Goal:", self.goal)
        self.unsafe = QComboBox(self)
        self.unsafe.setEditable(True)
        self.unsafe.setToolTip(TARGET_TIP.format(role="unsafe set", example='"crash" | x=0'))
        form.addRow("Unsafe:", self.unsafe)
        self.property_box = PropertyBox(self.controller, self)  # the property V is computed for
        form.addRow("Property:", self.property_box)
        for box in (self.goal, self.unsafe):  # Enter builds again, as in the Constants box
            line = box.lineEdit()
            assert line is not None  # the boxes are editable
            line.returnPressed.connect(self.rebuild)
        buttons = QHBoxLayout()
        self.build_button = QPushButton("Build oracle")
        self.build_button.setToolTip("Model-check again with these constants and labels (Ctrl+B)")
        self.build_button.clicked.connect(self.rebuild)
        buttons.addWidget(self.build_button)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.controller.cancel)
        buttons.addWidget(self.cancel_button)
        form.addRow(buttons)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(10)
        form.addRow(self.progress)
        self.status = plain_label("")
        self.status.setWordWrap(True)
        form.addRow(self.status)
        return model_box

    def _build_error_frame(self) -> QFrame:
        """The error box: the message and the offending source line with a caret."""
        self.error_frame = QFrame(self)
        self.error_frame.setObjectName("errorFrame")
        self.error_frame.setStyleSheet(
            "#errorFrame { background: #fdecea; border: 1px solid #d55e00; border-radius: 4px; }"
        )
        error_layout = QVBoxLayout(self.error_frame)
        self.error = plain_label("")
        self.error.setWordWrap(True)
        # long words (paths) and source lines must not widen the panel
        self.error.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.error.setStyleSheet("color: #8a1c00;")
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        error_layout.addWidget(self.error)
        self.error_source = plain_label("")
        self.error_source.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.error_source.setStyleSheet("color: #222222;")
        self.error_source.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        error_layout.addWidget(self.error_source)
        return self.error_frame

    def _connect_controller(self) -> None:
        """The panel follows the controller: it never changes the model itself."""
        self.controller.environment_changed.connect(self._show_environment)
        self.controller.busy_changed.connect(self._set_busy)
        self.controller.oracle_ready.connect(self._show_oracle)
        self.controller.failed.connect(self.show_error)
        self.controller.cancelled.connect(lambda: self.status.setText("Cancelled."))
        self.controller.sizes_changed.connect(self._show_sizes)
        self.controller.property_refused.connect(self._show_kept_oracle)
        self.controller.file_line_changed.connect(self._show_file_line)

    # -- built-in list ---------------------------------------------------------------------
    def show_environments_error(self, message: str) -> None:
        """Why the built-in list is empty (it could not be read)."""
        self.builtin_description.setText(message)

    def set_environments(self, environments: list[Environment]) -> None:
        self.environments = environments
        self.builtin.clear()
        for environment in environments:
            item = QListWidgetItem(self._item_text(environment))
            item.setData(Qt.ItemDataRole.UserRole, environment.id)
            item.setToolTip(environment.description)
            self.builtin.addItem(item)
        rows = sum(self.builtin.sizeHintForRow(i) for i in range(self.builtin.count()))
        self.builtin.setMinimumHeight(min(280, rows + 2 * self.builtin.frameWidth() + 4))
        current = self.controller.environment
        if current is not None:  # a plain PRISM file (no id) selects nothing
            self._select_builtin(current.id)
        elif self.controller.last_path is not None:  # a file was asked for (and failed)
            self._select_builtin(None)
        elif environments:
            self.builtin.setCurrentRow(0)

    def _item_text(self, environment: Environment) -> str:
        """Title, id and number of states (remembered from a build or ``probe_sizes``)."""
        states = self.controller.settings.known_size(size_key(environment, environment.constants))
        if states:
            size = f"{states:,} states"
        else:
            size = "counting states…" if self.controller.probing else "size not known yet"
        return f"{environment.title}\n   {environment.id} · {size}"

    def _show_sizes(self) -> None:
        """New sizes in the list's texts; selection and scroll position stay."""
        for row in range(self.builtin.count()):
            environment = self._environment_of(self.builtin.item(row))
            if environment is not None:
                self.builtin.item(row).setText(self._item_text(environment))

    def _select_builtin(self, env_id: str | None) -> None:
        """Keep the list's selection on the open environment (none for a plain file)."""
        for row in range(self.builtin.count()):
            if self.builtin.item(row).data(Qt.ItemDataRole.UserRole) == env_id:
                self.builtin.setCurrentRow(row)
                return
        self.builtin.setCurrentRow(-1)  # no current item: its description goes too
        self.builtin.clearSelection()

    def _describe_selected(self, item: QListWidgetItem | None, _previous: Any = None) -> None:
        environment = self._environment_of(item)
        self.builtin_description.setText(environment.description if environment else "")

    def _environment_of(self, item: QListWidgetItem | None) -> Environment | None:
        if item is None:
            return None
        env_id = item.data(Qt.ItemDataRole.UserRole)
        return next((e for e in self.environments if e.id == env_id), None)

    def _open_selected(self, *_args: object) -> None:
        environment = self._environment_of(self.builtin.currentItem())
        if environment is not None:
            self.controller.open_environment(environment)

    # -- files -----------------------------------------------------------------------------
    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open PRISM model", "", PRISM_FILTER)
        if path:
            self.controller.open_spec(path)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.controller.settings.recent_files()
        if not files:
            self.recent_menu.addAction("(no recent files)").setEnabled(False)
        for path in files:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.controller.open_spec(p))

    # -- current model ---------------------------------------------------------------------
    def _show_file_line(self) -> None:
        environment = self.controller.environment
        if environment is not None:
            self.path.setText(self.controller.file_line(environment))

    def _show_environment(self, environment: Environment) -> None:
        self.error_frame.hide()
        self._select_builtin(environment.id)
        self.title.setText(environment.title)
        self.path.setText(self.controller.file_line(environment))
        self.constants.setText(self.controller.constants)
        labels = list(self.controller.program.label_names) if self.controller.program else []
        for box, current in (
            (self.goal, self.controller.goal_label),
            (self.unsafe, self.controller.unsafe_label),
        ):
            box.blockSignals(True)
            box.clear()
            box.addItems(labels if current in labels or not current else [*labels, current])
            box.setCurrentText(current)
            box.blockSignals(False)
        editor = self.goal.lineEdit()
        if editor is not None:
            editor.setPlaceholderText("choose the goal" if labels else "")
        self._goal_follows_property()
        if not self.controller.busy:
            self.status.setText("")

    def rebuild(self) -> None:
        self.controller.rebuild(
            constants=self.constants.text().strip(),
            goal_label=self.goal.currentText().strip(),
            unsafe_label=self.unsafe.currentText().strip(),
        )

    def _set_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.build_button.setEnabled(not busy)
        if busy:
            self.error_frame.hide()
            self.status.setText("Model checking with Storm (in a separate process)…")

    def _show_oracle(self, oracle: OracleResult, environment: Environment) -> None:
        m = oracle.model
        cached = " (from cache)" if oracle.from_cache else f" in {oracle.seconds:.2f} s"
        lines = [
            f"{counted(m.states, 'state')} · {counted(m.choices, 'choice')} · "
            f"{counted(m.transitions, 'transition')}",
            f"Oracle: {oracle.method}{cached}"
            + (f", tie tolerance {oracle.tie_tolerance:g}" if oracle.tie_tolerance else ""),
            f"{counted(len(oracle.bottlenecks), 'bottleneck')}"
            f" · {counted(len(oracle.dead_ends), 'dead end')}",
        ]
        lines += [f"⚠ {w}" for w in oracle.warnings]
        self.status.setText("\n".join(lines))
        self.path.setText(self.controller.file_line(environment))  # a Workbench edit too
        for box in (self.goal, self.unsafe):
            current = box.currentText()
            box.blockSignals(True)
            box.clear()
            box.addItems(list(m.labels) if current in m.labels else [*m.labels, current])
            box.setCurrentText(current)
            box.blockSignals(False)
        self.set_environments(self.environments)  # sizes are known now
        self._goal_follows_property()

    def _show_kept_oracle(self, _line: str) -> None:
        """A refused property leaves the oracle in use: the status says it again (the
        property box says why the property was refused)."""
        oracle, environment = self.controller.oracle, self.controller.environment
        if oracle is not None and environment is not None:
            self._show_oracle(oracle, environment)
        else:
            self.status.setText("")

    def _goal_follows_property(self) -> None:
        """A chosen property names its own target: the Goal box shows it and is not edited
        (the property list's first entry gives the Goal box back)."""
        chosen = self.controller.chosen_property is not None
        self.goal.setEnabled(not chosen)
        self.goal.setToolTip(
            "The property in use names the target; choose the Goal box's property (Pmax=? [F"
            " goal]) in the Property list to set the goal here"
            if chosen
            else TARGET_TIP.format(role="goal", example="s1=12 & s2=12")
        )

    def show_error(self, error: BaseException) -> None:
        message, excerpt = error_text(error, self.controller.last_path)
        environment = self.controller.environment
        asked = self.controller.last_path
        other_file = asked is not None and (environment is None or environment.model_path != asked)
        if environment is None or environment.id is None or other_file:
            self._select_builtin(None)  # the list shows what was asked, not the old model
        self.error.setText(message)
        self.error_source.setText(excerpt)
        self.error_source.setVisible(bool(excerpt))
        self.error_frame.show()
        self.status.setText("The oracle could not be built.")
