"""Integrations with the libraries people already use; each imports its library and lives behind
its own optional extra (``openenv``)."""
