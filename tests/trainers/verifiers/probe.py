"""Run inside verifiers' environment: load verifiers' OpenEnv taskset (through envfactory's `taskset`)
from the config envfactory wrote, then play each task the way verifiers' OpenEnvEnv.run does (its
/schema fetch, OpenEnv's GenericEnvClient, verifiers' parse_action on the model's reply, the rewards
summed), with replies given in a file instead of a model. Prints one JSON line per task: its reset and the total reward.

    python probe.py CONFIG.json REPLIES.json
"""

import asyncio
import json
import sys
from pathlib import Path

import httpx
from openenv import GenericEnvClient
from verifiers.v1.tasksets.openenv.taskset import parse_action

from envfactory.integrations.verifiers import taskset  # this checkout's src is on the path (make test puts it there)


async def play(task, replies: list[str]) -> float:
    data = task.data
    total = 0.0
    async with GenericEnvClient(base_url=data.base_url) as client:
        async with httpx.AsyncClient(timeout=10) as http:
            response = await http.get(f"{data.base_url}/schema")
            response.raise_for_status()
        action_schema = response.json()["action"]
        result = await client.reset(**data.reset)
        for reply in replies:
            result = await client.step(parse_action(reply, action_schema))
            total += result.reward or 0.0
            if result.done:
                break
    return total


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    replies = json.loads(Path(sys.argv[2]).read_text())
    tasks = list(taskset(config["base_url"], [r["task_id"] for r in config["resets"]]).load())
    for task in tasks:
        reward = asyncio.run(play(task, replies[task.data.reset["task_id"]]))
        print(json.dumps({"reset": task.data.reset, "name": task.data.name, "reward": reward}))


if __name__ == "__main__":
    main()
