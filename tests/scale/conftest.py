"""Ray tests run inside a private network namespace; everything else here runs as usual.

Ray binds to the machine's own address and probes an outside one to find it. The tests in
``test_ray_*.py`` files may send traffic to loopback only, so each such module is run again, once,
in a child ``pytest`` inside ``unshare --net`` (a new network namespace whose only interface is
``lo``, brought up with ``ip link set lo up``; as root, or through a user namespace); its outcome is
reported here test by test. Where a namespace cannot be made (no ``unshare``, no root or user
namespaces) the tests skip, saying why.
Inside the namespace :func:`ray_start` refuses to start Ray unless ``lo`` is the only interface.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _pytest.reports import TestReport
from lanes import group_not_kept, without_group
from scale_netns import INSIDE, free_port, refuse_outside_namespace, start_cluster

#: Seconds one module's child pytest may take.
MODULE_TIMEOUT = 600
ROOT = Path(__file__).resolve().parents[2]


def is_ray_module(path: Path) -> bool:
    return path.name.startswith("test_ray")


#: How to enter a new network namespace: as root, or as a user through a user namespace too.
UNSHARE = (["unshare", "--net"], ["unshare", "--user", "--map-root-user", "--net"])


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


def _run_module(path: Path, items: list[pytest.Item]) -> dict[str, tuple[str, str]]:
    """Run ``items`` (one module's) in a child pytest inside a fresh network namespace.

    Returns ``{item name: (outcome, text)}`` with outcome ``passed``, ``failed`` or ``skipped``.
    """
    with tempfile.TemporaryDirectory(prefix="grpo-netns-") as tmp:
        report = Path(tmp) / "report.xml"
        env = {**os.environ, INSIDE: "1"}
        prefix, _ = namespace_command()
        command = [*(prefix or []), "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable,
                   "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q", f"--junitxml={report}",
                   *[without_group(item.nodeid) for item in items]]
        try:
            run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=MODULE_TIMEOUT)
            output = f"{_ended(run.returncode)}\n{run.stdout}{run.stderr}"
        except subprocess.TimeoutExpired as exc:
            output = f"the namespace run of {path.name} took more than {MODULE_TIMEOUT} s\n{exc.stdout or ''}"
        results: dict[str, tuple[str, str]] = {}
        if report.exists():
            for case in ET.parse(report).getroot().iter("testcase"):
                outcome, text = "passed", ""
                for child in case:
                    if child.tag in ("failure", "error"):
                        outcome, text = "failed", (child.text or child.get("message") or "")
                    elif child.tag == "skipped":
                        outcome, text = "skipped", child.get("message") or ""
                results[case.get("name", "")] = (outcome, text)
        for item in items:
            results.setdefault(item.name, ("failed", f"no result from the namespace run:\n{output[-6000:]}"))
        return results


def _ended(returncode: int) -> str:
    """How the namespace run ended, in words (a child pytest ended by a signal or by Ray writes no report)."""
    if returncode < 0:
        return f"the namespace run was ended by signal {signal.Signals(-returncode).name}"
    return f"the namespace run exited with status {returncode}"


_results: dict[Path, dict[str, tuple[str, str]]] = {}


def _outcome(item: pytest.Item) -> tuple[str, str]:
    prefix, problem = namespace_command()
    if prefix is None:
        return "skipped", problem
    path = item.path
    if path not in _results:
        items = [i for i in item.session.items if i.path == path]
        _results[path] = _run_module(path, items)
    return _results[path][item.name]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Outside the namespace, a Ray test's outcome is the one its namespace run reports."""
    if os.environ.get(INSIDE) == "1" or not is_ray_module(item.path):
        return None
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    problem = group_not_kept(item)
    outcome, text = ("failed", problem) if problem is not None else _outcome(item)
    keywords = {k: 1 for k in item.keywords}
    longrepr: Any = None
    if outcome == "skipped":
        longrepr = (str(item.path), (item.location[1] or 0) + 1, text.removeprefix("Skipped: "))
    elif outcome == "failed":
        longrepr = f"in the private network namespace:\n{text}"
    phases = [("setup", "skipped"), ("teardown", "passed")] if outcome == "skipped" else \
        [("setup", "passed"), ("call", outcome), ("teardown", "passed")]
    for when, this in phases:
        ihook.pytest_runtest_logreport(report=TestReport(
            item.nodeid, item.location, keywords, this, longrepr if this != "passed" else None, when))
    # what the previous item set up and the next one does not need is torn down, as pytest's own teardown does
    item.session._setupstate.teardown_exact(nextitem)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


@pytest.fixture(scope="module")
def ray_start() -> Any:
    """A local Ray cluster of 2 CPUs, on loopback, for the module; shut down after it."""
    refuse_outside_namespace()
    import ray

    from grpo_rewards.execution import ray_backend

    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20, logging_level="ERROR")
    yield ray
    ray.shutdown()
    ray_backend._backends.clear()


@pytest.fixture
def cluster() -> Any:
    """A one-node cluster on a free loopback port (as ``ray start --head --port=PORT`` makes one) and
    the driver connected to it: ``(port, clusters)``, where a test appends the clusters it starts again
    on that port; all stopped after."""
    refuse_outside_namespace()
    import ray

    from grpo_rewards.execution import ray_backend

    port = free_port()
    clusters = [start_cluster(port)]
    ray.init(address=f"127.0.0.1:{port}", logging_level="ERROR")
    yield port, clusters
    ray.shutdown()
    for one in clusters:
        one.shutdown()
    ray_backend._backends.clear()
