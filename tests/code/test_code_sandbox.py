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


def test_io_uring_and_userfaultfd_are_refused(sandbox):
    # kernel memory no rlimit counts, and kernel code most container profiles refuse; EPERM from the filter
    out = run(sandbox, "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                       "params = ctypes.create_string_buffer(120)\n"
                       "for name, nr, args in (('io_uring_setup', 425, (8, params)), ('io_uring_enter', 426, (0, 1, 0, 0, 0)),\n"
                       "                       ('io_uring_register', 427, (0, 0, 0, 0)), ('userfaultfd', 323, (0,))):\n"
                       "    if os.uname().machine == 'aarch64' and name == 'userfaultfd':\n"
                       "        nr = 282\n"
                       "    print(name, libc.syscall(nr, *args), ctypes.get_errno())")
    assert out["status"] == "ok", out
    assert out["stdout"].splitlines() == [f"{name} -1 1" for name in
                                          ("io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd")]


MEMORY_FILE = """#include <cstdio>
#include <sys/mman.h>
int main() { std::puts(memfd_create("x", 0) < 0 ? "refused" : "made"); }"""
#: native code a Node.js program loads (process.dlopen runs its constructor): shared anonymous memory, and /dev/zero
#: opened for writing (whose shared mapping is the same memory), are what RLIMIT_DATA, Java's and Node.js's only
#: bound outside their heaps, does not count; nothing is touched, so no memory is used either way
SHARED_MEMORY = r"""#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
static void say(const char *s) { write(1, s, strlen(s)); }
__attribute__((constructor)) static void probe(void) {
  void *p = mmap(0, 8UL << 30, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  say(p == MAP_FAILED ? "anonymous refused\n" : "anonymous mapped\n");
  say(open("/dev/zero", O_RDWR) < 0 ? "zero refused\n" : "zero opened\n");
}"""


def test_no_program_holds_memory_its_rlimits_do_not_count(sandbox, tmp_path):
    """memfd_create is refused (64 memory files written to RLIMIT_FSIZE, never mapped, held 1 GiB past a 512 MB
    limit); a Java or Node.js program, bounded by RLIMIT_DATA, which counts private mappings only, can map no
    shared anonymous memory (through native code it loads: 2 GiB under a 512 MB limit read as ok) and cannot
    open /dev/zero for writing (a shared mapping of it is the same memory)."""
    import base64
    import shutil

    from grpo_rewards_code import TestsPassed
    from grpo_rewards_code.languages import missing

    refused = {"tests": [{"input": "", "output": "refused\n"}]}
    if missing("cpp") is None:
        assert TestsPassed(language="cpp")(f"```cpp\n{MEMORY_FILE}\n```", **refused) == (1.0, "passed")
    assert TestsPassed()("```python\nimport os\ntry:\n    os.memfd_create('x')\n    print('made')\n"
                         "except OSError:\n    print('refused')\n```", **refused) == (1.0, "passed")
    if missing("javascript") is not None or shutil.which("gcc") is None:
        pytest.skip("no node or gcc here")
    (tmp_path / "probe.c").write_text(SHARED_MEMORY)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "probe.so"), str(tmp_path / "probe.c")], check=True)
    library = base64.b64encode((tmp_path / "probe.so").read_bytes()).decode()
    program = (f"require('fs').writeFileSync('/tmp/probe.node', Buffer.from('{library}', 'base64'));\n"
               "try { process.dlopen({exports: {}}, '/tmp/probe.node'); } catch (e) {}")
    row = {"tests": [{"input": "", "output": "anonymous refused\nzero refused\n"}], "language": "javascript"}
    assert TestsPassed()(f"```javascript\n{program}\n```", **row) == (1.0, "passed")


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
