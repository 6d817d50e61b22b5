"""Reinforcement learning: advantage estimators, environment samplers (and, later, policies and trainers)."""
