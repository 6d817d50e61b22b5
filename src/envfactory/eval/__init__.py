"""Evaluation: metrics over trajectories, runners, robustness tables."""
