"""Shared test set-up: Qt offscreen, a private oracle cache per test session."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_configure(config):
    import tempfile

    os.environ.setdefault("EXPLAINCHECK_CACHE", tempfile.mkdtemp(prefix="explaincheck-cache-"))
