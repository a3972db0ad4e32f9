"""Why-questions: the factors an environment declares and their exact effect on A*(s).

``declare`` reads (or, for a bare PRISM file, derives) the factors; ``intervene`` computes the
oracle of every intervened model once per campaign; ``truth`` turns the oracles into necessity,
strength and sufficiency per (state, factor); ``flawed`` gives a flawed explainer's picture of
them. One layer of the import contract, below the taxonomy: the ``factors`` category
(``core/taxonomy/factors.py``) reaches it through its hooks (``with_facts``, ``seen_through``,
``follow_up``), so the campaign, the backends and the analysis never name it. The definitions
are in docs/method.md, "Why-questions (factors)".
"""
