"""Rejected: an attempt at a task that cannot be made valid and decisive (the generator tries another)."""

from __future__ import annotations


class Rejected(Exception):
    """This attempt cannot be made valid and decisive; the generator tries another."""
