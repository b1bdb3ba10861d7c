"""Ray tests run inside a private network namespace; everything else here runs as usual.

Ray binds to the machine's own address and probes an outside one to find it. The tests in
``test_ray_*.py`` files may send traffic to loopback only, so each such module is run again, once,
in a child ``pytest`` inside ``unshare --net`` (a new network namespace whose only interface is
``lo``, brought up with ``ip link set lo up``; as root, or through a user namespace); its outcome is
reported here test by test. Those runs start in the background when collection ends, beside the
other tests (:mod:`ray_runs`). Where a namespace cannot be made (no ``unshare``, no root or user
namespaces) the tests skip, saying why.
Inside the namespace :func:`ray_start` refuses to start Ray unless ``lo`` is the only interface.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest
import ray_runs
from _pytest.reports import TestReport
from lanes import is_ray_module
from scale_netns import INSIDE, free_port, refuse_outside_namespace, start_cluster
from scale_netns import ray_disconnected_after_the_module as ray_disconnected_after_the_module  # (autouse)


def _run_id(config: pytest.Config) -> str:
    """The test run's id, the same in each of its xdist workers."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return str(workerinput["testrunuid"])
    if not hasattr(config, "_grpo_ray_run_id"):
        config._grpo_ray_run_id = uuid.uuid4().hex  # type: ignore[attr-defined]
    return str(config._grpo_ray_run_id)  # type: ignore[attr-defined]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the Ray modules' namespace runs in the background (:mod:`ray_runs`), once per test run."""
    config = session.config
    if os.environ.get(INSIDE) == "1" or config.option.collectonly:
        return
    modules: dict[str, list[str]] = {}
    for item in session.items:
        if is_ray_module(item.path):
            modules.setdefault(item.path.name, []).append(item.nodeid)
    if modules and ray_runs.namespace_command()[0] is not None:  # (probed only where a Ray test was collected)
        # the run's main process: the xdist controller (a worker's parent), or this pytest
        ray_runs.launch(_run_id(config), modules, os.getppid() if hasattr(config, "workerinput") else os.getpid())


_results: dict[str, ray_runs.Results] = {}


def _outcome(item: pytest.Item) -> tuple[str, str]:
    prefix, problem = ray_runs.namespace_command()
    if prefix is None:
        return "skipped", problem
    module = item.path.name
    if module not in _results:
        found = ray_runs.results(_run_id(item.config), module)
        if found is None:  # not in the background runner's plan: run it here
            found = ray_runs.run_module([i.nodeid for i in item.session.items if i.path == item.path])
        _results[module] = found
    return _results[module][item.name]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Outside the namespace, a Ray test's outcome is the one its namespace run reports."""
    if os.environ.get(INSIDE) == "1" or not is_ray_module(item.path):
        return None
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    outcome, text = _outcome(item)
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
    import ray

    from grpo_rewards.execution import ray_backend

    cluster = start_cluster(num_cpus=2)
    try:
        ray.init(address=cluster.address, logging_level="ERROR")
    except BaseException:
        cluster.shutdown()
        raise
    yield ray
    ray.shutdown()
    cluster.shutdown()
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
