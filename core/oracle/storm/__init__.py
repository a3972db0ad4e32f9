"""The Storm adapter: the only package that imports stormpy (contract ``stormpy-in-oracle``).

Everything Storm gives — parsed programs, built models, check results, BitVectors, Rational
numbers, valuations and choice labels — is turned into plain Python or numpy here, so a change of
stormpy's API (1.x to 2.0 changed many) is met in one place, and ``tests/core/oracle/storm/`` pins
each conversion on small real models.
"""
