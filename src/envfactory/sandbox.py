"""Run code nobody reviewed (LLM-written behaviours) in a separate, fenced-in process.

``run_sandboxed(code, function, state, args)`` runs the code behind the operating system's boundary
(``envfactory.jail``: bubblewrap namespaces with an empty environment, a read-only root holding only
the interpreter, no network, no other processes, a seccomp filter against new processes, rlimits,
bounded output, killed at the wall deadline with everything it started). Where that boundary cannot
be built, it refuses (``SandboxUnavailable``, saying what to install) rather than run unfenced.

Inside, a second layer that is *not* the boundary: a fresh interpreter (``python -I -S``) imports
the modules the code may use (``ALLOWED``), then installs an audit hook that refuses any further
import, ``open``, sockets, subprocesses and the like, so that honest mistakes get a clear reason.
The code must define ``function(state, args)``; the child sends back its JSON result, or the reason
it was stopped: ``timeout``, ``memory``, ``forbidden`` (with the refused operation), ``flood`` (more
output than the caps), ``error`` (an exception in the code, with its message) or ``crash``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from envfactory import jail
from envfactory.errors import EnvFactoryError

Outcome = Literal["ok", "error", "timeout", "memory", "forbidden", "flood", "crash"]
OUTCOMES = frozenset(("ok", "error", "timeout", "memory", "forbidden", "flood", "crash"))
MAX_ANSWER = 16 * 2**20  # bytes of stdout (the JSON answer)
MAX_STDERR = 64 * 2**10

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
limit = min(used + memory_mb * 2**20, resource.getrlimit(resource.RLIMIT_AS)[1])
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


class SandboxUnavailable(EnvFactoryError):
    """Generated code cannot be fenced in on this machine; the message says what to install."""


def require_boundary() -> None:
    """Raise ``SandboxUnavailable`` unless the operating-system boundary works here."""
    if (problem := jail.problem()) is not None:
        raise SandboxUnavailable(f"refusing to run generated code: {problem}")


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
    """Run ``function(state, args)`` of ``code`` behind the boundary (module docstring)."""
    require_boundary()
    payload = json.dumps({"code": code, "function": function, "state": state, "args": args}).encode()
    argv = [jail.interpreter(), "-I", "-S", "-c", _CHILD, str(cpu_seconds), str(memory_mb), ",".join(ALLOWED)]
    done = jail.jailed(argv, payload, cpu_seconds=cpu_seconds, memory_bytes=(memory_mb + 256) * 2**20,
                       wall_seconds=wall_seconds, max_stdout=MAX_ANSWER, max_stderr=MAX_STDERR)  # fmt: skip
    stderr = done.stderr.decode(errors="replace")
    if done.cut == "timeout":
        return SandboxResult("timeout", detail=f"no answer within {wall_seconds:.0f}s (killed)")
    if done.cut:
        cap = MAX_ANSWER if done.cut == "stdout" else MAX_STDERR
        return SandboxResult("flood", detail=f"more than {cap:,} bytes on {done.cut} (killed)")
    if done.returncode < 0 or not done.stdout:
        if -done.returncode in (9, 24):  # SIGXCPU at the CPU limit, SIGKILL at the hard one
            return SandboxResult("timeout", detail=f"more than {cpu_seconds}s of CPU time")
        if "MemoryError" in stderr:
            return SandboxResult("memory", detail="the memory limit was reached")
        last = stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return SandboxResult("crash", detail=last[0][:300])
    try:
        answer = json.loads(done.stdout)
        if answer["outcome"] not in OUTCOMES:
            raise ValueError(answer["outcome"])
        return SandboxResult(answer["outcome"], value=answer.get("value"), detail=str(answer.get("detail", ""))[:500])
    except (ValueError, KeyError, TypeError):
        return SandboxResult("crash", detail="the code wrote to stdout")


__all__ = ["ALLOWED", "MAX_ANSWER", "MAX_STDERR", "SandboxResult", "SandboxUnavailable", "require_boundary",
           "run_sandboxed"]  # fmt: skip
