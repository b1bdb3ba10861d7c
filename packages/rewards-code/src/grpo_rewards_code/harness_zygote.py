# mypy: disallow-untyped-defs=False
"""The harness, part 5 of :data:`grpo_rewards_code.harness.PARTS`: the zygote, a warm sandbox's process 1, which
forks a supervisor per program and cleans the sandbox after each; and the entry point.
"""

import os
import select
import signal
import sys
import time

from .harness import _POLLIN, _len, _type
from .harness_child import _child_fds, _compile_python, _make_streams
from .harness_supervisor import _prepare, _settle, _supervise, main
from .harness_watch import _IN_NAMESPACE  # noqa: F401 - zygote sets it (``global``): the parts share one namespace

# -- the zygote of a warm sandbox -----------------------------------------------------------------
#: standard-library modules a warm sandbox's zygote imports before any program (programs import them often; sqlite3:
#: every query of code.sql_match and tools.sqlite)
PRELOAD = ("typing", "math", "collections", "itertools", "functools", "re", "heapq", "bisect", "string", "sqlite3")
#: a constant program the zygote compiles (never runs) before any program: the interpreter's first compile sets up
#: the compiler's lazily made state (about 3 ms of CPU), which every supervisor would otherwise pay for again
WARM_UP = """\
import sys
class C(object):
    def f(self, x: int = 1, *a, **k) -> str:
        return f"{x!r:>4}" + str([y * 2 for y in a if y] + list({k: v for k, v in k.items()}))
try:
    with open("f") as h:
        g = lambda z, /, *, w=None: (z, w, *a, {**k}, (yield), h)
except (OSError, ValueError) as e:
    raise RuntimeError() from e
finally:
    del sys
"""
#: the directories a program can write (every other mount is read-only): emptied after each program
WRITABLE = ("/tmp", "/dev/shm")


def _bound_below(roots):
    """What lies under the writable directories but is no program's: the mount points there (an interpreter or
    packages bound at their real paths under ``/tmp``) and every directory on the way to one, each with its
    (device, inode, mode) and whether it is the mount point itself."""
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4] for line in f]
    kept: dict = {}
    for point in points:
        point = point.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
        for root in roots:
            path, mount = point, True
            while path.startswith(root + "/"):
                st = os.lstat(path)
                kept[path] = (st.st_dev, st.st_ino, st.st_mode & 0o7777, mount or kept.get(path, (0, 0, 0, False))[3])
                path, mount = os.path.dirname(path), False
    return kept


def _wipe(path, kept, depth=0):
    """Remove everything under ``path`` (the program's files; nothing of it runs any more) but ``kept``."""
    if depth > 200:
        raise OSError(f"{path}: nested too deeply to clean")
    with os.scandir(path) as entries:
        items = list(entries)
    for entry in items:
        if entry.path in kept:
            if not kept[entry.path][3]:
                _wipe(entry.path, kept, depth + 1)  # a directory on the way to a bind: only what the program added
        elif entry.is_dir(follow_symlinks=False):
            os.chmod(entry.path, 0o700)
            _wipe(entry.path, kept, depth + 1)
            os.rmdir(entry.path)
        else:
            os.unlink(entry.path)


def _restore(path, mode):
    """Put back a directory's mode and drop extended attributes a program set (only where they changed: a
    directory the program cannot change is not this process's either)."""
    if os.stat(path).st_mode & 0o7777 != mode:
        os.chmod(path, mode)
    for name in os.listxattr(path):
        os.removexattr(path, name)


def _clean(modes, kept):
    """After a program: no process but this one, the writable directories empty and as they were (``kept``:
    the binds under them, untouched and in place), no IPC object, no socket; None, or what could not be made clean (the
    host then starts a new sandbox)."""
    deadline = time.monotonic() + 5.0
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            if [e for e in os.listdir("/proc") if e.isdigit() and e != "1"] == []:
                break
        if time.monotonic() > deadline:
            return "processes survive in the sandbox"
        time.sleep(0.0002)
    try:
        for path, (dev, ino, mode, _) in kept.items():
            st = os.lstat(path)
            if (st.st_dev, st.st_ino) != (dev, ino):
                return f"{path} (on the way to a bind) was replaced"
            _restore(path, mode)
        for path, mode in modes.items():
            _restore(path, mode)
            _wipe(path, kept)
        for kind in ("shm", "msg", "sem"):
            with open(f"/proc/sysvipc/{kind}") as table:
                if _len(table.read().splitlines()) > 1:
                    return f"a System V {kind} object survives"
        # no socket of the sandbox's network namespace (the zygote's own is the host's): a unix socket a
        # program sent into another's queue (SCM_RIGHTS) outlives every process, and its abstract name and
        # queue reached the next program until the kernel's garbage collector happened to run
        with open("/proc/net/unix") as table:
            if _len(table.read().splitlines()) > 1:
                return "a unix socket survives (a descriptor in flight)"
    except (OSError, RecursionError) as exc:
        return f"cannot clean the sandbox: {_type(exc).__name__}: {exc}"[:300]
    return None


def zygote():
    """A warm sandbox's process 1: per program, fork a supervisor that runs its job, then clean up.

    fd 0 is a socket to the host. The host sends ``r`` with three descriptors (the job to read, the
    results to write, stderr); the zygote forks a supervisor onto them and closes its own copies
    unread, so no program's data, and no test, is ever in its memory (nor, through a fork, in a later
    program's). ``k`` kills the running program. After each program: :func:`_clean`, then ``R``
    (ready), or ``D reason`` and the zygote exits.
    """
    import socket

    global _IN_NAMESPACE
    _IN_NAMESPACE = True
    _prepare(sys.argv[1:])
    for name in PRELOAD:  # what programs commonly import, once for every program (each test still forks)
        try:
            __import__(name)
        except ImportError:
            pass
    _compile_python({"program": WARM_UP}, {"memory": 0})
    _make_streams()  # each supervisor's children use these unused copies (made on fds 0, 1, 2, never used here)
    _settle()
    control = socket.socket(fileno=0)
    modes = {path: os.stat(path).st_mode & 0o7777 for path in WRITABLE if os.path.isdir(path)}
    kept = _bound_below(tuple(modes))
    problem = _clean(modes, kept)
    control.send(b"R" if problem is None else b"D " + problem.encode())
    while problem is None:
        try:
            message, fds, _, _ = socket.recv_fds(control, 16, 4)
        except OSError:
            break
        if message == b"k" and not fds:
            continue  # a stop that arrived after its program had ended
        if message != b"r" or _len(fds) != 3:
            break
        pid = os.fork()
        if pid == 0:
            try:
                _child_fds(fds)
                _supervise()
            except BaseException:
                pass
            os._exit(0)
        for fd in fds:
            os.close(fd)
        poller = select.poll()
        exit_fd = os.pidfd_open(pid)
        poller.register(exit_fd, _POLLIN)
        poller.register(control.fileno(), _POLLIN)
        ended = False
        while not ended:
            for fd, _ in poller.poll():
                if fd == exit_fd:
                    ended = True
                elif control.recv(16) in (b"k", b""):
                    ended = True  # a stop, or the host closed the socket
        os.close(exit_fd)
        problem = _clean(modes, kept)
        try:
            control.send(b"R" if problem is None else b"D " + problem.encode())
        except OSError:
            break
    _clean(modes, kept)
    os._exit(0)


if __name__ == "__main__":
    zygote() if "zygote" in sys.argv[1:] else main()
