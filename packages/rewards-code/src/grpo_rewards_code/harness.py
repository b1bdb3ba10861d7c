# mypy: disallow-untyped-defs=False
"""The harness that runs inside the sandbox (standard library only; run as ``python -I -S -c SOURCE``).

One job's supervisor (:func:`_supervise`) is either process 1 of a one-shot sandbox (:func:`main`)
or, in a warm sandbox, a child that the sandbox's process 1, the zygote (:func:`zygote`, run with
the argument ``zygote``), forks per program. It is non-dumpable (the program cannot open
``/proc/<pid>/fd/...`` or read its memory). It reads two length-prefixed JSON frames from fd 0:
frame 1 holds the program, the inputs of stdin/stdout and call tests, and the limits: nothing
secret. It compiles the program once. Frame 2 holds the assert tests, which contain expected
values; it is read only after every process that will run the program has been forked, so no
program process ever has it in memory. Each test runs in its own forked child with rlimits (CPU,
address space, open files, file size, processes) and a seccomp filter that refuses to create
processes (threads are allowed) or to signal, re-limit or re-schedule another process, so no
program can leave a process behind or reach its supervisor; its stdout is captured up to a cap.
One JSON line per test goes to fd 1, then ``{"done": true}``.

Call tests and assert tests exchange values as typed JSON (:func:`encode`): only ``None``, bools,
ints, floats, strings, bytes, complex numbers and lists, tuples, dicts, sets of them, of their
exact types; anything else (an object with a lying ``__eq__``) is a ``runtime_error``.
"""

import ctypes
import gc
import json
import os
import resource
import select
import signal
import struct
import sys
import time
from json import encoder as json_encoder
from json import scanner as json_scanner

_type, _len, _isinstance, _write = type, len, isinstance, os.write
_POLLIN = select.POLLIN | select.POLLPRI
MAX_DEPTH = 100

# json.dumps and json.loads go through Python-level wrappers that touch many objects, and each test's
# child (and its supervisor, after each fork) pays a copied page for every object touched: the C encoder
# and scanner, made once, do the same work.
_make_encoder, _make_scanner = getattr(json_encoder, "c_make_encoder", None), getattr(json_scanner, "c_make_scanner", None)
_C_ENCODE = _make_encoder and _make_encoder(None, None, json_encoder.encode_basestring_ascii, None, ": ", ", ",
                                            False, False, True)
_C_SCAN = _make_scanner and _make_scanner(json.JSONDecoder())


def _json_line(message):
    """``(json.dumps(message) + "\n").encode()`` for a message of plain JSON types (no cycles: each is built
    here, and :func:`encode` stops at :data:`MAX_DEPTH`)."""
    if _C_ENCODE is None:
        return (json.dumps(message) + "\n").encode()
    return ("".join(_C_ENCODE(message, 0)) + "\n").encode()


def _json_value(data):
    """``json.loads(data)`` for one line of this harness's own JSON (bytes); raises ValueError."""
    if _C_SCAN is None:
        return json.loads(data)
    text = data.decode()
    try:
        value, end = _C_SCAN(text, 0)
    except StopIteration:
        raise ValueError("not a JSON value") from None
    if end != _len(text):
        raise ValueError("extra data after the JSON value")
    return value


class Unserialisable(Exception):
    pass


def encode(value, depth=0):
    """A JSON-ready form of ``value`` that keeps its type; raises Unserialisable."""
    if depth > MAX_DEPTH:
        raise Unserialisable("nested too deeply")
    t = _type(value)
    if value is None or t is bool or t is int or t is str:
        return value
    if t is float:
        return value if value == value and value not in (float("inf"), float("-inf")) else {"__t": "float", "v": repr(value)}
    if t is list:
        return [encode(v, depth + 1) for v in value]
    if t is tuple:
        return {"__t": "tuple", "v": [encode(v, depth + 1) for v in value]}
    if t is dict:
        return {"__t": "dict", "v": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if t is set or t is frozenset:
        return {"__t": t.__name__, "v": [encode(v, depth + 1) for v in value]}
    if t is bytes:
        return {"__t": "bytes", "v": value.hex()}
    if t is complex:
        return {"__t": "complex", "v": [encode(value.real), encode(value.imag)]}
    raise Unserialisable(f"a value of type {t.__name__} cannot be compared outside the sandbox")


def decode(data, depth=0):
    """The value :func:`encode` encoded (plain built-in types only)."""
    if depth > MAX_DEPTH:
        raise ValueError("nested too deeply")
    if _isinstance(data, list):
        return [decode(v, depth + 1) for v in data]
    if not _isinstance(data, dict):
        return data
    tag, v = data.get("__t"), data.get("v")
    if tag == "float":
        return float(v)
    if tag == "tuple":
        return tuple(decode(x, depth + 1) for x in v)
    if tag == "dict":
        return {decode(k, depth + 1): decode(x, depth + 1) for k, x in v}
    if tag == "set":
        return {decode(x, depth + 1) for x in v}
    if tag == "frozenset":
        return frozenset(decode(x, depth + 1) for x in v)
    if tag == "bytes":
        return bytes.fromhex(v)
    if tag == "complex":
        return complex(decode(v[0]), decode(v[1]))
    raise ValueError(f"unknown value tag {tag!r}")


# -- process set-up -----------------------------------------------------------------------------
_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, PR_CAPBSET_DROP = 4, 38, 22, 2, 24


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


#: system call numbers the filter needs, per machine
_SYSCALLS: dict = {
    "x86_64": {"arch": 0xC000003E, "forks": (57, 58), "clone": 56, "clone3": 435, "fcntl": 72, "ioctl": 16,
               # kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, prlimit64, sched_setparam, sched_setscheduler,
               # sched_setaffinity, sched_setattr: the first argument names the process
               "self_only": (62, 234, 129, 297, 302, 142, 144, 203, 314),
               # setpriority, ioprio_set: (which, who, ...), only which = the process and who = itself
               "self_only_who": ((141, 0), (251, 1)),
               # tkill, pidfd_send_signal, pidfd_open, ptrace, shmget, semget, msgget, add_key, request_key,
               # keyctl, mq_open: nothing a program needs; each could reach another process or outlive this one;
               # unshare, setns: no namespace of its own (a user namespace would give it capabilities there)
               "refused": (200, 424, 434, 101, 29, 64, 68, 248, 249, 250, 240, 272, 308)},
    "aarch64": {"arch": 0xC00000B7, "forks": (), "clone": 220, "clone3": 435, "fcntl": 25, "ioctl": 29,
                "self_only": (129, 131, 138, 240, 261, 118, 119, 122, 274), "self_only_who": ((140, 0), (30, 1)),
                "refused": (130, 424, 434, 117, 194, 190, 186, 217, 218, 219, 180, 97, 268)},
}
#: fcntl F_SETOWN, F_SETSIG, F_SETOWN_EX and ioctl FIOSETOWN, SIOCSPGRP, TIOCSPGRP: they would make the
#: kernel signal another process on this descriptor's I/O
_OWNER_FCNTL, _OWNER_IOCTL = (8, 10, 15), (0x8901, 0x8902, 0x5410)


_PID = object()  # where a filter instruction compares with the process's own pid


def _no_new_processes_filter():
    """A seccomp program, as parts to join around the pid of the process it is for (``None`` marks each
    place), and its length. The process may not create processes (fork, vfork, clone without
    CLONE_THREAD; clone3: ENOSYS), signal, re-limit or re-schedule any process but itself (kill, tgkill,
    sigqueue, prlimit, sched_set*, setpriority and ioprio_set name ``pid`` or 0: a nice value, policy or
    CPU set given to the zygote would pass to every later program; tkill and pidfds refused; no
    F_SETOWN-style signal routing), trace, or
    create state that outlives it (System V IPC, POSIX message queues, kernel keys). EPERM for each."""
    nrs = _SYSCALLS.get(os.uname().machine)
    if nrs is None:
        return None
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    ALLOW, KILL, EPERM, ENOSYS = 0x7FFF0000, 0x80000000, 0x00050001, 0x00050026
    ARG0, ARG1 = 16, 24  # the low 32 bits of the first two arguments (little-endian)
    # instructions (code, true target, false target, k); a target is a label or None (the next instruction)
    ins: list = [(LD, None, None, 4), (JEQ, None, "kill", nrs["arch"]), (LD, None, None, 0)]
    if nrs["arch"] == 0xC000003E:  # x32 system calls
        ins += [(JGE, "kill", None, 0x40000000)]
    ins += [(JEQ, "eperm", None, nr) for nr in (*nrs["forks"], *nrs["refused"])]
    ins += [(JEQ, "enosys", None, nrs["clone3"])]
    ins += [(JEQ, "self", None, nr) for nr in nrs["self_only"]]
    ins += [(JEQ, f"who{which}", None, nr) for nr, which in nrs["self_only_who"]]
    ins += [(JEQ, "fcntl", None, nrs["fcntl"]), (JEQ, "ioctl", None, nrs["ioctl"]), (JEQ, "clone", "allow", nrs["clone"])]
    blocks: dict = {  # each ends in a jump to allow or eperm
        "self": [(LD, None, None, ARG0), (JEQ, "allow", None, _PID), (JEQ, "allow", "eperm", 0)],
        **{f"who{which}": [(LD, None, None, ARG0), (JEQ, None, "eperm", which), (LD, None, None, ARG1),
                           (JEQ, "allow", None, _PID), (JEQ, "allow", "eperm", 0)] for _, which in nrs["self_only_who"]},
        "fcntl": [(LD, None, None, ARG1), *[(JEQ, "eperm", None, c) for c in _OWNER_FCNTL[:-1]],
                  (JEQ, "eperm", "allow", _OWNER_FCNTL[-1])],
        "ioctl": [(LD, None, None, ARG1), *[(JEQ, "eperm", None, c) for c in _OWNER_IOCTL[:-1]],
                  (JEQ, "eperm", "allow", _OWNER_IOCTL[-1])],
        "clone": [(LD, None, None, ARG0), (JSET, "allow", "eperm", 0x10000)],
        "kill": [(RET, None, None, KILL)], "enosys": [(RET, None, None, ENOSYS)],
        "eperm": [(RET, None, None, EPERM)], "allow": [(RET, None, None, ALLOW)],
    }
    labels = {}
    for name, block in blocks.items():
        labels[name] = _len(ins)
        ins += block
    parts: list = []
    for i, (code, true, false, k) in enumerate(ins):
        jt, jf = (0 if t is None else labels[t] - i - 1 for t in (true, false))
        if k is _PID:
            parts += [struct.pack("HBB", code, jt, jf), None]
        else:
            parts.append(struct.pack("HBBI", code, jt, jf, k))
    return parts, _len(ins)


def _prebuilt_filter():
    """The filter as one buffer, built once before any test forks (building it in each child cost a few
    hundred copy-on-write page faults), and where each child writes its own pid."""
    made = _no_new_processes_filter()
    if made is None:
        return None
    parts, count = made
    offsets, code = [], b""
    for part in parts:
        if part is None:
            offsets.append(_len(code))
            part = b"\0\0\0\0"
        code += part
    buf = ctypes.create_string_buffer(code, _len(code))
    prog = _SockFprog(count, ctypes.cast(buf, ctypes.c_void_p))
    return buf, prog, ctypes.addressof(prog), tuple(offsets)


_FILTER = _prebuilt_filter()  # built once; each child only writes its pid into its own copy


def _install_filter():
    if _FILTER is None:
        return
    buf, _, address, offsets = _FILTER
    pid = os.getpid()
    for offset in offsets:
        struct.pack_into("I", buf, offset, pid)
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or _libc.prctl(
            PR_SET_SECCOMP, SECCOMP_MODE_FILTER, address, 0, 0) != 0:
        os._exit(121)  # never run the program without the filter


_RLIMITS: dict = {}  # (limits, cpu, memory) -> what _set_limits sets: worked out once per program, not per test


def _rlimits(limits, cpu_seconds, memory):
    """``memory`` caps the address space (``RLIMIT_AS``), or with ``limits["rlimit"] == "data"`` (the JVM and
    Node.js, which reserve more address space than they use) the committed private memory (``RLIMIT_DATA``)."""
    key = (limits.get("files", 64), limits.get("file_size", 16 << 20), limits.get("processes", 32), cpu_seconds, memory,
           limits.get("rlimit", "as"))
    made = _RLIMITS.get(key)
    if made is None:
        files, file_size, processes = key[:3]
        cpu = max(1, int(cpu_seconds + 0.999))
        kind = resource.RLIMIT_DATA if key[5] == "data" else resource.RLIMIT_AS
        rest: tuple = ((kind, memory),) if memory else ()
        rest += ((resource.RLIMIT_NOFILE, files), (resource.RLIMIT_FSIZE, file_size),
                 (resource.RLIMIT_NPROC, processes), (resource.RLIMIT_CORE, 0))
        made = _RLIMITS[key] = ((cpu, cpu + 1), rest)
    return made


def _set_limits(rlimits):
    """In a child: the limits :func:`_rlimits` worked out (CPU must take; the others are best effort)."""
    cpu, rest = rlimits
    resource.setrlimit(resource.RLIMIT_CPU, cpu)
    for kind, value in rest:
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass


def _child_fds(fds):
    """Make ``fds`` (stdin, stdout, stderr, result[, extra...]) descriptors 0, 1, 2, 3, ...; close the rest."""
    n = _len(fds)
    if min(fds) < n:  # a source is also a target: move every one above the targets first
        fds = [os.dup(fd) for fd in fds]
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(n, 65536)


_STREAMS: tuple = ()  # sys.stdin, sys.stdout, sys.stderr on descriptors 0, 1, 2: made once, before the tests fork


def _make_streams():
    global _STREAMS
    import io
    _STREAMS = (io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False))),
                io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), write_through=False),
                io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True))


def _std_streams():
    """In a test's child: the program's standard streams (unused copies of the supervisor's, on the child's
    own descriptors 0, 1, 2)."""
    if not _STREAMS:
        _make_streams()
    sys.stdin, sys.stdout, sys.stderr = _STREAMS


def _report(message):
    data = _json_line(message)
    try:
        _write(3, data)
    except OSError:
        pass


def _flush_and_exit(code):
    try:
        sys.stdout.flush()
    except BaseException:
        code = code or 1
    os._exit(code)


def _compile_python(job, limits):
    """Compile the program once, in the supervisor, before any test forks (compiling runs none of it; the
    address space is capped meanwhile); None, or the ``compile_error`` every test then gets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = max(limits["memory"] or 0, 1 << 30)
    try:
        if hard == resource.RLIM_INFINITY or cap < hard:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        job["code"] = compile(job["program"], "solution.py", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        return {"status": "compile_error", "error": f"{_type(exc).__name__}: {exc}"[:500]}
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    return None


def _load_program(job):
    """Run the program's module code (compiled by :func:`_compile_python`) in a fresh namespace; exits with
    the outcome on failure."""
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    _run_guarded(lambda: exec(job["code"], namespace))
    return namespace


def _run_guarded(fn):
    """Run ``fn``; a clean ``sys.exit(0)`` ends the process normally, anything else reports and exits."""
    try:
        return fn()
    except SystemExit as exc:
        code = exc.code if _isinstance(exc.code, int) else (0 if exc.code is None else 1)
        _flush_and_exit(code)
    except MemoryError:
        _report({"status": "memory", "error": "MemoryError"})
        os._exit(3)
    except OSError as exc:
        status = "output_limit" if exc.errno == 27 else "runtime_error"  # EFBIG: RLIMIT_FSIZE (SIGXFSZ is ignored)
        _report({"status": status, "error": f"{_type(exc).__name__}: {exc}"[:500]})
        _flush_and_exit(1)
    except BaseException as exc:
        _report({"status": "runtime_error", "error": f"{_type(exc).__name__}: {exc}"[:500]})
        _flush_and_exit(1)


def _function(namespace, name):
    if name in namespace and callable(namespace[name]):
        return namespace[name]
    solution = namespace.get("Solution")
    if _isinstance(solution, _type) and callable(getattr(solution, name, None)):
        return getattr(solution(), name)
    raise NameError(f"the program defines no function {name!r}")


def _python_test(job, test):
    """In the forked child: run one test of a Python program (stdio or call)."""
    _std_streams()
    sys.path[:0] = job.get("sys_path", [])
    if test["kind"] == "files":  # a checker: its files are arguments
        sys.argv = ["checker.py", *(f"{FILES_DIR}/{name}" for name, _ in test["files"])]
    namespace = _load_program(job)
    if test["kind"] in ("stdio", "files"):
        _flush_and_exit(0)
    fn = _run_guarded(lambda: _function(namespace, test["fn"]))
    args = decode(test["args"])
    value = _run_guarded(lambda: fn(*args))
    try:
        encoded = encode(value)
    except (Unserialisable, RecursionError) as exc:
        _report({"status": "runtime_error", "error": str(exc)[:500]})
        _flush_and_exit(1)
    _report({"status": "ok", "value": encoded})
    _flush_and_exit(0)


def _program_server(job, requests, replies):
    """In a forked child: run the program, then answer calls ``[name, args]`` with ``[ok, value or error]``."""
    _std_streams()
    inbox = os.fdopen(requests, "rb")
    first = inbox.readline()  # the program runs only when its test starts: one program's memory at a time
    if not first:
        _flush_and_exit(0)
    namespace = _load_program(job)
    line = first
    while line:
        name, args = json.loads(line)
        try:
            value = _function(namespace, name)(*decode(args))
            reply = [True, encode(value)]
        except SystemExit:
            _flush_and_exit(0)
        except MemoryError:
            _report({"status": "memory", "error": "MemoryError"})
            os._exit(3)
        except BaseException as exc:
            reply = [False, f"{_type(exc).__name__}: {exc}"[:500]]
        _write(replies, (json.dumps(reply) + "\n").encode())
        line = inbox.readline()
    _flush_and_exit(0)


class _ProgramError(Exception):
    """The program failed a call (raised, returned something unserialisable, ended)."""


class _Proxy:
    """Stands for a program function inside an assert test: each call goes to the program server."""

    def __init__(self, name, channel):
        self.name, self.channel = name, channel

    def __call__(self, *args):
        requests, replies, limit = self.channel
        os.write(requests, (json.dumps([self.name, encode(list(args))]) + "\n").encode())
        line = replies.readline(limit)
        if not line.endswith(b"\n"):
            raise _ProgramError("the program ended or answered with too much data")
        ok, value = json.loads(line)
        if not ok:
            raise _ProgramError(value)
        return decode(value)


def _assert_test(test, requests, replies, limit):
    """In a forked child that never runs program code: run one assert test against the program server."""
    channel = (requests, os.fdopen(replies, "rb"), limit)
    namespace: dict = {"__name__": "__test__"}
    try:
        exec(compile(test["setup"], "setup.py", "exec"), namespace)
        for name in test["proxies"]:
            namespace[name] = _Proxy(name, channel)
        exec(compile(test["source"], "test.py", "exec"), namespace)
    except AssertionError as exc:
        _report({"status": "ok", "passed": False, "error": f"AssertionError: {exc}"[:300]})
        os._exit(0)
    except _ProgramError as exc:
        _report({"status": "ok", "passed": False, "program_error": str(exc)[:300]})
        os._exit(0)
    except BaseException as exc:
        _report({"status": "ok", "passed": False, "error": f"{_type(exc).__name__}: {exc}"[:300]})
        os._exit(0)
    _report({"status": "ok", "passed": True})
    os._exit(0)


# -- the parent ---------------------------------------------------------------------------------
def _read_exact(n):
    chunks, got = [], 0
    while got < n:
        chunk = os.read(0, min(1 << 20, n - got))
        if not chunk:
            raise EOFError("the job ended early")
        chunks.append(chunk)
        got += _len(chunk)
    return b"".join(chunks)


def _read_frame():
    (size,) = struct.unpack("<Q", _read_exact(8))
    return json.loads(_read_exact(size))


def _spawn(target, fds, limits, cpu, memory, seccomp=True, executes=False):
    """Fork a child that runs ``target`` in its own session on ``fds`` with the limits and (``seccomp``) the
    filter. ``executes``: ``target`` execs a binary, which gets SIGPIPE's default action back (a Python child
    keeps it ignored, as every Python process has it)."""
    rlimits = _rlimits(limits, cpu, memory)
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            _child_fds(fds)
            _set_limits(rlimits)
            if executes:
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            if seccomp:
                _install_filter()
            target()
        except BaseException:
            pass
        os._exit(120)
    return pid


#: whether this process runs inside the sandbox's own PID namespace (as its process 1, or as a supervisor the
#: zygote forked), where "every other process" means the program's; never in the unsafe mode
_IN_NAMESPACE = False


def _kill_others(keep=()):
    """Kill every process of the sandbox but this one, the zygote (process 1) and ``keep``; reap our children."""
    if _IN_NAMESPACE:
        if keep:
            me = os.getpid()
            for entry in os.listdir("/proc"):
                if entry.isdigit() and int(entry) not in (1, me) and int(entry) not in keep:
                    try:
                        os.kill(int(entry), signal.SIGKILL)
                    except OSError:
                        pass
        else:
            try:
                os.kill(-1, signal.SIGKILL)  # every process we may signal but ourselves and the namespace's init
            except ProcessLookupError:
                return  # there is none, not even a zombie (kill counts them): nothing to reap
            except OSError:
                pass
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG if keep else 0)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _watch(pids, pipes, stdin_data, wall, output_cap):
    """Feed stdin, collect the pipes (name -> fd) until the main pid exits or the wall deadline passes.

    Returns (status of pids[0], rusage, outputs, timed_out, over_output). A plain ``poll`` (no selector
    objects): this runs once per test, between a fork and the next, where every page it touches is copied.
    """
    poller = select.poll()
    names = {}
    out = {}
    for name, fd in pipes.items():
        poller.register(fd, _POLLIN)  # read only when poll says so: a pipe's read then returns at once
        names[fd] = name
        out[name] = bytearray()
    stdin_fd, stdin_view = stdin_data if stdin_data else (None, b"")
    if stdin_fd is not None:
        if stdin_view:
            os.set_blocking(stdin_fd, False)
            poller.register(stdin_fd, select.POLLOUT)
        else:
            os.close(stdin_fd)
            stdin_fd = None
    deadline = time.monotonic() + wall
    status = rusage = None
    timed_out = over = False
    open_reads = _len(pipes)
    try:  # wakes the loop when the process exits (Linux 5.3+); else poll
        exit_fd = os.pidfd_open(pids[0])
        poller.register(exit_fd, _POLLIN)
    except (AttributeError, OSError):
        exit_fd = None
    check = True  # whether the main pid may have exited (at first, and whenever its pidfd is readable)
    while True:
        if check:
            pid, st, ru = os.wait4(pids[0], os.WNOHANG)
            check = exit_fd is None
            if pid:
                status, rusage = st, ru
                if exit_fd is not None:
                    poller.unregister(exit_fd)
                    os.close(exit_fd)
                    exit_fd = None
        if status is not None and not open_reads:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = status is None
            break
        poll = remaining if exit_fd is not None or status is not None else min(remaining, 0.01)
        for fd, _ in poller.poll(poll * 1000 + 1):
            if fd == exit_fd:
                check = True
                continue
            if fd == stdin_fd:
                try:
                    n = os.write(stdin_fd, stdin_view[:65536])
                    stdin_view = stdin_view[n:]
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    stdin_view = b""
                if not stdin_view:
                    poller.unregister(stdin_fd)
                    os.close(stdin_fd)
                    stdin_fd = None
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                poller.unregister(fd)
                open_reads -= 1
                continue
            name = names[fd]
            buffer = out[name]
            buffer += chunk
            if _len(buffer) > output_cap[name]:
                over = True
                del buffer[output_cap[name]:]
        if over:
            break
    for n, pid in enumerate(pids):
        if n or status is None:  # the main pid, once reaped, is not ours to signal any more
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if status is None:
        _, status, rusage = os.wait4(pids[0], 0)
    if exit_fd is not None:
        os.close(exit_fd)
    for fd in list(pipes.values()) + ([stdin_fd] if stdin_fd is not None else []):
        try:
            os.close(fd)
        except OSError:
            pass
    return status, rusage, out, timed_out, over


#: what a process that ran program code may say on its report channel (fd 3): it is the program's to write
#: (nothing in a process can be hidden from the code it runs), so it is read as untrusted data
PROGRAM_STATUSES = ("ok", "runtime_error", "memory", "output_limit")
_FORGED = {"status": "runtime_error", "error": "the program wrote into the harness's channel"}


def _report_of(data, trusted):
    """The one report a test's process wrote on fd 3, validated; None when it wrote none.

    From a process that ran program code (``trusted`` False) only ``status`` (one of :data:`PROGRAM_STATUSES`),
    ``error`` (text) and, with ``ok``, ``value`` are kept; anything else (more than one line, not JSON, another
    key or status: a claim only the supervisor may make) is the program's ``runtime_error``. An assert test's
    process (``trusted``: it never runs program code) may also say ``passed`` and ``program_error``.
    """
    messages = [line for line in bytes(data).split(b"\n") if line.strip()]
    if not messages:
        return None
    if _len(messages) != 1:
        return dict(_FORGED, error="more than one result: the program wrote into the harness's channel")
    try:
        report = _json_value(messages[0])
    except (ValueError, RecursionError):
        return _FORGED
    allowed = ("status", "error", "value", "passed", "program_error") if trusted else ("status", "error", "value")
    if _type(report) is not dict or any(key not in allowed for key in report) \
            or report.get("status") not in PROGRAM_STATUSES or ("value" in report and report["status"] != "ok") \
            or _type(report.get("error", "")) is not str or _type(report.get("program_error", "")) is not str \
            or _type(report.get("passed", False)) is not bool:
        return _FORGED
    if "error" in report:
        report["error"] = report["error"][:500]
    return report


_FILTER_WORKS: list = []  # whether a fresh child can install the seccomp filter (asked once, when a test exits 121)


def _filter_works():
    """Whether the seccomp filter installs here (a program may exit with 121 itself: only a probe tells)."""
    if not _FILTER_WORKS:
        pid = os.fork()
        if pid == 0:
            try:
                _install_filter()
            finally:
                os._exit(0)
        _FILTER_WORKS.append(os.WEXITSTATUS(os.waitpid(pid, 0)[1]) == 0)
    return _FILTER_WORKS[0]


def _outcome(status, rusage, out, timed_out, over, cpu_limit, memory, trusted=False, markers=()):
    """One test's result from how its process ended; ``markers``: text in its stderr that says it ran out of
    memory (a runtime's own message: the JVM's OutOfMemoryError, V8's heap limit, Rust's failed allocation)."""
    result = {"time": round(rusage.ru_utime + rusage.ru_stime, 4) if rusage else None,
              "rss_kb": rusage.ru_maxrss if rusage else None}
    report = _report_of(out.get("result", b""), trusted)
    stderr = bytes(out.get("stderr", b""))[-2000:].decode("utf-8", "replace")
    if over:
        result.update(status="output_limit")
    elif timed_out or (result["time"] or 0) > cpu_limit:  # RLIMIT_CPU counts whole seconds: the measured
        result.update(status="timeout")                     # CPU time holds a limit such as 0.3 s exactly
    elif os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        result["signal"] = sig
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and (result["time"] or 0) >= cpu_limit):
            result.update(status="timeout")
        elif sig == signal.SIGXFSZ:
            result.update(status="output_limit")
        elif memory and ("bad_alloc" in stderr or (result["rss_kb"] or 0) * 1024 > 0.8 * memory):
            result.update(status="memory")
        else:
            result.update(status="runtime_error", error=f"killed by signal {sig}")
    else:
        code = os.WEXITSTATUS(status)
        result["exit"] = code
        if report is not None and report["status"] != "ok":
            result.update(status=report["status"], error=report.get("error"))
        elif code == 121 and report is None and not _filter_works():
            result.update(status="sandbox_error", error="the seccomp filter could not be installed")
        elif code != 0:
            result.update(status="runtime_error", error=f"exit status {code}")
        elif report is not None:
            result.update(report)
        else:
            result.update(status="ok")
    if result["status"] == "runtime_error" and markers and any(m in stderr for m in markers):
        result.update(status="memory", error=stderr[-300:])
    if result["status"] == "runtime_error" and stderr and not result.get("error"):
        result["error"] = stderr[-300:]
    result["stdout"] = bytes(out.get("stdout", b"")).decode("utf-8", "replace")
    return result


#: the status of every test that did not run because the row's total time budget ran out
OVER_BUDGET = {"status": "timeout", "error": "the row's total time budget ran out"}


def _budget_left(limits):
    """Seconds left of the row's total budget (``limits["total"]``, counted from the job's start)."""
    return limits["_end"] - time.monotonic()


#: where a ``files`` test's files are written (each a plain name; the test's command line names them in order)
FILES_DIR = "/tmp/files"


def _run_one(job, i, test, limits):
    cpu, memory = limits["time"], limits["memory"]
    wall = min(cpu * 2 + 1.0, _budget_left(limits))
    caps = {"stdout": limits["output"], "stderr": 65536, "result": limits["output"]}
    data = test.get("input", "").encode() if test["kind"] == "stdio" else b""
    args = []
    if test["kind"] == "files":  # a checker's test: its files, written afresh, named on its command line
        os.makedirs(FILES_DIR, exist_ok=True)
        for name, text in test["files"]:
            args.append(f"{FILES_DIR}/{name}")
            with open(args[-1], "w") as f:
                f.write(text)
    if data:
        in_r, in_w = os.pipe()
    else:  # nothing to feed: a /dev/null of its own (a new open file: no test sees a flag another one set)
        in_r, in_w = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC), None
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    if job["language"] == "python":
        target = lambda: _python_test(job, test)  # noqa: E731
    else:  # a compiled program, or a runtime's (java, node) command line: the job's "run"
        run = job["run"]

        def target():
            os.execve(run["argv"][0], [*run["argv"], *args], run["env"])
    pid = _spawn(target, [in_r, out_w, err_w, res_w], limits, cpu, memory, executes=job["language"] != "python")
    for fd in (in_r, out_w, err_w, res_w):
        os.close(fd)
    status, rusage, out, timed_out, over = _watch([pid], {"stdout": out_r, "stderr": err_r, "result": res_r},
                                                  None if in_w is None else (in_w, memoryview(data)), wall, caps)
    return _outcome(status, rusage, out, timed_out, over, cpu, memory, markers=job.get("memory_markers", ()))


def _compile(job, limits):
    """Write the program to ``job["source_path"]`` and run the job's ``compile`` command with its own limits (the
    compiler may start processes; no seccomp filter: it is the toolchain, not the program); None or an outcome."""
    for path, text in job.get("files", ()):  # files compiled with the program (graders), under /tmp
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    os.makedirs(os.path.dirname(job["source_path"]), exist_ok=True)
    with open(job["source_path"], "w") as f:
        f.write(job["program"])
    c = job["compile"]
    argv = c["argv"]
    pipes = [os.pipe() for _ in range(3)]

    def target():
        os.execve(argv[0], argv, c["env"])
    lim = dict(limits, processes=64, files=256, file_size=256 << 20, rlimit=c.get("rlimit", "as"))
    pid = _spawn(target, [pipes[0][0], pipes[1][1], pipes[2][1], os.open("/dev/null", os.O_WRONLY)], lim,
                 c["time"], c["memory"], seccomp=False, executes=True)
    for fd in (pipes[0][0], pipes[1][1], pipes[2][1]):
        os.close(fd)
    status, _, out, timed_out, _ = _watch([pid], {"stdout": pipes[1][0], "stderr": pipes[2][0]},
                                                  (pipes[0][1], memoryview(b"")), c["time"] * 2 + 2, {
                                                      "stdout": 65536, "stderr": 65536})
    _kill_others()
    if not timed_out and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return None
    error = bytes(out["stderr"])[-1500:].decode("utf-8", "replace") if _len(out["stderr"]) <= 1500 else (
        bytes(out["stderr"])[:1000].decode("utf-8", "replace") + "\n...\n" + bytes(out["stderr"])[-500:].decode("utf-8", "replace"))
    return {"status": "compile_error", "error": ("compiler timed out " if timed_out else "") + error}


def _settle():
    """Before the forks: freeze what exists (never collected in a child, so its pages stay shared) and give
    the allocator's free memory back (fewer mapped pages: each fork copies, and each exit unmaps, less)."""
    gc.freeze()
    try:
        _libc.malloc_trim(0)
    except AttributeError:  # not glibc
        pass


#: the uid and gid a program runs as (inside the sandbox, and on the host)
SANDBOX_UID = 65534


def _drop_root():
    """Started as root in a user namespace that maps host root (bwrap run by root, so that it could bind what
    only root may read): become :data:`SANDBOX_UID` for good, before anything of a job is read. Every
    capability goes with the uid change; bwrap set no-new-privileges, so none can come back."""
    for cap in (6, 7, 8):  # CAP_SETGID, CAP_SETUID, CAP_SETPCAP (the last one: it drops the others) out of the
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # bounding set (nothing else is in it)
    os.setgroups([])
    os.setresgid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    os.setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
    if os.getresuid() != (SANDBOX_UID,) * 3 or os.getresgid() != (SANDBOX_UID,) * 3 or os.getgroups() \
            or int(status["CapEff"], 16) or int(status["CapPrm"], 16) or int(status["CapBnd"], 16) \
            or status["NoNewPrivs"].strip() != "1":
        raise PermissionError("the sandbox could not give up root")


def _prepare(argv=()):
    """Process set-up shared by the one-shot harness and the zygote: root given up (``drop`` in ``argv``),
    no descriptor but 0, 1 and 2 (whatever the sandbox's launcher passed on), non-dumpable.

    A process 1 that gave up root no longer shares a uid with bwrap, whose ``--die-with-parent`` signal then
    cannot reach it: the host kills it itself (:class:`grpo_rewards_code.exchange.SandboxProcess`)."""
    if "drop" in argv:
        _drop_root()
    os.closerange(3, 65536)
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # five pipes per pending assert test
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _supervise():
    """Run one job: frame 1 from fd 0, then frame 2 (assert tests); one JSON line per test to fd 1."""
    try:
        job = _read_frame()
        if not _STREAMS:  # a warm sandbox's zygote made them
            _make_streams()
        limits = job["limits"]
        limits["_end"] = time.monotonic() + float(limits.get("total") or 1e9)
        tests = job["tests"]
        emit = lambda message: os.write(1, _json_line(message))  # noqa: E731
        failed = _compile_python(job, limits) if job["language"] == "python" else _compile(job, limits)
        gc.freeze()  # what is here now (the job, the compiled program) is never collected in a test's child
        for i, test in enumerate(tests):
            if failed is not None:
                emit({"i": i, **failed})
                continue
            if test["kind"] == "assert":
                continue
            if _budget_left(limits) <= 0:
                emit({"i": i, **OVER_BUDGET})
                continue
            result = _run_one(job, i, test, limits)
            _kill_others()
            if result["status"] == "compile_error":
                failed = {"status": "compile_error", "error": result.get("error")}
            emit({"i": i, **result})
        asserts = [i for i, t in enumerate(tests) if t["kind"] == "assert"]
        if asserts and failed is None:
            _run_asserts(job, asserts, limits, emit)
        elif asserts and failed is not None:
            for i in asserts:
                emit({"i": i, **failed})
        emit({"done": True})
    except BaseException as exc:
        os.write(1, (json.dumps({"fatal": f"{_type(exc).__name__}: {exc}"[:500]}) + "\n").encode())
    _kill_others()


def main():
    """One job, as the sandbox's process 1 (or a plain process in the unsafe mode)."""
    global _IN_NAMESPACE
    _IN_NAMESPACE = os.getpid() == 1
    try:
        _prepare(sys.argv[1:])
    except BaseException as exc:
        os.write(1, (json.dumps({"fatal": f"{_type(exc).__name__}: {exc}"[:500]}) + "\n").encode())
        os._exit(0)
    _supervise()
    os._exit(0)


# -- the zygote of a warm sandbox -----------------------------------------------------------------
#: standard-library modules a warm sandbox's zygote imports before any program (programs import them often; sqlite3:
#: every query of code.sql_match and tools.sqlite)
PRELOAD = ("typing", "math", "collections", "itertools", "functools", "re", "heapq", "bisect", "string", "sqlite3")
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
    the binds under them, untouched and in place), no IPC object; None, or what could not be made clean (the
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


def _run_asserts(job, indices, limits, emit):
    """One program server per assert test, all forked before frame 2 (the tests' sources) is read."""
    cpu, memory = limits["time"], limits["memory"]
    servers = []
    for _ in indices:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        null = os.open("/dev/null", os.O_RDONLY)
        pid = _spawn(lambda req_r=req_r, rep_w=rep_w: _program_server(job, 4, 5),
                     [null, out_w, err_w, res_w, req_r, rep_w], limits, cpu, memory)
        for fd in (null, out_w, err_w, res_w, req_r, rep_w):
            os.close(fd)
        servers.append((pid, req_w, rep_r, out_r, err_r, res_r))
    frame = _read_frame()
    sources = frame["tests"]
    for n, i in enumerate(indices):
        server_pid, req_w, rep_r, out_r, err_r, res_r = servers[n]
        if _budget_left(limits) <= 0:
            emit({"i": i, **OVER_BUDGET})
            continue
        t_res_r, t_res_w = os.pipe()
        null = os.open("/dev/null", os.O_RDWR)
        test = sources[str(i)]
        pid = _spawn(lambda test=test: _assert_test(test, 4, 5, limits["output"]),
                     [null, null, null, t_res_w, req_w, rep_r], limits, cpu * 4 + 1, memory)
        for fd in (null, t_res_w, req_w, rep_r):
            os.close(fd)
        pipes = {"result": t_res_r, "s_stdout": out_r, "s_stderr": err_r, "s_result": res_r}
        caps = {"result": 65536, "s_stdout": limits["output"], "s_stderr": 65536, "s_result": 65536}
        status, rusage, out, timed_out, over = _watch([pid, server_pid], pipes, None,
                                                      min(cpu * 2 + 1, _budget_left(limits)), caps)
        _, s_status, s_rusage = os.wait4(server_pid, 0)
        s_out = {"stdout": out["s_stdout"], "stderr": out["s_stderr"], "result": out["s_result"]}
        server = _outcome(s_status, s_rusage, s_out, timed_out, over, cpu, memory)
        verdict = _outcome(status, rusage, {"result": out["result"]}, False, False, cpu * 4 + 1, 0, trusted=True)
        if server["status"] in ("compile_error", "memory", "runtime_error", "output_limit", "timeout") \
                and not verdict.get("passed"):
            result = server
        elif verdict.get("program_error"):
            result = dict(server, status="runtime_error", error=verdict["program_error"])
        else:
            result = dict(verdict, time=server["time"], rss_kb=server["rss_kb"])
            if verdict["status"] != "ok" or "passed" not in verdict:
                result = dict(result, status="sandbox_error", error="the test harness failed: " + str(verdict.get("error")))
        result.pop("stdout", None)
        emit({"i": i, **result})
        _kill_others(keep={s[0] for s in servers[n + 1:]})
        if result["status"] == "compile_error":
            for j in indices[n + 1:]:
                emit({"i": j, "status": "compile_error", "error": result.get("error")})
            return


if __name__ == "__main__":
    zygote() if "zygote" in sys.argv[1:] else main()
