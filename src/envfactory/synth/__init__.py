"""Synthesis: tool descriptions -> state schema, behaviours, seeded data and self-checks."""

from envfactory.synth.build import synthesize

__all__ = ["synthesize"]
