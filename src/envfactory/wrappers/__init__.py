"""Domain randomization and fault injection: seeded, composable Episode wrappers.

Each family (``output``, ``faults``, ``descriptions``, ``users``) has a frozen config (data,
JSON), a way to sample one from its distribution, and a wrapper. :func:`randomize` stacks the
wrappers a :class:`Randomization` asks for; the config is recorded in every snapshot.
"""

from envfactory.wrappers.base import FAMILIES, EpisodeWrapper, Randomization, condition, conditions, randomize
from envfactory.wrappers.descriptions import Descriptions, DescriptionsWrapper
from envfactory.wrappers.faults import Faults, FaultsWrapper
from envfactory.wrappers.output import OutputShape, OutputWrapper
from envfactory.wrappers.users import UserStyle, UserStyleWrapper

__all__ = [
    "FAMILIES",
    "Descriptions",
    "DescriptionsWrapper",
    "EpisodeWrapper",
    "Faults",
    "FaultsWrapper",
    "OutputShape",
    "OutputWrapper",
    "Randomization",
    "UserStyle",
    "UserStyleWrapper",
    "condition",
    "conditions",
    "randomize",
]
