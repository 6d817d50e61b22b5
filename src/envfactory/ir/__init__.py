"""The intermediate representation: frozen pydantic models that cross every boundary."""

from envfactory.ir.blueprint import Blueprint, Edge, Node
from envfactory.ir.effect import (
    ActionEffect,
    Behaviour,
    BoundEffect,
    CreateEffect,
    DeleteEffect,
    Effect,
    FallbackEffect,
    Filter,
    ListEffect,
    Paging,
    ReadEffect,
    ServedEffect,
    TransferEffect,
    UpdateEffect,
)
from envfactory.ir.env import EnvConfig, EnvSpec
from envfactory.ir.state import Entity, StateSchema
from envfactory.ir.task import Call, Goal, Origin, Task, UserProfile, Verdict
from envfactory.ir.tool import HttpBinding, ToolAnnotations, ToolSet, ToolSource, ToolSpec
from envfactory.ir.trajectory import Trajectory

__all__ = [
    "ActionEffect",
    "Behaviour",
    "Blueprint",
    "BoundEffect",
    "Call",
    "CreateEffect",
    "DeleteEffect",
    "Edge",
    "Effect",
    "Entity",
    "EnvConfig",
    "EnvSpec",
    "FallbackEffect",
    "Filter",
    "Goal",
    "HttpBinding",
    "ListEffect",
    "Node",
    "Origin",
    "Paging",
    "ReadEffect",
    "ServedEffect",
    "StateSchema",
    "Task",
    "ToolAnnotations",
    "ToolSet",
    "ToolSource",
    "ToolSpec",
    "Trajectory",
    "TransferEffect",
    "UpdateEffect",
    "UserProfile",
    "Verdict",
]
