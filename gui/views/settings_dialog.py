"""The Settings dialog: Ollama host, OpenAI-compatible server, timeout, concurrency, default
budget, the oracle's state limit, the presentation size, theme, the local models' llama.cpp
binding."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from explaincheck.core.workspace.presentation.text_size import LIMITS
from explaincheck.gui.adapters.backend_choices import (
    BadHostError,
    normalize_base_url,
    normalize_host,
    redact_url,
)
from explaincheck.gui.support.settings import LLAMA_BINDINGS, THEMES, Preferences

MAX_STATE_LIMIT = 2**31 - 1  # a QSpinBox holds a C int

CREDENTIALS_REMOVED = (
    "The user name, key or token was removed from the host: it would be stored in the settings"
    " file. Set OLLAMA_API_KEY (OPENAI_API_KEY for an OpenAI server) for a key, then press OK."
)


class SettingsDialog(QDialog):
    def __init__(self, prefs: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        form = QFormLayout(self)
        self.host = QLineEdit(prefs.ollama_host)
        self.host.setPlaceholderText("http://127.0.0.1:11434")
        # room for a host name and port, not only for a loopback address
        self.host.setMinimumWidth(self.host.fontMetrics().horizontalAdvance("x" * 44))
        form.addRow("Ollama host:", self.host)
        self.openai = QLineEdit(prefs.openai_base_url)
        self.openai.setPlaceholderText("e.g. http://gpu1:8000/v1 (vLLM, SGLang, llama-server)")
        form.addRow("OpenAI-compatible server:", self.openai)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1.0, 3600.0)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(prefs.timeout)
        form.addRow("Request timeout:", self.timeout)
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 64)
        self.concurrency.setValue(prefs.concurrency)
        form.addRow("Concurrent requests per LLM:", self.concurrency)
        self.budget = QSpinBox()
        self.budget.setRange(1, 10_000)
        self.budget.setValue(prefs.budget)
        form.addRow("Default budget:", self.budget)
        self.state_limit = QSpinBox()
        self.state_limit.setRange(1, MAX_STATE_LIMIT)
        self.state_limit.setGroupSeparatorShown(True)
        self.state_limit.setSuffix(" states")
        self.state_limit.setValue(min(prefs.state_limit, MAX_STATE_LIMIT))
        self.state_limit.setToolTip(
            "A model with more states is refused while it builds (as --state-limit of oracle"
            " and run); raise it for a larger model if the machine has the memory"
        )
        form.addRow("Oracle state limit:", self.state_limit)
        self.text_size = QSpinBox()
        self.text_size.setRange(*LIMITS)
        self.text_size.setSingleStep(10)
        self.text_size.setSuffix(" %")
        self.text_size.setValue(prefs.text_size)
        self.text_size.setToolTip(
            "Every view's text, the graph's labels and the plots, for a projector"
            " (also Ctrl+plus and Ctrl+minus; kept between runs)"
        )
        form.addRow("Presentation size:", self.text_size)
        self.theme = QComboBox()
        self.theme.addItems(list(THEMES))
        self.theme.setCurrentText(prefs.theme)
        form.addRow("Theme:", self.theme)
        self.llama_binding = QComboBox()
        self.llama_binding.addItems(list(LLAMA_BINDINGS))
        self.llama_binding.setCurrentText(prefs.llama_binding)
        self.llama_binding.setToolTip(
            "How the local models run llama.cpp: automatic is EXPLAINCHECK_LLAMA_BINDING, else"
            " the prebuilt xllamacpp; llama-cpp-python is the compiled one (extra local-compiled)"
        )
        form.addRow("llama.cpp binding:", self.llama_binding)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.note = QLabel("")
        self.note.setWordWrap(True)
        form.addRow(self.note)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def accept(self) -> None:
        """Refuse a host that cannot be used or carries credentials (they are taken out of
        the field, so a second OK saves the host without them)."""
        for field, check in ((self.host, normalize_host), (self.openai, normalize_base_url)):
            text = field.text().strip()
            stripped = redact_url(text)
            if stripped != text:
                field.setText(stripped)
                self.note.setText(CREDENTIALS_REMOVED)
                return
            if text:
                try:
                    check(text)
                except BadHostError as error:
                    self.note.setText(str(error))
                    return
        super().accept()

    def preferences(self) -> Preferences:
        return Preferences(
            ollama_host=redact_url(self.host.text().strip()),
            timeout=self.timeout.value(),
            concurrency=self.concurrency.value(),
            budget=self.budget.value(),
            theme=self.theme.currentText(),
            llama_binding=self.llama_binding.currentText(),
            openai_base_url=redact_url(self.openai.text().strip()),
            state_limit=self.state_limit.value(),
            text_size=self.text_size.value(),
        )
