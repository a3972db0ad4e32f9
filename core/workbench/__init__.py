"""The teaching workbench: simulator, Bellman view, policy iteration, sweeps and handouts.

Plain Python over ``OracleResult`` and Storm's answers from ``core/oracle/storm/teaching.py``
(always in an isolated child); the GUI's Workbench tab and ``explaincheck sweep`` show it.
"""
