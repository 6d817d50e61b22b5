"""A Gymnasium loop with a scripted policy: actions are OpenAI-style tool calls as JSON text.

python examples/gymnasium_loop.py
"""

import json

import gymnasium

import envfactory  # noqa: F401 - registers envfactory/<name>

env = gymnasium.make("envfactory/banking")
obs, info = env.reset(seed=0)
print("tools:", [t["function"]["name"] for t in info["tools"]])

actions = [
    {"name": "list_accounts", "arguments": {"type": "checking"}},
    {"name": "get_account", "arguments": {"account_id": "account_0001"}},
    {"content": "Here is the balance you asked for."},
]
for action in actions:
    obs, reward, terminated, truncated, info = env.step(json.dumps(action))
    print(f"-> {obs[:120]}... reward={reward} done={terminated or truncated}")
