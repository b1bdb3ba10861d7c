"""Mine labelled instruction-following cases from other projects' git mirrors (nothing typed by hand).

Writes ``tests/instructions/data/mined_tests.jsonl`` (the unit-test cases of google-research's
``instruction_following_eval/instructions_test.py`` and of allenai/IFBench's ``instructions_test.py``)
and ``bench/instructions/ifeval_gpt4.jsonl`` (IFEval's 541 prompts with GPT-4's replies and the
original implementation's strict and loose verdicts per constraint).

How the unit tests are mined: each test file is executed against a recording stand-in for the
checker module (every checker class records the arguments of its last ``build_description`` and
returns a token from ``check_following``) and for ``absltest`` (``assertTrue``/``assertFalse``/
``assertEqual`` on a token record the expected verdict). Each row keeps its project, path, commit,
test method and the checker's class, mapped to the constraint id through the project's registry
(the test files' own id strings are sometimes not registry ids).

Mirrors come from the ``fetch`` tool (or ``git clone --mirror URL DIR/owner+name/repo``):

    python bench/instructions/mine.py --mirrors /work/.mirror

google-research/google-research is too large to mirror here; its ``instruction_following_eval``
folder is read from CN-Steve-Lee/instruction_following_at_scale, which carries it unchanged
(``instructions_test.py`` has the same 48,520 characters as google-research at 83282e4e; the
recorded path and commit are google-research's, with ``copy_of`` naming the mirror).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOOGLE_COPY = ("CN-Steve-Lee/instruction_following_at_scale", "9d3792766b7104c8e00e8ecd5e28845c57954f3c")
GOOGLE = ("google-research/google-research", "instruction_following_eval/instructions_test.py",
          "83282e4ec6e140949e0f51d04e279be7949409ff")
IFBENCH = ("allenai/IFBench", "instructions_test.py")
#: The original's registry: checker class -> constraint id (IFEval's 25, as google-research registers them).
IFEVAL_CLASSES = {
    "KeywordChecker": "keywords:existence", "KeywordFrequencyChecker": "keywords:frequency",
    "ForbiddenWords": "keywords:forbidden_words", "LetterFrequencyChecker": "keywords:letter_frequency",
    "ResponseLanguageChecker": "language:response_language", "NumberOfSentences": "length_constraints:number_sentences",
    "ParagraphChecker": "length_constraints:number_paragraphs", "NumberOfWords": "length_constraints:number_words",
    "ParagraphFirstWordCheck": "length_constraints:nth_paragraph_first_word",
    "PlaceholderChecker": "detectable_content:number_placeholders", "PostscriptChecker": "detectable_content:postscript",
    "BulletListChecker": "detectable_format:number_bullet_lists",
    "ConstrainedResponseChecker": "detectable_format:constrained_response",
    "HighlightSectionChecker": "detectable_format:number_highlighted_sections",
    "SectionChecker": "detectable_format:multiple_sections", "JsonFormat": "detectable_format:json_format",
    "TitleChecker": "detectable_format:title", "TwoResponsesChecker": "combination:two_responses",
    "RepeatPromptThenAnswer": "combination:repeat_prompt", "EndChecker": "startend:end_checker",
    "CapitalWordFrequencyChecker": "change_case:capital_word_frequency",
    "CapitalLettersEnglishChecker": "change_case:english_capital",
    "LowercaseLettersEnglishChecker": "change_case:english_lowercase", "CommaChecker": "punctuation:no_comma",
    "QuotationChecker": "startend:quotation",
}


def git_show(mirror: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


class _Token:
    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record


def _recording_module(name: str, cases: list[dict[str, Any]], constants: dict[str, Any]) -> types.ModuleType:
    """A module whose every attribute is a checker class that records what it is asked."""
    module = types.ModuleType(name)

    class Checker:
        def __init__(self, instruction_id: str = "") -> None:
            self.args: dict[str, Any] = {}

        def build_description(self, **kwargs: Any) -> str:
            self.args = kwargs
            return ""

        def check_following(self, value: str) -> _Token:
            record = {"class": type(self).__name__, "kwargs": dict(self.args), "response": value}
            cases.append(record)
            return _Token(record)

        def get_instruction_args(self) -> dict[str, Any]:
            return dict(self.args)

    def getattr_(attr: str) -> Any:
        if attr in constants:
            return constants[attr]
        if attr.startswith("__"):
            raise AttributeError(attr)
        cls = type(attr, (Checker,), {})
        setattr(module, attr, cls)
        return cls

    module.__getattr__ = getattr_  # type: ignore[method-assign]
    return module


def _absl() -> tuple[types.ModuleType, types.ModuleType]:
    absltest = types.ModuleType("absl.testing.absltest")
    parameterized = types.ModuleType("absl.testing.parameterized")

    class TestCase:
        def _expect(self, token: Any, expected: Any) -> None:
            if isinstance(token, _Token) and isinstance(expected, bool):
                token.record["expected"] = expected

        def assertTrue(self, value: Any, *args: Any) -> None:
            self._expect(value, True)

        def assertFalse(self, value: Any, *args: Any) -> None:
            self._expect(value, False)

        def assertEqual(self, actual: Any, expected: Any, *args: Any) -> None:
            self._expect(actual, expected)

        def subTest(self, *args: Any, **kwargs: Any) -> Any:
            import contextlib
            return contextlib.nullcontext()

        def assertRaises(self, *args: Any) -> Any:
            import contextlib
            return contextlib.suppress(Exception)

        def __getattr__(self, name: str) -> Any:
            if name.startswith("assert"):
                return lambda *a, **k: None
            raise AttributeError(name)

    def named_parameters(*cases: Any) -> Any:
        if len(cases) == 1 and isinstance(cases[0], list):
            cases = tuple(cases[0])

        def wrap(fn: Any) -> Any:
            def run(self: Any) -> None:
                for case in cases:
                    kwargs = {k: v for k, v in case.items() if k != "testcase_name"}
                    fn(self, **kwargs)
            return run
        return wrap

    absltest.TestCase = TestCase  # type: ignore[attr-defined]
    absltest.main = lambda: None  # type: ignore[attr-defined]
    parameterized.TestCase = TestCase  # type: ignore[attr-defined]
    parameterized.named_parameters = named_parameters  # type: ignore[attr-defined]
    parameterized.parameters = named_parameters  # type: ignore[attr-defined]
    return absltest, parameterized


def mine_test_file(source: str, package: str, modules: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Run a test file against recording checker modules; the records of every labelled check, with its test."""
    cases: list[dict[str, Any]] = []
    absltest, parameterized = _absl()
    absl = types.ModuleType("absl")
    testing = types.ModuleType("absl.testing")
    testing.absltest, testing.parameterized = absltest, parameterized  # type: ignore[attr-defined]
    saved = dict(sys.modules)
    pkg = types.ModuleType(package)
    pkg.__path__ = []  # type: ignore[attr-defined]
    sys.modules.update({"absl": absl, "absl.testing": testing, "absl.testing.absltest": absltest,
                        "absl.testing.parameterized": parameterized, package: pkg})
    for name, constants in modules.items():
        module = _recording_module(f"{package}.{name}", cases, constants)
        setattr(pkg, name, module)
        sys.modules[f"{package}.{name}"] = module
    try:
        namespace: dict[str, Any] = {"__name__": "mined"}
        exec(compile(source, "mined_test.py", "exec"), namespace)
        for cls in [v for v in namespace.values() if isinstance(v, type) and v.__name__.endswith("Test")]:
            for method in sorted(m for m in vars(cls) if m.startswith("test")):
                start = len(cases)
                try:
                    getattr(cls(), method)()
                except Exception as exc:  # a test that needs more than the stand-in gives: its cases are kept
                    print(f"  {cls.__name__}.{method}: stopped at {type(exc).__name__}: {exc}", file=sys.stderr)
                for record in cases[start:]:
                    record["test"] = f"{cls.__name__}.{method}"
    finally:
        sys.modules.clear()
        sys.modules.update(saved)
    return [c for c in cases if "expected" in c]


def _plain(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    google_mirror = args.mirrors / GOOGLE_COPY[0].replace("/", "+") / "repo"
    ifbench_mirror = args.mirrors / IFBENCH[0].replace("/", "+") / "repo"
    ifbench_commit = subprocess.run(["git", "-C", str(ifbench_mirror), "rev-parse", "HEAD"], check=True,
                                    capture_output=True, text=True).stdout.strip()
    relations = {"_COMPARISON_RELATION": ("less than", "at least"), "_POSTSCRIPT_MARKER": ("P.S.", "P.P.S")}
    rows = []
    google = mine_test_file(git_show(google_mirror, GOOGLE_COPY[1], "instruction_following_eval/instructions_test.py"),
                            "instruction_following_eval", {"instructions": relations})
    for case in google:
        rows.append({"project": GOOGLE[0], "path": GOOGLE[1], "commit": GOOGLE[2],
                     "copy_of": f"{GOOGLE_COPY[0]}@{GOOGLE_COPY[1]}", **case})
    registry = git_show(ifbench_mirror, ifbench_commit, "ifbench/instructions_registry.py")
    prefixes = {"_KEYWORD": "keywords:", "_LANGUAGE": "language:", "_LENGTH": "length_constraints:",
                "_CONTENT": "detectable_content:", "_FORMAT": "detectable_format:", "_COMBINATION": "combination:",
                "_STARTEND": "startend:", "_CHANGE_CASES": "change_case:", "_PUNCTUATION": "punctuation:"}
    ifbench_ids = {}  # (module, class) -> id, from lines '_KEYWORD + "existence": classic_instructions.KeywordChecker,'
    for found in re.finditer(r'^\s*(?:(_[A-Z_]+) \+ )?"([^"]+)"\s*:\s*(\w+)\.(\w+),', registry, re.M):
        prefix, name, module, cls = found.groups()
        ifbench_ids[(module, cls)] = prefixes.get(prefix or "", "") + name
    ifbench = mine_test_file(git_show(ifbench_mirror, ifbench_commit, IFBENCH[1]), "ifbench",
                             {"instructions": relations, "classic_instructions": relations})
    for case in ifbench:
        rows.append({"project": IFBENCH[0], "path": IFBENCH[1], "commit": ifbench_commit, **case})
    for row in rows:
        if row["project"] == GOOGLE[0]:
            row["id"] = IFEVAL_CLASSES.get(row["class"])
        else:
            module = "classic_instructions" if row["test"].startswith("ClassicInstructionsTest") else "instructions"
            row["id"] = ifbench_ids.get((module, row["class"]))
        row["kwargs"] = {k: _plain(v) for k, v in row["kwargs"].items()}
    out = ROOT / "tests" / "instructions" / "data" / "mined_tests.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    print(f"{out.relative_to(ROOT)}: {len(rows)} labelled cases "
          f"({len(google)} google-research, {len(ifbench)} IFBench; ids: {len({r['id'] for r in rows})})")

    inputs = {json.loads(line)["prompt"]: json.loads(line) for line in
              git_show(google_mirror, GOOGLE_COPY[1], "instruction_following_eval/data/input_data.jsonl").splitlines()}
    verdicts = {}
    for mode in ("strict", "loose"):
        text = git_show(google_mirror, GOOGLE_COPY[1], f"instruction_following_eval/data/eval_results_{mode}.jsonl")
        for line in text.splitlines():
            result = json.loads(line)
            verdicts.setdefault(result["prompt"], {})[mode] = result
    bench_out = ROOT / "bench" / "instructions" / "ifeval_gpt4.jsonl"
    with bench_out.open("w") as f:
        for prompt, by_mode in verdicts.items():
            row = inputs[prompt]
            f.write(json.dumps({
                "project": GOOGLE_COPY[0], "commit": GOOGLE_COPY[1],
                "path": "instruction_following_eval/data/eval_results_{strict,loose}.jsonl + input_data.jsonl",
                "key": row["key"], "prompt": prompt, "instruction_id_list": row["instruction_id_list"],
                "kwargs": row["kwargs"], "response": by_mode["strict"]["response"],
                "strict": by_mode["strict"]["follow_instruction_list"],
                "loose": by_mode["loose"]["follow_instruction_list"]}, sort_keys=True) + "\n")
    print(f"{bench_out.relative_to(ROOT)}: {len(verdicts)} replies")


if __name__ == "__main__":
    main()
