"""``call_tool`` medians per bundled environment, as ``bench/env_step.py`` takes them (its
workload: 20,000 calls, a reset every 40), and the compiled validation alone, for whichever
envfactory is first on the path; one JSON line. To set two commits side by side in one session::

    git archive BASE src specs bench | tar -x -C /tmp/base
    PYTHONPATH=/tmp/base/src python bench/call_tool_medians.py /tmp/base/bench   # then this tree:
    PYTHONPATH=src python bench/call_tool_medians.py bench
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from envfactory.bundled import BUNDLED, bundled_specs_dir
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize


def medians(bench_dir: str) -> dict[str, tuple[float, float]]:
    sys.path.insert(0, bench_dir)
    from env_step import workload  # the workload of the tree being measured

    out = {}
    for name in BUNDLED:
        env = Environment(synthesize(bundled_specs_dir() / BUNDLED[name], name=name, trust_code=True))
        plan = workload(env, 20000)
        episode = env.episode(max_steps=10**9)
        for tool, args in plan[:500]:  # warm up, as env_step.py does
            episode.call_tool(tool, args)
        episode.reset()
        calls, checks = [], []
        for i, (tool, args) in enumerate(plan):
            if i % 40 == 0:
                episode.reset()
            start = time.perf_counter_ns()
            episode.call_tool(tool, args)
            calls.append((time.perf_counter_ns() - start) / 1000)
        for tool, args in plan[:4000]:
            start = time.perf_counter_ns()
            env.tools[tool].validate(args)
            checks.append((time.perf_counter_ns() - start) / 1000)
        out[name] = (round(statistics.median(calls), 1), round(statistics.median(checks), 2))
    return out


if __name__ == "__main__":
    print(json.dumps(medians(sys.argv[1] if len(sys.argv) > 1 else "bench")))
