"""The backend registry's kinds as the plain ``LlmChoices`` the views take (views do not import
``core.backends``): a new backend registered there is offered by every view with no edit here.
The Settings dialog's host checks come through here too (``normalize_host``, ``redact_url``,
``normalize_base_url``)."""

from __future__ import annotations

from explaincheck.core.backends.ollama_hosts import BadHostError, normalize_host, redact_url
from explaincheck.core.backends.registry import BASELINE, CEILING, KINDS, REFERENCE
from explaincheck.gui.views.llm_choices import LlmChoice, LlmChoices

__all__ = ["BadHostError", "llm_choices", "normalize_base_url", "normalize_host", "redact_url"]


def llm_choices() -> LlmChoices:
    """Every preset spec of every registered kind, in registration order, with its text and
    whether it can run on this machine; and the prefixes that answer live."""
    offered = []
    for kind in KINDS.values():
        missing = kind.unavailable() if kind.unavailable else None
        for spec in kind.offered():
            text = f"{spec} — {kind.description(spec)}" + (" (not installed)" if missing else "")
            offered.append(
                LlmChoice(
                    spec,
                    text,
                    live=kind.live,
                    baseline=kind.role in (BASELINE, CEILING),
                    reference=kind.role == REFERENCE,
                    preselected=kind.preselected,
                    flaw_picture=kind.flaw_picture,
                    instant=kind.instant,
                    tip=missing or "",
                )
            )
    live = tuple(kind.prefix for kind in KINDS.values() if kind.live)
    return LlmChoices(tuple(offered), live, tuple(KINDS))


def normalize_base_url(url: str) -> str:
    """The OpenAI-compatible base URL the Settings dialog saves (the client library is imported
    only when the dialog checks one: it takes about a second to import)."""
    from explaincheck.core.backends.openai_backend import normalize_base_url as normalize

    return normalize(url)
