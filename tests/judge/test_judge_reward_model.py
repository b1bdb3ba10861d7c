"""judge.reward_model on a tiny random sequence-classification model built locally (CPU)."""

from __future__ import annotations

import math
import pickle

import pytest
from lanes import needs

from grpo_rewards import get_reward
from grpo_rewards_judge import RewardModel

pytestmark = needs("torch", "transformers")

PROMPTS = ["What is 2 + 2?", [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "3 + 4?"}],
           "What is 2 + 2?"]
COMPLETIONS = ["The answer is 4.", [{"role": "assistant", "content": "7"}], "Five, I think."]


def manual_scores(folder, prompts, texts):
    """The logits as transformers gives them, one conversation at a time, without the reward."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    scores = []
    for prompt, text in zip(prompts, texts):
        messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
        chat = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": text}], tokenize=False)
        ids = tokenizer(chat, return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            scores.append(float(model(**ids).logits[0, 0]))
    return scores


def test_scores_are_the_models_logits_of_the_chat_templated_conversation(reward_model_dir):
    result = RewardModel(model=str(reward_model_dir))(prompts=PROMPTS, completions=COMPLETIONS)
    expected = manual_scores(reward_model_dir, PROMPTS, ["The answer is 4.", "7", "Five, I think."])
    assert result.values == pytest.approx(expected, abs=1e-5)
    assert result.labels == ["scored"] * 3
    assert len(set(result.values)) == 3  # the random head tells them apart


def test_batching_does_not_change_the_scores(reward_model_dir):
    one = RewardModel(model=str(reward_model_dir), batch_size=1)(prompts=PROMPTS, completions=COMPLETIONS)
    all_at_once = RewardModel(model=str(reward_model_dir), batch_size=8)(prompts=PROMPTS, completions=COMPLETIONS)
    assert all_at_once.values == pytest.approx(one.values, abs=1e-5)


def test_the_model_is_loaded_once_on_the_named_device_in_eval_mode(reward_model_dir):
    reward = RewardModel(model=str(reward_model_dir), device="cpu")
    reward(prompts=PROMPTS[:1], completions=COMPLETIONS[:1])
    model, _ = reward.load()
    assert reward.load()[0] is model
    assert {p.device.type for p in model.parameters()} == {"cpu"} and not model.training


def test_a_cuda_device_on_a_machine_without_one_is_a_set_up_error(reward_model_dir):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ValueError, match="asks for CUDA, which this machine does not have"):
        RewardModel(model=str(reward_model_dir), device="cuda:1")
    with pytest.raises(ValueError, match="is not a torch device"):
        RewardModel(model=str(reward_model_dir), device="gpu-please")


def test_sigmoid_and_zscore_normalise_the_raw_scores(reward_model_dir):
    raw = RewardModel(model=str(reward_model_dir))(prompts=PROMPTS, completions=COMPLETIONS).values
    sigmoid = RewardModel(model=str(reward_model_dir), normalise="sigmoid")(prompts=PROMPTS, completions=COMPLETIONS)
    zscore = RewardModel(model=str(reward_model_dir), normalise="zscore")(prompts=PROMPTS, completions=COMPLETIONS)
    assert sigmoid.values == pytest.approx([1 / (1 + math.exp(-v)) for v in raw], abs=1e-6)
    mean = sum(raw) / 3
    std = math.sqrt(sum((v - mean) ** 2 for v in raw) / 3)
    assert zscore.values == pytest.approx([(v - mean) / std for v in raw], abs=1e-5)


def test_completions_without_text_are_unreadable_and_not_scored(reward_model_dir):
    result = RewardModel(model=str(reward_model_dir))(prompts=["p", "p"], completions=[None, "ok"])
    assert result.values[0] is None and result.labels == ["unreadable", "scored"]


def test_through_the_core_it_pickles_without_its_weights_and_scores_the_same(reward_model_dir):
    reward = get_reward("judge.reward_model", model=str(reward_model_dir))
    values = reward(prompts=PROMPTS, completions=COMPLETIONS)
    blob = pickle.dumps(reward)
    assert len(blob) < 100_000  # the loaded model is not in it
    assert pickle.loads(blob)(prompts=PROMPTS, completions=COMPLETIONS) == pytest.approx(values, abs=1e-6)


def test_a_multi_label_model_needs_a_label(tmp_path):
    from judge_models import make_tiny_reward_model

    two = make_tiny_reward_model(tmp_path / "two", num_labels=2)
    with pytest.raises(ValueError, match="has 2 labels: choose one with label: N"):
        RewardModel(model=str(two))(prompts=["p"], completions=["c"])
    assert RewardModel(model=str(two), label=1)(prompts=["p"], completions=["c"]).labels == ["scored"]


def test_check_passes_on_the_tiny_reward_model(reward_model_dir, capsys):
    from grpo_rewards.cli import main

    code = main(["check", "judge.reward_model", "--with", f"model={reward_model_dir}", "--with", "max_length=64",
                 "--deadline", "120"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-1] == "all contract points pass"


def test_a_huge_completion_scores_as_its_first_max_length_tokens(reward_model_dir):
    reward = RewardModel(model=str(reward_model_dir), max_length=64)
    start = "The answer is 4 because two and two make four. " * 10
    huge = start + "x " * 500_000
    result = reward(prompts=["What is 2 + 2?"] * 2, completions=[huge, start + "x " * 2000])
    assert result.values[0] == pytest.approx(result.values[1], abs=1e-6)
