"""Each environment's test expectations (``expect.toml``): read by core (core/environments/
expectations.py), which ``explaincheck plugins check`` shares with these tests."""

from explaincheck.core.environments.expectations import (
    EXPECT_NAME,
    Expectations,
    ExpectationsError,
    all_expected,
    expected,
    read_expectations,
)

__all__ = [
    "EXPECT_NAME",
    "Expectations",
    "ExpectationsError",
    "all_expected",
    "expected",
    "read_expectations",
]
