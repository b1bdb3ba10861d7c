"""The sandbox holds against a root host (CI, containers and most GPU machines run the trainer as root).

Each check runs as this process runs (root in CI), and, where this process is root and can switch,
again as an unprivileged user (``nobody``, through the system's Python of the same version).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from code_procs import _descends_from

from grpo_rewards_code.formats import StdioTest
from grpo_rewards_code.runner import LocalRunner, Program
from grpo_rewards_code.sandbox import Limits, Sandbox, SandboxUnavailable, get_sandbox

EMPTY = [{"kind": "stdio", "input": ""}]
#: files under /proc/sys whose write (even of the value read) acts rather than sets: never opened
TRIGGERS = ("vm/drop_caches", "vm/compact_memory", "vm/stat_refresh", "fs/binfmt_misc/", "net/ipv4/route/flush",
            "net/ipv6/route/flush", "kernel/sysrq")
#: every writable-looking file under /proc/sys (and a few of /proc) written back with the value it holds (nothing
#: changes even where the write goes through): those whose write went through
PROC_SYS = (f"import os\nTRIGGERS = {TRIGGERS!r}\nwritten = []\n"
            "def write_back(path):\n"
            "    try:\n"
            "        with open(path, 'rb') as f:\n"
            "            value = f.read()\n"
            "        fd = os.open(path, os.O_WRONLY)\n"
            "        try:\n"
            "            os.write(fd, value)\n"
            "            written.append(path)\n"
            "        finally:\n"
            "            os.close(fd)\n"
            "    except OSError:\n"
            "        pass\n"
            "for root, dirs, files in os.walk('/proc/sys'):\n"
            "    for name in files:\n"
            "        path = os.path.join(root, name)\n"
            "        if not any(t in path for t in TRIGGERS) and os.stat(path).st_mode & 0o222:\n"
            "            write_back(path)\n"
            "for path in ('/proc/1/attr/current', '/proc/1/oom_score_adj', '/proc/1/comm'):\n"
            "    write_back(path)\n"
            "print(sorted(written))")
#: who the program is: its uid, gid and groups, its capabilities, whether it may gain any
IDENTITY = ("import os\nstatus = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines())\n"
            "print(os.getuid(), os.getgid(), os.getgroups(), int(status['CapEff'], 16), int(status['CapPrm'], 16), "
            "int(status['CapBnd'], 16), status['NoNewPrivs'].strip())")
#: what the program, and every process of its sandbox, is on the host
HOST_VIEW = "import time\nprint('running', flush=True)\ntime.sleep(3)"


def one(sandbox: Sandbox, source: str, **kwargs) -> dict:
    (result,) = sandbox.run_python(source, EMPTY, **kwargs)
    return result


def test_the_program_is_no_host_root_has_no_capabilities_and_cannot_gain_any(sandbox):
    out = one(sandbox, IDENTITY)
    assert out["status"] == "ok", out
    assert out["stdout"].split() == ["65534", "65534", "[]", "0", "0", "0", "1"]


def test_on_the_host_every_process_of_the_sandbox_is_an_unprivileged_uid(sandbox):
    """Seen from the host (not through the sandbox's own uid map): while a program runs, every process inside
    (the zygote, the supervisor, the program) has real, effective, saved and file-system uids and gids that
    are not root. Before the fix, the sandbox's uid 65534 was host uid 0."""
    runner = LocalRunner(sandbox)
    thread = threading.Thread(target=runner.run, args=(Program(HOST_VIEW), [StdioTest("", "running")], Limits(time=5.0)))
    thread.start()
    time.sleep(1.5)  # the program sleeps for 3 s
    seen = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _descends_from(int(entry), os.getpid()):
            try:
                status = dict(line.split(":", 1) for line in Path(f"/proc/{entry}/status").read_text().splitlines())
            except OSError:
                continue
            if len(status["NSpid"].split()) > 1:  # inside the sandbox's PID namespace
                seen.append(status["Uid"].split() + status["Gid"].split())
    thread.join()
    uid, gid = (65534, 65534) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
    assert len(seen) >= 3 and all(ids == [str(uid)] * 4 + [str(gid)] * 4 for ids in seen), seen


def test_no_file_under_proc_sys_or_another_process_s_proc_is_writable_from_inside(sandbox):
    out = one(sandbox, PROC_SYS)
    assert out["status"] == "ok", out
    assert out["stdout"] == "[]\n"  # on a root host before the fix: kernel/core_pattern, vm/overcommit_memory, ...


def test_the_files_only_root_may_touch_stay_out_of_reach(sandbox, tmp_path):
    mine = tmp_path / "root-only"
    mine.write_text("host")
    mine.chmod(0o600)  # root's (this process is root in CI): before the fix the program, host root, read it
    out = one(sandbox, "import os, sys\nfor path in ('/etc/shadow', sys.executable, sys.prefix + '/lib', "
                       f"{str(mine)!r}):\n    for flags in (os.O_RDONLY, os.O_WRONLY):\n        try:\n"
                       "            os.close(os.open(path, flags))\n            print('opened', path, flags)\n"
                       "        except OSError as e:\n            pass\nprint('end')", sys_path=(str(tmp_path),))
    prefix = os.path.realpath(sys.base_prefix)
    executable = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    assert out["stdout"].splitlines() == [f"opened {executable} 0", f"opened {prefix}/lib 0", "end"]
    assert mine.read_text() == "host"


def test_one_sample_s_hostname_and_namespaced_sysctls_never_reach_the_next(sandbox):
    names = ("kernel/hostname", "kernel/domainname", "kernel/msgmax", "kernel/shmmax", "kernel/shm_rmid_forced",
             "fs/mqueue/msg_max", "net/core/somaxconn", "net/ipv4/ping_group_range", "net/ipv4/ip_local_port_range")
    write = ("import os, socket\nchanged = []\ntry:\n    socket.sethostname('leaked')\n    changed.append('sethostname')\n"
             "except OSError:\n    pass\n"
             f"for name in {names!r}:\n    path = '/proc/sys/' + name\n    try:\n        value = open(path).read()\n"
             "        new = 'leaked' if 'name' in name else ' '.join(str(int(v) - 1) for v in value.split())\n"
             "        open(path, 'w').write(new)\n        changed.append(name)\n    except (OSError, ValueError):\n        pass\n"
             "print(changed)")
    read = f"import json\nprint(json.dumps({{n: open('/proc/sys/' + n).read() for n in {names!r}}}))"
    fresh = json.loads(one(Sandbox(sandbox.backend, sandbox.binary, warm=False), read)["stdout"])
    assert one(sandbox, write)["stdout"] == "[]\n"
    assert json.loads(one(sandbox, read)["stdout"]) == fresh and fresh["kernel/hostname"] == "sandbox\n"


def test_rlimit_nproc_bounds_the_threads_of_a_program(sandbox):
    source = ("import threading, time\nn = 0\ntry:\n    for _ in range(400):\n"
              "        threading.Thread(target=time.sleep, args=(3,), daemon=True).start()\n        n += 1\n"
              "except RuntimeError:\n    pass\nprint(n)")
    # 4 GiB of address space: room for hundreds of thread stacks, so only the processes limit can stop them
    (raw,) = LocalRunner(sandbox).run(Program(source), [StdioTest("", "")], Limits(time=5.0, memory=4 << 30))
    assert raw.status == "ok" and int(raw.stdout) < 32  # the processes limit (32) counts threads: 388 before


def test_the_unshare_fallback_refuses_to_run_as_root():
    if os.geteuid() != 0:
        pytest.skip("this process is not root")
    with pytest.raises(SandboxUnavailable, match="refuses to run as root"):
        get_sandbox("unshare")
    with pytest.raises(SandboxUnavailable, match="refuses to run as root"):
        Sandbox("unshare", shutil.which("unshare")).run_python("print(1)", EMPTY)


def test_an_interpreter_and_packages_under_tmp_and_mode_700_directories_are_bound_and_usable(sandbox, tmp_path):
    # pytest's tmp_path is under /tmp, in a directory of mode 700 (as a venv under /root would be)
    assert str(tmp_path).startswith("/tmp/") and any(
        p.stat().st_mode & 0o777 == 0o700 for p in tmp_path.parents if str(p) != "/")
    venv = tmp_path / "site-packages"  # world-readable itself, as a venv's are, in a directory that is not
    (venv / "pkg_under_tmp").mkdir(parents=True)
    (venv / "pkg_under_tmp" / "__init__.py").write_text("VALUE = 42\n")
    venv.chmod(0o755)
    source = "import sys, pkg_under_tmp\nprint(pkg_under_tmp.VALUE, sys.executable)"
    out = one(sandbox, source, sys_path=(str(venv),))
    assert out["stdout"].split() == ["42", os.path.realpath(getattr(sys, "_base_executable", sys.executable))], out
    again = one(sandbox, source + "\nopen('/tmp/mine', 'w').write('x')", sys_path=(str(venv),))
    assert again["stdout"].split()[0] == "42"  # the warm sandbox cleaned /tmp and left the bind in place


def _nobody(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` as uid/gid 65534 with the system's Python (the venv's base interpreter may be under /root),
    this checkout's sources and the venv's site-packages on its path."""
    if os.geteuid() != 0:
        pytest.skip("only root can switch to an unprivileged user")
    python = f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}"
    if not os.path.exists(python):
        pytest.skip(f"no {python} to run as an unprivileged user")
    import grpo_rewards
    import grpo_rewards_code

    paths = [str(Path(grpo_rewards_code.__file__).parents[1]), str(Path(grpo_rewards.__file__).parents[1]),
             *[p for p in sys.path if p.endswith("site-packages")]]
    return subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300, cwd="/", user=65534,
                          group=65534, extra_groups=[], env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(paths)})


def test_as_an_unprivileged_user_the_same_properties_hold():
    code = ("from grpo_rewards_code.sandbox import get_sandbox\nimport json\ns = get_sandbox('bwrap')\n"
            f"out = [s.run_python(src, {EMPTY!r})[0]['stdout'] for src in ({IDENTITY!r}, {PROC_SYS!r})]\n"
            "print(json.dumps(out))")
    proc = _nobody(code)
    assert proc.returncode == 0, proc.stderr[-2000:]
    identity, opened = json.loads(proc.stdout.splitlines()[-1])
    assert identity.split() == ["65534", "65534", "[]", "0", "0", "0", "1"] and opened == "[]\n"


def test_the_gym_sandbox_runs_with_its_package_under_tmp(tmp_path):
    """A clone (or a venv) under /tmp: grpo_rewards_gym exists only there (no site-packages' .pth adds another),
    and the sandbox, which imports it to score, still sees it."""
    pytest.importorskip("grpo_rewards_gym")
    import grpo_rewards
    import grpo_rewards_code
    import grpo_rewards_gym

    try:
        get_sandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"this machine cannot run a sandbox: {exc}")
    copy = tmp_path / "src"
    shutil.copytree(Path(grpo_rewards_gym.__file__).parent, copy / "grpo_rewards_gym")
    path = [str(copy), str(Path(grpo_rewards.__file__).parents[1]), str(Path(grpo_rewards_code.__file__).parents[1]),
            *[p for p in sys.path if p.endswith("site-packages")]]
    code = (f"import sys\nsys.path[:0] = {path!r}\nimport grpo_rewards_gym, json\n"
            "assert grpo_rewards_gym.__file__.startswith('/tmp/'), grpo_rewards_gym.__file__\n"
            "from grpo_rewards_gym import make_rows, Accuracy\nrow = make_rows('n_queens', 1, seed=0)[0]\n"
            "text = '<answer>' + row['answer'] + '</answer>'\n"
            "print(json.dumps([Accuracy(sandbox=True)(text, **row), Accuracy()(text, **row)]))")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.splitlines()[-1]) == [[1.0, "correct"], [1.0, "correct"]]
