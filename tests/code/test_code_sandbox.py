"""The local sandbox: what a program inside it can and cannot do, its limits, and its backends."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from code_procs import sandbox_processes

from grpo_rewards_code.sandbox import Limits, Sandbox, SandboxUnavailable, get_sandbox

EMPTY = [{"kind": "stdio", "input": ""}]


def run(sandbox, source, limits=None):
    return sandbox.run_python(source, EMPTY, limits)[0]


def test_the_default_backend_on_this_kind_of_machine_is_bwrap_with_uid_and_capability_drop(sandbox):
    assert sandbox.backend == "bwrap"
    out = run(sandbox, "import os\nprint(os.getuid(), os.getgid())\n"
                       "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])")
    assert out["stdout"].split() == ["65534", "65534", "0000000000000000"]


def test_a_program_sees_a_cleared_environment_and_only_system_directories(sandbox):
    out = run(sandbox, "import os\nprint(sorted(os.environ))\nprint(os.path.exists('/work'), os.listdir('/tmp'))")
    assert out["stdout"].splitlines() == ["['LANG', 'PATH', 'PWD']", "False []"]


def test_the_system_and_interpreter_are_read_only_and_tmp_is_private(sandbox):
    out = run(sandbox, "import os, sys\nfor p in ('/usr/x', sys.base_prefix + '/x'):\n"
                       "    try:\n        open(p, 'w')\n        print('wrote', p)\n"
                       "    except OSError as e:\n        print(e.errno)\nopen('/tmp/mine', 'w').write('1')\nprint('tmp ok')")
    assert out["stdout"].split() == ["30", "30", "tmp", "ok"]  # EROFS twice
    assert run(sandbox, "import os\nprint(os.listdir('/tmp'))")["stdout"] == "[]\n"  # nothing kept between runs


@pytest.mark.parametrize("folder", ["/tmp", "/", "/dev", "/dev/shm", "/proc"])  # every folder that is or holds one
def test_a_folder_that_would_cover_the_sandboxs_own_tmp_or_dev_is_never_bound(sandbox, folder):
    # bound read-only at its path, the host's /tmp replaced the private one: its files visible to the program
    with pytest.raises(ValueError, match=f"cannot show the folder {folder} inside the sandbox"):
        sandbox.run_python("print(1)", [{"kind": "stdio", "input": ""}], sys_path=(folder,))
    assert run(sandbox, "import os\nprint(os.listdir('/tmp'))")["stdout"] == "[]\n"  # the sandbox still works


def test_there_is_no_network_not_even_the_hosts_loopback(sandbox):
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        out = run(sandbox, f"import socket\nfor address in (('127.0.0.1', {port}), ('1.1.1.1', 80)):\n    try:\n"
                           "        socket.create_connection(address, timeout=1)\n        print('connected')\n"
                           "    except OSError as e:\n        print(e.errno)")
    assert out["stdout"].split() == ["111", "101"]  # the sandbox's own empty loopback; no route out


def test_the_program_cannot_signal_relimit_or_open_its_supervisor_or_process_1(sandbox):
    out = run(sandbox, "import fcntl, os, resource, signal\nprint(os.getppid() > 1)\n"
                       "for pid in (os.getppid(), 1):\n"
                       "    for call in (lambda: os.kill(pid, 9), lambda: os.pidfd_open(pid),\n"
                       "                 lambda: resource.prlimit(pid, resource.RLIMIT_CPU, (0, 0)),\n"
                       "                 lambda: fcntl.fcntl(1, fcntl.F_SETOWN, pid), lambda: os.setpriority(os.PRIO_PROCESS, pid, 19),\n"
                       "                 lambda: os.sched_setaffinity(pid, {0}), lambda: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))):\n"
                       "        try:\n            call()\n            print('did')\n"
                       "        except OSError as e:\n            print(e.errno)\n"
                       "    for path in (f'/proc/{pid}/fd/1', f'/proc/{pid}/mem'):\n"
                       "        try:\n            os.open(path, os.O_RDONLY)\n            print('opened')\n"
                       "        except OSError as e:\n            print(e.errno)\n"
                       "try:\n    os.setpriority(os.PRIO_USER, 0, 19)\nexcept OSError as e:\n    print(e.errno)\n"
                       "os.kill(os.getpid(), 0)\nresource.prlimit(0, resource.RLIMIT_NOFILE)\nos.nice(1)\n"
                       "os.sched_setaffinity(0, os.sched_getaffinity(0))\nprint('self')")
    assert out["status"] == "ok", out
    # EPERM from the seccomp filter for each call aimed at another process (or every process of the uid);
    # EACCES: both are non-dumpable
    assert out["stdout"].split() == ["True", *(["1"] * 7 + ["13", "13"]) * 2, "1", "self"]


def test_new_processes_are_refused_and_threads_allowed(sandbox):
    out = run(sandbox, "import os, threading, subprocess\ntry:\n    os.fork()\nexcept OSError as e:\n    print(e.errno)\n"
                       "try:\n    subprocess.run(['true'])\nexcept OSError as e:\n    print(e.errno)\n"
                       "t = threading.Thread(target=print, args=('thread',))\nt.start()\nt.join()")
    assert out["stdout"].split() == ["1", "1", "thread"]


@pytest.mark.parametrize(("source", "status"), [
    ("while True:\n    pass", "timeout"),
    ("import time\ntime.sleep(60)", "timeout"),
    ("x = bytearray(4 << 30)", "memory"),
    ("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", "output_limit"),
    ("open('/tmp/big', 'wb').write(b'x' * (64 << 20))", "output_limit"),
    ("raise ValueError('no')", "runtime_error"),
    ("def f(:\n", "compile_error"),
])
def test_each_limit_gives_its_status(sandbox, source, status):
    # only the programs that should time out get a short limit: the others end in milliseconds, and under 0.5 s
    # (2 s of wall clock) a busy machine once turned the 64 MiB write's output_limit into a timeout
    time_limit = 0.5 if status == "timeout" else 10.0
    assert run(sandbox, source, Limits(time=time_limit, memory=256 << 20, output=1 << 20))["status"] == status


def test_no_process_survives_a_run(sandbox):
    sandbox.run_python("while True:\n    pass", EMPTY * 2, Limits(time=0.3))
    assert sandbox_processes() == []  # at most the warm sandbox's idle zygote


def test_unshare_is_a_working_fallback_backend():
    try:
        fallback = get_sandbox("unshare")
    except SandboxUnavailable as exc:
        pytest.skip(f"unshare cannot start here: {exc}")
    out = run(fallback, "import os, socket\nprint(os.getppid(), os.getuid())\ntry:\n    os.fork()\n"
                        "except OSError as e:\n    print(e.errno)\ntry:\n    socket.create_connection(('127.0.0.1', 22), 1)\n"
                        "except OSError as e:\n    print(e.errno)")
    assert out["stdout"].split()[:3] == ["1", "65534", "1"] and out["stdout"].split()[3] in ("101", "111")
    assert fallback.description.startswith("unshare")


def test_an_unknown_choice_is_refused_and_unsafe_mode_is_announced():
    with pytest.raises(SandboxUnavailable, match="must be auto, bwrap, unshare or unsafe"):
        get_sandbox("docker")
    code = ("from grpo_rewards_code.sandbox import get_sandbox\ns = get_sandbox()\nget_sandbox()\n"
            "print(s.run_python('print(6*7)', [{'kind': 'stdio', 'input': ''}])[0]['stdout'].strip())")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GRPO_REWARDS_CODE_SANDBOX": "unsafe"})
    assert proc.stdout.strip() == "42"
    assert proc.stderr.count("WARNING: UNSAFE: no sandbox") == 1


def test_a_sandbox_that_cannot_start_is_a_sandbox_error_not_a_result():
    broken = Sandbox("bwrap", "/nonexistent/bwrap")
    with pytest.raises(OSError):
        broken.run_python("print(1)", EMPTY)
