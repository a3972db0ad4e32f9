"""explaincheck: test LLM explainers of MDP policies against an exact model-checking oracle.

A regular package (not a namespace), so that a folder named ``explaincheck`` in the working
directory cannot take its place. The folder ``core/`` installs as ``explaincheck.core`` and
``gui/`` as ``explaincheck.gui`` (setup.py); this file is the package's top and holds nothing
else.
"""
