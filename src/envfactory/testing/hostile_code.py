"""Hostile generated code: programs that try to leave the sandbox, and a harness that looks for
what they would leave behind outside it.

Each program is ``def run(state, args)``, first switching off the in-process audit hook one of
several ways (or not at all), then trying one thing: read, truncate, delete or create a file of
the caller's, read a secret from the environment or another process's ``/proc/<pid>/environ``,
connect to a listener on the caller's loopback, signal a process of the caller's, leave a child
running, flood stdout or stderr, or exhaust memory or CPU. ``escapes(programs)`` runs them
through ``run_sandboxed`` and counts, per kind, what reached the outside: canary files changed or
read, the secret in an answer, connections accepted, the victim signalled, marked processes still
alive afterwards, the caller's memory grown or the wall limit overrun. Shared by the regression
test and ``bench/hostile.py``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SECRET = "envfactory-canary-secret"
MARK = "efhostilemark"
WALL = 3.0


def _body(*lines: str) -> str:
    return "".join(f"    {line}\n" for line in lines)


_OFF = "(lambda e, a: None).__code__"
_SLEEPER = "[A['python'], '-c', 'import time; time.sleep(60)', A['mark']]"
# ways to switch the audit hook off (the second layer) before the attempt
DISABLERS = {
    "hook intact": "",
    "__main__ hook replaced": _body("import __main__", f"__main__.hook.__code__ = {_OFF}"),
    "sys.modules hook replaced": _body("import sys", f"sys.modules['__main__'].hook.__code__ = {_OFF}"),
    "frame walk": _body(
        "try:",
        "    raise KeyError",
        "except KeyError as e:",
        "    f = e.__traceback__.tb_frame",
        "while f.f_back is not None:",
        "    f = f.f_back",
        f"f.f_globals['hook'].__code__ = {_OFF}",
    ),
    "subclass walk to os": _body(
        "w = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]",
        "g = w.__init__.__globals__",
        f"g['sys'].modules['__main__'].hook.__code__ = {_OFF}",
    ),
}

# what to try once the hook is off: name -> (kind, body); ``A`` is args
ATTEMPTS: dict[str, tuple[str, str]] = {
    "read a file": ("files", _body("return {'result': open(A['secret']).read()}")),
    "read the kept file": ("files", _body("return {'result': open(A['keep']).read()}")),
    "truncate a file": ("files", _body("open(A['keep'], 'w').close()", "return {'result': 1}")),
    "delete a file": ("files", _body("import os", "os.remove(A['keep'])", "return {'result': 1}")),
    "create a file": ("files", _body("open(A['dir'] + '/new', 'w').write('x')", "return {'result': 1}")),
    "list the caller's folder": (
        "files",
        _body("import os", "return {'result': 'ESCAPED' * len(os.listdir(A['dir']))}"),
    ),
    "environment": ("environment", _body("import os", "return {'result': dict(os.environ)}")),
    "parent's /proc environ": (
        "environment",
        _body("return {'result': open(f\"/proc/{A['ppid']}/environ\").read()}"),
    ),
    "pid 1 environ": ("environment", _body("return {'result': open('/proc/1/environ').read()}")),
    "tcp to loopback": (
        "sockets",
        _body(
            "import socket",
            "s = socket.create_connection(('127.0.0.1', A['port']), timeout=1)",
            "s.sendall(b'hi')",
            "return {'result': 1}",
        ),
    ),
    "udp to loopback": (
        "sockets",
        _body(
            "import socket",
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
            "s.sendto(b'hi', ('127.0.0.1', A['udp']))",
            "return {'result': 1}",
        ),
    ),
    "kill the victim": ("signals", _body("import os", "os.kill(A['victim'], 9)", "return {'result': 1}")),
    "stop the victim": ("signals", _body("import os", "os.kill(A['victim'], 19)", "return {'result': 1}")),
    "see the victim": ("signals", _body("import os", "os.kill(A['victim'], 0)", "return {'result': 'ESCAPED'}")),
    "fork and stay": (
        "children",
        _body(
            "import os",
            "if os.fork() == 0:",
            f"    os.execv(A['python'], {_SLEEPER})",
            "return {'result': 1}",
        ),
    ),
    "spawn a daemon": (
        "children",
        _body(
            "import subprocess",
            f"subprocess.Popen({_SLEEPER}, start_new_session=True)",
            "return {'result': 1}",
        ),
    ),
    "ctypes fork": (
        "children",
        _body(
            "import ctypes, os",
            "if ctypes.CDLL(None).syscall(57) == 0:",
            f"    os.execv(A['python'], {_SLEEPER})",
            "return {'result': 1}",
        ),
    ),
}
HEAVY: dict[str, tuple[str, str]] = {
    "stderr flood": ("floods", _body("import sys", "while True:", "    sys.stderr.write('x' * 65536)")),
    "stdout flood": ("floods", _body("import sys", "while True:", "    sys.__stdout__.write('x' * 65536)")),
    "memory": ("floods", _body("x = []", "while True:", "    x.append(bytearray(2**26))")),
    "cpu": ("floods", _body("while True:", "    pass")),
    "sleep past the wall": ("floods", _body("import time", "time.sleep(60)")),
}


@dataclass(frozen=True)
class Program:
    name: str
    kind: str
    code: str


def programs() -> list[Program]:
    """Every attempt after every way of switching the hook off; the heavy ones after two of them."""
    out = []
    for label, disable in DISABLERS.items():
        for name, (kind, body) in ATTEMPTS.items():
            out.append(Program(f"{label}: {name}", kind, f"def run(state, A):\n{disable}{body}"))
    for label in ("hook intact", "__main__ hook replaced"):
        for name, (kind, body) in HEAVY.items():
            out.append(Program(f"{label}: {name}", kind, f"def run(state, A):\n{DISABLERS[label]}{body}"))
    return out


class _Listener:
    """TCP and UDP listeners on the caller's loopback that count what reaches them."""

    def __init__(self) -> None:
        self.hits = 0
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.tcp.settimeout(0.2)
        self.udp.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            for sock in (self.tcp, self.udp):
                try:
                    if sock is self.tcp:
                        self.tcp.accept()[0].close()
                    else:
                        self.udp.recv(16)
                    self.hits += 1
                except OSError:  # a timeout: look again
                    continue

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.tcp.close()
        self.udp.close()


def _marked() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if MARK.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
    return found


def _rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def _canaries() -> Iterator[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="envfactory-canary-") as folder:
        Path(folder, "secret").write_text(SECRET)
        victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        listener = _Listener()
        before = os.environ.get("ENVFACTORY_API_KEY")
        os.environ["ENVFACTORY_API_KEY"] = SECRET
        try:
            yield {"dir": folder, "secret": f"{folder}/secret", "keep": f"{folder}/keep", "ppid": os.getpid(),
                   "port": listener.tcp.getsockname()[1], "udp": listener.udp.getsockname()[1],
                   "victim": victim.pid, "python": sys.executable, "mark": MARK, "_listener": listener,
                   "_victim": victim}  # fmt: skip
        finally:
            if before is None:
                os.environ.pop("ENVFACTORY_API_KEY", None)
            else:
                os.environ["ENVFACTORY_API_KEY"] = before
            listener.close()
            victim.kill()
            victim.wait()


def _state(proc: subprocess.Popen[bytes]) -> str:
    try:
        return Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def escapes(chosen: list[Program] | None = None, runner: Any = None) -> tuple[Counter[str], list[str]]:
    """Run ``chosen`` (default: every program) through ``runner`` (default: ``run_sandboxed``); count
    escapes per kind and name the programs that escaped."""
    from envfactory.sandbox import run_sandboxed

    run = runner or run_sandboxed
    found: Counter[str] = Counter()
    escaped: list[str] = []
    with _canaries() as canary:
        listener, victim = canary.pop("_listener"), canary.pop("_victim")
        for program in chosen or programs():
            Path(canary["keep"]).write_text("KEEPCANARY")
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{canary['dir']}/new")
            hits, rss, start = listener.hits, _rss(), time.monotonic()
            result = run(program.code, "run", {}, canary, cpu_seconds=1, memory_mb=128, wall_seconds=WALL)
            elapsed = time.monotonic() - start
            time.sleep(0.05)  # a connection in flight is counted
            answer = repr(result.value) + result.detail
            seen = {
                "files": Path(canary["keep"]).read_text() != "KEEPCANARY" if Path(canary["keep"]).exists() else True,
                "file created": Path(canary["dir"], "new").exists(),
                "secret out": SECRET in answer or "KEEPCANARY" in answer or "ESCAPED" in answer,
                "sockets": listener.hits != hits,
                "signals": _state(victim) not in ("S", "R"),
                "children": bool(_marked()),
                "caller memory": _rss() - rss > 100 * 2**20,
                "wall overrun": elapsed > WALL + 2,
            }
            found[program.kind + " programs"] += 1
            if any(seen.values()):
                found[program.kind] += 1
                escaped.append(f"{program.name}: {', '.join(k for k, v in seen.items() if v)}")
            for pid in _marked():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if _state(victim) == "T":
                os.kill(victim.pid, signal.SIGCONT)
            if _state(victim) not in ("S", "R"):  # killed: a fresh victim for the next program
                victim.kill()
                victim.wait()
                victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                canary["victim"] = victim.pid
    victim.kill()
    victim.wait()
    return found, escaped


__all__ = ["ATTEMPTS", "DISABLERS", "HEAVY", "Program", "escapes", "programs"]
