"""The operating-system boundary around code nobody reviewed: bubblewrap, seccomp, rlimits, bounded pipes.

``jailed(argv, stdin)`` runs a program (the interpreter, by absolute path) inside ``bwrap``:

- new user, PID, network, IPC, UTS and cgroup namespaces: no other process is visible or can be
  signalled, the only network interface is a loopback of its own, uid 65534 with no capabilities,
  no further user namespaces;
- an empty environment and a fresh, read-only root holding only what the interpreter must read
  (its binary, its standard library without ``site-packages``, the system's shared libraries, a
  private ``/proc`` and ``/dev``): no home, no ``/etc``, no working tree, nothing writable;
- a seccomp filter (compiled by libseccomp) that refuses new processes (``fork``, ``vfork``,
  ``clone`` without ``CLONE_THREAD``, ``clone3``) and the kernel interfaces a sandbox never needs
  (``ptrace``, ``mount``, ``unshare``, ``setns``, ``bpf``, keyrings, ``perf_event_open``, ...);
- rlimits (set by a small trampoline that then becomes ``bwrap``): CPU seconds, address space, no
  file bytes, no core files, few descriptors;
- the parent reads stdout and stderr with a bounded reader (past the cap the run is killed) and
  kills the whole session at the wall deadline; the PID namespace dies with its first process,
  taking every child with it, and ``--die-with-parent`` ends it if the caller dies.

``problem()`` says, once per process, why the boundary is unavailable here (``None`` when it
works: it runs a trial program). Nothing here depends on the audit hook inside the interpreter;
that hook is a second layer only.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import os
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass

INSTALL = "apt-get install bubblewrap libseccomp2"
NOBODY = 65534
# refused outright (EPERM); process creation is handled apart (clone with CLONE_THREAD is a thread)
DENIED = ("fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
          "chroot", "unshare", "setns", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
          "userfaultfd", "io_uring_setup", "kexec_load", "init_module", "finit_module", "delete_module",
          "swapon", "swapoff", "reboot", "acct", "personality", "open_by_handle_at", "name_to_handle_at",
          "fanotify_init", "quotactl", "lookup_dcookie", "iopl", "ioperm")  # fmt: skip
CLONE_THREAD = 0x00010000
_ALLOW, _ERRNO, _MASKED_EQ = 0x7FFF0000, 0x00050000, 7


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]  # fmt: skip


@dataclass(frozen=True)
class Finished:
    """How a jailed run ended: exit status (negative: a signal), its bounded output, and why it was cut."""

    returncode: int
    stdout: bytes
    stderr: bytes
    cut: str = ""  # "timeout", or "stdout"/"stderr" when that stream passed its cap


@functools.cache
def seccomp_program() -> bytes:
    """The filter as BPF bytes (libseccomp compiles it for this machine's architecture)."""
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    lib = ctypes.CDLL(name)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]  # fmt: skip
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(_ALLOW)
    if not ctx:
        raise OSError("seccomp_init failed")
    try:

        def rule(call: str, action: int, *cmps: _ArgCmp) -> None:
            nr = lib.seccomp_syscall_resolve_name(call.encode())
            if nr < 0:  # not a system call on this architecture (fork on arm64)
                return
            array = (_ArgCmp * max(1, len(cmps)))(*cmps)
            if lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), array) != 0:
                raise OSError(f"seccomp rule for {call} refused")

        for call in DENIED:
            rule(call, _ERRNO | errno.EPERM)
        rule("clone", _ERRNO | errno.EPERM, _ArgCmp(0, _MASKED_EQ, CLONE_THREAD, 0))  # a process, not a thread
        rule("clone3", _ERRNO | errno.ENOSYS)  # its flags sit in memory; libc falls back to clone
        read, write = os.pipe()
        try:
            if lib.seccomp_export_bpf(ctx, write) != 0:
                raise OSError("seccomp_export_bpf failed")
            os.close(write)
            write = -1
            chunks = []
            while chunk := os.read(read, 65536):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
    finally:
        lib.seccomp_release(ctx)


def interpreter() -> str:
    """The base interpreter (a virtual environment's ``python`` is a link or a copy of it)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _views() -> list[str]:
    """bwrap arguments for the read-only view: the interpreter, its standard library, shared libraries."""
    args: list[str] = []
    for top in ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/lib32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    if os.path.exists("/etc/ld.so.cache"):
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    exe = interpreter()
    args += ["--ro-bind", exe, exe]
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix, "installed_base": sys.base_prefix,
            "installed_platbase": sys.base_exec_prefix}  # fmt: skip
    stdlib = {os.path.realpath(sysconfig.get_paths(vars=base)[key]) for key in ("stdlib", "platstdlib")}
    libdir, soname = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and libdir and soname:
        shared = os.path.join(libdir, soname)
        if os.path.exists(shared):
            args += ["--ro-bind", os.path.realpath(shared), shared]
    for path in sorted(stdlib):
        args += ["--ro-bind", path, path]
        if os.path.isdir(os.path.join(path, "site-packages")):  # installed packages stay out of view
            args += ["--size", "4096", "--perms", "0555", "--tmpfs", os.path.join(path, "site-packages")]
    return args


def bwrap_argv(program: list[str], seccomp_fd: int) -> list[str]:
    bwrap = shutil.which("bwrap", path="/usr/bin:/bin:/usr/local/bin") or "bwrap"
    return [
        bwrap, "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--disable-userns",
        "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL", "--hostname", "sandbox",
        *_views(), "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/", "--chdir", "/",
        "--seccomp", str(seccomp_fd), *program,
    ]  # fmt: skip


# sets the rlimits every process in the jail inherits, then becomes bwrap (no preexec_fn: the caller may
# have threads, and a fork that runs Python code before exec can deadlock on a lock one of them held)
_LIMITS = """import os, resource, sys
cpu, memory = int(sys.argv[1]), int(sys.argv[2])
for limit, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (memory, memory)),
                     (resource.RLIMIT_FSIZE, (0, 0)), (resource.RLIMIT_CORE, (0, 0)),
                     (resource.RLIMIT_NOFILE, (64, 64)), (resource.RLIMIT_MEMLOCK, (0, 0))):
    resource.setrlimit(limit, value)
os.execv(sys.argv[3], sys.argv[3:])
"""


def jailed(
    program: list[str],
    stdin: bytes,
    *,
    cpu_seconds: int,
    memory_bytes: int,
    wall_seconds: float,
    max_stdout: int,
    max_stderr: int,
) -> Finished:
    """Run ``program`` in the jail, feed it ``stdin``, read at most the caps, kill it at the deadline."""
    filter_read, filter_write = os.pipe()
    os.write(filter_write, seccomp_program())  # a few hundred bytes: fits the pipe
    os.close(filter_write)
    try:
        argv = [interpreter(), "-I", "-S", "-c", _LIMITS, str(cpu_seconds), str(memory_bytes),
                *bwrap_argv(program, filter_read)]  # fmt: skip
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={},
                                pass_fds=(filter_read,), start_new_session=True, close_fds=True)  # fmt: skip
    finally:
        os.close(filter_read)
    try:
        return _exchange(proc, stdin, wall_seconds, max_stdout, max_stderr)
    finally:
        _kill(proc)


def _exchange(proc: subprocess.Popen[bytes], stdin: bytes, wall: float, max_out: int, max_err: int) -> Finished:
    assert proc.stdin and proc.stdout and proc.stderr
    deadline = time.monotonic() + wall
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    caps = {out_fd: ("stdout", max_out), err_fd: ("stderr", max_err)}
    got: dict[int, list[bytes]] = {fd: [] for fd in caps}
    sizes = dict.fromkeys(caps, 0)
    pending = memoryview(stdin)
    cut = ""
    with selectors.DefaultSelector() as sel:
        for fd in caps:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        in_fd = proc.stdin.fileno()
        if pending:
            os.set_blocking(in_fd, False)
            sel.register(in_fd, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        while len(sel.get_map()) and not cut:
            left = deadline - time.monotonic()
            if left <= 0:
                cut = "timeout"
                break
            for key, _ in sel.select(timeout=min(left, 1.0)):
                fd = key.fd
                if fd == in_fd:
                    try:
                        pending = pending[os.write(fd, pending[:65536]) :]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # it stopped reading: what it answers tells why
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(fd)
                        proc.stdin.close()
                    continue
                name, cap = caps[fd]
                try:
                    chunk = os.read(fd, min(65536, cap - sizes[fd] + 1))
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(fd)
                    continue
                sizes[fd] += len(chunk)
                if sizes[fd] > cap:
                    cut = name
                    break
                got[fd].append(chunk)
    if not cut:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            cut = "timeout"
    _kill(proc)
    code = proc.returncode if proc.returncode is not None else -signal.SIGKILL
    if code > 128:  # bwrap passes a signal that ended the program on as 128 + signal
        code = -(code - 128)
    return Finished(code, b"".join(got[out_fd]), b"".join(got[err_fd]), cut)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the session bwrap leads; its PID namespace dies with it
        proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None and not stream.closed:
            stream.close()


@functools.cache
def problem() -> str | None:
    """Why code cannot be fenced in here (``None``: it can). Measured once: a trial program must run."""
    if not sys.platform.startswith("linux"):
        return f"running generated code needs Linux namespaces (bubblewrap); this is {sys.platform}"
    if shutil.which("bwrap", path="/usr/bin:/bin:/usr/local/bin") is None:
        return f"running generated code needs bubblewrap, which is not installed ({INSTALL})"
    try:
        seccomp_program()
    except OSError as err:
        return f"running generated code needs libseccomp ({INSTALL}): {err}"
    try:
        done = jailed([interpreter(), "-I", "-S", "-c", "print(6 * 7)"], b"", cpu_seconds=5, memory_bytes=512 * 2**20,
                      wall_seconds=30, max_stdout=100, max_stderr=4000)  # fmt: skip
    except OSError as err:
        return f"bubblewrap could not start ({err}); {INSTALL}"
    if done.stdout.strip() != b"42":
        detail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return ("bubblewrap cannot make a sandbox here (it needs user, PID and network namespaces; "
                f"in a container, allow them): {detail[0][:200]}")  # fmt: skip
    return None


__all__ = ["DENIED", "INSTALL", "Finished", "bwrap_argv", "interpreter", "jailed", "problem", "seccomp_program"]
