"""The data behind Results › Compare campaigns…: a second results file read whole, and each
distinct case's first execution per LLM (what the dialog shows side by side).

Why outside views/: views never read the store (the import contract); this module is the
dialog's reader, as ``results_data.py`` is the Results tab's.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from explaincheck.core.errors import ExplaincheckError


def read_side(path: str) -> pd.DataFrame:
    """Every execution of a results file, whole (the replies are shown)."""
    from explaincheck.core.store import results_frame

    try:
        return results_frame(path)
    except OSError as error:
        raise ExplaincheckError(f"{path}: {error.strerror or error}") from None


def case_rows(results: pd.DataFrame, llm: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The first execution of each distinct case of ``llm`` (the pairing's key → row)."""
    from explaincheck.core.analysis.paired import question_identity

    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in results[results["llm"] == llm].to_dict("records"):
        key = (row["environment"], row["category"], question_identity(row["case_key"]))
        held = found.get(key)
        if held is None or (held.get("verdict") == "error" and row.get("verdict") != "error"):
            found[key] = row
    return found
