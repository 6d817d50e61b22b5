"""Quickstart: tool descriptions in, an environment an agent can act in, out.

python examples/quickstart.py
"""

from pathlib import Path

import envfactory

SPECS = Path(__file__).resolve().parents[1] / "specs"

# 1. Synthesize: schema inference, one behaviour per tool, seeded data. Offline, deterministic.
spec = envfactory.synthesize(SPECS / "shop.yaml", seed=0)
print(f"{spec.name}: {len(spec.tools.tools)} tools over entities {spec.state_schema.names}")

# 2. How far can each tool be trusted? Run the self-checks.
report = envfactory.self_check(spec)
print(f"self-check passed: {report.passed} {report.counts()}")

# 3. Act: the Episode contract (what every adapter wraps).
episode = envfactory.Environment(spec).episode()
order = episode.call_tool("create_order", {"customer_id": "customer_0001", "product_id": "product_0001", "quantity": 2})
print("created:", order.content)
print("ship before paying ->", episode.call_tool("ship_order", {"order_id": order.data["id"]}).content)
print("bad arguments ->", episode.call_tool("get_order", '{"order_id": 5}').content)

# 4. Save it as a folder you can read, edit and version; load it back.
path = spec.save(Path("out") / "quickstart" / spec.name)
assert envfactory.EnvSpec.load(path) == spec
print(f"saved to {path}; try: envfactory play {path}")
