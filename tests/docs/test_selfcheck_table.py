"""docs/method.md §13's table of the reference answerers' self-checks is generated from a run
(issue 51.8: its random row had gone stale, 0.41 / 0.13 / 0.43 against 0.51 / 0.19 / 0.41, and
the test it cited checked two of its figures): the three self-checks run here, and the block
between the markers must be their rendering."""

from __future__ import annotations

import pytest
from benchmark_script import load


def _script():
    return load("selfcheck_table")


def test_the_table_in_method_md_is_the_rendering_of_a_run(tmp_path):
    table = _script()
    text = table.DOC.read_text(encoding="utf-8")
    assert text.count(table.BEGIN) == 1 and text.count(table.END) == 1
    found = table.compute(tmp_path)
    assert table.block_of(text) == table.render(found)
    # what the prose above the table says each answerer must show
    assert found["oracle"]["say_do_agreement"] == 1 and found["oracle"]["value_loss"] == 0
    assert found["random"]["say_do_agreement"] == pytest.approx(0.25)
    assert found["random"]["value_loss_exact"] == "476875/589033"  # the uniform policy's
    assert found["flaw:myopic:2"]["say_do_agreement"] == 1
    assert found["flaw:myopic:2"]["value_loss_exact"] == "14/17"


def test_a_rewrite_replaces_only_the_block():
    table = _script()
    text = f"before\n{table.BEGIN}\nold\n{table.END}\nafter\n"
    assert table.rewrite(text, "NEW") == "before\nNEW\nafter\n"
    with pytest.raises(ValueError, match="markers"):
        table.rewrite("no markers here", "NEW")
