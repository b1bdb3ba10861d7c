"""A Ray cluster that cannot be reached is a clear error at once, never a hang and never local execution
(inside a private network namespace, with no Ray running)."""

from __future__ import annotations

import socket

import pytest
import scale_scorers
from scale_netns import refuse_outside_namespace

from grpo_rewards import Reward, load_reward_set
from grpo_rewards.errors import ExecutionError
from grpo_rewards.execution import pool


@pytest.fixture
def closed_port() -> int:
    refuse_outside_namespace()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


def test_connecting_to_an_address_where_nothing_listens_is_a_clear_error(closed_port):
    from grpo_rewards.execution.ray_backend import RayBackend

    with pytest.raises(ExecutionError) as err:
        RayBackend(f"127.0.0.1:{closed_port}").connect()
    message = str(err.value)
    assert message.startswith(f"cannot connect to the Ray cluster at '127.0.0.1:{closed_port}': ConnectionError: "
                              f"nothing answers at 127.0.0.1:{closed_port}")
    assert "never fall back to local execution" in message


def test_auto_with_no_cluster_running_is_a_clear_error(monkeypatch, closed_port):
    from grpo_rewards.execution.ray_backend import RayBackend

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", "/nonexistent-ray-tmp")
    with pytest.raises(ExecutionError, match=r"^cannot connect to the Ray cluster at 'auto': ConnectionError: "):
        RayBackend("auto").connect()


def test_a_reward_set_on_an_unreachable_cluster_fails_in_prepare_and_in_every_call_without_running_locally(
        closed_port):
    rs = load_reward_set({"execution": {"backend": "ray", "address": f"127.0.0.1:{closed_port}"},
                          "rewards": [{"use": "length.target", "with": {"target": 3, "unit": "chars"}}]})
    with pytest.raises(ExecutionError, match="nothing answers"):
        rs.prepare()
    reward = rs.reward_funcs[0]
    for _ in range(2):  # the next step tries again and fails as loudly
        with pytest.raises(ExecutionError, match="nothing answers"):
            reward(prompts=["p"], completions=["abc"])
    assert not pool._pools, "a local worker pool was started"


def test_a_plain_reward_on_an_unreachable_cluster_raises_whatever_its_error_policy(closed_port):
    reward = Reward(scale_scorers.sleepy, metric="s", on_error="none",
                    execution={"backend": "ray", "address": f"127.0.0.1:{closed_port}"})
    with pytest.raises(ExecutionError):
        reward(prompts=["p"], completions=["abc"])


def test_training_with_an_unreachable_cluster_stops_with_the_error_before_the_model_loads(closed_port, tmp_path,
                                                                                         capsys):
    import yaml

    from grpo_rewards.cli import main
    from grpo_rewards.train.tiny import make_tiny_model

    model = make_tiny_model(tmp_path / "tiny")
    capsys.readouterr()
    config = {
        "model": str(model), "output_dir": str(tmp_path / "out"),
        "dataset": {"task": "math:arithmetic", "n": 8},
        "rewards": {"execution": {"backend": "ray", "address": f"127.0.0.1:{closed_port}"},
                    "rewards": [{"use": "length.target", "with": {"target": 8, "unit": "chars"}}]},
        "grpo": {"max_steps": 1, "per_device_train_batch_size": 4, "num_generations": 4, "max_completion_length": 8,
                 "report_to": "none"},
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    assert main(["train", str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"rewards run concurrently (TRL awaits them together), ray (address 127.0.0.1:{closed_port}" in out
    assert "loading the model" not in out
    assert err.startswith(f"grpo-rewards: error: cannot connect to the Ray cluster at '127.0.0.1:{closed_port}': ")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_ray_client_address_is_refused_with_the_reason():
    from grpo_rewards.execution.ray_backend import RayBackend

    refuse_outside_namespace()
    with pytest.raises(ExecutionError) as err:
        RayBackend("ray://127.0.0.1:10001").connect()
    assert str(err.value).startswith("execution backend ray cannot use the Ray Client address 'ray://127.0.0.1:10001': "
                                     "Ray Client does not run the generator tasks the backend's deadlines need")
