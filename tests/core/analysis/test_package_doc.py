"""The analysis package's docstring names every module in it, so a new one gets its line."""

from __future__ import annotations

import pkgutil

from explaincheck.core import analysis


def test_the_package_docstring_names_every_module():
    modules = {info.name for info in pkgutil.iter_modules(analysis.__path__)}
    assert len(modules) > 15  # the folder was found
    missing = sorted(m for m in modules if f"``{m}``" not in (analysis.__doc__ or ""))
    assert missing == []
