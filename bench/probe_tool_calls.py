"""Does the embedded SmolLM2-135M-Instruct call the calculator tool at all? Samples completions for
``tools:calculator`` prompts rendered as a training run renders them (TRL's tool-capable ChatML
template, the ``calculate`` tool's schema in the system turn) under three prompts, and counts the
completions with a ``<tool_call>`` and with a ``\\boxed{}`` answer.

    OMP_NUM_THREADS=1 python bench/probe_tool_calls.py [--prompts 4] [--samples 6] [--tokens 56]

Variants: ``current`` (the task's system prompt), ``example`` (the system prompt plus a worked
tool call written out as text), ``fewshot-turns`` (the task's system prompt, then one solved exchange
as real chat turns: user, an assistant tool call, the tool's reply, the boxed answer). Results are in
bench/train.md ("The calculator environment").
"""

from __future__ import annotations

import argparse
import time
from typing import Any

CALL = {"type": "function", "function": {"name": "calculate", "arguments": {"expression": "1234 * 56"}}}
EXAMPLE = ("You have a calculator tool. Use it for every computation, then give the final answer as \\boxed{ANSWER}.\n"
           "Example.\nuser: What is 1234 * 56?\nassistant: <tool_call>\n{\"name\": \"calculate\", \"arguments\": "
           "{\"expression\": \"1234 * 56\"}}\n</tool_call>\ntool: 69104\nassistant: The answer is \\boxed{69104}.")
SHOT = [{"role": "user", "content": "What is 1234 * 56?"},
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "name": "calculate", "content": "69104"},
        {"role": "assistant", "content": "1234 * 56 = 69104, so the answer is \\boxed{69104}."}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--samples", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=56)
    args = parser.parse_args()

    import torch
    from transformers import AutoModelForCausalLM

    from grpo_rewards.train.environment import tool_tokenizer
    from grpo_rewards.train.model import model_path
    from grpo_rewards_tools.environments.calculator import Calculator
    from grpo_rewards_tools.environments.tasks import CALCULATOR_SYSTEM, make_calculator

    torch.set_num_threads(1)
    path = model_path("embedded")
    tokenizer = tool_tokenizer(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    calculator = Calculator()
    rows = make_calculator(args.prompts, seed=1)
    variants = {"current": (CALCULATOR_SYSTEM, []), "example": (EXAMPLE, []),
                "fewshot-turns": (CALCULATOR_SYSTEM, SHOT)}
    torch.manual_seed(0)
    for name, (system, shot) in variants.items():
        start = time.time()
        conversations = [[{"role": "system", "content": system}, *shot, row["prompt"][1]] for row in rows]
        counts = sample_counts(model, tokenizer, [calculator.calculate], conversations, args.samples, args.tokens)
        n = counts["samples"]
        print(f"{name}: {counts['opened']}/{n} completions with a tool call, {counts['boxed']}/{n} with a boxed answer "
              f"({counts['prompt_tokens']} prompt tokens, {time.time() - start:.0f} s)", flush=True)


def sample_counts(model: Any, tokenizer: Any, tools: list[Any], conversations: list[list[dict[str, Any]]],
                  samples: int, tokens: int) -> dict[str, int]:
    """Sample ``samples`` completions (temperature 1.0, ``tokens`` new tokens) of each conversation rendered
    with ``tools``; count those that open a ``<tool_call>``, those with a whole one (opened and closed) and
    those with a ``\\boxed`` answer (``prompt_tokens``: the last prompt's length)."""
    counts = {"samples": 0, "opened": 0, "whole": 0, "boxed": 0, "prompt_tokens": 0}
    for messages in conversations:
        ids = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True,
                                            return_tensors="pt", return_dict=True)
        counts["prompt_tokens"] = ids["input_ids"].shape[1]
        out = model.generate(**ids, do_sample=True, temperature=1.0, max_new_tokens=tokens,
                             num_return_sequences=samples, pad_token_id=tokenizer.eos_token_id)
        for sequence in out:
            text = tokenizer.decode(sequence[counts["prompt_tokens"]:], skip_special_tokens=False)
            counts["samples"] += 1
            counts["opened"] += "<tool_call>" in text
            counts["whole"] += "<tool_call>" in text and "</tool_call>" in text
            counts["boxed"] += "\\boxed" in text
    return counts

if __name__ == "__main__":
    main()
