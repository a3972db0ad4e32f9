"""explaincheck-ferrylab: a plugin package of explaincheck's tests (docs/plugins.md).

It gives a state category (``within_k``: can the goal be reached within k moves?), an answerer
that always picks the first option the answer schema offers (``first``) and a 20-state
environment (``ferry``). Installed, they are ``explaincheck-ferrylab/within_k``,
``explaincheck-ferrylab/first`` and ``explaincheck-ferrylab/ferry``.
"""

from pathlib import Path

ENVIRONMENTS = Path(__file__).parent / "envs"
