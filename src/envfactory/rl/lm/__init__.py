"""A language model as the policy: conversations as exact token ids, supervised warm start on gold
runs, and RL with the project's advantage estimators (``envfactory train --model local``)."""
