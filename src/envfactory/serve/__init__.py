"""Serving an environment to other processes: MCP (stdio, streamable HTTP), the WebSocket session
protocol, the guard in front of both, and the recorder of finished trajectories. The OpenEnv app
that mounts them is :mod:`envfactory.integrations.openenv`."""
