"""A tiny random causal LM with a real tokenizer, written to a local folder in about a second.

For tests and examples that need ``model: <dir>`` without a download: a 2-layer Qwen2 model
with random weights (deterministic for a seed) and a byte-level BPE tokenizer trained on the spot
with ``tokenizers``, with a ChatML chat template so conversational prompts work too.

>>> from grpo_rewards.train.tiny import make_tiny_model  # doctest: +SKIP
>>> path = make_tiny_model("/tmp/tiny-model")            # doctest: +SKIP
>>> # then: model: /tmp/tiny-model  in a training config
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: ChatML, as Qwen2 and SmolLM2 use; ``add_generation_prompt`` opens the assistant turn.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

_CORPUS = [
    "What is 3 + 4? Put the final answer in \\boxed{}.",
    "The answer is \\boxed{7}.",
    "<think> Let me add the numbers. </think> <answer> 12 </answer>",
    "system user assistant You are a helpful assistant. Solve the problem step by step.",
    "Compute 12 * 5 - 8. First multiply, then subtract: 60 - 8 = 52, so the result is 52.",
    "The quick brown fox jumps over the lazy dog. Hello world! Yes, no, maybe.",
    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 + - * / = ( ) [ ] { } $ \\frac{1}{2}",
]


def _train_tokenizer(vocab_size: int) -> Any:  # a transformers.PreTrainedTokenizerFast
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        additional_special_tokens=["<|im_start|>"],
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def make_tiny_model(
    path: str | Path,
    *,
    seed: int = 0,
    hidden_size: int = 32,
    num_layers: int = 2,
    vocab_size: int = 400,
    max_positions: int = 1024,
) -> Path:
    """Write a random tiny Qwen2 causal LM and its tokenizer to ``path``; return the path.

    The folder loads with ``AutoModelForCausalLM.from_pretrained(path)`` and
    ``AutoTokenizer.from_pretrained(path)``; the weights are the same for the same ``seed``.
    """
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig, Qwen2Config

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tokenizer = _train_tokenizer(vocab_size)
    tokenizer.save_pretrained(path)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=num_layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=max_positions,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = AutoModelForCausalLM.from_config(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, do_sample=True
    )
    model.save_pretrained(path, safe_serialization=True)
    return path
