"""The run folder is the only thing a run may delete: --overwrite, failed starts, writability (no training)."""

from __future__ import annotations

import json

import pytest
from lanes import needs
from train_helpers import tiny_config, toy_registry, write_config

from grpo_rewards.cli import main
from grpo_rewards.cli.train import train_command
from grpo_rewards.errors import RunDirError
from grpo_rewards.train.rundir import (
    check_run_dir,
    checkpoint_problem,
    clear_run_dir,
    foreign_entries,
    forget_missing_files,
    record_files,
    recorded_files,
    run_id,
    write_marker,
)

pytestmark = needs("trl")


def _snapshot(folder):
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


RUN_FILES = ("checkpoint-2", "manifest.json", "config.yaml", "config.resume-2.yaml", "metrics.jsonl",
             "trainer_state.json", "README.md", "runs")


def _a_run(folder, *, marker=True, record=True):
    """The files a finished run leaves (ours and TRL's), small, with the record of them; without ``marker``, as
    runs before the marker; without ``record``, as runs of ours before the record."""
    folder.mkdir(parents=True, exist_ok=True)
    if marker:
        write_marker(folder, "run-1")
        if record:
            record_files(folder, *RUN_FILES)
        else:
            (folder / ".grpo-rewards-files").unlink()
    (folder / "checkpoint-2").mkdir(parents=True)
    (folder / "checkpoint-2" / "trainer_state.json").write_text('{"global_step": 2}')
    (folder / "manifest.json").write_text('{"rewards": [], "run_id": "run-1"}' if marker else '{"rewards": []}')
    (folder / "config.yaml").write_text("model: tiny\n")
    (folder / "config.resume-2.yaml").write_text("model: tiny\n")
    (folder / "metrics.jsonl").write_text('{"step": 1}\n')
    (folder / "trainer_state.json").write_text("{}")
    (folder / "README.md").write_text("---\nlibrary_name: transformers\n---\nmodel card")
    (folder / "runs").mkdir()


def test_overwrite_refuses_a_run_folder_that_also_holds_other_files_and_deletes_nothing(tmp_path, tiny_model):
    out = tmp_path / "out"
    _a_run(out)
    (out / "notes.txt").write_text("mine")
    (out / "src").mkdir()
    (out / "src" / "main.py").write_text("print('mine')")
    config = write_config(out / "run.yaml", tiny_config(tiny_model, out))  # the config file itself, inside
    before = _snapshot(out)
    with pytest.raises(RunDirError) as info:
        train_command([str(config), "--overwrite"], registry=toy_registry())
    assert str(info.value) == (
        f"--overwrite: output dir {out} also holds files a run does not write (notes.txt, run.yaml, src/); "
        "nothing was deleted. Move them out of the folder, or choose another --output-dir")
    assert _snapshot(out) == before


def test_overwrite_refuses_a_folder_without_a_run_and_names_what_is_there(tmp_path, tiny_model):
    out = tmp_path / "project"
    out.mkdir()
    (out / "README.md").write_text("my project")
    (out / "data.csv").write_text("a,b\n")
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, out))
    with pytest.raises(RunDirError) as info:
        train_command([str(config), "--overwrite", "--dry-run"], registry=toy_registry())
    assert str(info.value) == (
        f"--overwrite: output dir {out} does not hold a grpo-rewards run (no manifest.json, no checkpoint-N) but "
        "README.md, data.csv; nothing was deleted. --overwrite only replaces a run; choose another --output-dir")
    assert (out / "README.md").read_text() == "my project"


def test_output_dir_dot_with_overwrite_in_a_project_is_refused_and_the_project_survives(tmp_path, tiny_model,
                                                                                         monkeypatch, capsys):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("x = 1\n")
    (project / "pyproject.toml").write_text("[project]\n")
    write_config(project / "run.yaml", tiny_config(tiny_model, project))
    monkeypatch.chdir(project)
    before = _snapshot(project)
    from grpo_rewards.registry import use_registry

    with use_registry(toy_registry()):
        assert main(["train", "run.yaml", "--output-dir", ".", "--overwrite"]) == 2
        assert capsys.readouterr().err == (
            "grpo-rewards: error: --overwrite: output dir . does not hold a grpo-rewards run (no manifest.json, no "
            "checkpoint-N) but pyproject.toml, run.yaml, src/; nothing was deleted. --overwrite only replaces a run; "
            "choose another --output-dir\n")
        assert main(["train", "run.yaml", "--output-dir", "."]) == 2
    assert "already holds other files (pyproject.toml, run.yaml, src/); nothing was changed" in capsys.readouterr().err
    assert _snapshot(project) == before


def test_a_readme_alone_is_the_users_not_a_model_card(tmp_path):
    (tmp_path / "README.md").write_text("mine")
    with pytest.raises(RunDirError, match=r"already holds other files \(README.md\)"):
        check_run_dir(tmp_path, resume=False, overwrite=False)


def test_clearing_a_run_deletes_only_what_a_run_writes(tmp_path):
    _a_run(tmp_path)
    record_files(tmp_path, "final", ".manifest.json.tmp")
    (tmp_path / "final").mkdir()
    (tmp_path / ".manifest.json.tmp").write_text("{}")
    assert foreign_entries(tmp_path) == []
    assert check_run_dir(tmp_path, resume=False, overwrite=True) == (None, [])
    (tmp_path / "keep.txt").write_text("mine")  # appeared after the check: still not deleted
    assert clear_run_dir(tmp_path) == [".grpo-rewards-files", ".grpo-rewards-run", ".manifest.json.tmp", "README.md",
                                       "checkpoint-2", "config.resume-2.yaml", "config.yaml", "final",
                                       "manifest.json", "metrics.jsonl", "runs", "trainer_state.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_overwrite_into_a_new_folder_clears_nothing_and_is_no_error(tmp_path):
    """The run's lock makes the folder before the clearing step: a folder holding only it is new, not foreign."""
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / ".grpo-rewards-lock").write_text("{}")
    assert check_run_dir(tmp_path / "new", resume=False, overwrite=True) == (None, [])
    assert clear_run_dir(tmp_path / "new") == []
    assert [p.name for p in (tmp_path / "new").iterdir()] == [".grpo-rewards-lock"]


def test_a_checkpoint_a_user_copied_into_a_run_folder_is_never_deleted(tmp_path, tiny_model):
    """Named like TRL's, but not in the run's record of what it wrote: --overwrite refuses, clearing keeps it."""
    out = tmp_path / "out"
    _a_run(out)
    (out / "checkpoint-7").mkdir()
    (out / "checkpoint-7" / "trainer_state.json").write_text('{"global_step": 7}')
    (out / "checkpoint-7" / "model.safetensors").write_bytes(b"my weights")
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, out))
    before = _snapshot(out)
    with pytest.raises(RunDirError) as info:
        train_command([str(config), "--overwrite"], registry=toy_registry())
    assert str(info.value) == (
        f"--overwrite: output dir {out} also holds files a run does not write (checkpoint-7/); nothing was deleted. "
        "Move them out of the folder, or choose another --output-dir")
    assert _snapshot(out) == before
    assert "checkpoint-7" not in clear_run_dir(out)
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint-7"]
    assert (out / "checkpoint-7" / "model.safetensors").read_bytes() == b"my weights"


def test_a_checkpoint_trl_rotated_away_leaves_the_record_so_one_copied_in_later_is_the_users(tmp_path):
    _a_run(tmp_path)
    record_files(tmp_path, "checkpoint-1")
    (tmp_path / "checkpoint-1").mkdir()
    assert recorded_files(tmp_path) == {*RUN_FILES, "checkpoint-1"}
    (tmp_path / "checkpoint-1").rmdir()  # save_total_limit: TRL deletes the oldest after a save
    forget_missing_files(tmp_path)
    assert recorded_files(tmp_path) == set(RUN_FILES)
    (tmp_path / "checkpoint-1").mkdir()  # copied in afterwards
    assert foreign_entries(tmp_path) == ["checkpoint-1/"]


def test_a_run_of_ours_without_a_record_resumes_but_is_never_cleared(tmp_path):
    _a_run(tmp_path, record=False)
    assert run_id(tmp_path) == "run-1" and recorded_files(tmp_path) is None
    assert check_run_dir(tmp_path, resume=True, overwrite=False)[0] == tmp_path / "checkpoint-2"
    before = _snapshot(tmp_path)
    with pytest.raises(RunDirError) as info:
        check_run_dir(tmp_path, resume=False, overwrite=True)
    assert str(info.value) == (
        f"--overwrite: output dir {tmp_path} holds a run of ours, but its run keeps no .grpo-rewards-files, the record "
        "of the files it wrote (a run of an earlier version), so grpo-rewards cannot tell its files from yours; "
        "nothing was changed. If it is a run to replace, remove its files by hand (README.md, checkpoint-2/, "
        "config.resume-2.yaml, config.yaml, manifest.json, metrics.jsonl, runs/, trainer_state.json), or choose "
        "another --output-dir")
    with pytest.raises(RunDirError, match=r"or another --output-dir \(--overwrite would refuse it: "
                                          r"\.grpo-rewards-files missing\)"):
        check_run_dir(tmp_path, resume=False, overwrite=False)
    with pytest.raises(RunDirError, match=r"is not cleared: its run keeps no \.grpo-rewards-files"):
        clear_run_dir(tmp_path)
    assert _snapshot(tmp_path) == before


def test_a_start_that_completed_no_step_is_replaced_without_overwrite(tmp_path):
    write_marker(tmp_path, "run-1")
    record_files(tmp_path, "manifest.json", "config.yaml", "metrics.jsonl")
    (tmp_path / "manifest.json").write_text('{"run_id": "run-1"}')
    (tmp_path / "config.yaml").write_text("model: tiny\n")
    assert check_run_dir(tmp_path, resume=False, overwrite=False) == (
        None, [f"{tmp_path} holds the files of a start that completed no step: they will be replaced"])
    (tmp_path / "metrics.jsonl").write_text('{"step": 1}\n')  # a logged step: a run worth keeping
    with pytest.raises(RunDirError, match=r"already holds another run \(manifest.json, 0 checkpoints\)"):
        check_run_dir(tmp_path, resume=False, overwrite=False)


def test_an_output_dir_that_cannot_be_created_is_refused_in_the_dry_run(tmp_path, tiny_model):
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, tmp_path / "out"))
    with pytest.raises(RunDirError, match=r"^output dir /proc/newrun: cannot create files in /proc \(.+\); "
                                          r"choose another --output-dir$"):
        train_command([str(config), "--output-dir", "/proc/newrun", "--dry-run"], registry=toy_registry())


def test_a_dry_run_leaves_no_trace_of_its_writability_check(tmp_path, tiny_model):
    config = write_config(tmp_path / "run.yaml", tiny_config(tiny_model, tmp_path / "out"))
    assert train_command([str(config), "--dry-run"], registry=toy_registry()) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.yaml"]


def test_checkpoints_with_weights_or_optimizer_cut_short_are_named(tmp_path):
    import torch
    from safetensors.torch import save_file

    ckpt = tmp_path / "checkpoint-4"
    ckpt.mkdir()
    (ckpt / "trainer_state.json").write_text(json.dumps({"global_step": 4}))
    save_file({"w": torch.zeros(64)}, str(ckpt / "model.safetensors"))
    torch.save({"state": torch.zeros(64)}, str(ckpt / "optimizer.pt"))
    assert checkpoint_problem(ckpt) is None
    optimizer = (ckpt / "optimizer.pt").read_bytes()
    (ckpt / "optimizer.pt").write_bytes(optimizer[: len(optimizer) // 2])
    assert checkpoint_problem(ckpt) == "optimizer.pt is cut short"
    (ckpt / "optimizer.pt").write_bytes(optimizer)
    weights = (ckpt / "model.safetensors").read_bytes()
    (ckpt / "model.safetensors").write_bytes(weights[:-10])
    assert checkpoint_problem(ckpt) == f"model.safetensors is cut short ({len(weights) - 10} of {len(weights)} bytes)"


def test_a_resume_keeps_the_metrics_up_to_its_checkpoint_and_seeds_them_for_older_runs(tmp_path):
    from grpo_rewards.train.progress import keep_metrics_until, read_metrics

    (tmp_path / "metrics.jsonl").write_text('{"step": 1, "reward": 0.5}\n{"step": 2, "reward": 0.75}\n'
                                            '{"step": 3, "reward": 1.0}\n{"step": 3, "rew')  # killed at step 3
    keep_metrics_until(tmp_path, 2)
    assert read_metrics(tmp_path) == [{"step": 1, "reward": 0.5}, {"step": 2, "reward": 0.75}]
    older = tmp_path / "older"
    (older / "checkpoint-2").mkdir(parents=True)
    (older / "checkpoint-2" / "trainer_state.json").write_text(json.dumps(
        {"global_step": 2, "log_history": [{"step": 1, "reward": 0.25}, {"step": 2, "reward": 0.5}]}))
    keep_metrics_until(older, 2, older / "checkpoint-2")
    assert read_metrics(older) == [{"step": 1, "reward": 0.25}, {"step": 2, "reward": 0.5}]


def test_the_progress_callback_starts_the_run_once_and_writes_lines_under_a_bar(tmp_path, capsys):
    from types import SimpleNamespace

    from grpo_rewards.train.progress import make_progress_callback, read_metrics

    started = []
    callback = make_progress_callback(tmp_path, ["toy.digits"], started.append, bar=True)
    state = SimpleNamespace(global_step=0, max_steps=2, is_world_process_zero=True)
    callback.on_train_begin(None, state, None)
    for step in (1, 2):
        callback.on_step_begin(None, state, None)
        state.global_step = step
        callback.on_step_end(None, state, None)
        callback.on_log(None, state, None, logs={"reward": step / 4, "rewards/toy.digits/mean": step / 2})
    callback.on_train_end(None, state, None)
    assert started == [state]
    captured = capsys.readouterr()
    assert [line.split("  ")[:3] for line in captured.out.splitlines()] == [
        ["step 1/2", "reward 0.250", "toy.digits 0.500"], ["step 2/2", "reward 0.500", "toy.digits 1.000"]]
    assert "step 2/2 [" in captured.err  # the bar: step N of M, [elapsed<left]
    assert [(e["step"], e["reward"]) for e in read_metrics(tmp_path)] == [(1, 0.25), (2, 0.5)]


# -- proof of ownership: the marker, legacy folders, only a proven run is cleared -------------------------------


def test_a_folder_that_merely_looks_like_a_run_is_never_cleared(tmp_path, tiny_model):
    out = tmp_path / "d"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    (out / "README.md").write_text("mine")
    config = write_config(tmp_path / "base.yaml", tiny_config(tiny_model, out))
    before = _snapshot(out)
    with pytest.raises(RunDirError) as info:
        train_command([str(config), "--dry-run"], registry=toy_registry())
    assert str(info.value) == (f"output dir {out} already holds other files (README.md); nothing was changed. Choose "
                               "another --output-dir (a new or empty folder)")
    (out / "README.md").write_text("---\nlooks like a model card\n")
    with pytest.raises(RunDirError) as info:
        train_command([str(config), "--dry-run"], registry=toy_registry())
    assert str(info.value) == (
        f"output dir {out} holds files named like a run's, but it has no .grpo-rewards-run whose run id its "
        "manifest.json repeats, the proof that grpo-rewards wrote it (a folder that only looks like a run, or one "
        "written before that proof existed); nothing was changed. If it is a run to replace, remove its files by hand "
        "(README.md, manifest.json), or choose another --output-dir")
    before = _snapshot(out)
    with pytest.raises(RunDirError, match="remove its files by hand"):
        clear_run_dir(out)
    assert _snapshot(out) == before


def test_a_marker_the_manifest_does_not_repeat_is_no_proof(tmp_path):
    _a_run(tmp_path)
    assert run_id(tmp_path) == "run-1"
    (tmp_path / "manifest.json").write_text('{"rewards": [], "run_id": "run-2"}')
    assert run_id(tmp_path) is None
    with pytest.raises(RunDirError, match=r"--overwrite: output dir .* looks like a run, but it has no"):
        check_run_dir(tmp_path, resume=False, overwrite=True)


def test_a_legacy_run_without_the_marker_resumes_but_overwrite_names_what_to_remove_by_hand(tmp_path):
    _a_run(tmp_path, marker=False)
    checkpoint, _ = check_run_dir(tmp_path, resume=True, overwrite=False)
    assert checkpoint == tmp_path / "checkpoint-2"
    before = _snapshot(tmp_path)
    with pytest.raises(RunDirError) as info:
        check_run_dir(tmp_path, resume=False, overwrite=True)
    assert str(info.value).endswith(
        "nothing was changed. If it is a run to replace, remove its files by hand (README.md, checkpoint-2/, "
        "config.resume-2.yaml, config.yaml, manifest.json, metrics.jsonl, runs/, trainer_state.json), or choose "
        "another --output-dir")
    with pytest.raises(RunDirError, match=r"Use --resume to continue that run, or another --output-dir \(--overwrite "
                                          r"would refuse it: .grpo-rewards-run missing\)"):
        check_run_dir(tmp_path, resume=False, overwrite=False)
    assert _snapshot(tmp_path) == before


def test_a_users_readme_in_a_run_folder_is_not_a_model_card_and_is_kept(tmp_path):
    _a_run(tmp_path)
    (tmp_path / "README.md").write_text("my notes on this run")
    with pytest.raises(RunDirError, match=r"also holds files a run does not write \(README.md\)"):
        check_run_dir(tmp_path, resume=False, overwrite=True)
    assert "README.md" not in clear_run_dir(tmp_path)
    assert (tmp_path / "README.md").read_text() == "my notes on this run"


def test_a_run_writes_the_marker_and_the_manifest_repeats_its_id(tmp_path):
    from grpo_rewards.train.manifest import write_start

    write_start(tmp_path, {"run_id": "abc", "created": "now", "rewards": []}, {"model": "tiny"}, resumed_from=None,
                changes=[])
    assert run_id(tmp_path) == "abc"
    assert json.loads((tmp_path / ".grpo-rewards-run").read_text()) == {"run_id": "abc", "program": "grpo-rewards"}
    assert recorded_files(tmp_path) == {"config.yaml", "manifest.json"}
