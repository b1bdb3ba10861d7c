"""The Ray modules' background runner (ray_runs.py), on a scratch module of plain tests: each test's outcome comes
back once, and the runner, its namespace runs and its folder are gone when the test run's main process ends."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

import pytest
import ray_runs
from scale_netns import alive

pytestmark = [pytest.mark.slow, pytest.mark.skipif(ray_runs.namespace_command()[0] is None,
                                                   reason=ray_runs.namespace_command()[1] or "no namespace")]

SCRATCH = """
import os, pathlib, time, pytest

def test_passes():
    assert os.environ["GRPO_REWARDS_NETNS"] == "1"

def test_fails():
    assert 1 == 2

def test_skips():
    pytest.skip("not here")

def test_waits():
    pathlib.Path(os.environ["SCRATCH_PID"]).write_text(str(os.getpid()))
    time.sleep(600)
"""


def _until(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


@pytest.fixture
def main_process():
    """A process standing for the test run's main one: it ends when its stdin is closed."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    yield process
    process.kill()
    process.wait()


def test_each_tests_outcome_comes_back_and_the_runner_is_gone_with_the_run(tmp_path, main_process):
    (tmp_path / "test_ray_scratch.py").write_text(SCRATCH)
    ids = [f"{tmp_path}/test_ray_scratch.py::{name}" for name in ("test_passes", "test_fails", "test_skips")]
    run_id = uuid.uuid4().hex
    assert ray_runs.launch(run_id, {"test_ray_scratch.py": ids}, main_process.pid)
    assert not ray_runs.launch(run_id, {"test_ray_scratch.py": ids}, main_process.pid)  # one runner per run
    outcomes = ray_runs.results(run_id, "test_ray_scratch.py")
    assert outcomes is not None
    assert {name: outcome for name, (outcome, _) in outcomes.items()} == {
        "test_passes": "passed", "test_fails": "failed", "test_skips": "skipped"}
    assert "assert 1 == 2" in outcomes["test_fails"][1] and outcomes["test_skips"][1] == "not here"
    assert ray_runs.results(run_id, "test_ray_other.py") is None  # not in the plan: the caller runs it itself
    runner = int((ray_runs.run_dir(run_id) / "runner.pid").read_text())  # (JSON: a number)
    assert alive(runner)  # the outcomes stay readable while the run goes on
    main_process.stdin.close()
    assert _until(lambda: not alive(runner) and not ray_runs.run_dir(run_id).exists())


def test_a_run_that_ends_early_stops_the_namespace_runs_still_going(tmp_path, main_process, monkeypatch):
    (tmp_path / "test_ray_scratch.py").write_text(SCRATCH)
    pid_file = tmp_path / "waiting.pid"
    monkeypatch.setenv("SCRATCH_PID", str(pid_file))
    run_id = uuid.uuid4().hex
    ray_runs.launch(run_id, {"test_ray_scratch.py": [f"{tmp_path}/test_ray_scratch.py::test_waits"]}, main_process.pid)
    assert _until(pid_file.exists)
    waiting = int(pid_file.read_text())
    main_process.kill()  # as an interrupted pytest: nothing reads the outcomes any more
    assert _until(lambda: not alive(waiting) and not ray_runs.run_dir(run_id).exists())


def test_processes_launching_at_once_start_one_runner_and_leave_no_draft(tmp_path, main_process):
    # the xdist workers of a run finish collecting at about the same time; a worker that sees the run's folder
    # reads its plan at once (a folder without one would have it run the module itself, a second time)
    from concurrent.futures import ThreadPoolExecutor

    (tmp_path / "test_ray_scratch.py").write_text(SCRATCH)
    plan = {"test_ray_scratch.py": [f"{tmp_path}/test_ray_scratch.py::test_passes"]}
    run_id = uuid.uuid4().hex
    folder = ray_runs.run_dir(run_id)
    with ThreadPoolExecutor(4) as pool:
        started = list(pool.map(lambda _: ray_runs.launch(run_id, plan, main_process.pid), range(4)))
    assert started.count(True) == 1
    assert (folder / "plan.json").is_file()
    assert list(folder.parent.glob(f"{folder.name}.draft-*")) == []
    assert ray_runs.results(run_id, "test_ray_scratch.py") == {"test_passes": ("passed", "")}
    main_process.stdin.close()
    assert _until(lambda: not folder.exists())


def test_a_test_the_namespace_run_does_not_report_fails_with_the_runs_output(tmp_path, main_process):
    (tmp_path / "test_ray_scratch.py").write_text("import no_such_module_here\n")
    run_id = uuid.uuid4().hex
    ray_runs.launch(run_id, {"test_ray_scratch.py": [f"{tmp_path}/test_ray_scratch.py::test_passes"]},
                    main_process.pid)
    outcomes = ray_runs.results(run_id, "test_ray_scratch.py")
    assert outcomes is not None
    outcome, text = outcomes["test_passes"]  # (junit names the module's collection error after the module too)
    assert outcome == "failed" and text.startswith("no result from the namespace run:") and "no_such_module_here" in text
    main_process.stdin.close()
    assert _until(lambda: not ray_runs.run_dir(run_id).exists())


def test_modules_run_together_each_get_their_own_outcomes_under_the_same_test_names(tmp_path):
    # the modules of ray_runs.TOGETHER share one child pytest; a name both have is told apart by its module
    (tmp_path / "test_ray_scratch.py").write_text(SCRATCH)
    (tmp_path / "test_ray_scratch_two.py").write_text("def test_passes():\n    assert False, 'the second one'\n")
    outcomes = ray_runs.run_modules({
        "test_ray_scratch_two.py": [f"{tmp_path}/test_ray_scratch_two.py::test_passes"],
        "test_ray_scratch.py": [f"{tmp_path}/test_ray_scratch.py::{name}" for name in ("test_passes", "test_skips")]})
    assert {m: {name: outcome for name, (outcome, _) in found.items()} for m, found in outcomes.items()} == {
        "test_ray_scratch_two.py": {"test_passes": "failed"},
        "test_ray_scratch.py": {"test_passes": "passed", "test_skips": "skipped"}}
    assert "the second one" in outcomes["test_ray_scratch_two.py"]["test_passes"][1]


def test_a_module_that_leaves_ray_connected_fails_itself_and_not_the_module_after_it(tmp_path):
    # a module of a shared namespace run whose teardown left the driver connected made every test of the next
    # module fail on "ray.init twice" (CI, stop 58: one failure in test_ray_nodes reported as 50)
    scale = ray_runs.HERE
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(scale)!r})\n"
        "from scale_netns import ray_disconnected_after_the_module  # noqa: F401\n")
    (tmp_path / "test_ray_leaves.py").write_text(
        "import ray\nfrom scale_netns import refuse_outside_namespace\n\n"
        "def test_starts_ray():\n    refuse_outside_namespace()\n"
        "    ray.init(address='local', num_cpus=1, include_dashboard=False, object_store_memory=80 * 2**20,"
        " logging_level='ERROR')\n")
    (tmp_path / "test_ray_after.py").write_text(
        "import ray\n\ndef test_finds_ray_disconnected():\n    assert not ray.is_initialized()\n")
    outcomes = ray_runs.run_modules({
        "test_ray_leaves.py": [f"{tmp_path}/test_ray_leaves.py::test_starts_ray"],
        "test_ray_after.py": [f"{tmp_path}/test_ray_after.py::test_finds_ray_disconnected"]})
    assert outcomes["test_ray_after.py"] == {"test_finds_ray_disconnected": ("passed", "")}
    outcome, text = outcomes["test_ray_leaves.py"]["test_starts_ray"]
    assert outcome == "failed"
    assert ("test_ray_leaves left the driver connected to Ray after its fixtures' teardown (disconnected now, "
            "for the next module)") in text
