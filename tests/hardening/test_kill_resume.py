"""A training run SIGKILLed between two checkpoints resumes with ``--resume`` and damages nothing.

``grpo-rewards train`` (the real command, first-party rewards, the math:arithmetic task, a tiny random
model) runs in a subprocess with ``save_steps=1``; it is killed with SIGKILL once its first
checkpoint is complete and before the run ends (the trainer alone, as the OOM killer would: its
reward worker processes must not outlive it). ``grpo-rewards train --output-dir D --resume`` then
continues from the last complete checkpoint: the global step continues (every step logged exactly
once), the config file is byte-identical, the manifest keeps its content and only gains a resume
record with no reward-set change, every file of the earlier checkpoints is unchanged and loads, and
a half-written next checkpoint (a truncated weights file, no trainer_state.json: what a kill during
a save leaves) is ignored on resume and written again whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lanes import needs

pytestmark = needs("trl")

MAX_STEPS = 6
KILL_WAIT_S = 240.0


def _command() -> list[str]:
    script = Path(sys.executable).parent / "grpo-rewards"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from grpo_rewards.cli import main; sys.exit(main())"]


def _complete_checkpoints(run_dir: Path) -> list[Path]:
    found = [p for p in run_dir.glob("checkpoint-*") if (p / "trainer_state.json").is_file()]
    return sorted(found, key=lambda p: int(p.name.split("-")[1]))


def _workers_of(pid: int) -> list[int]:
    """Reward worker processes below ``pid``: its workers' supervisors
    (``grpo_rewards/execution/containment.py``) and the workers they forked."""
    found: list[int] = []
    parents = {pid}
    for _ in range(2):  # the supervisors, then their workers
        for entry in os.listdir("/proc"):
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except (OSError, ValueError, IndexError):
                continue
            if ppid in parents and b"grpo_rewards/execution/containment.py" in cmdline and int(entry) not in found:
                found.append(int(entry))
        parents = set(found)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _assert_loads(checkpoint: Path) -> None:
    """Every safetensors file has a readable header and tensors; every JSON file parses."""
    from safetensors import safe_open

    tensors = list(checkpoint.glob("*.safetensors"))
    assert tensors, f"{checkpoint} holds no weights"
    for path in tensors:
        raw = path.read_bytes()
        (size,) = struct.unpack("<Q", raw[:8])
        header = json.loads(raw[8:8 + size])
        assert header and len(raw) >= 8 + size
        with safe_open(str(path), framework="pt") as f:
            for key in f.keys():
                f.get_tensor(key)
    for path in checkpoint.glob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    state = json.loads((checkpoint / "trainer_state.json").read_text(encoding="utf-8"))
    assert state["global_step"] == int(checkpoint.name.split("-")[1])


@pytest.mark.slow
def test_run_killed_between_checkpoints_resumes_from_the_last_one_without_damage(tmp_path):
    import yaml

    from grpo_rewards.train.tiny import make_tiny_model

    model = make_tiny_model(tmp_path / "tiny")
    run_dir = tmp_path / "run"
    config = {
        "model": str(model),
        "output_dir": str(run_dir),
        "dataset": {"task": "math:arithmetic", "n": 64, "seed": 0},
        "rewards": [{"use": "math.accuracy", "weight": 1.0}, {"use": "format.boxed", "weight": 0.2,
                                                                    "timeout": 30.0, "workers": 2}],
        "grpo": {"max_steps": MAX_STEPS, "per_device_train_batch_size": 4, "num_generations": 4,
                 "max_completion_length": 8, "logging_steps": 1, "save_steps": 1, "learning_rate": 1.0e-4,
                 "seed": 0, "report_to": "none", "bf16": False, "activation_checkpointing": False,
                 "disable_tqdm": True, "use_cpu": True},
    }
    config_file = tmp_path / "run.yaml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False))
    env = {**os.environ, "GRPO_REWARDS_PLUGINS": "math,format,length", "OMP_NUM_THREADS": "1"}

    log = tmp_path / "first.log"
    workers: list[int] = []
    with log.open("wb") as sink:
        first = subprocess.Popen([*_command(), "train", str(config_file)], env=env, stdout=sink,
                                 stderr=subprocess.STDOUT)
        try:
            started = time.monotonic()
            while not _complete_checkpoints(run_dir) and first.poll() is None:
                assert time.monotonic() - started < KILL_WAIT_S, "no checkpoint appeared"
                time.sleep(0.02)
            workers = _workers_of(first.pid)
            first.kill()  # SIGKILL to the trainer alone, as the OOM killer would: its workers must follow
            first.wait(timeout=60)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(_alive(p) for p in workers):
                time.sleep(0.1)
            orphans = [p for p in workers if _alive(p)]
        finally:
            if first.poll() is None:
                first.kill()
                first.wait(timeout=60)
            for pid in workers:  # reward workers this test started, if any outlived the trainer
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)
    out = log.read_text(errors="replace")
    assert first.returncode == -signal.SIGKILL, f"the run ended before it was killed:\n{out[-3000:]}"
    assert workers, "the reward set runs format.boxed in worker processes: there should be some"
    assert orphans == [], f"reward workers outlived the killed trainer: {orphans}"
    saved = _complete_checkpoints(run_dir)
    last = saved[-1]
    assert int(last.name.split("-")[1]) < MAX_STEPS
    before = {p.name: _digest(p) for p in saved}
    step = int(last.name.split("-")[1])
    partial = run_dir / f"checkpoint-{step + 1}"  # as if the kill had hit the next save half-way
    if not partial.exists():
        partial.mkdir()
        weights = next(last.glob("*.safetensors"))
        (partial / weights.name).write_bytes(weights.read_bytes()[:100])
    config_bytes = (run_dir / "config.yaml").read_bytes()
    manifest_before = json.loads((run_dir / "manifest.json").read_text())

    resumed = subprocess.run([*_command(), "train", "--output-dir", str(run_dir), "--resume"], env=env,
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert f"resuming from {last}" in resumed.stdout

    final = json.loads((run_dir / f"checkpoint-{MAX_STEPS}" / "trainer_state.json").read_text())
    assert final["global_step"] == MAX_STEPS
    logged = [e["step"] for e in final["log_history"] if "loss" in e]
    assert logged == list(range(1, MAX_STEPS + 1))  # continued from the checkpoint: no step twice, none missing

    assert (run_dir / "config.yaml").read_bytes() == config_bytes
    assert not list(run_dir.glob("config.resume-*.yaml"))
    manifest_after = json.loads((run_dir / "manifest.json").read_text())
    resumes = manifest_after.pop("resumes")
    assert manifest_after == manifest_before
    assert [(r["checkpoint"], r["changes"], r["rewards"]) for r in resumes] == [(last.name, [], None)]

    for name, digest in before.items():  # the earlier checkpoints: untouched and loadable
        assert _digest(run_dir / name) == digest, name
        _assert_loads(run_dir / name)
    for later in range(step + 1, MAX_STEPS + 1):  # the half-written one was written again, whole
        _assert_loads(run_dir / f"checkpoint-{later}")


def test_resume_does_not_choose_a_checkpoint_whose_trainer_state_is_damaged(tmp_path, capsys, monkeypatch):
    import yaml

    from grpo_rewards.cli.train import train_command
    from grpo_rewards.train.manifest import build_manifest, write_start
    from grpo_rewards.train.runner import prepare
    from grpo_rewards.train.tiny import make_tiny_model

    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "math,format,length")
    model = make_tiny_model(tmp_path / "tiny")
    run_dir = tmp_path / "run"
    config_file = tmp_path / "run.yaml"
    config_file.write_text(yaml.safe_dump({
        "model": str(model), "output_dir": str(run_dir), "dataset": {"task": "math:arithmetic", "n": 8},
        "rewards": [{"use": "math.accuracy"}],
        "grpo": {"max_steps": 4, "per_device_train_batch_size": 4, "num_generations": 4, "save_steps": 1,
                 "report_to": "none", "use_cpu": True},
    }))
    plan = prepare(str(config_file))  # what the first run wrote before training
    write_start(run_dir, build_manifest(plan.config, plan.reward_set, plan.registry, model_path=str(model)),
                plan.config, resumed_from=None, changes=[])
    for step, state in ((1, json.dumps({"global_step": 1, "log_history": []})), (2, '{"global_step": 2, "log_hi')):
        (run_dir / f"checkpoint-{step}").mkdir()
        (run_dir / f"checkpoint-{step}" / "trainer_state.json").write_text(state)
    code = train_command(["--output-dir", str(run_dir), "--resume", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    assert "grpo-rewards: skipping checkpoint-2: its trainer_state.json does not read (cut short by a kill?)" in out
    assert "resuming checkpoint-1" in out
