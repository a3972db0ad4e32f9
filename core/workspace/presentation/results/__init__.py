"""The Results tab's workspace, Qt-free (issue 36): ``ResultsWorkspace`` (``workspace.py``)
over ``StoredExecution`` rows (``rows.py``), its filters (``filters.py``), the grouped repeats
(``repeats.py``) and the words of one case in full (``case_text.py``)."""

from explaincheck.core.workspace.presentation.results.filters import ResultsFilters
from explaincheck.core.workspace.presentation.results.workspace import ResultsWorkspace

__all__ = ["ResultsFilters", "ResultsWorkspace"]
