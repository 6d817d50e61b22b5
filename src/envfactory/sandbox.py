"""Run code nobody reviewed (LLM-written behaviours) in a separate, fenced-in process.

``run_sandboxed(code, function, payload)`` starts a fresh interpreter (``python -I``: no user
site, no environment variables), which, before it reads the code,

- caps CPU time (``RLIMIT_CPU``), address space (``RLIMIT_AS``) and file size (``RLIMIT_FSIZE`` 0);
- imports the modules the code may use (``ALLOWED``), then installs an audit hook that refuses any
  further import, any ``open``, sockets, subprocesses, ``os.system``/``exec``/``fork``/``spawn``,
  ``ctypes`` and signal handlers — audit hooks cannot be removed once installed;

and the parent kills it after ``wall_seconds``. The code must define ``function(state, args)``;
the child sends back its JSON result, or the reason it was stopped: ``timeout``, ``memory``,
``forbidden`` (with the refused operation), ``error`` (an exception in the code, with its
message) or ``crash``. Nothing the code does reaches the caller's process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["ok", "error", "timeout", "memory", "forbidden", "crash"]
ALLOWED = ("json", "math", "re", "datetime", "collections", "itertools", "functools", "string", "copy",
           "decimal", "statistics", "operator", "random", "uuid")  # fmt: skip

_CHILD = r"""
import json, resource, sys
cpu, memory_mb, allowed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
payload = json.loads(sys.stdin.read())
for name in allowed:
    __import__(name)
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU at the soft limit, SIGKILL a second later
resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
with open("/proc/self/statm") as f:
    used = int(f.read().split()[0]) * resource.getpagesize()
limit = used + memory_mb * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
out = sys.stdout
allowed_set = set(allowed)

class Forbidden(BaseException):
    pass

BLOCKED = ("open", "os.", "socket.", "subprocess.", "shutil.", "ctypes.", "signal.", "urllib.", "http.",
           "sys._getframe", "pty.", "glob.", "mmap.", "fcntl.", "resource.", "sys.settrace", "sys.setprofile")

def hook(event, args):
    if event == "import":
        root = str(args[0]).split(".")[0]
        if root not in allowed_set:
            raise Forbidden(f"import {args[0]}")
    elif event.startswith(BLOCKED) or event == "open":
        raise Forbidden(event)

sys.addaudithook(hook)
import io
sys.stdout = io.StringIO()  # what the code prints is not the answer

def send(obj):
    out.write(json.dumps(obj))
    out.flush()

try:
    scope = {"__name__": "behaviour"}
    exec(compile(payload["code"], "<behaviour>", "exec"), scope)
    value = scope[payload["function"]](payload["state"], payload["args"])
    send({"outcome": "ok", "value": value})
except Forbidden as err:
    send({"outcome": "forbidden", "detail": str(err)})
except MemoryError:
    send({"outcome": "memory", "detail": "the memory limit was reached"})
except RecursionError as err:
    send({"outcome": "error", "detail": f"RecursionError: {err}"})
except Exception as err:
    send({"outcome": "error", "detail": f"{type(err).__name__}: {err}"[:500]})
"""


@dataclass(frozen=True)
class SandboxResult:
    outcome: Outcome
    value: Any = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


def run_sandboxed(
    code: str,
    function: str,
    state: Any,
    args: Any,
    *,
    cpu_seconds: int = 2,
    memory_mb: int = 256,
    wall_seconds: float = 5.0,
) -> SandboxResult:
    """Run ``function(state, args)`` of ``code`` in a fenced-in child process (module docstring)."""
    payload = json.dumps({"code": code, "function": function, "state": state, "args": args})
    argv = [sys.executable, "-I", "-c", _CHILD, str(cpu_seconds), str(memory_mb), ",".join(ALLOWED)]
    try:
        done = subprocess.run(argv, input=payload, capture_output=True, text=True, timeout=wall_seconds,
                              check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return SandboxResult("timeout", detail=f"no answer within {wall_seconds:.0f}s (killed)")
    if done.returncode < 0 or not done.stdout:
        signal = -done.returncode if done.returncode < 0 else None
        if signal in (9, 24):  # SIGXCPU at the CPU limit, SIGKILL at the hard one
            return SandboxResult("timeout", detail=f"more than {cpu_seconds}s of CPU time")
        if "MemoryError" in done.stderr:
            return SandboxResult("memory", detail="the memory limit was reached")
        last = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return SandboxResult("crash", detail=last[0][:300])
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        return SandboxResult("crash", detail="the code wrote to stdout")
    return SandboxResult(answer["outcome"], value=answer.get("value"), detail=answer.get("detail", ""))


__all__ = ["ALLOWED", "SandboxResult", "run_sandboxed"]
