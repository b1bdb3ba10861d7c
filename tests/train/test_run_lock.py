"""One run at a time in a run folder: the lock, its holder in the refusal, a dead holder's lock taken over."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from lanes import needs
from train_helpers import child_as_from_a_terminal, ctrl_c, tiny_config, toy_registry, write_config

from grpo_rewards.cli.train import train_command
from grpo_rewards.errors import RunDirError
from grpo_rewards.train.lock import LOCK, RunLock, check_free, holder

pytestmark = needs("trl")

HOLD = """
import sys, time
from pathlib import Path
from grpo_rewards.train.lock import RunLock
lock = RunLock(Path(sys.argv[1])).acquire()
print("held", flush=True)
time.sleep(600)
"""


@contextlib.contextmanager
def held_elsewhere(run_dir: Path):
    """Another process holds ``run_dir``'s lock; yields its pid."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_a_second_run_into_a_folder_in_use_is_refused_with_the_holders_pid_and_start(tmp_path, tiny_model):
    out = tmp_path / "out"
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, out, max_steps=1))
    with held_elsewhere(out) as other:
        started = holder(out)["started"]
        with pytest.raises(RunDirError) as info, contextlib.redirect_stdout(io.StringIO()):
            train_command([str(config)], registry=toy_registry())
        assert str(info.value) == (f"output dir {out} is in use by another run (pid {other.pid} on "
                                   f"{os.uname().nodename}, started {started}); nothing was changed. Wait for it to "
                                   "finish, or choose another --output-dir")
        assert sorted(p.name for p in out.iterdir()) == [LOCK]
        with pytest.raises(RunDirError, match=f"in use by another run \\(pid {other.pid} "):
            RunLock(out).acquire()


def test_the_lock_of_a_killed_run_is_taken_over(tmp_path):
    with held_elsewhere(tmp_path) as other:
        os.kill(other.pid, signal.SIGKILL)
        other.wait()
    assert holder(tmp_path)["pid"] == other.pid  # its file is still there, its flock is gone with it
    check_free(tmp_path)
    with RunLock(tmp_path) as lock:
        assert lock.recovered["pid"] == other.pid
        assert holder(tmp_path)["pid"] == os.getpid()
    assert not (tmp_path / LOCK).exists()


def test_the_other_ranks_of_a_run_share_its_lock(tmp_path, tiny_model, monkeypatch):
    out = tmp_path / "out"
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, out, max_steps=1))
    with held_elsewhere(out):  # as rank 0 of the same torchrun run holds it
        monkeypatch.setenv("RANK", "1")
        with contextlib.redirect_stdout(io.StringIO()):
            assert train_command([str(config), "--dry-run"], registry=toy_registry()) == 0
        monkeypatch.setenv("RANK", "0")
        with pytest.raises(RunDirError, match="in use by another run"), contextlib.redirect_stdout(io.StringIO()):
            train_command([str(config), "--dry-run"], registry=toy_registry())


def test_a_run_holds_the_lock_while_it_trains_and_leaves_no_lock_file(tmp_path, tiny_model):
    from transformers import TrainerCallback

    from grpo_rewards.train.runner import prepare, run

    seen: list[object] = []

    class Look(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            seen.append(holder(Path(args.output_dir)))
            try:
                check_free(Path(args.output_dir))
                seen.append("free")
            except RunDirError:
                seen.append("held")

    out = tmp_path / "out"
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, out, max_steps=1))
    with contextlib.redirect_stdout(io.StringIO()):
        run(prepare(config, registry=toy_registry()), callbacks=[Look()])
    assert seen[0]["pid"] == os.getpid() and seen[1] == "held"
    assert not (out / LOCK).exists() and (out / "manifest.json").is_file()


def test_a_lock_taken_for_a_new_folder_leaves_no_folder_behind(tmp_path):
    with RunLock(tmp_path / "new"):
        assert (tmp_path / "new" / LOCK).is_file()
    assert not (tmp_path / "new").exists()


FULL_DISK = """
import resource, signal, sys
from pathlib import Path
from grpo_rewards.errors import RunDirError
from grpo_rewards.train.lock import RunLock

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails (EFBIG), as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (20, 20))
try:
    RunLock(Path(sys.argv[1])).acquire()
except RunDirError as exc:
    print(exc)
"""


def test_a_lock_that_cannot_be_written_is_one_line_and_leaves_nothing_half_written(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text("{}")
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(run)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{run}: cannot write the run's lock file {LOCK}: No space left on device\n"
    assert sorted(p.name for p in run.iterdir()) == ["manifest.json"]


HANG = "import time\n\n\ndef hang(text: str, **row) -> float:\n    time.sleep(10**6)\n    return 0.0\n"

LAUNCH = """
import sys
sys.path.insert(0, sys.argv[1])
import grpo_rewards.train.progress as progress
progress.WAIT_NOTICE = 1.0  # a minute in a real run
from train_helpers import toy_registry
from grpo_rewards.cli.train import train_command
sys.exit(train_command(sys.argv[2:], registry=toy_registry()))
"""


def test_one_ctrl_c_stops_a_run_whose_reward_never_returns_and_the_wait_names_the_reward(tmp_path, tiny_model):
    (tmp_path / "hang.py").write_text(HANG)
    config = tiny_config(tiny_model, tmp_path / "out", max_steps=1)
    config["rewards"] = [{"use": f"{tmp_path / 'hang.py'}:hang"}]
    path = write_config(tmp_path / "run.yaml", config)
    with child_as_from_a_terminal([sys.executable, "-c", LAUNCH, str(Path(__file__).parent), str(path)]) as proc:
        for line in proc.stdout:  # type: ignore[union-attr]
            if line.startswith("grpo-rewards: the step is waiting for the reward hang ("):
                break
        else:
            pytest.fail(f"the run ended without naming the reward it waited for: {proc.stderr.read()}")  # type: ignore[union-attr]
        assert line.endswith("s so far; it has no timeout: give the entry 'timeout: SECONDS' to bound each sample)\n")
        err = ctrl_c(proc)
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "grpo-rewards: interrupted (the reward hang was still running)"
