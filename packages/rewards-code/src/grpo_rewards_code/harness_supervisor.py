# mypy: disallow-untyped-defs=False
"""The harness, part 4 of :data:`grpo_rewards_code.harness.PARTS`: one job's supervisor (:func:`_supervise`:
the program compiled, each test in turn, then the assert tests), root given up (:func:`_drop_root`),
and :func:`main`, a one-shot sandbox's process 1.
"""

import binascii
import gc
import json
import os
import resource
import signal
import stat
import sys
import time

from .harness import _json_line, _len, _type
from .harness_child import (
    _STREAMS,
    PR_CAPBSET_DROP,
    PR_SET_DUMPABLE,
    _assert_test,
    _compile_python,
    _libc,
    _make_streams,
    _program_server,
    _python_test,
    files_dir,
)
from .harness_watch import (
    _IN_NAMESPACE,  # noqa: F401 - main sets it (``global``): joined, the parts share one namespace
    OVER_BUDGET,
    _budget_left,
    _kill_others,
    _outcome,
    _read_frame,
    _spawn,
    _watch,
)


def _run_one(job, i, test, limits):
    cpu, memory = limits["time"], limits["memory"]
    wall = min(cpu * 2 + 1.0, _budget_left(limits))
    caps = {"stdout": limits["output"], "stderr": 65536, "result": limits["output"]}
    data = test.get("input", "").encode() if test["kind"] == "stdio" else b""
    args = []
    if test["kind"] == "files":  # a checker's test: its files, written afresh, named on its command line
        where = files_dir(job)
        os.makedirs(where, exist_ok=True)
        for name, text in test["files"]:
            args.append(f"{where}/{name}")
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
    compiler may start processes; no seccomp filter: it is the toolchain, not the program); None or an outcome.
    A job that carries the compile's ``binary`` (kept on the host from an earlier run) has it written instead of
    compiled, beside the same source files, so that the program finds what a compile would have left."""
    for path, text in job.get("files", ()):  # files compiled with the program (graders), under /tmp
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    os.makedirs(os.path.dirname(job["source_path"]), exist_ok=True)
    with open(job["source_path"], "w") as f:
        f.write(job["program"])
    if "binary" in job:
        try:  # as the compiler's -o would (a binary left by an earlier test of this sandbox)
            os.unlink(job["output"])
        except FileNotFoundError:
            pass
        fd = os.open(job["output"], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o700)
        try:
            view = memoryview(binascii.a2b_base64(job["binary"]))
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, 0o755)
        finally:
            os.close(fd)
        return None
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


def _send_binary(path, most, emit):
    """Send the compiled binary at ``path`` to the host (which keeps it for later runs of the same source), unless
    it is larger than ``most`` bytes or not a plain file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > most:
            return
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    emit({"binary": binascii.b2a_base64(b"".join(chunks), newline=False).decode("ascii")})


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
        if failed is None and job.get("send_binary"):  # before any test runs: only the compiler has written it
            _send_binary(job["output"], job["send_binary"], emit)
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
