"""Fixtures of the taxonomy tests (the factory itself lives in taxonomy_factory.py)."""

import pytest
from taxonomy_factory import toy_environment, toy_oracle


@pytest.fixture
def toy():
    return toy_oracle()


@pytest.fixture
def env():
    return toy_environment()
