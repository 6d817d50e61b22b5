"""Real implementations: sources (a bound class, a live MCP server, recorded traces), exploration
under a call budget, the instrument that measures a model against them, and learning from them.

Nothing is imported here, so ``runtime`` can register the served executor without pulling in the
instrument (which itself runs environments)."""
