"""The tiny random model used by training tests and examples."""

from __future__ import annotations

from lanes import needs

pytestmark = needs("transformers")


def test_tiny_model_loads_with_its_tokenizer_and_chat_template(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from grpo_rewards.train.tiny import make_tiny_model

    path = make_tiny_model(tmp_path / "tiny")
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path)
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is 2 + 3?"}], tokenize=False, add_generation_prompt=True
    )
    assert text == "<|im_start|>user\nWhat is 2 + 3?<|im_end|>\n<|im_start|>assistant\n"
    assert tokenizer.decode(tokenizer("The answer is \\boxed{7}.").input_ids) == "The answer is \\boxed{7}."
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    assert model.config.vocab_size == len(tokenizer) == 400


def test_tiny_model_weights_are_the_same_for_the_same_seed(tmp_path):
    from safetensors.torch import load_file

    from grpo_rewards.train.tiny import make_tiny_model

    a = load_file(make_tiny_model(tmp_path / "a", seed=1) / "model.safetensors")
    b = load_file(make_tiny_model(tmp_path / "b", seed=1) / "model.safetensors")
    c = load_file(make_tiny_model(tmp_path / "c", seed=2) / "model.safetensors")
    assert all((a[k] == b[k]).all() for k in a)
    assert not all((a[k] == c[k]).all() for k in a)
