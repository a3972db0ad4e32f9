"""analysis stage of explaincheck.core: stored results in, the paper's evidence out.

The table and figure functions take the results frame of ``store.results_frame`` (one row per
execution; a report reads the lean one of ``api.results(db, lean=True)``, without prompts,
thinking and valuations) and return a DataFrame or a matplotlib Figure, with no file or terminal
code, so the CLI report and the GUI's report view share them. By job:

- Scores and the research questions: ``scores`` (Table 1, its intervals, the cell scores every
  table is made from), ``prioritization`` (RQ1), ``models`` (RQ2), ``difficulty`` (RQ3 and
  Figure 3), ``satisfy`` (errors under both grading rules), ``chance`` (the score of a uniform
  guess per case), ``paired`` (two LLMs compared case by case, Holm-corrected), ``robustness``
  (wording, metamorphic variants, repeats), ``case_quality`` (reading cases, differences too
  small to resolve, and degenerate cells: a category that measures nothing on its model).
- Reference explainers: ``fault_detection`` (which categories catch which known flaw, APFD,
  the noisy:Q calibration) and ``controls`` (RQ1's negative controls, answered directly).
- Cost: ``cost`` (tokens and time per reply); the price table (``campaign.prices``) and the
  ``--max-cost`` guard (``campaign.cost_limit``) live beside the runner, since a run uses them.
- The report: ``facts`` (campaign facts and LLM settings from the campaign rows), ``layout``
  (the one order and labels of categories, environments and LLMs), ``plots`` (figures),
  ``examples`` (invalid replies), ``report_parts`` (``Section``, ``Report`` and the formats, so
  that section-making modules need not import the report), ``report`` (``build_report``: the parts
  asked for, in the order of its ``PARTS``; renders text, Markdown, CSV and HTML),
  ``report_sections`` (one function per part, over the ``ReportInputs`` computed once per
  build) and ``export`` (the executions as JSON Lines,
  CSV or Parquet).
- Why-questions: ``factor_report`` (the seed study's metrics and the says/does/true views of
  the behavioural probes) and ``factor_picture`` (what the GUI's factor panel shows).
- RQ1's cells: ``rq1_cells`` (the cell table with ``same_cases``, the same-case cells left out)
  and ``rq1_power`` (the headline's power and size by simulation).
- Two campaigns and repeats: ``compare`` (the paired regression gate), ``sign_flip`` (its exact
  test and the interval that inverts it at each line's Holm level), ``compare_files`` (the
  two results files read for it), ``completeness`` (planned against graded executions: the
  gate refuses an unfinished side), ``compare_report`` (``report --base``), ``stability``
  (stable-pass, stable-fail, flaky; pass@k and pass^k) and ``stability_report``.
- Self-explanation: ``selfcheck`` (say–do agreement, accuracy on the three policies) and
  ``selfcheck_report`` (its report section).
- Repair (docs/method.md §15): ``splitting`` (a results file split into train and held-out),
  ``train_set`` and ``dataset_card`` (training records checked by the grader, and their card),
  ``split_cases`` (executions of one part of a split) and ``repair_report`` (better, worse or
  no change per category, the base's flaky share).
"""
