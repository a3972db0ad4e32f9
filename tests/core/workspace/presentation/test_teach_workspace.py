"""The Teach tab's registry lookups, Qt-free, on the real registry."""

import pytest

from explaincheck.core.workspace.presentation.teach import category, shown_by


def test_category_is_the_registered_one_and_unknown_ids_fail() -> None:
    assert category("factors").id == "factors"
    with pytest.raises(KeyError):
        category("no-such-category")


def test_only_the_factor_categories_are_shown_by_the_factor_panel() -> None:
    assert shown_by("factors", "factors")
    assert not shown_by("factors", "other-panel")
    assert not shown_by(None, "factors")
    assert not shown_by("no-such-category", "factors")
