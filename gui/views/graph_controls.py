"""The graph tab's controls: the toolbar (overlay toggles, colour and layout choices) and the
row under it (status line, neighbourhood depth and Expand, the hidden count, labels, Find
state and Fit). They are only built here; ``GraphView`` connects them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QToolBar,
    QToolButton,
    QWidget,
)

from explaincheck.core.workspace.presentation.flaw_pictures import colour_choices
from explaincheck.gui.views.elided_label import ElidedLabel
from explaincheck.gui.views.flow_layout import FlowLayout

TOGGLES = (
    ("initial", "Initial"),
    ("goal", "Goal"),
    ("unsafe", "Unsafe"),
    ("dead_end", "Dead ends"),
    ("bottleneck", "Bottlenecks"),
    ("optimal", "Optimal actions"),
)
LAYOUTS = ("auto", "grid", "force", "layers")
DEFAULT_DEPTH = 3


class GraphToolbar(QToolBar):
    """``toggles`` by overlay key and ``colour_box`` (what fills the states). Both boxes sit in
    the row below (``GraphRow``), which wraps: with both side panels open at 1366 px a toolbar
    holding them pushed Layout into its overflow menu, and at 1280 px the Colour box (issue
    39)."""

    def __init__(self, shown: dict[str, bool], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setIconSize(self.iconSize() * 0)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toggles: dict[str, QToolButton] = {}
        for key, text in TOGGLES:
            button = QToolButton(parent)
            button.setText(text)
            button.setCheckable(True)
            button.setChecked(shown[key])
            button.setToolTip(f"Show {text.lower()}")
            self.toggles[key] = button
            self.addWidget(button)
        self.colour_box = QComboBox(parent)
        # as wide as about 14 characters, not as its longest entry (a flaw's |V̂ − V|): the bar
        # must keep the box on screen at 1366 px
        self.colour_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.colour_box.setMinimumContentsLength(14)
        self.colour_box.addItem("V (goal)", "value")
        self.colour_box.addItem("D (danger)", "danger")
        self.colour_box.addItem("none", "none")
        for text, data in colour_choices():  # a flawed explainer's V̂, or |V̂ − V|
            self.colour_box.addItem(text, data)


class GraphRow(FlowLayout):
    """The status line, the neighbourhood controls (shown for big models only), then the
    colour, layout and label choices, the state search field and Fit: a flow that wraps onto a
    second line in a narrow graph (Teach, Workbench) rather than cutting its controls."""

    def __init__(self, parent: QWidget, colour_box: QComboBox) -> None:
        super().__init__(None)
        self.setContentsMargins(4, 0, 4, 2)
        self.setSpacing(8)
        self.status = ElidedLabel(parent)
        # a line of its own, whatever its length (so the controls and the graph below never
        # move when the message changes); a message too long for it is elided with "…", full
        # in the tooltip, and never widens the window
        self.add(self.status, own_line=True)
        self.depth_label = QLabel("Neighbourhood depth:")
        self.add(self.depth_label)
        self.depth_box = QSpinBox(parent)
        self.depth_box.setRange(1, 30)
        self.depth_box.setValue(DEFAULT_DEPTH)
        self.add(self.depth_box)
        self.expand_button = QToolButton(parent)
        self.expand_button.setText("Expand")
        self.expand_button.setToolTip(
            "Show one more step around the shown states (double-click a '+' state to expand it)"
        )
        self.add(self.expand_button)
        self.hidden_label = QLabel("", parent)
        self.add(self.hidden_label)
        # each title stays on the line of its box when the flow wraps
        self.colour_label = QLabel("Colour:")
        self.add(_titled(parent, self.colour_label, colour_box))
        self.layout_box = QComboBox(parent)
        for name in LAYOUTS:
            self.layout_box.addItem(name, name)
        self.add(_titled(parent, QLabel("Layout:"), self.layout_box))
        self.labels_box = QComboBox(parent)
        self.labels_box.addItem("id", "id")
        self.labels_box.addItem("valuation", "valuation")
        self.add(_titled(parent, QLabel("Labels:"), self.labels_box))
        self.search = QLineEdit(parent)
        # short enough to show whole in the Workbench's narrow graph; the syntax is the tooltip
        self.search.setPlaceholderText("Find state…")
        self.search.setToolTip(
            "Jump to a state: conditions on its variables (x=3, y=5 or x=3 & y=5; also <, >, "
            "<=, >=, !=), a state id, or a label"
        )
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(self.search.fontMetrics().horizontalAdvance("Find state…") + 34)
        self.search.setMaximumWidth(240)
        self.add(self.search)
        self.fit_button = QToolButton(parent)
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Fit the graph in the window (Ctrl+0)")
        self.add(self.fit_button)

    def show_neighbourhood_controls(self, on: bool) -> None:
        for widget in (self.depth_label, self.depth_box, self.expand_button, self.hidden_label):
            widget.setVisible(on)


def _titled(parent: QWidget, title: QLabel, box: QWidget) -> QWidget:
    """``title`` and ``box`` as one item of the flow, so a wrap never parts them."""
    pair = QWidget(parent)
    layout = QHBoxLayout(pair)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(4)
    layout.addWidget(title)
    layout.addWidget(box)
    return pair
