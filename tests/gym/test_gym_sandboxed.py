"""gym.accuracy with sandbox: true: an answer that reaches an evaluating scorer cannot touch the host's files or network.

The attack is real: the same answer, given to the scorer in-process (bypassing the answer check,
as a grammar hole would), writes the file and opens the connection.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

pytest.importorskip("grpo_rewards_code")

from grpo_rewards_code.sandbox import SandboxUnavailable, get_sandbox
from grpo_rewards_gym import Accuracy, codec, make_rows
from grpo_rewards_gym.sandboxed import score_in_sandbox
from grpo_rewards_gym.scoring import scorer_dataset


@pytest.fixture(scope="module")
def row():
    try:
        get_sandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"this machine cannot run a sandbox: {exc}")
    return make_rows("n_queens", 1, seed=0)[0]


def _attack(path: Path, port: int) -> str:
    # n_queens scores an answer it does not recognise with eval(answer)
    return (f"[__import__('pathlib').Path('{path}').write_text('escaped'), "
            f"__import__('socket').create_connection(('127.0.0.1', {port}), timeout=1)]")


def _accepted(server: socket.socket) -> bool:
    server.settimeout(0.2)
    try:
        server.accept()[0].close()
        return True
    except OSError:
        return False


def test_an_answer_reaching_eval_in_the_sandbox_touches_neither_files_nor_network(row, tmp_path):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        inside = tmp_path / "inside"
        assert score_in_sandbox("n_queens", row["gym_config"], row["gym_entry"], _attack(inside, port)) == 0.0
        assert not inside.exists() and not _accepted(server)
        outside = tmp_path / "outside"
        dataset = scorer_dataset("n_queens", row["gym_config"])
        assert dataset.score_answer(_attack(outside, port), codec.loads(row["gym_entry"])) == 0.0
        assert outside.read_text() == "escaped" and _accepted(server)  # in-process, the same answer gets out


def test_the_sandboxed_scorer_gives_the_same_values(row):
    sandboxed, plain = Accuracy(sandbox=True), Accuracy(sandbox=False)
    for answer in (row["answer"], "[['_']]", "nonsense"):
        text = f"<answer>{answer}</answer>"
        assert sandboxed(text, **row) == plain(text, **row)


def test_a_module_missing_inside_the_sandbox_is_none_with_a_warning_never_zero(row, monkeypatch):
    """The environment failing (reasoning-gym not importable where the sandbox looks) is not the answer's fault."""
    import grpo_rewards_code.sandbox

    monkeypatch.setattr(grpo_rewards_code.sandbox, "host_sys_path", lambda: ())  # the sandbox sees no site-packages
    with pytest.warns(RuntimeWarning, match="No module named 'reasoning_gym'"):
        assert Accuracy(sandbox=True)(f"<answer>{row['answer']}</answer>", **row) == (None, "sandbox_error")


def test_a_script_run_from_tmp_scores_in_the_sandbox_as_elsewhere(row, monkeypatch):
    # ``python /tmp/train.py`` puts /tmp first on sys.path; shown to the sandbox, the host's /tmp covered the
    # sandbox's own and the right answer was paid 0.0 (unscorable)
    from grpo_rewards_code.sandbox import host_sys_path

    monkeypatch.syspath_prepend("/tmp")
    assert "/tmp" not in host_sys_path()
    assert Accuracy(sandbox=True)(f"<answer>{row['answer']}</answer>", **row) == (1.0, "correct")
