"""The Ray modules' namespace runs, started in the background as soon as a test run has collected them.

Each ``test_ray_*.py`` module runs once, as a whole, in a child pytest inside a private network namespace
(``conftest.py``; the modules of :data:`TOGETHER` one after the other in the same child). Those runs mostly wait (clusters starting, a lost head outliving Ray's own limit): about
290 of a full run's ~1,040 worker-seconds, at a load under 1. Run by the worker that reached a Ray test, each
held that worker for its whole length. Now the first process of a test run that finishes collecting (an
xdist worker, or pytest alone) writes a plan and starts a **runner**, a process detached from it (not its
child: nothing the tests do to their own children touches it), which runs the selected modules, :data:`LANES`
at a time, longest first, and writes each module's outcomes to the run's folder; the root conftest puts the
Ray tests last, and each reports what the runner wrote, usually at once by the time it is reached.

The runner watches the test run's main process (the xdist controller, or pytest alone): when it ends, the
runner stops the namespace runs still going and removes the run's folder.

>>> runs(["test_ray_nodes.py", "test_ray_new.py", "test_ray_head_lost.py", "test_ray_reconnect.py"])
[['test_ray_new.py'], ['test_ray_head_lost.py'], ['test_ray_reconnect.py'], ['test_ray_nodes.py']]
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from pathlib import Path

from lanes import without_group
from scale_netns import INSIDE, alive

#: Seconds one module's child pytest may take.
MODULE_TIMEOUT = 600
#: Namespace runs at once (each a Ray cluster of 1-2 CPUs, mostly waiting, beside the test run's own workers).
LANES = 2
#: Seconds a module took alone on a quiet 2-core machine (2026-12-06): the longest go first. A module not
#: listed counts as long (it goes first too).
SECONDS = {"test_ray_backend.py": 65, "test_ray_env_reconnect.py": 69, "test_ray_head_lost.py": 62,
           "test_ray_tools.py": 28, "test_ray_reconnect.py": 22, "test_ray_nodes.py": 11,
           "test_ray_unreachable.py": 10}
#: Modules that share one namespace run, in this order: one child pytest's start-up and its imports of Ray and TRL
#: instead of one each (~15 CPU-seconds of a test run on 2 cores). test_ray_unreachable first: it needs no cluster
#: running in the namespace; each module still starts (and stops) its own clusters.
TOGETHER = (("test_ray_unreachable.py", "test_ray_nodes.py", "test_ray_tools.py", "test_ray_backend.py"),)
#: Seconds a consumer waits for the runner to say it started before it counts as lost.
START_TIMEOUT = 120
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: How to enter a new network namespace: as root, or as a user through a user namespace too.
UNSHARE = (["unshare", "--net"], ["unshare", "--user", "--map-root-user", "--net"])

Results = dict[str, tuple[str, str]]


def _seconds(module: str) -> int:
    """How long ``module`` takes by :data:`SECONDS`; one not listed counts as longer than any."""
    return SECONDS.get(module, 10**6)


@functools.cache
def namespace_command() -> tuple[list[str] | None, str]:
    """The ``unshare`` prefix that makes a private network namespace here, or None and why not."""
    missing = [tool for tool in ("unshare", "ip") if shutil.which(tool) is None]
    if missing:
        return None, f"no {' or '.join(missing)} on PATH: cannot make a private network namespace for Ray"
    why = ""
    for prefix in UNSHARE:
        probe = subprocess.run([*prefix, "sh", "-c", "ip link set lo up"], capture_output=True, text=True,
                               timeout=60)
        if probe.returncode == 0:
            return prefix, ""
        why = probe.stderr.strip() or f"exit status {probe.returncode}"
    return None, f"cannot make a private network namespace for Ray ({' / '.join(map(' '.join, UNSHARE))}: {why})"


def runs(modules: Iterable[str]) -> list[list[str]]:
    """The namespace runs of ``modules`` (file names): those :data:`TOGETHER` names share one, in its order, each
    other module has one of its own; the longest first by :data:`SECONDS` (unknown modules first of all).

    >>> runs(["test_ray_backend.py", "test_ray_head_lost.py", "test_ray_nodes.py", "test_ray_x.py"])
    [['test_ray_x.py'], ['test_ray_nodes.py', 'test_ray_backend.py'], ['test_ray_head_lost.py']]
    """
    left = list(modules)
    grouped = []
    for group in TOGETHER:
        members = [m for m in group if m in left]
        if members:
            grouped.append(members)
            left = [m for m in left if m not in members]
    grouped += [[m] for m in left]
    return sorted(grouped, key=lambda run: -sum(map(_seconds, run)))


def reported_name(nodeid: str) -> str:
    """The name a node id's test has in the namespace run's report (and ``item.name``)."""
    return without_group(nodeid).rsplit("::", 1)[-1]


def run_module(nodeids: list[str], started: Callable[[subprocess.Popen[str]], None] = lambda p: None) -> Results:
    """Run the tests ``nodeids`` (one module's) in a child pytest inside a fresh network namespace.

    Returns ``{test name: (outcome, text)}`` with outcome ``passed``, ``failed`` or ``skipped``; a test the
    run did not report is ``failed`` with the end of its output. ``started`` is called with the child."""
    return next(iter(run_modules({"module": nodeids}, started).values()))


def run_modules(modules: dict[str, list[str]],
                started: Callable[[subprocess.Popen[str]], None] = lambda p: None) -> dict[str, Results]:
    """Run the tests of ``modules`` (file name: node ids), in that order, in one child pytest inside a fresh network
    namespace; each module's outcomes as :func:`run_module` gives them."""
    nodeids = [n for ids in modules.values() for n in ids]
    prefix, _ = namespace_command()
    with tempfile.TemporaryDirectory(prefix="grpo-netns-") as tmp:
        report = Path(tmp) / "report.xml"
        env = {**os.environ, INSIDE: "1"}
        command = [*(prefix or []), "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable,
                   "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q", f"--junitxml={report}",
                   f"--basetemp={Path(tmp) / 'basetemp'}", *[without_group(n) for n in nodeids]]
        child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True, start_new_session=True)
        started(child)
        try:
            out, _ = child.communicate(timeout=MODULE_TIMEOUT)
            output = f"{_ended(child.returncode)}\n{out}"
        except subprocess.TimeoutExpired:
            stop(child)
            out, _ = child.communicate()
            output = f"the namespace run took more than {MODULE_TIMEOUT} s\n{out or ''}"
        results: dict[str, Results] = {module: {} for module in modules}
        stems = {Path(without_group(ids[0]).split("::", 1)[0]).stem: m for m, ids in modules.items() if ids}
        if report.exists():
            for case in ET.parse(report).getroot().iter("testcase"):
                outcome, text = "passed", ""
                for part in case:
                    if part.tag in ("failure", "error"):
                        outcome, text = "failed", (part.text or part.get("message") or "")
                    elif part.tag == "skipped":
                        outcome, text = "skipped", part.get("message") or ""
                # (junit's classname: the module's dotted path, then a class if the test has one)
                module = next((stems[p] for p in case.get("classname", "").split(".") if p in stems), None)
                if module is not None:
                    results[module][case.get("name", "")] = (outcome, text)
        for module, ids in modules.items():
            for nodeid in ids:
                results[module].setdefault(reported_name(nodeid),
                                           ("failed", f"no result from the namespace run:\n{output[-6000:]}"))
        return results


def stop(child: subprocess.Popen[str]) -> None:
    """Kill ``child``'s process group (the namespace run and what it started in it)."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _ended(returncode: int) -> str:
    """How the namespace run ended, in words (a child pytest ended by a signal or by Ray writes no report)."""
    if returncode < 0:
        return f"the namespace run was ended by signal {signal.Signals(-returncode).name}"
    return f"the namespace run exited with status {returncode}"


def _write(path: Path, data: object) -> None:
    """Write ``data`` as JSON to ``path`` at once (a reader sees the whole file or none)."""
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(data), "utf-8")
    part.replace(path)


# -- the launching side ---------------------------------------------------------------------------------------


def run_dir(run_id: str) -> Path:
    """The folder the runner of test run ``run_id`` writes to (shared by the run's xdist workers)."""
    return Path(tempfile.gettempdir()) / f"grpo-ray-runs-{run_id}"


def launch(run_id: str, modules: dict[str, list[str]], watch: int) -> bool:
    """Start the runner for ``modules`` (file name: node ids), unless another process of the run did; True if
    this call started it. The runner outlives this process and ends with process ``watch`` (the run's main)."""
    folder = run_dir(run_id)
    if folder.exists():
        return False
    # the folder appears with its plan in it (a rename), so whoever sees it can read which modules it runs
    draft = Path(tempfile.mkdtemp(prefix=f"{folder.name}.draft-", dir=folder.parent))
    _write(draft / "plan.json", {"watch": watch, "modules": modules})
    try:
        draft.rename(folder)
    except OSError:  # another process of the run was first
        shutil.rmtree(draft, ignore_errors=True)
        return False
    # sh starts the runner in the background and exits: the runner is nobody's child here
    # (its imports: this folder and tests/, where lanes.py is)
    path = os.pathsep.join([str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH", "")])
    # (not this process's compiled-programs folder: it goes when this process ends, which the runner outlives)
    env = {k: v for k, v in os.environ.items() if k != "GRPO_REWARDS_CODE_COMPILED"}
    subprocess.run(["sh", "-c", 'exec "$0" "$@" </dev/null >"$RUNNER_LOG" 2>&1 &', sys.executable, "-m", "ray_runs",
                    str(folder)], cwd=ROOT, env={**env, "RUNNER_LOG": str(folder / "runner.log"), "PYTHONPATH": path},
                   check=True)
    return True


def results(run_id: str, module: str) -> Results | None:
    """The outcomes the runner of ``run_id`` wrote for ``module``, once it has (waiting for them); None when no
    runner of that run has ``module`` in its plan (the caller runs it itself)."""
    folder = run_dir(run_id)
    plan = folder / "plan.json"
    if not plan.exists() or module not in json.loads(plan.read_text("utf-8"))["modules"]:
        return None
    done, pid_file = folder / f"{module}.json", folder / "runner.pid"
    since = time.monotonic()
    while not done.exists():
        if pid_file.exists():
            if not alive(int(json.loads(pid_file.read_text("utf-8")))) and not done.exists():
                return _lost(folder, module, "the background runner ended without writing this module's outcomes")
        elif time.monotonic() - since > START_TIMEOUT:
            return _lost(folder, module, f"the background runner did not start in {START_TIMEOUT} s")
        time.sleep(0.5)
    return {name: (outcome, text) for name, (outcome, text) in json.loads(done.read_text("utf-8")).items()}


def _lost(folder: Path, module: str, why: str) -> Results:
    plan = json.loads((folder / "plan.json").read_text("utf-8"))
    log = folder / "runner.log"
    text = f"{why}; its log:\n{log.read_text('utf-8', 'replace')[-6000:] if log.exists() else '(none)'}"
    return {reported_name(n): ("failed", text) for n in plan["modules"][module]}


# -- the runner -----------------------------------------------------------------------------------------------


def main(folder: Path) -> None:
    """Run the plan in ``folder``: :data:`LANES` namespace runs at a time, each module's outcomes written as
    ``<module>.json``; stop them when the watched process ends, and remove ``folder`` once it has."""
    os.setsid()  # a terminal's Ctrl-C reaches the test run, which this then outlives to clean up after it
    _write(folder / "runner.pid", os.getpid())
    plan = json.loads((folder / "plan.json").read_text("utf-8"))
    watch, todo = int(plan["watch"]), runs(plan["modules"])
    running: set[subprocess.Popen[str]] = set()
    lock = threading.Lock()
    stopping = threading.Event()

    def lane() -> None:
        while True:
            with lock:
                if not todo or stopping.is_set():
                    return
                modules = {m: plan["modules"][m] for m in todo.pop(0)}

            def started(child: subprocess.Popen[str]) -> None:
                with lock:
                    running.add(child)
                    if stopping.is_set():
                        stop(child)

            try:
                outcomes = run_modules(modules, started)
            except Exception:  # the waiting tests get the reason instead of waiting for the run's end
                reason = f"the background runner could not run the module:\n{traceback.format_exc()}"
                outcomes = {m: {reported_name(n): ("failed", reason) for n in ids} for m, ids in modules.items()}
            with lock:
                running.difference_update([c for c in running if c.poll() is not None])
            if not stopping.is_set():
                for module, outcome in outcomes.items():
                    _write(folder / f"{module}.json", outcome)
                    print(f"{time.strftime('%H:%M:%S')} {module}: "
                          f"{sum(o == 'passed' for o, _ in outcome.values())}/{len(outcome)} passed", flush=True)

    lanes = [threading.Thread(target=lane, daemon=True) for _ in range(LANES)]
    for one in lanes:
        one.start()
    while alive(watch):
        if not any(one.is_alive() for one in lanes):
            break
        time.sleep(1.0)
    while alive(watch):  # the outcomes are read until the run ends
        time.sleep(1.0)
    stopping.set()
    with lock:
        for child in running:
            stop(child)
    for one in lanes:  # each removes its namespace run's folder
        one.join(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":  # python -m ray_runs FOLDER: the runner (started by launch)
    main(Path(sys.argv[1]))
