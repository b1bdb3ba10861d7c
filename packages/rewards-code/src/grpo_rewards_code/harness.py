# mypy: disallow-untyped-defs=False
"""The harness that runs inside the sandbox (standard library only; run as ``python -I -S -c SOURCE``).

It is process 1 of the sandbox's PID namespace (signals from the program cannot kill it) and
non-dumpable (the program cannot open ``/proc/1/fd/...`` or read its memory). It reads two
length-prefixed JSON frames from stdin: frame 1 holds the program, the inputs of stdin/stdout
and call tests, and the limits: nothing secret. Frame 2 holds the assert tests, which contain
expected values; it is read only after every process that will run the program has been forked,
so no program process ever has it in memory. Each test runs in its own forked child with rlimits
(CPU, address space, open files, file size, processes) and a seccomp filter that refuses to
create processes (threads are allowed), so no program can leave a process behind; its stdout is
captured up to a cap. One JSON line per test goes to fd 1, then ``{"done": true}``.

Call tests and assert tests exchange values as typed JSON (:func:`encode`): only ``None``, bools,
ints, floats, strings, bytes, complex numbers and lists, tuples, dicts, sets of them, of their
exact types; anything else (an object with a lying ``__eq__``) is a ``runtime_error``.
"""

import ctypes
import json
import os
import resource
import selectors
import signal
import struct
import sys
import time

_type, _len, _isinstance, _write = type, len, isinstance, os.write
MAX_DEPTH = 100


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
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 4, 38, 22, 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _no_new_processes_filter():
    """A seccomp program that refuses fork, vfork and clone without CLONE_THREAD (clone3: ENOSYS)."""
    machine = os.uname().machine
    if machine == "x86_64":
        arch, forks, clone = 0xC000003E, [57, 58], 56
    elif machine == "aarch64":
        arch, forks, clone = 0xC00000B7, [], 220
    else:
        return None
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    ALLOW, KILL, EPERM, ENOSYS = 0x7FFF0000, 0x80000000, 0x00050001, 0x00050026
    ins = [(LD, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, KILL), (LD, 0, 0, 0)]
    if machine == "x86_64":  # x32 system calls
        ins += [(JGE, 0, 1, 0x40000000), (RET, 0, 0, KILL)]
    for nr in forks:
        ins += [(JEQ, 0, 1, nr), (RET, 0, 0, EPERM)]
    ins += [(JEQ, 0, 1, 435), (RET, 0, 0, ENOSYS), (JEQ, 1, 0, clone), (RET, 0, 0, ALLOW),
            (LD, 0, 0, 16), (JSET, 0, 1, 0x10000), (RET, 0, 0, ALLOW), (RET, 0, 0, EPERM)]
    return b"".join(struct.pack("HBBI", *i) for i in ins), len(ins)


_FILTER = _no_new_processes_filter()


def _install_filter():
    if _FILTER is None:
        return
    code, count = _FILTER
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(count, ctypes.cast(buf, ctypes.c_void_p))
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or _libc.prctl(
            PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0) != 0:
        os._exit(121)  # never run the program without the filter


def _set_limits(limits, cpu_seconds, memory):
    def lim(kind, value):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass
    cpu = max(1, int(cpu_seconds + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if memory:
        lim(resource.RLIMIT_AS, memory)
    lim(resource.RLIMIT_NOFILE, limits.get("files", 64))
    lim(resource.RLIMIT_FSIZE, limits.get("file_size", 16 << 20))
    lim(resource.RLIMIT_NPROC, limits.get("processes", 32))
    lim(resource.RLIMIT_CORE, 0)


def _child_fds(fds):
    """Make ``fds`` (stdin, stdout, stderr, result[, extra...]) descriptors 0, 1, 2, 3, ...; close the rest."""
    moved = [os.dup(fd) for fd in fds]  # above every target first, so dup2 never overwrites one not yet moved
    for target, fd in enumerate(moved):
        os.dup2(fd, target, inheritable=True)
    os.closerange(len(fds), 65536)


def _std_streams():
    import io
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), write_through=False)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)


def _report(message):
    data = (json.dumps(message) + "\n").encode()
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


def _load_program(job):
    """Compile and run the program's module code in a fresh namespace; exits with the outcome on failure."""
    try:
        code = compile(job["program"], "solution.py", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        _report({"status": "compile_error", "error": f"{_type(exc).__name__}: {exc}"[:500]})
        os._exit(2)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    _run_guarded(lambda: exec(code, namespace))
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
    namespace = _load_program(job)
    if test["kind"] == "stdio":
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
    namespace = _load_program(job)
    inbox = os.fdopen(requests, "rb")
    for line in inbox:
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


def _spawn(target, fds, limits, cpu, memory, seccomp=True):
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            _child_fds(fds)
            _set_limits(limits, cpu, memory)
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            if seccomp:
                _install_filter()
            target()
        except BaseException:
            pass
        os._exit(120)
    return pid


def _kill_others(keep=()):
    """Kill every process of the sandbox but this one (and ``keep``), and reap them."""
    if os.getpid() == 1:
        if keep:
            for entry in os.listdir("/proc"):
                if entry.isdigit() and int(entry) != 1 and int(entry) not in keep:
                    try:
                        os.kill(int(entry), signal.SIGKILL)
                    except OSError:
                        pass
        else:
            try:
                os.kill(-1, signal.SIGKILL)
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

    Returns (status of pids[0], rusage, outputs, timed_out, over_output).
    """
    sel = selectors.DefaultSelector()
    out = {name: bytearray() for name in pipes}
    for name, fd in pipes.items():
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ, name)
    stdin_fd, stdin_view = stdin_data if stdin_data else (None, b"")
    if stdin_fd is not None:
        os.set_blocking(stdin_fd, False)
        if stdin_view:
            sel.register(stdin_fd, selectors.EVENT_WRITE, "<stdin>")
        else:
            os.close(stdin_fd)
            stdin_fd = None
    deadline = time.monotonic() + wall
    status = rusage = None
    timed_out = over = False
    open_reads = set(pipes)
    try:  # wakes the loop when the process exits (Linux 5.3+); else poll
        exit_fd = os.pidfd_open(pids[0])
        sel.register(exit_fd, selectors.EVENT_READ, "<exit>")
    except (AttributeError, OSError):
        exit_fd = None
    while True:
        if status is None:
            pid, st, ru = os.wait4(pids[0], os.WNOHANG)
            if pid:
                status, rusage = st, ru
                if exit_fd is not None:
                    sel.unregister(exit_fd)
                    os.close(exit_fd)
                    exit_fd = None
        if status is not None and not open_reads:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = status is None
            break
        poll = remaining if exit_fd is not None or status is not None else min(remaining, 0.01)
        for key, _ in sel.select(poll):
            name = key.data
            if name == "<exit>":
                continue
            if name == "<stdin>" and stdin_fd is not None:
                try:
                    n = os.write(stdin_fd, stdin_view[:65536])
                    stdin_view = stdin_view[n:]
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    stdin_view = b""
                if not stdin_view:
                    sel.unregister(stdin_fd)
                    os.close(stdin_fd)
                    stdin_fd = None
                continue
            try:
                chunk = os.read(key.fd, 65536)
            except (BlockingIOError, InterruptedError):
                continue
            if not chunk:
                sel.unregister(key.fd)
                open_reads.discard(name)
                continue
            out[name] += chunk
            if _len(out[name]) > output_cap[name]:
                over = True
                del out[name][output_cap[name]:]
        if over:
            break
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if status is None:
        _, status, rusage = os.wait4(pids[0], 0)
    if exit_fd is not None:
        os.close(exit_fd)
    sel.close()
    for fd in list(pipes.values()) + ([stdin_fd] if stdin_fd is not None else []):
        try:
            os.close(fd)
        except OSError:
            pass
    return status, rusage, out, timed_out, over


def _outcome(status, rusage, out, timed_out, over, cpu_limit, memory):
    result = {"time": round(rusage.ru_utime + rusage.ru_stime, 4) if rusage else None,
              "rss_kb": rusage.ru_maxrss if rusage else None}
    messages = [line for line in bytes(out.get("result", b"")).split(b"\n") if line.strip()]
    report = None
    if _len(messages) == 1:
        try:
            report = json.loads(messages[0])
        except ValueError:
            report = None
    elif messages:
        report = {"status": "runtime_error", "error": "more than one result: the program wrote into the harness's channel"}
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
        if report is not None and report.get("status") in ("compile_error", "memory", "runtime_error", "output_limit"):
            result.update(status=report["status"], error=report.get("error"))
        elif code == 121:
            result.update(status="sandbox_error", error="the seccomp filter could not be installed")
        elif code != 0:
            result.update(status="runtime_error", error=f"exit status {code}")
        elif report is not None:
            result.update(report)
        else:
            result.update(status="ok")
    if result["status"] == "runtime_error" and stderr and not result.get("error"):
        result["error"] = stderr[-300:]
    result["stdout"] = bytes(out.get("stdout", b"")).decode("utf-8", "replace")
    return result


def _run_one(job, i, test, limits):
    cpu, memory = limits["time"], limits["memory"]
    wall = cpu * 2 + 1.0
    caps = {"stdout": limits["output"], "stderr": 65536, "result": limits["output"]}
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    if job["language"] == "python":
        target = lambda: _python_test(job, test)  # noqa: E731
    else:
        def target():
            os.execve(job["binary"], [job["binary"]], {"PATH": "/usr/bin:/bin"})
    pid = _spawn(target, [in_r, out_w, err_w, res_w], limits, cpu, memory)
    for fd in (in_r, out_w, err_w, res_w):
        os.close(fd)
    data = test.get("input", "").encode() if test["kind"] == "stdio" else b""
    status, rusage, out, timed_out, over = _watch([pid], {"stdout": out_r, "stderr": err_r, "result": res_r},
                                                  (in_w, memoryview(data)), wall, caps)
    return _outcome(status, rusage, out, timed_out, over, cpu, memory)


def _compile(job, limits):
    """Compile a C++ program with its own limits (the compiler may start processes); None or an outcome."""
    source = "/tmp/solution.cpp"
    with open(source, "w") as f:
        f.write(job["program"])
    job["binary"] = "/tmp/solution"
    argv = [job["compiler"], *job["compile_flags"], "-o", job["binary"], source]
    c = job["compile_limits"]
    pipes = [os.pipe() for _ in range(3)]

    def target():
        os.execve(argv[0], argv, {"PATH": "/usr/bin:/bin", "TMPDIR": "/tmp"})
    lim = dict(limits, processes=64, files=256, file_size=256 << 20)
    pid = _spawn(target, [pipes[0][0], pipes[1][1], pipes[2][1], os.open("/dev/null", os.O_WRONLY)], lim,
                 c["time"], c["memory"], seccomp=False)
    for fd in (pipes[0][0], pipes[1][1], pipes[2][1]):
        os.close(fd)
    status, _, out, timed_out, _ = _watch([pid], {"stdout": pipes[1][0], "stderr": pipes[2][0]},
                                                  (pipes[0][1], memoryview(b"")), c["time"] * 2 + 2, {
                                                      "stdout": 65536, "stderr": 65536})
    _kill_others()
    if not timed_out and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return None
    error = bytes(out["stderr"])[-1500:].decode("utf-8", "replace")
    return {"status": "compile_error", "error": ("compiler timed out " if timed_out else "") + error}


def main():
    try:
        _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # five pipes per pending assert test
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        job = _read_frame()
        limits = job["limits"]
        tests = job["tests"]
        emit = lambda message: os.write(1, (json.dumps(message) + "\n").encode())  # noqa: E731
        failed = None
        if job["language"] == "cpp":
            failed = _compile(job, limits)
        for i, test in enumerate(tests):
            if failed is not None:
                emit({"i": i, **failed})
                continue
            if test["kind"] == "assert":
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
        t_res_r, t_res_w = os.pipe()
        null = os.open("/dev/null", os.O_RDWR)
        test = sources[str(i)]
        pid = _spawn(lambda test=test: _assert_test(test, 4, 5, limits["output"]),
                     [null, null, null, t_res_w, req_w, rep_r], limits, cpu * 4 + 1, 0)
        for fd in (null, t_res_w, req_w, rep_r):
            os.close(fd)
        pipes = {"result": t_res_r, "s_stdout": out_r, "s_stderr": err_r, "s_result": res_r}
        caps = {"result": 65536, "s_stdout": limits["output"], "s_stderr": 65536, "s_result": 65536}
        status, rusage, out, timed_out, over = _watch([pid, server_pid], pipes, None, cpu * 2 + 1, caps)
        _, s_status, s_rusage = os.wait4(server_pid, 0)
        s_out = {"stdout": out["s_stdout"], "stderr": out["s_stderr"], "result": out["s_result"]}
        server = _outcome(s_status, s_rusage, s_out, timed_out, over, cpu, memory)
        verdict = _outcome(status, rusage, {"result": out["result"]}, False, False, cpu * 4 + 1, 0)
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
    main()
