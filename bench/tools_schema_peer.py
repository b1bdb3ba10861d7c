"""tools.schema_valid's validation beside a second JSON Schema implementation (fastjsonschema), on real tool schemas.

``tools.schema_valid`` validates with ``jsonschema`` itself (grpo_rewards_tools/validation.py), so the
peer is another implementation: fastjsonschema, in its own virtualenv (never the project's)::

    python3 -m venv /work/peers/fastjsonschema
    /work/peers/fastjsonschema/bin/pip install fastjsonschema==2.22.3
    source /work/wt-env.sh "$PWD"   # the project's venv and sources; the peer's site-packages go last on sys.path
    python bench/tools_schema_peer.py --peer /work/peers/fastjsonschema \\
        --bfcl-data /work/peers/bfcl/lib/python3.11/site-packages/bfcl_eval/data [--write]

Tools: every function document of BFCL v4's Python categories (bfcl-eval 2026.3.23 from PyPI, the
``function`` column: BFCL's types in JSON Schema) and the tools of the verbatim Hermes, Glaive and
ToolACE rows (tests/tools/data/real_rows.json). Each is read by ``read_tool`` and validated by the
validator ``tools.schema_valid`` builds (its schema, with ``additionalProperties: false`` added);
fastjsonschema compiles that same schema. Arguments are generated from the schema with a fixed seed:
one valid set, then one mutation each (a required argument dropped, a value of the wrong type, a
value outside the enum, an unknown argument, an integer written as a float or as a string, a
boolean for a number, ``null``, a wrong array item). Verdicts are compared twice: fastjsonschema
with formats off (as the 2020-12 draft and jsonschema by default treat ``format``: an annotation)
and with its default (formats asserted). ``--write`` keeps the cases of the verbatim rows' tools and
of the first 60 BFCL tools, with fastjsonschema's verdicts, in tests/tools/data/schema_peer_cases.json
(one entry per tool: its source; its definition, BFCL's as written, a verbatim row's as ``read_row``
reads it out of the row; its cases) for the CI test.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from grpo_rewards_tools import read_row
from grpo_rewards_tools.rows import RowFormatError
from grpo_rewards_tools.schemas import read_tool
from grpo_rewards_tools.validation import validator

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
              "live_parallel", "live_parallel_multiple", "irrelevance")
PEER: Any = None  # the fastjsonschema module, imported by main() from the peer's virtualenv
WORDS = ("Paris", "2023-07-10", "economy", "abc", "x y", "")


def _type(schema: dict[str, Any], rng: random.Random) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        return rng.choice(kind) if kind else None
    return kind if isinstance(kind, str) else None


def sample(schema: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value the schema should accept (enum, type, required keys; formats and patterns not aimed at)."""
    if not isinstance(schema, dict) or depth > 6:
        return "abc"
    if schema.get("enum"):
        return rng.choice(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return sample(schema[key][0], rng, depth + 1)
    kind = _type(schema, rng)
    if kind == "string":
        return rng.choice(WORDS)
    if kind == "integer":
        return rng.randint(-3, 100)
    if kind == "number":
        return rng.choice([rng.randint(0, 50), round(rng.uniform(-10, 10), 3)])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        return [sample(schema.get("items", {}), rng, depth + 1) for _ in range(rng.randint(0, 2))]
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        required = [k for k in schema.get("required") or [] if k in props]
        chosen = required + [k for k in props if k not in required and rng.random() < 0.5]
        return {k: sample(props[k], rng, depth + 1) for k in chosen}
    return rng.choice(["abc", 3, True, None])


def _wrong(value: Any) -> Any:
    """A value of another JSON type."""
    if isinstance(value, bool):
        return "true"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return 7
    if isinstance(value, list):
        return {"0": value}
    return [value] if value is not None else 0


def mutations(schema: dict[str, Any], valid: dict[str, Any], rng: random.Random) -> list[tuple[str, Any]]:
    props = schema.get("properties") or {}
    out: list[tuple[str, Any]] = [("valid", valid)]
    required = [k for k in schema.get("required") or [] if k in valid]
    if required:
        args = dict(valid)
        del args[rng.choice(required)]
        out.append(("required_dropped", args))
    if valid:
        key = rng.choice(sorted(valid))
        out.append(("wrong_type", {**valid, key: _wrong(valid[key])}))
        out.append(("null_value", {**valid, key: None}))
    enums = [k for k in props if isinstance(props[k], dict) and props[k].get("enum")]
    if enums:
        out.append(("outside_enum", {**valid, rng.choice(enums): "__not_in_enum__"}))
    out.append(("unknown_argument", {**valid, "zz_unknown": 1}))
    ints = [k for k in props if isinstance(props[k], dict) and props[k].get("type") == "integer"]
    if ints:
        key = rng.choice(ints)
        base = valid[key] if isinstance(valid.get(key), int) and not isinstance(valid.get(key), bool) else 10
        out.append(("int_as_float", {**valid, key: float(base)}))
        out.append(("int_as_string", {**valid, key: str(base)}))
        out.append(("bool_for_int", {**valid, key: True}))
    arrays = [k for k in valid if isinstance(valid[k], list) and valid[k]]
    if arrays:
        key = rng.choice(arrays)
        items = copy.deepcopy(valid[key])
        items[0] = _wrong(items[0])
        out.append(("wrong_array_item", {**valid, key: items}))
    return out


def tools(bfcl_data: Path | None) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for entry in json.loads((ROOT / "tests" / "tools" / "data" / "real_rows.json").read_text(encoding="utf-8")):
        try:
            read = read_row(entry["row"])
        except RowFormatError:
            continue
        for tool in read.tools:
            source = f"{entry['project']} {entry['path']} @{entry['commit'][:7]} ({entry['where']})"
            out.append((source, tool.openai()["function"]))
    if bfcl_data:
        seen = set()
        for category in CATEGORIES:
            for line in (bfcl_data / f"BFCL_v4_{category}.json").read_text().splitlines():
                row = json.loads(line)
                for function in row["function"]:
                    key = json.dumps(function, sort_keys=True)
                    if key not in seen:
                        seen.add(key)
                        out.append((f"bfcl-eval 2026.3.23 BFCL_v4_{category}.json {row['id']}", function))
    return out


def peer_verdict(compiled: Any, args: Any) -> bool:
    try:
        compiled(copy.deepcopy(args))
        return True
    except PEER.JsonSchemaException:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, required=True, help="the virtualenv that has fastjsonschema")
    parser.add_argument("--bfcl-data", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    sys.path.extend(str(p) for p in sorted(args.peer.glob("lib/python3*/site-packages")))
    global PEER
    PEER = importlib.import_module("fastjsonschema")
    print(f"fastjsonschema {PEER.VERSION}")
    rng = random.Random(args.seed)
    counts: Counter[tuple[str, str]] = Counter()
    differ: list[str] = []
    kept: list[dict[str, Any]] = []
    refused = []
    all_tools = tools(args.bfcl_data)
    bfcl_seen = 0
    for source, definition in all_tools:
        tool = read_tool(definition)
        schema = validator(tool).schema
        try:
            plain = PEER.compile(schema, use_formats=False)
            formats = PEER.compile(schema)
        except PEER.JsonSchemaDefinitionException as exc:
            refused.append(f"{tool.name}: {exc}")
            continue
        keep = not source.startswith("bfcl") or bfcl_seen < 60
        bfcl_seen += source.startswith("bfcl")
        cases: list[dict[str, Any]] = []
        if keep:
            kept.append({"source": source, "tool": definition, "cases": cases})
        for kind, arguments in mutations(schema, sample(schema, rng), rng):
            ours = validator(tool).is_valid(arguments)
            theirs, theirs_formats = peer_verdict(plain, arguments), peer_verdict(formats, arguments)
            counts[(kind, "same" if ours == theirs else "differ")] += 1
            counts[(kind, "accepted")] += ours
            counts[(kind, "same_formats" if ours == theirs_formats else "differ_formats")] += 1
            if ours != theirs or ours != theirs_formats:
                differ.append(f"{kind} {tool.name} {json.dumps(arguments)[:160]}: ours {ours}, fastjsonschema "
                              f"{theirs} (formats asserted: {theirs_formats})")
            cases.append({"mutation": kind, "arguments": arguments, "fastjsonschema": theirs,
                          "fastjsonschema_formats": theirs_formats})
    total = sum(v for (k, s), v in counts.items() if s in ("same", "differ"))
    same = sum(v for (k, s), v in counts.items() if s == "same")
    same_f = sum(v for (k, s), v in counts.items() if s == "same_formats")
    print(f"tools: {len(all_tools)} ({len(refused)} refused by fastjsonschema); cases: {total}")
    print(f"same verdict, fastjsonschema formats off: {same} / {total}; formats asserted: {same_f} / {total}")
    for kind in sorted({k for k, _ in counts}):
        n = counts[(kind, "same")] + counts[(kind, "differ")]
        print(f"  {kind:18} {counts[(kind, 'same')]:6} / {n:6}   formats: {counts[(kind, 'same_formats')]:6} / {n:6}"
              f"   accepted by ours: {counts[(kind, 'accepted')]}")
    for line in refused[:20]:
        print("refused", line)
    for line in differ[:40]:
        print("differ", line)
    if args.write:
        out = ROOT / "tests" / "tools" / "data" / "schema_peer_cases.json"
        out.write_text("[\n" + ",\n".join(json.dumps(entry, ensure_ascii=False) for entry in kept) + "\n]\n",
                       encoding="utf-8")
        print(f"{sum(len(e['cases']) for e in kept)} cases of {len(kept)} tools -> {out}")


if __name__ == "__main__":
    main()
