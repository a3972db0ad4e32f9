"""A user's own policy: loading it (``loading``), the Markov chain it induces on the model
(``chain``: V^π, D^π, Q^π, regret, reach weights), attaching it to an oracle for the policy
categories (``attach``). Asking an LLM to act as a policy runs a campaign, so it lives in the
campaign layer (``core.campaign.policy_questions``).
"""
