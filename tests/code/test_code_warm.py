"""Programs that share a warm sandbox cannot reach each other: what one leaves, the next never sees."""

from __future__ import annotations

import os
import threading
import time

from code_procs import _descends_from, sandbox_processes, score_and_list_sandboxes

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.formats import StdioTest
from grpo_rewards_code.runner import LocalRunner, Program
from grpo_rewards_code.sandbox import Limits, SandboxUnavailable
from grpo_rewards_code.warm import close_warm, thread_sandboxes

EMPTY = [{"kind": "stdio", "input": ""}]
#: what the next program sees of the sandbox: the processes, the writable directories, System V IPC
LOOK = ("import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()) == [1, os.getppid(), os.getpid()])\n"
        "print(os.listdir('/tmp'), os.listdir('/dev/shm'), oct(os.stat('/tmp').st_mode), os.listxattr('/tmp'))\n"
        "print([len(open(f'/proc/sysvipc/{k}').read().splitlines()) for k in ('shm', 'msg', 'sem')])\n"
        "open('/tmp/b', 'w').write('b' * 100000)\nprint(len(open('/tmp/b').read()))")
CLEAN = ["True", "[] [] 0o41777 []", "[1, 1, 1]", "100000"]


def run(sandbox, source, limits=None, tests=EMPTY):
    return sandbox.run_python(source, tests, limits or Limits(time=5.0))


def same_sandbox(sandbox, first, second):
    """Run ``first`` then ``second`` in this thread's warm sandbox; both results and whether it stayed the same one."""
    a = run(sandbox, first)
    before = thread_sandboxes()
    b = run(sandbox, second)
    return a, b, before != [] and thread_sandboxes() == before


def test_a_program_and_the_next_share_one_warm_sandbox_and_the_next_starts_from_a_fresh_supervisor(sandbox):
    a, b, same = same_sandbox(sandbox, "import os\nprint(os.getppid())", "import os\nprint(os.getppid())")
    assert same and a[0]["stdout"] != b[0]["stdout"]  # the same zygote, a new supervisor


def test_files_a_program_leaves_are_gone_before_the_next_runs(sandbox):
    first = ("import os\nos.makedirs('/tmp/d/e/f')\nopen('/tmp/d/e/f/x', 'w').write('x')\nos.chmod('/tmp/d/e', 0)\n"
             "os.symlink('/usr', '/tmp/link')\nopen('/dev/shm/y', 'w').write('y')\n"
             "for change in (lambda: os.setxattr('/tmp', 'user.a', b'1'), lambda: os.chmod('/tmp', 0o500)):\n"
             "    try:\n        change()\n    except OSError:\n        pass\n"  # as root /tmp is root's (mode 1777)
             "for p in ('/x', '/etc/x', '/dev/x', '/usr/x', '/root/x'):\n"
             "    try:\n        open(p, 'w')\n    except OSError as e:\n        print(e.errno in (13, 30))")
    a, b, same = same_sandbox(sandbox, first, LOOK)
    assert a[0]["status"] == "ok" and a[0]["stdout"].split() == ["True"] * 5  # EROFS (or EACCES) everywhere else
    assert same and b[0]["status"] == "ok" and b[0]["stdout"].splitlines() == CLEAN


def test_no_process_a_program_starts_or_stops_in_the_middle_survives_into_the_next(sandbox):
    runner = LocalRunner(sandbox)
    program = Program("import threading, time\nif input() == '2':\n    for _ in range(20):\n"
                      "        threading.Thread(target=time.sleep, args=(60,)).start()\n    time.sleep(60)\nprint(1)")
    start = time.monotonic()
    raws = runner.run(program, [StdioTest("1\n", "1"), StdioTest("2\n", "1")], Limits(time=30.0),
                      stop=lambda i, raw: i == 0)  # stopped while the second test's threads sleep
    assert [r.status for r in raws] == ["ok", "skipped"] and time.monotonic() - start < 20
    assert sandbox_processes() == []
    assert run(sandbox, LOOK)[0]["stdout"].splitlines() == CLEAN


def test_monkeypatching_in_one_program_does_not_reach_the_next(sandbox):
    first = ("import builtins, json, sys, os\nbuiltins.print = lambda *a, **k: None\njson.dumps = lambda *a, **k: 'x'\n"
             "json.loads = lambda *a, **k: {}\nos._exit = lambda *a: None\nsys.modules['io'].TextIOWrapper = None\n"
             "builtins.__import__ = None\nraise SystemExit(0)")
    scorer = TestsPassed()
    row = {"test_list": ["assert add(1, 2) == 3", "assert add(20, 22) in (42,)"]}
    run(sandbox, first)  # its own result is a runtime_error: it broke what its own process uses to exit
    before = thread_sandboxes()
    assert scorer("```python\ndef add(a, b):\n    return a + b\nprint(sum([1]))\n```", **row) == (1.0, "passed")
    assert run(sandbox, "print(6 * 7)")[0]["stdout"] == "42\n" and thread_sandboxes() == before


def test_exhausting_what_a_sandbox_has_in_one_program_leaves_the_next_unaffected(sandbox):
    first = ("import ctypes, os, threading, time\nlibc = ctypes.CDLL(None, use_errno=True)\n"
             "print(os.getpriority(os.PRIO_PROCESS, 0))\nos.nice(10)\n"
             "for i in range(12):\n    open(f'/tmp/fill{i}', 'wb').write(b'x' * (4 << 20))\n"
             "fds = []\ntry:\n    while True:\n        fds.append(os.open('/dev/null', os.O_RDONLY))\nexcept OSError as e:\n"
             "    print('fds', e.errno)\nthreads = 0\ntry:\n    while True:\n"
             "        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n        threads += 1\n"
             "except RuntimeError:\n    print('threads', threads > 0)\n"
             "for name, nr, args in (('shmget', 29, (0, 4096, 0o1600)), ('msgget', 68, (0, 0o1600)), ('semget', 64, (0, 1, 0o1600)),\n"
             "                       ('add_key', 248, (b'user', b'k', b'v', 1, -3))):\n"
             "    print(name, libc.syscall(nr, *args), ctypes.get_errno())")
    a, b, same = same_sandbox(sandbox, first, LOOK + "\nprint(os.getpriority(os.PRIO_PROCESS, 0))")
    nice, *rest = a[0]["stdout"].splitlines()
    if os.uname().machine == "x86_64":  # the system call numbers above are x86_64's
        assert rest == ["fds 24", "threads True", "shmget -1 1", "msgget -1 1", "semget -1 1", "add_key -1 1"]
    assert same and b[0]["stdout"].splitlines() == [*CLEAN, nice]  # its own nice value did not pass on


def test_no_test_of_an_earlier_program_and_no_earlier_program_is_in_a_later_programs_memory(sandbox):
    # program A: an assert test of another shape (sent into the sandbox as frame 2) carries a secret
    scorer = TestsPassed()
    secret, mark = "S3CRET-" + "e1b7c0d2", "PR0GRAM-" + "9a4f"
    row = {"test_list": [f"assert add(1, 2) in (3, {secret!r})"]}
    assert scorer(f"```python\n# {mark}\ndef add(a, b):\n    return a + b\n```", **row) == (1.0, "passed")
    before = thread_sandboxes()
    # program B, next in the same sandbox: every printable run of its own writable memory goes to stdout
    dump = ("import ctypes, re, sys\nout = sys.stdout.buffer\nprobe = sys.stdin.read().encode()\n"
            "for line in open('/proc/self/maps').read().splitlines():\n    f = line.split()\n"
            "    if f[1].startswith('rw') and (len(f) < 6 or f[5] in ('[heap]', '') or f[5].startswith('/')):\n"
            "        lo, hi = (int(x, 16) for x in f[0].split('-'))\n"
            "        for run in re.findall(rb'[ -~]{6,}', ctypes.string_at(lo, hi - lo)):\n"
            "            out.write(run + b'\\n')\nout.write(b'probe ' + probe + b'\\n')")
    probe = "PR0BE-" + "5d2e"  # reaches B's memory only through its stdin: shows the dump reads the heap
    (b,) = run(sandbox, dump, Limits(time=10.0, output=64 << 20), [{"kind": "stdio", "input": probe}])
    assert b["status"] == "ok" and thread_sandboxes() == before
    memory = b["stdout"].rsplit("probe ", 1)[0]
    assert probe in memory and secret not in memory and mark not in memory and "add(1, 2)" not in memory


def test_a_sandbox_that_cannot_be_cleaned_is_replaced(sandbox):
    deep = "import os\nos.chdir('/tmp')\nfor _ in range(300):\n    os.mkdir('d')\n    os.chdir('d')\nprint('deep')"
    assert run(sandbox, deep)[0]["stdout"] == "deep\n"
    first = thread_sandboxes()
    assert run(sandbox, LOOK)[0]["stdout"].splitlines() == CLEAN
    assert thread_sandboxes() != first  # its zygote said it could not clean /tmp; the next program got a new one


def test_a_socket_a_program_leaves_in_flight_never_reaches_the_next(sandbox):
    # a listener bound to an abstract name, sent with the pair that carries it into the pair's own queues: no
    # process holds any of them, yet they lived on, and the next program connected to the earlier one's name
    leave = ("import socket\nlistener = socket.socket(socket.AF_UNIX)\nlistener.bind('\\0left')\nlistener.listen()\n"
             "a, b = socket.socketpair()\n"
             "socket.send_fds(a, [b'x'], [listener.fileno(), a.fileno(), b.fileno()])\n"
             "socket.send_fds(b, [b'x'], [a.fileno(), b.fileno()])\nprint('left')")
    look = ("import socket\ntry:\n    socket.socket(socket.AF_UNIX).connect('\\0left')\n    print('connected')\n"
            "except OSError:\n    print('refused')\nprint(len(open('/proc/net/unix').read().splitlines()))")
    a, b, same = same_sandbox(sandbox, leave, look)
    assert a[0]["stdout"] == "left\n" and b[0]["stdout"] == "refused\n1\n"  # no socket: the header only
    assert not same  # its zygote said a socket survived: the next program got a new sandbox
    a, b, same = same_sandbox(sandbox, "import socket\nsocket.socketpair()\nprint(1)", look)
    assert b[0]["stdout"] == "refused\n1\n" and same  # sockets that ended with their program: the same one


def _process_state(pid: int) -> str:
    """``pid``'s state letter in /proc (``Z``: dead, not yet reaped), or ``""`` when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _kill_when_marked(pid: int, marker: str, killed: threading.Event) -> None:
    """Kill ``pid`` (a warm sandbox's bwrap) once a process inside it has named itself ``marker``: the
    program itself says it is running in that sandbox, so the kill never races the job's sending."""
    give_up = time.monotonic() + 120  # only so that a broken sandbox cannot hang the test
    while not killed.is_set() and time.monotonic() < give_up and _process_state(pid) not in ("", "Z"):
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/comm") as f:
                    named = f.read().strip() == marker
            except OSError:
                continue
            if named and entry.isdigit() and _descends_from(int(entry), pid):
                os.kill(pid, 9)  # bwrap's host process: the whole sandbox dies with it
                killed.set()
                return
        time.sleep(0.01)


def test_a_killed_warm_sandbox_gives_its_program_a_sandbox_error_and_the_next_program_a_new_one(sandbox):
    close_warm()  # an earlier module's warm sandbox (other read-only binds) would be a second one in this thread
    run(sandbox, "pass")
    (pid,) = thread_sandboxes()
    marker = "killme-" + "6c1f"
    killed = threading.Event()
    watcher = threading.Thread(target=_kill_when_marked, args=(pid, marker, killed), daemon=True)
    watcher.start()
    # The program marks itself, then sleeps far past its wall limit: a run the kill did not end would end at
    # the deadline with a ``timeout`` result, never the sandbox error, however slow the machine is.
    sleeper = (f"import ctypes, time\nctypes.CDLL(None).prctl(15, {marker.encode()!r}, 0, 0, 0)\n"  # PR_SET_NAME
               "time.sleep(600)")
    try:
        run(sandbox, sleeper)
        raise AssertionError("a run whose sandbox was killed gave a result")
    except SandboxUnavailable as exc:
        assert "ended early" in str(exc)
    finally:
        killed.set()
        watcher.join()
    assert thread_sandboxes() == []  # the killed sandbox is dropped at once, not kept for the next program
    runner = LocalRunner(sandbox)
    assert [r.status for r in runner.run(Program("print(input())"), [StdioTest("7\n", "7")], Limits())] == ["ok"]
    assert thread_sandboxes() not in ([], [pid]) and sandbox_processes() == []
    (idle,) = thread_sandboxes()
    os.kill(idle, 9)  # killed while idle: the next program starts a new one and never notices
    while _process_state(idle) not in ("", "Z"):  # dead before the next program is sent, however slow the machine
        time.sleep(0.01)
    assert run(sandbox, "print(5)")[0]["stdout"] == "5\n"
    assert thread_sandboxes() not in ([], [idle])


def test_in_the_core_s_worker_pool_one_warm_sandbox_serves_sample_after_sample(tmp_path):
    """The worker kills what each task leaves, but spares the warm sandbox the reward keeps; a process a
    program starts still dies with its program, and the pool's close ends the sandbox."""
    from grpo_rewards import WorkerPool

    adds = "a, b = map(int, input().split())\nprint(a + b)"
    leaves = ("import subprocess\ntry:\n    subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
              "except OSError:\n    pass  # the seccomp filter may refuse it: then there is nothing to leave\n" + adds)
    pool = WorkerPool(workers=1)
    try:
        first, second, third = (o.value for o in pool.map(score_and_list_sandboxes,
                                                          [(adds,), (leaves,), (adds,)], timeout=60))
        assert [first[0], second[0], third[0]] == [(1.0, "passed")] * 3
        assert len(first[1]) == 1 and first[1] == second[1] == third[1]  # the same bwrap, all three samples
        kept = first[1][0]
        assert os.path.exists(f"/proc/{kept}")
        assert sandbox_processes() == []  # the second program's sleeper died with it; only the idle zygote is left
    finally:
        pool.close()
    give_up = time.monotonic() + 10
    while os.path.exists(f"/proc/{kept}") and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{kept}")


def test_the_zygote_s_warm_up_program_compiles():
    # the zygote compiles WARM_UP once (never runs it) so that no supervisor pays the interpreter's first compile;
    # a syntax error would quietly skip that (the zygote's _compile_python would return a compile_error)
    from grpo_rewards_code.harness_zygote import WARM_UP

    code = compile(WARM_UP, "solution.py", "exec")
    assert code.co_filename == "solution.py" and "C" in code.co_names
