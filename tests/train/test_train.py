"""End to end: GRPO steps on a tiny random model with discovered rewards, resume, failures, torchrun."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from lanes import needs
from train_helpers import tiny_config, toy_registry, write_config

from grpo_rewards.cli.train import PLOT, train_command
from grpo_rewards.errors import RunDirError, TrainError

pytestmark = needs("trl")

HERE = Path(__file__).parent
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _history(run_dir: Path) -> list[dict]:
    return json.loads((run_dir / "trainer_state.json").read_text())["log_history"]


@pytest.fixture(scope="module")
def finished_run(tiny_model, tmp_path_factory):
    """One 3-step run (checkpoints at steps 2 and 3) shared by the tests that only read it."""
    root = tmp_path_factory.mktemp("run")
    config = write_config(root / "run.yaml", tiny_config(tiny_model, root / "out"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command([str(config)], registry=toy_registry()) == 0
    return root / "out", out.getvalue(), config


def test_a_run_writes_config_manifest_checkpoints_state_and_png(finished_run):
    run_dir, _, _ = finished_run
    assert sorted(p.name for p in run_dir.iterdir() if p.name.startswith("checkpoint-")) == [
        "checkpoint-2", "checkpoint-3"]
    assert (run_dir / "checkpoint-3" / "model.safetensors").is_file()
    assert (run_dir / "reward_curves.png").read_bytes()[:8] == PNG_MAGIC
    assert (run_dir / "config.yaml").is_file()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert [(r["name"], r["use"], r["weight"], r["params"], r["plugin"]) for r in manifest["rewards"]] == [
        ("toy.digits", "toy.digits", 1.0, {}, "toy"),
        ("short20", "toy.short", 0.5, {"limit": 20}, "toy"),
    ]
    assert manifest["plugins"]["toy"]["module"] == "train_toy_plugin"
    assert manifest["config"]["grpo"]["max_steps"] == 3
    assert manifest["libraries"]["trl"]


def test_the_final_model_is_written_to_final_even_when_the_last_step_kept_a_checkpoint(finished_run):
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    run_dir, stdout, _ = finished_run
    final = load_file(str(run_dir / "final" / "model.safetensors"))
    last = load_file(str(run_dir / "checkpoint-3" / "model.safetensors"))
    assert final.keys() == last.keys() and all(bool((final[k] == last[k]).all()) for k in final)
    assert AutoTokenizer.from_pretrained(run_dir / "final")("2 + 2")["input_ids"]
    assert f"model in {run_dir / 'final'}, metrics in " in stdout


def test_logged_reward_metrics_are_named_after_the_reward_set_entries(finished_run):
    run_dir, _, _ = finished_run
    steps = [h for h in _history(run_dir) if "reward" in h]
    assert [h["step"] for h in steps] == [1, 2, 3]
    for entry in steps:
        assert {"rewards/toy.digits/mean", "rewards/short20/mean", "timing/toy.digits"} <= set(entry)
        total = entry["rewards/toy.digits/mean"] * 1.0 + entry["rewards/short20/mean"] * 0.5
        assert entry["reward"] == pytest.approx(total, abs=1e-6)


def test_the_run_starts_with_one_header_line_naming_plugins_and_versions(finished_run):
    _, stdout, _ = finished_run
    first = stdout.splitlines()[0]
    assert first.startswith("grpo-rewards 0.1.0 · trl ")
    assert first.endswith("· plugins: toy (train_toy_plugin)")


def test_plot_redraws_the_png_from_the_run_directory(finished_run, tmp_path, capsys):
    run_dir, _, _ = finished_run
    out = tmp_path / "curves.png"
    assert PLOT.main([str(run_dir), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG_MAGIC
    assert capsys.readouterr().out == f"grpo-rewards: wrote {out}\n"


def test_resume_continues_the_step_count_from_the_last_checkpoint(finished_run, tmp_path):
    run_dir, _, _ = finished_run
    copy = tmp_path / "out"
    shutil.copytree(run_dir, copy)
    manifest_before = json.loads((copy / "manifest.json").read_text())
    with contextlib.redirect_stdout(io.StringIO()):
        assert train_command(["--resume", "--output-dir", str(copy), "--max-steps", "5"], registry=toy_registry()) == 0
    steps = [h["step"] for h in _history(copy) if "reward" in h]
    assert steps == [1, 2, 3, 4, 5]
    assert (copy / "checkpoint-5").is_dir()
    manifest = json.loads((copy / "manifest.json").read_text())
    assert manifest["created"] == manifest_before["created"]
    assert [r["checkpoint"] for r in manifest["resumes"]] == ["checkpoint-3"]
    assert manifest["resumes"][0]["changes"] == []
    # the config it was resumed with differs (max_steps), so it is saved beside the original
    assert "max_steps: 5" in (copy / "config.resume-3.yaml").read_text()
    assert "max_steps: 3" in (copy / "config.yaml").read_text()


def test_resume_with_a_changed_reward_set_is_an_error_unless_forced(finished_run, tmp_path):
    run_dir, _, config = finished_run
    copy = tmp_path / "out"
    shutil.copytree(run_dir, copy)
    before = {p: p.stat().st_mtime_ns for p in copy.rglob("*")}
    args = [str(config), "--resume", "--output-dir", str(copy), "rewards.1.weight=0.9", "--max-steps", "5", "--dry-run"]
    with pytest.raises(RunDirError) as info:
        train_command(args, registry=toy_registry())
    assert str(info.value) == (
        "--resume: the reward set differs from the one this run was started with:\n"
        "  - reward 'short20': weight was 0.5, now 0.9\n"
        "Resume with the same rewards and plugin versions, or add --force to continue anyway")
    assert {p: p.stat().st_mtime_ns for p in copy.rglob("*")} == before
    with contextlib.redirect_stdout(io.StringIO()):
        assert train_command([*args, "--force"], registry=toy_registry()) == 0


def test_a_reward_that_raises_mid_training_stops_with_its_name_and_keeps_the_checkpoint(tiny_model, tmp_path):
    config = tiny_config(tiny_model, tmp_path / "out", save_steps=1, max_steps=4)
    config["rewards"] = [{"use": "toy.digits"}, {"use": "toy.fail_from", "with": {"step": 1}}]
    path = write_config(tmp_path / "run.yaml", config)
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(TrainError) as info:
        train_command([str(path)], registry=toy_registry())
    assert str(info.value) == (
        "training stopped at step 1: reward 'toy.fail_from': raised RuntimeError: boom at step 1. "
        "The run directory keeps checkpoint-1; fix the reward and continue with --resume.")
    assert (tmp_path / "out" / "checkpoint-1" / "model.safetensors").is_file()
    assert (tmp_path / "out" / "manifest.json").is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_under_torchrun_log_rewards_of_both_ranks(tiny_model, tmp_path):
    config = tiny_config(tiny_model, tmp_path / "out", max_steps=2)
    # toy.rank returns each process's RANK: a mean of 0.5 means both ranks' samples are in it
    config["rewards"] = [{"use": "toy.rank"}, {"use": "toy.digits"}]
    path = write_config(tmp_path / "run.yaml", config)
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_PORT")}
    env["TMPDIR"] = str(tmp_path)  # torchrun's own torchelastic_* log folder, which it leaves behind
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(_free_port()),
         str(HERE / "train_launch.py"), str(path)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    steps = [h for h in _history(tmp_path / "out") if "reward" in h]
    assert [h["rewards/toy.rank/mean"] for h in steps] == [0.5, 0.5]
    assert result.stdout.count("grpo-rewards 0.1.0 · trl") == 1  # the header comes from rank 0 only
    assert (tmp_path / "out" / "reward_curves.png").read_bytes()[:8] == PNG_MAGIC


def test_the_embedded_default_trains_two_steps_on_the_model_its_first_use_converted(embedded_model, tmp_path,
                                                                                    monkeypatch):
    for module in ("grpo_rewards_math", "grpo_rewards_format", "grpo_rewards_length"):
        pytest.importorskip(module)
    cache = Path(embedded_model).parent  # converted by the fixture (ensure_embedded, as training calls it)
    assert (cache.parent / "converted.log").read_text() == (
        f"grpo-rewards: converting the embedded SmolLM2-135M-Instruct (GGUF) to safetensors in {embedded_model} "
        "(once; about 30 s)\n")
    assert (cache / "SmolLM2-135M-Instruct" / "model.safetensors").is_file()
    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(cache))
    monkeypatch.chdir(tmp_path)
    tiny = ["--max-steps", "2", "grpo.num_generations=4", "grpo.per_device_train_batch_size=4",
            "grpo.max_completion_length=8", "grpo.save_steps=2"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command(tiny) == 0
    assert "converting" not in out.getvalue()  # the converted folder is used again
    run_dir = tmp_path / "runs" / "arithmetic"
    names = {k for h in _history(run_dir) for k in h if k.startswith("rewards/") and k.endswith("/mean")}
    assert names == {"rewards/math.accuracy/mean", "rewards/format.boxed/mean", "rewards/length.soft_overlong/mean"}
    assert (run_dir / "checkpoint-2").is_dir() and (run_dir / "reward_curves.png").is_file()


def test_overwrite_into_a_folder_that_does_not_exist_yet_trains(tiny_model, tmp_path):
    out = tmp_path / "new"
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, out))
    with contextlib.redirect_stdout(io.StringIO()):
        assert train_command([str(config), "--overwrite", "--max-steps", "1"], registry=toy_registry()) == 0
    assert (out / "final").is_dir() and [e["step"] for e in _metrics(out) if "reward" in e] == [1]


def test_a_run_records_every_file_it_and_trl_wrote_and_nothing_else(finished_run):
    run_dir, _, _ = finished_run
    from grpo_rewards.train.rundir import recorded_files

    recorded = recorded_files(run_dir)
    present = {p.name for p in run_dir.iterdir()} - {".grpo-rewards-files", ".grpo-rewards-run"}
    assert present == {"README.md", "checkpoint-2", "checkpoint-3", "config.yaml", "final", "manifest.json",
                       "metrics.jsonl", "reward_curves.png", "trainer_state.json"}
    # recorded before each write; the temporary file of the last atomic redraw is gone again
    assert recorded - present <= {".reward_curves.png.tmp.png"} and present <= recorded


def test_overwrite_replaces_a_finished_run_with_a_new_one(finished_run, tmp_path, capsys):
    run_dir, _, config = finished_run
    copy = tmp_path / "out"
    shutil.copytree(run_dir, copy)
    assert train_command([str(config), "--output-dir", str(copy), "--overwrite", "--max-steps", "1"],
                         registry=toy_registry()) == 0
    assert "--overwrite: deleted the previous run's .grpo-rewards-files, .grpo-rewards-run, README.md, checkpoint-2, " \
           "checkpoint-3, config.yaml" in capsys.readouterr().out
    assert sorted(p.name for p in copy.iterdir()) == [
        ".grpo-rewards-files", ".grpo-rewards-run", "README.md", "checkpoint-1", "config.yaml", "final",
        "manifest.json", "metrics.jsonl", "reward_curves.png", "trainer_state.json"]
    assert [e["step"] for e in _metrics(copy) if "reward" in e] == [1]


def _metrics(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_resume_of_a_finished_run_says_it_is_complete_and_changes_nothing(finished_run, tmp_path, capsys):
    run_dir, _, _ = finished_run
    copy = tmp_path / "out"
    shutil.copytree(run_dir, copy)
    before = {str(p): p.stat().st_mtime_ns for p in copy.rglob("*")}
    assert train_command(["--resume", "--output-dir", str(copy)], registry=toy_registry()) == 0
    assert capsys.readouterr().out == (
        f"grpo-rewards: the run in {copy} is complete at step 3 (max_steps 3); nothing was changed. To train "
        f"further, raise max_steps: grpo-rewards train --output-dir {copy} --resume --max-steps 6\n")
    assert {str(p): p.stat().st_mtime_ns for p in copy.rglob("*")} == before


def test_resume_of_a_finished_run_says_so_before_importing_torch_or_trl(finished_run, tmp_path):
    # the answer takes a fraction of a second instead of the ~4 s of importing them (the config is checked after)
    run_dir, _, _ = finished_run
    code = (f"import sys; from grpo_rewards.cli import main; code = main(['train', '--resume', '--output-dir', "
            f"{str(run_dir)!r}]); print(code, sorted(m for m in ('torch', 'transformers', 'trl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout
    assert out.splitlines() == [
        f"grpo-rewards: the run in {run_dir} is complete at step 3 (max_steps 3); nothing was changed. To train "
        f"further, raise max_steps: grpo-rewards train --output-dir {run_dir} --resume --max-steps 6", "0 []"]


def test_resume_falls_back_from_a_checkpoint_whose_weights_were_cut_short(finished_run, tmp_path, capsys):
    run_dir, _, _ = finished_run
    copy = tmp_path / "out"
    shutil.copytree(run_dir, copy)
    weights = copy / "checkpoint-3" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-100])
    assert train_command(["--resume", "--output-dir", str(copy), "--max-steps", "4"], registry=toy_registry()) == 0
    out = capsys.readouterr().out
    assert "grpo-rewards: skipping checkpoint-3: model.safetensors is cut short (" in out
    assert f"resuming from {copy / 'checkpoint-2'} at step 2" in out
    manifest = json.loads((copy / "manifest.json").read_text())
    assert [r["checkpoint"] for r in manifest["resumes"]] == ["checkpoint-2"]
    assert [e["step"] for e in _metrics(copy) if "reward" in e] == [1, 2, 3, 4]  # step 3 logged once, again


def test_a_resume_that_fails_before_its_first_step_records_no_resume(finished_run, tmp_path):
    from transformers import TrainerCallback

    from grpo_rewards.train.runner import prepare, run

    class FailAtTrainBegin(TrainerCallback):
        def on_train_begin(self, *args, **kwargs):
            raise RuntimeError("out of memory while loading the optimizer")

    run_dir, _, _ = finished_run
    copy = tmp_path / "out"
    shutil.copytree(run_dir, copy)
    manifest = (copy / "manifest.json").read_text()
    plan = prepare(None, [], output_dir=str(copy), max_steps=5, resume=True, registry=toy_registry())
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(RuntimeError, match="out of memory"):
        run(plan, callbacks=[FailAtTrainBegin()])
    assert (copy / "manifest.json").read_text() == manifest
    assert not list(copy.glob("config.resume-*.yaml"))


def test_a_model_that_fails_to_load_leaves_nothing_that_blocks_the_retry(tiny_model, tmp_path):
    from grpo_rewards.errors import ModelError

    broken = tmp_path / "broken-model"
    shutil.copytree(tiny_model, broken)
    (broken / "model.safetensors").unlink()
    config = write_config(tmp_path / "run.yaml", tiny_config(broken, tmp_path / "out", max_steps=1))
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(ModelError, match=r"cannot load model"):
        train_command([str(config)], registry=toy_registry())
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    with contextlib.redirect_stdout(io.StringIO()):
        assert train_command([str(config), f"model={tiny_model}"], registry=toy_registry()) == 0
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_each_logging_step_prints_one_short_line_and_every_metric_goes_to_the_metrics_log(finished_run):
    run_dir, stdout, _ = finished_run
    lines = [line for line in stdout.splitlines() if line.startswith("step ")]
    assert [line.split("  ")[0] for line in lines] == ["step 1/3", "step 2/3", "step 3/3"]
    metrics = _metrics(run_dir)
    steps = [e for e in metrics if "reward" in e]
    for line, entry in zip(lines, steps):
        assert line.split("  ")[1:4] == [f"reward {entry['reward']:.3f}",
                                         f"toy.digits {entry['rewards/toy.digits/mean']:.3f}",
                                         f"short20 {entry['rewards/short20/mean']:.3f}"]
        assert " s/step  " in line and line.endswith(" left")
    assert steps == [h for h in _history_with_elapsed(run_dir, metrics) if "reward" in h]
    assert "train_runtime" in metrics[-1]  # the closing summary is kept too
    assert "{'loss'" not in stdout  # transformers' dict printer is gone


def _history_with_elapsed(run_dir: Path, metrics: list[dict]) -> list[dict]:
    elapsed = {e["step"]: e["elapsed_s"] for e in metrics if "reward" in e}
    return [{"step": h["step"], **{k: v for k, v in h.items() if k != "step"}, "elapsed_s": elapsed.get(h["step"])}
            for h in _history(run_dir) if "reward" in h]


def test_the_run_says_what_happens_before_the_first_step(finished_run):
    _, stdout, _ = finished_run
    before = stdout.split("\nstep 1/3")[0]
    assert "grpo-rewards: building the dataset (task toy:count)" in before
    assert "grpo-rewards: torch threads: " in before
    assert "grpo-rewards: loading the model " in before
    assert "training to step 3; each step generates completions, scores them and updates the model" in before


def test_the_model_card_names_the_model_the_run_started_from(finished_run, tiny_model):
    run_dir, _, _ = finished_run
    card = (run_dir / "README.md").read_text()
    assert f"This model is a fine-tuned version of the local model {tiny_model}." in card
    assert "[None]" not in card


def test_torch_threads_follow_the_cpus_this_process_may_use(monkeypatch):
    import torch

    from grpo_rewards.train.runner import set_threads

    before = torch.get_num_threads()
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    try:
        assert set_threads() == ("torch threads: 3 (the 3 CPUs this process may use; set OMP_NUM_THREADS to "
                                 "choose)")
        assert torch.get_num_threads() == 3
        monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
        assert set_threads().startswith("torch threads: 1 (the 3 CPUs this process may use, shared by 2 processes")
        # read as the reward workers read it (execution.pool.local_ranks): not a number of processes warns and
        # counts this one alone, where it had stopped the run with a ValueError
        monkeypatch.setenv("LOCAL_WORLD_SIZE", "two")
        with pytest.warns(RuntimeWarning, match="LOCAL_WORLD_SIZE='two' is not a whole number of processes"):
            assert set_threads() == ("torch threads: 3 (the 3 CPUs this process may use; set OMP_NUM_THREADS to "
                                     "choose)")
    finally:
        torch.set_num_threads(before)


def test_model_tiny_trains_a_step_in_seconds_without_a_model_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    config = tiny_config(Path("unused"), tmp_path / "out", max_steps=1)
    config["model"] = "tiny"
    path = write_config(tmp_path / "run.yaml", config)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command([str(path)], registry=toy_registry()) == 0
    assert (tmp_path / "cache" / "tiny-random-qwen2" / "model.safetensors").is_file()
    assert [e["step"] for e in _metrics(tmp_path / "out") if "reward" in e] == [1]
    assert "a tiny random model made by grpo-rewards" in (tmp_path / "out" / "README.md").read_text()


def test_a_lora_run_saves_the_adapter_resumes_it_and_merges_on_request(tiny_model, tmp_path):
    pytest.importorskip("peft")
    from safetensors import safe_open
    from transformers import AutoModelForCausalLM

    config = tiny_config(tiny_model, tmp_path / "out", max_steps=2, save_steps=1)
    config["peft"] = {"r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"], "lora_dropout": 0.0}
    path = write_config(tmp_path / "run.yaml", config)
    with contextlib.redirect_stdout(io.StringIO()):
        assert train_command([str(path)], registry=toy_registry()) == 0
    adapter = tmp_path / "out" / "checkpoint-2" / "adapter_model.safetensors"
    with safe_open(str(adapter), framework="pt") as f:
        keys = list(f.keys())
    assert keys and all("lora_" in k for k in keys)
    assert not (tmp_path / "out" / "checkpoint-2" / "model.safetensors").exists()  # the adapter only
    assert not (tmp_path / "out" / "merged").exists()

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert train_command(["--resume", "--output-dir", str(tmp_path / "out"), "--max-steps", "3",
                              "peft.merge=true"], registry=toy_registry()) == 0
    assert f"resuming from {tmp_path / 'out' / 'checkpoint-2'} at step 2" in out.getvalue()
    assert [e["step"] for e in _metrics(tmp_path / "out") if "reward" in e] == [1, 2, 3]
    merged = AutoModelForCausalLM.from_pretrained(tmp_path / "out" / "merged")
    assert not any("lora" in name for name, _ in merged.named_parameters())
    assert (tmp_path / "out" / "merged" / "tokenizer.json").is_file()
