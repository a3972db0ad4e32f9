"""A user's own policy: loading it (``loading``), the Markov chain it induces on the model
(``chain``: V^π, D^π, Q^π, regret, reach weights), attaching it to an oracle for the policy
categories (``attach``) and the LLM used as a policy (``asking``, above the campaign layer).
"""
