"""``--out`` of score and compare: never an input (by identity), only regular files, never a file the command did
not write, modes kept."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import stat

import pytest

import grpo_rewards
from grpo_rewards.cli import main
from grpo_rewards.compare import compare_file
from grpo_rewards.testing import plugin_registered

GROUP = "rewards:\n  - use: fixture.group_size\n"


def long_text(text: str, **row) -> float:
    return float(len(text) > 3)


def even(text: str, **row) -> float:
    return float(len(text) % 2 == 0)


class Plugin:
    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        register("even", even)
        register("long", long_text)


@pytest.fixture
def rows(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"prompt": "p", "completion": c}) + "\n" for c in ["ab", "abcde", "abc"]))
    return path


@pytest.fixture
def rewards(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(GROUP)
    return path


#: a file an earlier ``score --out`` wrote: replaced by the next
PREVIOUS = '{"completion": "old", "rewards": {"t.even": 1.0}, "labels": {"t.even": "ok"}, "reward": 1.0}\n'


def _score(rows, rewards, out) -> int:
    return main(["score", str(rows), "--rewards", str(rewards), "--out", str(out), "--no-progress"])


def _compare(rows, specs, out):
    with plugin_registered(Plugin(), "t") as registry:
        return compare_file(str(rows), specs, out=str(out), stream=io.StringIO(), registry=registry)


def test_compare_refuses_an_out_that_is_one_of_its_reward_set_files(rows, tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("rewards:\n  - use: t.even\n")
    b.write_text("rewards:\n  - use: t.long\n")
    with pytest.raises(grpo_rewards.GrpoRewardsError, match=f"--out {b} is the reward-set file {b}; choose another"):
        _compare(rows, [str(a), str(b)], b)
    assert b.read_text() == "rewards:\n  - use: t.long\n"
    with pytest.raises(grpo_rewards.GrpoRewardsError, match="is the reward-set file"):
        _compare(rows, [f"{a}:t.even", str(b)], a)  # an entry of a set names the set's file
    assert a.read_text() == "rewards:\n  - use: t.even\n"


def test_an_input_under_another_name_is_recognised_by_identity(plugins, rows, rewards, tmp_path, capsys):
    linked = tmp_path / "same-rows.jsonl"
    os.link(rows, linked)
    before = rows.read_text()
    assert _score(rows, rewards, linked) == 2
    assert rows.read_text() == before
    assert capsys.readouterr().err == (f"grpo-rewards: error: --out {linked} is the input file; choose another file "
                                       "(it would be overwritten)\n")
    with pytest.raises(grpo_rewards.GrpoRewardsError, match="is the input file"):
        _compare(rows, ["t.even", "t.long"], linked)


SHOUT = "def shout(text: str, **row) -> float:\n    return float(text.isupper())\n"


def test_out_that_is_a_local_scorer_module_the_set_uses_is_refused_and_kept(plugins, rows, tmp_path, capsys):
    module = tmp_path / "my_rewards.py"
    module.write_text(SHOUT)
    rewards = tmp_path / "set.yaml"
    rewards.write_text("rewards:\n  - use: my_rewards.py:shout\n")
    assert _score(rows, rewards, module) == 2
    assert module.read_text() == SHOUT
    assert capsys.readouterr().err == (f"grpo-rewards: error: --out {module} is the scorer module of "
                                       "my_rewards.py:shout; choose another file (it would be overwritten)\n")
    with pytest.raises(grpo_rewards.GrpoRewardsError, match=r"is the scorer module of .*my_rewards\.py:shout"):
        _compare(rows, [str(rewards), "t.even"], module)
    with pytest.raises(grpo_rewards.GrpoRewardsError, match=r"is the scorer module of .*my_rewards\.py:shout"):
        _compare(rows, [f"{module}:shout", "t.even"], module)  # a side named by reference
    assert module.read_text() == SHOUT


def test_a_scorer_module_read_through_inputs_is_an_input_too(plugins, rows, tmp_path):
    dependency, gate = tmp_path / "dep.py", tmp_path / "gate.py"
    dependency.write_text(SHOUT)
    gate.write_text("def gated(text: str, *, shout: float, **row) -> float:\n    return shout\n")
    rewards = tmp_path / "set.yaml"
    rewards.write_text(f"rewards:\n  - use: {dependency}:shout\n    weight: 0\n"
                       f"  - use: {gate}:gated\n    inputs: {{shout: shout}}\n")
    with pytest.raises(grpo_rewards.GrpoRewardsError, match=f"is the scorer module of {dependency}:shout"):
        _compare(rows, [f"{rewards}:gated", "t.even"], dependency)  # the side is gated; it reads shout's values
    assert dependency.read_text() == SHOUT


def _fifo(path):
    os.mkfifo(path)
    return "a FIFO (named pipe)"


def _device(path):
    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return "a character device"


def _socket(path):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.close()
    return "a socket"


def _folder(path):
    path.mkdir()
    return "a folder"


@pytest.mark.parametrize("make", [_fifo, _device, _socket, _folder])
def test_out_that_is_not_a_regular_file_is_refused_and_left_as_it_is(plugins, rows, rewards, tmp_path, capsys, make):
    out = tmp_path / "special"
    kind = make(out)
    mode = out.lstat().st_mode
    assert _score(rows, rewards, out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"grpo-rewards: error: --out {out} is {kind}: --out writes only regular files")
    assert out.lstat().st_mode == mode
    with pytest.raises(grpo_rewards.GrpoRewardsError, match=re.escape(f"is {kind}")):
        _compare(rows, ["t.even", "t.long"], out)
    assert out.lstat().st_mode == mode


@pytest.mark.parametrize("data", [b"my notes\n", b'{"prompt": "p", "completion": "x"}\n', b"\x89PNG\r\n\x1a\n"])
def test_an_existing_file_the_command_did_not_write_is_refused_and_kept(plugins, rows, rewards, tmp_path, capsys,
                                                                       data):
    # whatever the flags: a file of the user's (text, rows of their own, anything) is never overwritten
    out = tmp_path / "results.jsonl"
    out.write_bytes(data)
    assert _score(rows, rewards, out) == 2
    assert capsys.readouterr().err == (f"grpo-rewards: error: --out {out} exists and was not written by grpo-rewards "
                                       "score, so it is left as it is: give another file name, or move it away\n")
    assert out.read_bytes() == data
    with pytest.raises(grpo_rewards.GrpoRewardsError) as err:
        _compare(rows, ["t.even", "t.long"], out)
    assert str(err.value) == (f"--out {out} exists and was not written by grpo-rewards compare, so it is left as it "
                              "is: give another file name, or move it away")
    assert out.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl", "rows.jsonl", "set.yaml"]


def test_each_command_replaces_only_its_own_files_and_an_empty_one(plugins, rows, rewards, tmp_path, capsys):
    scored, compared = tmp_path / "scored.jsonl", tmp_path / "compared.jsonl"
    assert _score(rows, rewards, scored) == 0
    assert _score(rows, rewards, scored) == 0  # its own earlier output
    _compare(rows, ["t.even", "t.long"], compared)
    _compare(rows, ["t.even", "t.long"], compared)
    assert compared.read_text() != ""  # (rows the two disagree on: the test below is not one of an empty file)
    assert _score(rows, rewards, compared) == 2  # compare's file is not score's
    assert "was not written by grpo-rewards score" in capsys.readouterr().err
    with pytest.raises(grpo_rewards.GrpoRewardsError, match="was not written by grpo-rewards compare"):
        _compare(rows, ["t.even", "t.long"], scored)
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert _score(rows, rewards, empty) == 0
    assert len(empty.read_text().splitlines()) == 3


def test_a_symlink_is_written_through_to_its_regular_file(plugins, rows, rewards, tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text(PREVIOUS)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert _score(rows, rewards, link) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert [json.loads(line)["completion"] for line in target.read_text().splitlines()] == ["ab", "abcde", "abc"]


def test_a_symlink_to_a_fifo_or_to_nothing_is_refused(plugins, rows, rewards, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    assert _score(rows, rewards, link) == 2
    assert f"--out {link} is a FIFO (named pipe) (through the symlink {link})" in capsys.readouterr().err
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    assert _score(rows, rewards, dangling) == 2
    assert f"is a symlink to {tmp_path / 'nowhere'}, which does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600])
def test_an_existing_files_mode_is_kept(plugins, rows, rewards, tmp_path, mode):
    out = tmp_path / "scored.jsonl"
    out.write_text(PREVIOUS)
    out.chmod(mode)
    assert _score(rows, rewards, out) == 0
    assert stat.S_IMODE(out.stat().st_mode) == mode
    compared = tmp_path / "disagreements.jsonl"
    compared.write_text("")
    compared.chmod(mode)
    _compare(rows, ["t.even", "t.long"], compared)
    assert stat.S_IMODE(compared.stat().st_mode) == mode


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_file_follows_the_umask(plugins, rows, rewards, tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        assert _score(rows, rewards, tmp_path / "scored.jsonl") == 0
        _compare(rows, ["t.even", "t.long"], tmp_path / "disagreements.jsonl")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "scored.jsonl").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "disagreements.jsonl").stat().st_mode) == mode
