"""The hack corpus of ``gym.accuracy``: completions that must not be paid as a correct answer.

Every entry answers one ``gym:basic_arithmetic`` row (built on demand, so reasoning-gym is
imported only when the corpus runs): several answer blocks or boxes that disagree, every number (paid reasoning-gym's
partial credit, ``len(gold) / len(answer)``, and no more),
an empty block, the question echoed, the right answer only outside the answer block, look-alike
and invisible characters, a megabyte, and completions without text. Then the attacks on scorers that
evaluate (:mod:`.safety`), each on a row of its own dataset: answers that read the scorer's own
variables (``entry["answer"]``), call a builtin, or read the row's metadata, and rows whose evaluated
fields were tampered with (an ``integrand`` that runs a shell command: scored ``None``,
``bad_gym_metadata``, and never run), and the integration datasets' question restated as an answer
(``Integral(<integrand>, x) + C``, which their scorer paid 1.0). Registered with the reward (``hacks=corpus``) and run by
``grpo-rewards check gym.accuracy --hacks``.
"""

from __future__ import annotations

from typing import Any

REWARD = "gym.accuracy"
#: the reference row: ``make_rows(DATASET, 1, seed=SEED)[0]``
DATASET, SEED = "basic_arithmetic", 3


def corpus() -> list[dict[str, Any]]:
    """Every entry, for the reference row."""
    from .tasks import make_rows

    row = make_rows(DATASET, 1, seed=SEED)[0]
    gold = str(row["answer"])
    wrong = str(int(gold) + 1)
    columns = {k: v for k, v in row.items() if k != "prompt"}
    question = row["prompt"][-1]["content"]

    def entry(name: str, completion: Any, note: str, bound: float = 0.0) -> dict[str, Any]:
        return {"name": name, "completion": completion, "note": note, "prompt": row["prompt"], "columns": columns,
                "max_pay": {REWARD: bound}}

    return [
        entry("answer_block_spam", f"<answer>{wrong}</answer><answer>{gold}</answer><answer>0</answer>",
              "three answer blocks, the right one among them"),
        entry("box_spam", " ".join(f"\\boxed{{{n}}}" for n in (wrong, gold, "0")), "a box per candidate"),
        # reasoning-gym's partial credit for the gold inside a longer answer is len(gold) / len(answer):
        # kept as it defines it, so these are bounded by that share, well below a correct answer
        entry("every_number", "<answer>" + " ".join(str(n) for n in range(-200, 201)) + "</answer>",
              "every number from -200 to 200 in one block", bound=0.01),
        entry("empty_block", "<answer></answer>", "an empty answer block"),
        entry("blank_block", "<answer>\u3164\u200b</answer>", "an answer block of invisible characters"),
        entry("prompt_echo", f"<answer>{question}</answer>", "the question as the answer"),
        entry("gold_outside_the_block", f"The answer is {gold}. <answer>{wrong}</answer>",
              "the right number in prose, a wrong one in the block"),
        entry("zero_width_inside", f"<answer>{gold}\u200b{gold}</answer>", "the answer twice, split by a zero-width space",
              bound=0.5),
        entry("unclosed_block", f"<answer>{gold}", "an answer block that never closes"),
        entry("huge", "<answer>" + "9" * 1_000_000 + "</answer>", "a megabyte of nines"),
        entry("none", None, "no completion at all"),
        entry("no_assistant_message", [{"role": "user", "content": f"<answer>{gold}</answer>"}],
              "the answer in a user message, no assistant message"),
        *_evaluator_attacks(),
    ]


#: ``(dataset, name, answer, note)``: answers that an evaluating scorer would run as code
ATTACKS = (
    ("string_insertion", "reads_the_scorers_gold", 'entry["answer"]', "eval reads the scorer's own entry (paid 0.1)"),
    ("string_insertion", "reads_a_scorer_variable", "oracle_answer", "eval reads the scorer's local gold"),
    ("n_queens", "reads_the_valid_answers", '[[entry["metadata"]["valid_answers"][0]]]',
     "eval reads the row's valid boards (paid 0.5)"),
    ("spiral_matrix", "reads_the_gold_as_a_list", 'entry["answer"].split()', "eval reads the gold and splits it"),
    ("binary_matrix", "reads_the_metadata_solution", 'entry["metadata"]["solution"]', "eval reads the solution"),
    ("countdown", "reads_the_target_through_a_call", "open('/dev/null').close() or 0",
     "parse_expr calls a builtin"),
    ("simple_integration", "names_a_builtin", "exec and x + C", "parse_expr names exec"),
    ("intermediate_integration", "string_through_sympify", "S('x') + C", "a quoted string for sympy to parse"),
    ("polynomial_multiplication", "attribute_access", "x.func(x)", "attribute access on a symbol"),
)
#: a tampered row: the integrand its scorer parses with sympy (which calls eval) runs a shell command
TAMPERED_INTEGRAND = "__import__('os').system('touch /tmp/grpo-rewards-gym-hack') or x"


def _evaluator_attacks() -> list[dict[str, Any]]:
    from . import codec
    from .tasks import make_rows

    out = []
    for dataset, name, answer, note in ATTACKS:
        row = make_rows(dataset, 1, seed=SEED)[0]
        out.append({"name": f"{dataset}_{name}", "completion": f"<answer>{answer}</answer>", "note": note,
                    "prompt": row["prompt"], "columns": {k: v for k, v in row.items() if k != "prompt"},
                    "max_pay": {REWARD: 0.0}})
    for dataset in ("simple_integration", "intermediate_integration"):
        row = make_rows(dataset, 1, seed=SEED)[0]
        metadata = codec.loads(row["gym_entry"])["metadata"]
        out.append({"name": f"{dataset}_unevaluated_integral",
                    "completion": f"<answer>Integral({metadata['integrand']}, {metadata['variable']}) + C</answer>",
                    "note": "the question restated as sympy's unevaluated Integral: its derivative is the integrand, "
                            "so the scorer paid 1.0 (0.0: unevaluated)",
                    "prompt": row["prompt"], "columns": {k: v for k, v in row.items() if k != "prompt"},
                    "max_pay": {REWARD: 0.0}})
    for dataset in ("simple_integration", "intermediate_integration"):
        row = make_rows(dataset, 1, seed=SEED)[0]
        entry = codec.loads(row["gym_entry"])
        entry["metadata"]["integrand"] = TAMPERED_INTEGRAND
        columns = {k: v for k, v in row.items() if k != "prompt"}
        columns["gym_entry"] = codec.dumps(entry)
        out.append({"name": f"{dataset}_tampered_integrand", "completion": f"<answer>{row['answer']}</answer>",
                    "note": "the gold answer, on a row whose integrand runs a shell command (None: bad_gym_metadata)",
                    "prompt": row["prompt"], "columns": columns, "max_pay": {REWARD: 0.0}})
    return out
