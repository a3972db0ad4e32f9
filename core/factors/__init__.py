"""Why-questions: the factors an environment declares and their exact effect on A*(s).

``declare`` reads (or, for a bare PRISM file, derives) the factors; ``intervene`` computes the
oracle of every intervened model once per campaign; ``truth`` turns the oracles into necessity,
strength and sufficiency per (state, factor); ``behaviour`` asks an LLM the decision question
again on each intervened model. The definitions are in docs/method.md, "Why-questions (factors)".
"""
