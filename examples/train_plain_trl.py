"""The TRL lesson's minimal GRPO script, with rewards from the installed grpo-rewards plugins.

A prompts dataset, reward functions, ``GRPOConfig`` with ``num_generations``, ``GRPOTrainer``:
plain TRL code. The only grpo-rewards calls are the lookups of the rewards (by name, with
parameters) and of the offline model's folder (``grpo_rewards.model_path``). Needs grpo-rewards-math,
-format and -length.

    python examples/train_plain_trl.py                 # 8 steps of the embedded SmolLM2-135M on CPU
    MODEL=Qwen/Qwen2.5-0.5B-Instruct python examples/train_plain_trl.py
    MODEL=tiny python examples/train_plain_trl.py 2    # 2 steps of a tiny random model (~30 s), learns nothing
"""

import os
import sys

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from grpo_rewards import get_reward, load_registry, load_rewards, model_path

# 1. A prompts dataset: a "prompt" column plus the columns the rewards read ("solution").
#    Here from the math plugin's task; any list of dicts (or load_dataset(...)) works the same.
#    A conversational prompt (system + user) so the instruct model's chat template is used.
SYSTEM = "Reply in one line like this: 2 + 3 = \\boxed{5}"
rows = load_registry().task("math:arithmetic").factory(256, seed=0, ops="+")
dataset = Dataset.from_list([
    {"prompt": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": row["prompt"]}],
     "solution": row["solution"]}
    for row in rows
])
print(dataset[0])  # {'prompt': [{'role': 'system', ...}, {'role': 'user', 'content': 'What is 18 + 1? ...'}], ...}

# 2. Reward functions: TRL callables found by name in the installed plugins.
#    (The same objects are importable: from grpo_rewards_math import accuracy.)
reward_funcs = [
    *load_rewards("math.accuracy", "format.boxed"),
    get_reward("length.soft_overlong", max_length=48, buffer=16),
]

# 3. GRPOConfig: num_generations completions per prompt, scored by every reward, weighted.
max_steps = int(sys.argv[1]) if len(sys.argv) > 1 else 8
training_args = GRPOConfig(
    output_dir="runs/plain-trl",
    max_steps=max_steps,
    num_generations=4,             # 4 completions per prompt, 2 prompts per step
    per_device_train_batch_size=8,
    max_completion_length=48,
    learning_rate=1e-5,
    reward_weights=[1.0, 0.2, 0.2],
    logging_steps=1,
    save_strategy="no",
    bf16=False,
    activation_checkpointing=False,
    report_to="none",
)

# 4. GRPOTrainer: the model is the embedded SmolLM2-135M-Instruct unless MODEL names another
#    (a Hub id, a local folder, or "tiny"). model_path gives the local folder of the two built-in
#    models, making it first if needed; anything else comes back unchanged.
model = model_path(os.environ.get("MODEL") or "embedded")
trainer = GRPOTrainer(model=model, reward_funcs=reward_funcs, args=training_args, train_dataset=dataset)
trainer.train()
for entry in trainer.state.log_history:
    if "reward" in entry:
        print(entry["step"], {k: round(v, 3) for k, v in entry.items() if k.startswith("rewards/") and k.endswith("mean")})
