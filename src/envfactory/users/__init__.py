"""Simulated users: who the agent talks to when it replies instead of calling a tool."""

from envfactory.users.base import ClosingUser, UserSimulator
from envfactory.users.scripted import ScriptedUser

__all__ = ["ClosingUser", "ScriptedUser", "UserSimulator"]
