"""Real implementations: sources (a bound class, a live MCP server, recorded traces), exploration
under a call budget, the instrument that measures a model against them, and learning from them.

Nothing is imported here. The runtime never imports this package: the live server's executor
(:mod:`envfactory.real.served`) is registered by name and imported the first time a served tool
is compiled."""
