"""Simulated users: who the agent talks to when it replies instead of calling a tool."""

from envfactory.users.base import ClosingUser, UserSimulator

__all__ = ["ClosingUser", "UserSimulator"]
