"""text.exact_match and text.f1 beside SQuAD's official evaluation scripts, on real SQuAD rows.

Run from the repository root in the project's venv:

    python bench/squad_official.py --write

- Peer: the official ``evaluate-v1.1.py`` and ``evaluate-v2.0.py`` (read, never copied, from a git
  clone of pavanchhatpar/question-generation at f00b7f3a, the SQuAD authors' scripts with a
  ``# flake8: noqa`` line added; ``--scripts``), loaded as modules and called per question:
  v1.1's ``metric_max_over_ground_truths`` with ``exact_match_score`` and ``f1_score``, v2.0's
  ``get_raw_scores``. Only the standard library and numpy, so it runs in the project's venv.
- Rows: the 1,407 questions of ``dev-v1.1.json`` in VinACE/san_mrc at 74f10c58 (five articles of
  SQuAD v2.0's dev set, 702 unanswerable; ``--data``). Predictions per question: each distinct gold
  answer, the first gold with two context words before it and with three after it (a span off by a
  few words, as extractive models err), the first gold as ``"The <gold>."``, the next question's
  answer (a wrong one), each plausible answer of an unanswerable question, and ``""``.
- Ours: the registered rewards, one batch call each, the golds as ``reference`` (``[""]`` for an
  unanswerable question, as v2.0 reads it).

Prints the agreement table; ``--write`` records every question with its predictions and their
official values in tests/text/data/squad_official.jsonl (project, path and commit of the scripts and
the data on each line), which tests/text/test_text_squad.py checks in CI.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "text" / "data" / "squad_official.jsonl"
SCRIPTS = ("pavanchhatpar/question-generation", "f00b7f3a176706d91086b003e54362814fa4b582")
#: A recorded prediction: [prediction, *these values] (v1.1's are null for an unanswerable question).
KEYS = ("v1_exact", "v1_f1", "v2_exact", "v2_f1")
DATA = ("VinACE/san_mrc", "74f10c582d3fb1249ef9559967dc9cb6c989acbe", "dev-v1.1.json")


def _show(clone: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(clone), "show", f"{commit}:{path}"], capture_output=True, text=True,
                          check=True).stdout


def _module(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)  # the official script, as `import` would run it
    return module


def _predictions(qa: dict[str, Any], context: str, following: str) -> list[str]:
    golds = [a["text"] for a in qa["answers"]]
    found = list(dict.fromkeys(golds))
    if golds:
        start = qa["answers"][0]["answer_start"]
        before = context[:start].split()[-2:]
        after = context[start + len(golds[0]):].split()[:3]
        found += [" ".join([*before, golds[0]]), golds[0] + " " + " ".join(after), f"The {golds[0]}."]
    found += [a["text"] for a in qa.get("plausible_answers", [])]
    found += [following, ""]
    return list(dict.fromkeys(found))


def rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    qas = [(qa, p["context"]) for article in data["data"] for p in article["paragraphs"] for qa in p["qas"]]
    for index, (qa, context) in enumerate(qas):
        nxt = qas[(index + 1) % len(qas)][0]
        following = (nxt["answers"] or nxt.get("plausible_answers") or [{"text": "unknown"}])[0]["text"]
        for prediction in _predictions(qa, context, following):
            out.append({"id": qa["id"], "golds": [a["text"] for a in qa["answers"]], "prediction": prediction})
    return out


def official(found: list[dict[str, Any]], v1: types.ModuleType, v2: types.ModuleType) -> None:
    for row in found:
        golds, prediction = row["golds"], row["prediction"]
        if golds:  # v1.1 has no unanswerable question (max over no gold raises)
            row["v1_exact"] = float(v1.metric_max_over_ground_truths(v1.exact_match_score, prediction, golds))
            row["v1_f1"] = float(v1.metric_max_over_ground_truths(v1.f1_score, prediction, golds))
        dataset = [{"paragraphs": [{"qas": [{"id": "q", "answers": [{"text": g} for g in golds]}]}]}]
        exact, f1 = v2.get_raw_scores(dataset, {"q": prediction})
        row["v2_exact"], row["v2_f1"] = float(exact["q"]), float(f1["q"])


def ours(found: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    from grpo_rewards_text import make_exact_match, make_f1

    completions = [r["prediction"] for r in found]
    reference = [r["golds"] or [""] for r in found]
    prompts = [None] * len(found)
    return (make_exact_match()(prompts=prompts, completions=completions, reference=reference),
            make_f1()(prompts=prompts, completions=completions, reference=reference))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scripts", type=Path, default=Path("/work/.mirror/pavanchhatpar+question-generation/repo"))
    parser.add_argument("--data", type=Path, default=Path("/work/.mirror/VinACE+san_mrc/repo"))
    parser.add_argument("--write", action="store_true", help=f"record the rows in {OUT.relative_to(ROOT)}")
    args = parser.parse_args()
    v1 = _module(_show(args.scripts, SCRIPTS[1], "evaluate-v1.1.py"), "evaluate_v1_1")
    v2 = _module(_show(args.scripts, SCRIPTS[1], "evaluate-v2.0.py"), "evaluate_v2_0")
    found = rows(json.loads(_show(args.data, DATA[1], DATA[2])))
    official(found, v1, v2)
    exact, f1 = ours(found)
    answerable = [i for i, r in enumerate(found) if r["golds"]]
    print("| official value | rows | same value as ours |")
    print("| --- | --- | --- |")
    for key, mine, which in (("v2_exact", exact, range(len(found))), ("v2_f1", f1, range(len(found))),
                             ("v1_exact", exact, answerable), ("v1_f1", f1, answerable)):
        same = sum(1 for i in which if mine[i] == found[i][key])
        print(f"| {key} | {len(which)} | {same} |")
        for i in which:
            if mine[i] != found[i][key]:
                print("   DIFFERENT", key, found[i]["id"], repr(found[i]["prediction"]), found[i]["golds"],
                      "official", found[i][key], "ours", mine[i])
    if args.write:
        source = {"scripts": f"{SCRIPTS[0]}@{SCRIPTS[1]}:evaluate-v1.1.py,evaluate-v2.0.py",
                  "data": f"{DATA[0]}@{DATA[1]}:{DATA[2]}"}
        questions: dict[str, dict[str, Any]] = {}  # one line per question: its golds once, its predictions
        for r in found:
            q = questions.setdefault(r["id"], {**source, "id": r["id"], "golds": r["golds"], "predictions": []})
            q["predictions"].append([r["prediction"], *(r.get(k) for k in KEYS)])
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions.values()), encoding="utf-8")
        print("wrote", len(found), "rows of", len(questions), "questions to", OUT.relative_to(ROOT))

if __name__ == "__main__":
    main()
