"""``rows_from`` on every reasoning-gym dataset: a user's own dataset, turned into rows and sent through Arrow,
is scored as reasoning-gym scores the original entries.

For each dataset (its default config, ``size`` and ``seed`` given, as a user builds one): ``rows_from``, a
``datasets`` round trip of the rows, then for each row with a gold answer and each of three answers (the gold,
``0``, ``nonsense``) the score of the dataset rebuilt from the row's ``gym_config`` on the row's ``gym_entry``
against ``data.score_answer(answer, data[i])`` on the user's own object (a raise counts as a value: both must
raise). Prints the counts and every disagreement.

    python bench/gym_rows_from.py --rows 3 --seed 11
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any


def _score(dataset: Any, answer: str, entry: Any) -> Any:
    try:
        return dataset.score_answer(answer, entry)
    except Exception as exc:  # a raise is compared like a value
        return ("raises", type(exc).__name__)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import datasets
    import reasoning_gym

    from grpo_rewards_gym import codec, dataset_names, rows_from
    from grpo_rewards_gym.scoring import scorer_dataset

    start = time.perf_counter()
    agree, no_gold, problems = 0, 0, []
    names = dataset_names()
    for name in names:
        data = reasoning_gym.create_dataset(name, size=args.rows, seed=args.seed)
        try:
            rows = datasets.Dataset.from_list(rows_from(data)).to_list()
        except Exception as exc:  # listed below
            problems.append(f"{name}: rows_from failed: {exc!r:.200}")
            continue
        for i, row in enumerate(rows):
            entry = data[i]
            if entry["answer"] is None:
                no_gold += 1
                continue
            rebuilt = scorer_dataset(row["gym_dataset"], row["gym_config"])
            for answer in (str(entry["answer"]), "0", "nonsense"):
                want = _score(data, answer, entry)
                got = _score(rebuilt, answer, codec.loads(row["gym_entry"]))
                if want == got:
                    agree += 1
                else:
                    problems.append(f"{name} row {i} answer {answer[:30]!r}: reasoning-gym {want}, rows_from {got}")
    print(f"{len(names)} datasets, {args.rows} rows each (seed {args.seed}), {time.perf_counter() - start:.1f} s: "
          f"{agree} scores the same, {len(problems)} not; {no_gold} rows without a gold answer skipped")
    for line in problems:
        print(" ", line)


if __name__ == "__main__":
    main()
