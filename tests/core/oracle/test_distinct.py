"""``arrays.distinct``: a layer's indices each kept once, as ``np.unique`` keeps them, without
sorting (the searches that call it once per layer)."""

from __future__ import annotations

import numpy as np

from explaincheck.core.oracle.arrays import distinct


def test_each_index_is_kept_once_and_none_is_lost():
    rng = np.random.default_rng(3)
    scratch = np.empty(1_000, dtype=np.int64)
    for size in (0, 1, 5, 200, 5_000):  # one scratch for every layer, as the searches use it
        indices = rng.integers(0, 1_000, size)
        kept = distinct(indices, scratch)
        assert len(kept) == len(set(indices.tolist()))
        assert np.array_equal(np.sort(kept), np.unique(indices))


def test_a_layer_without_repeats_is_kept_whole():
    scratch = np.full(10, 7, dtype=np.int64)  # stale entries from an earlier layer
    assert sorted(distinct(np.array([9, 0, 4]), scratch).tolist()) == [0, 4, 9]
