"""A frozen, versioned benchmark that other tools run: the question set (``questions``), its
grading by the campaign's own parser and grader (``grading``), asking it through the project's
backends (``asking``), the Inspect AI task over it (``inspect_task``) and bringing Inspect's logs
back into a results file (``inspect_import``)."""
