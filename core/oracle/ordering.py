"""A fill-reducing order of the states, for the sparse LU solves of policy iteration.

Policy iteration factorises ``I - P_π`` once per round, and every round's chain is a subgraph of
the model's state graph. So one nested-dissection order of that graph (METIS, through pymetis),
computed once, serves every round, where SuperLU would otherwise order each matrix afresh
(COLAMD). Measured on the slippery gridworld: at 10^5 states the factors have 30 % less fill and
factorise in 0.22 s instead of 0.39 s; at 4·10^4 the fill is 15 % higher, yet a factorisation
takes 0.11 s instead of 0.17 s, as the per-round ordering is gone. The order itself costs about
two factorisations, so ``values`` asks for it from the third round on.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix


def nested_dissection(graph: csr_matrix) -> np.ndarray:
    """A permutation of the states (``order[k]`` = the state eliminated k-th) that keeps the LU
    factors of any matrix with ``graph``'s pattern, or a part of it, sparse."""
    import pymetis

    size = graph.shape[0]
    undirected = (graph + graph.T).tocsr()
    undirected.setdiag(0)  # METIS wants neither self-loops nor duplicate entries
    undirected.eliminate_zeros()
    undirected.sum_duplicates()
    if undirected.nnz == 0:
        return np.arange(size)
    adjacency = pymetis.CSRAdjacency(
        undirected.indptr.astype(np.int32), undirected.indices.astype(np.int32)
    )
    order = np.asarray(pymetis.nested_dissection(adjacency=adjacency)[0], dtype=np.int64)
    if len(order) != size or not np.array_equal(np.sort(order), np.arange(size)):
        raise RuntimeError("METIS returned no permutation of the states")
    return order
