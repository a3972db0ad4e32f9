"""Names for the stormpy objects the oracle hands between its modules.

stormpy ships no type information (``ignore_missing_imports`` in pyproject.toml), so to mypy
each of these is ``Any``; the names still say which object a signature takes, and they are the
one place to make precise should stormpy ship types. Outside ``core/oracle`` no code sees them
(the ``stormpy-in-oracle`` contract): the oracle hands on plain Python.
"""

from __future__ import annotations

from typing import Any, TypeAlias

PrismProgram: TypeAlias = Any  # a parsed PRISM program (``stormpy.parse_prism_program``)
PrismCommand: TypeAlias = Any  # one guarded command of a module
PrismConstant: TypeAlias = Any  # one ``const`` declaration of a program
Expression: TypeAlias = Any  # a PRISM expression (a guard, a bound, a constant's definition)
SparseModel: TypeAlias = Any  # a built sparse MDP or DTMC, float or exact (``build_sparse_*``)
SparseMatrix: TypeAlias = Any  # a model's transition matrix
CheckResult: TypeAlias = Any  # what ``stormpy.model_checking`` returns
Property: TypeAlias = Any  # a parsed property (``stormpy.parse_properties_for_prism_program``)
BitVector: TypeAlias = Any  # Storm's set of states or choices
ChoiceLabeling: TypeAlias = Any  # a model's action labels per choice
StormValue: TypeAlias = Any  # a probability as Storm gives it: float, rational or function
