"""The proposers: each module registers its own in :data:`~envfactory.synth.candidates.PROPOSERS`.

Importing this package registers them all, from the most general to the most particular (between
candidates the evidence scores the same, the chooser keeps the first): how replies are worded, what
a create makes, writes and checks the descriptions missed, actions held back by the records under
the one they change, how lists answer, how arguments are
spelt, what the real thing starts with, and whether it accepts a tool at all. Adding a way a tool
can behave is adding a function to one of these modules (or a new module imported here), registered
by name.
"""

from envfactory.synth.proposers import replies  # isort: skip
from envfactory.synth.proposers import keys  # isort: skip
from envfactory.synth.proposers import minted  # isort: skip
from envfactory.synth.proposers import writes  # isort: skip
from envfactory.synth.proposers import children  # isort: skip
from envfactory.synth.proposers import made  # isort: skip
from envfactory.synth.proposers import numbers  # isort: skip
from envfactory.synth.proposers import lists  # isort: skip
from envfactory.synth.proposers import spellings  # isort: skip
from envfactory.synth.proposers import starts  # isort: skip
from envfactory.synth.proposers import verdicts  # isort: skip

# the order they register in, as imported
MODULES = (replies, keys, minted, writes, children, made, numbers, lists, spellings, starts, verdicts)

__all__ = ["MODULES"]
