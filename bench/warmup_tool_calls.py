"""A supervised warm-up that makes the embedded SmolLM2-135M-Instruct call the calculator tool, so that a
GRPO run on ``tools:calculator`` has a signal to start from (without it the model makes no call in 12
steps, nor under any prompt of ``bench/probe_tool_calls.py``).

It writes solved exchanges for fresh ``tools:calculator`` problems (a seed the run's dataset does not
use): the task's own prompt, one ``calculate`` call with the problem's expression, the calculator's
real reply, and the boxed answer, rendered with the same tool-capable chat template and tool schema a
training run uses. It trains on the assistant's tokens only (everything after the prompt; the tool's
reply included, as a plain causal-LM loss would), for a few steps of AdamW, then saves model and
tokenizer to ``--out``, and samples completions of other problems to count the tool calls made.

    OMP_NUM_THREADS=1 python bench/warmup_tool_calls.py --out /tmp/calc-warm [--steps 6] [--lr 5e-5]
    grpo-rewards train examples/tools_calculator.yaml model=/tmp/calc-warm --output-dir /tmp/calc-warm-run

Results are in bench/train.md ("The calculator environment").
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

#: The ``tools:calculator`` seeds: the warm-up's exchanges, and the problems sampled after it.
TRAIN_SEED, PROBE_SEED = 123, 1


def exchange(row: dict[str, Any], calculator: Any) -> list[dict[str, Any]]:
    """The row's prompt, then one solved exchange: the call, the calculator's reply, the boxed answer."""
    expression = row["prompt"][-1]["content"].removeprefix("What is ").removesuffix("?")
    call = {"type": "function", "function": {"name": "calculate", "arguments": {"expression": expression}}}
    return [*row["prompt"], {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "name": "calculate", "content": str(calculator.calculate(expression))},
            {"role": "assistant", "content": f"The answer is \\boxed{{{row['solution']}}}."}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the warmed-up model (must not exist)")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--probe", type=int, default=4, help="problems sampled after the warm-up (6 samples each)")
    args = parser.parse_args()
    out = Path(args.out)
    if out.exists():
        raise SystemExit(f"{out} exists: give a new folder (this script never overwrites one)")

    import torch
    from transformers import AutoModelForCausalLM

    from grpo_rewards.train.environment import tool_tokenizer
    from grpo_rewards.train.model import model_path
    from grpo_rewards_tools.environments.calculator import Calculator
    from grpo_rewards_tools.environments.tasks import make_calculator

    torch.manual_seed(0)
    path = model_path("embedded")
    tokenizer = tool_tokenizer(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    calculator = Calculator()
    tools = [calculator.calculate]
    examples = []
    for row in make_calculator(args.steps * args.batch, seed=TRAIN_SEED):
        messages = exchange(row, calculator)
        prompt = tokenizer.apply_chat_template(messages[:2], tools=tools, add_generation_prompt=True,
                                               tokenize=True, return_dict=True)["input_ids"]
        full = tokenizer.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=True)["input_ids"]
        if full[:len(prompt)] != prompt:
            raise SystemExit("the chat template renders the prompt differently inside the exchange")
        examples.append((full, len(prompt)))

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    model.train()
    start = time.time()
    for step in range(args.steps):
        batch = examples[step * args.batch:(step + 1) * args.batch]
        width = max(len(full) for full, _ in batch)
        ids = torch.full((len(batch), width), tokenizer.eos_token_id)
        labels = torch.full((len(batch), width), -100)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, (full, n) in enumerate(batch):
            ids[i, :len(full)] = torch.tensor(full)
            mask[i, :len(full)] = 1
            labels[i, n:len(full)] = torch.tensor(full[n:])
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"step {step + 1}/{args.steps}: loss {loss.item():.3f} ({time.time() - start:.0f} s)", flush=True)
    model.eval()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)

    from probe_tool_calls import sample_counts  # bench/, beside this script

    conversations = [row["prompt"] for row in make_calculator(args.probe, seed=PROBE_SEED)]
    counts = sample_counts(model, tokenizer, tools, conversations, samples=6, tokens=48)
    calls, boxed, n = counts["whole"], counts["boxed"], counts["samples"]
    print(f"saved to {out}; sampled after the warm-up: {calls}/{n} completions with a whole tool call, "
          f"{boxed}/{n} with a boxed answer ({time.time() - start:.0f} s in all)", flush=True)


if __name__ == "__main__":
    main()
