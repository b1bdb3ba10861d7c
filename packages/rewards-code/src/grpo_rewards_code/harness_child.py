# mypy: disallow-untyped-defs=False
"""The harness, part 2 of :data:`grpo_rewards_code.harness.PARTS`: a test's child (its rlimits, its seccomp
filter, its descriptors and streams) and the program in it (compiled once in the supervisor; run per
stdin/stdout or call test; an assert test's program server and the test itself).
"""

import ctypes
import json
import os
import resource
import struct
import sys

from .harness import Unserialisable, _isinstance, _json_line, _len, _type, _write, decode, encode

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
               # unshare, setns: no namespace of its own (a user namespace would give it capabilities there);
               # memfd_create: memory no rlimit counts (written, never mapped: 64 files of RLIMIT_FSIZE each);
               # io_uring_setup, _enter, _register and userfaultfd: kernel memory no rlimit counts, and the kernel
               # code most container profiles refuse (libuv, Node.js's, falls back to its thread pool)
               "refused": (200, 424, 434, 101, 29, 64, 68, 248, 249, 250, 240, 272, 308, 319, 425, 426, 427, 323),
               # mmap: shared anonymous memory is refused where RLIMIT_DATA bounds the program (it counts private
               # mappings only)
               "mmap": 9},
    "aarch64": {"arch": 0xC00000B7, "forks": (), "clone": 220, "clone3": 435, "fcntl": 25, "ioctl": 29,
                "self_only": (129, 131, 138, 240, 261, 118, 119, 122, 274), "self_only_who": ((140, 0), (30, 1)),
                "refused": (130, 424, 434, 117, 194, 190, 186, 217, 218, 219, 180, 97, 268, 279, 425, 426, 427, 282),
                "mmap": 222},
}
#: fcntl F_SETOWN, F_SETSIG, F_SETOWN_EX and ioctl FIOSETOWN, SIOCSPGRP, TIOCSPGRP: they would make the
#: kernel signal another process on this descriptor's I/O
_OWNER_FCNTL, _OWNER_IOCTL = (8, 10, 15), (0x8901, 0x8902, 0x5410)


_PID = object()  # where a filter instruction compares with the process's own pid


def _no_new_processes_filter(shared_memory=True):
    """A seccomp program, as parts to join around the pid of the process it is for (``None`` marks each
    place), and its length. The process may not create processes (fork, vfork, clone without
    CLONE_THREAD; clone3: ENOSYS), signal, re-limit or re-schedule any process but itself (kill, tgkill,
    sigqueue, prlimit, sched_set*, setpriority and ioprio_set name ``pid`` or 0: a nice value, policy or
    CPU set given to the zygote would pass to every later program; tkill and pidfds refused; no
    F_SETOWN-style signal routing), trace,
    create state that outlives it (System V IPC, POSIX message queues, kernel keys), or make memory files
    (``memfd_create``: written and never mapped, their pages count in no rlimit). Without ``shared_memory``
    (a program bounded by ``RLIMIT_DATA``, which counts private mappings only) ``mmap`` with ``MAP_SHARED`` and
    ``MAP_ANONYMOUS`` is refused too. EPERM for each."""
    nrs = _SYSCALLS.get(os.uname().machine)
    if nrs is None:
        return None
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    ALLOW, KILL, EPERM, ENOSYS = 0x7FFF0000, 0x80000000, 0x00050001, 0x00050026
    AND = 0x54  # BPF_ALU | BPF_AND | BPF_K
    ARG0, ARG1, ARG3 = 16, 24, 40  # the low 32 bits of the first, second and fourth arguments (little-endian)
    SHARED_ANONYMOUS = 0x21  # MAP_SHARED | MAP_ANONYMOUS (MAP_SHARED_VALIDATE has MAP_SHARED's bit)
    # instructions (code, true target, false target, k); a target is a label or None (the next instruction)
    ins: list = [(LD, None, None, 4), (JEQ, None, "kill", nrs["arch"]), (LD, None, None, 0)]
    if nrs["arch"] == 0xC000003E:  # x32 system calls
        ins += [(JGE, "kill", None, 0x40000000)]
    ins += [(JEQ, "eperm", None, nr) for nr in (*nrs["forks"], *nrs["refused"])]
    ins += [(JEQ, "enosys", None, nrs["clone3"])]
    ins += [(JEQ, "self", None, nr) for nr in nrs["self_only"]]
    ins += [(JEQ, f"who{which}", None, nr) for nr, which in nrs["self_only_who"]]
    if not shared_memory:
        ins += [(JEQ, "mmap", None, nrs["mmap"])]
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
        "mmap": [(LD, None, None, ARG3), (AND, None, None, SHARED_ANONYMOUS), (JEQ, "eperm", "allow", SHARED_ANONYMOUS)],
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


def _prebuilt_filter(shared_memory=True):
    """The filter as one buffer, built once before any test forks (building it in each child cost a few
    hundred copy-on-write page faults), and where each child writes its own pid."""
    made = _no_new_processes_filter(shared_memory)
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
_FILTER_DATA = _prebuilt_filter(shared_memory=False)  # for a program that RLIMIT_DATA bounds (Java, Node.js)


def _install_filter(data=False):
    """Install the filter in this process (``data``: the one without shared anonymous memory); exits with 121
    when it cannot be installed."""
    made = _FILTER_DATA if data else _FILTER
    if made is None:
        return
    buf, _, address, offsets = made
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
        sys.argv = ["checker.py", *(f"{files_dir(job)}/{name}" for name, _ in test["files"])]
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


#: where a ``files`` test's files are written (each a plain name; the test's command line names them in order)
FILES_DIR = "/tmp/files"


def files_dir(job):
    """:data:`FILES_DIR`, or its place under the job's ``scratch`` directory where the sandbox has no private
    ``/tmp`` of its own (the unshare and unsafe modes: :func:`grpo_rewards_code.sandbox.relocate`)."""
    scratch = job.get("scratch")
    return FILES_DIR if scratch is None else scratch + FILES_DIR[len("/tmp"):]
