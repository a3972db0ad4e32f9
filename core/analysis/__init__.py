"""analysis stage of explaincheck.core: stored results in, the paper's evidence out.

Every function takes the results frame of ``store.results_frame`` (one row per execution) and
returns a DataFrame or a matplotlib Figure, with no file or terminal code, so the CLI report and
the GUI's report view share them. Modules: ``scores`` (Table 1), ``difficulty`` (Figure 3, RQ3),
``prioritization`` (RQ1), ``models`` (RQ2), ``satisfy`` (errors under both rules), ``plots``,
``examples`` (invalid replies) and ``report`` (rendering and writing md/csv/html).
"""
