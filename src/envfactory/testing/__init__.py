"""Helpers for testing envfactory and the environments it builds (hostile inputs)."""
