"""Static checks over every module of the project (packages/*/src, examples/*/src).

1. No call that runs or deserialises text (eval, exec, compile, sympify, parse_expr, S("..."),
   pickle/marshal/yaml loads, torch.load) except the reviewed call sites below, none of which
   sees text from a completion or a dataset. A new call site fails until it is reviewed.
2. Every ``regex`` match passes ``timeout=``, and every stdlib ``re`` pattern is a literal (``re``
   cannot time out), except the reviewed, provably linear call sites below.
"""

from __future__ import annotations

from pathlib import Path

from code_scan import ROOT, dangerous_calls, project_modules, scan, untimed_regex_calls

#: (module, enclosing function, resolved call) -> why it never sees completion or dataset text.
ALLOWED_DANGEROUS = {
    ("packages/core/src/grpo_rewards/execution/worker.py", "_load_function", "pickle.loads"):
        "the worker unpickles the function its parent process sent over a private socket pair; never text",
    ("packages/core/src/grpo_rewards/execution/ray_task.py", "_Payload._load", "pickle.loads"):
        "the reward's worker process under a Ray task unpickles the function the driver pickled and put in the "
        "cluster's object store; never text",
    **{("packages/rewards-code/src/grpo_rewards_code/harness_child.py", function, call):
       "the code sandbox's harness runs model-written programs by design: it is the sandbox's process 1 (or, in a warm "
       "sandbox, a supervisor its zygote forks), started as "
       "python -I -S -c inside bubblewrap/unshare (no network, read-only system, dropped uid and capabilities, "
       "per-test rlimits and a seccomp filter; a bare subprocess only in the unsafe mode a user opts into); it never runs in a grpo-rewards process"
       for function, call in (("_compile_python", "builtins.compile"), ("_load_program", "builtins.exec"),
                              ("_assert_test", "builtins.compile"), ("_assert_test", "builtins.exec"))},
    ("packages/rewards-code/src/grpo_rewards_code/harness_zygote.py", "zygote", "builtins.__import__"):
        "the warm sandbox's zygote imports the names of its constant PRELOAD tuple (standard-library modules), "
        "before any program exists; never text from a program or a dataset",
    ("packages/core/src/grpo_rewards/errors.py", "load_yaml", "yaml.load"):
        "the one YAML reader of configs and reward sets: its Loader is a subclass of yaml.SafeLoader that only "
        "refuses repeated keys and reads 1e-5 as a number; it builds no Python object a safe load would not",
    ("packages/core/src/grpo_rewards/contract/runner.py", "run_contract", "pickle.loads"):
        "the contract check round-trips the reward object it just pickled itself (pickle.loads(pickle.dumps(r)))",
}

#: (module, enclosing function, resolved call) -> why the pattern is linear and needs no timeout.
ALLOWED_UNTIMED_REGEX = {
    ("packages/core/src/grpo_rewards/train/checks.py", "trainer_choices", "re.findall"):
        "patterns built from the constant TRAINED_CHOICES field names (identifiers), read over the installed TRL's "
        "grpo_trainer.py, never a completion or a dataset: a literal 'self.NAME == ' then one word run ended by a "
        "quote, and a literal 'self.NAME in [' then one class run ended by ']': linear",
    ("packages/rewards-math/src/grpo_rewards_math/latex_lexer.py", "<module>", "re.compile"):
        "an alternation of re.escape'd constant symbols from the module's own table: no user input, linear",
    ("packages/rewards-math/src/grpo_rewards_math/extract/__init__.py", "<module>", "re.compile"):
        "_GOLD_MARKERS_RE: an alternation of re.escape'd constant markers (####, <answer>, the box commands): linear",
    ("packages/rewards-math/src/grpo_rewards_math/extract/phrases.py", "_Rule.__init__", "re.compile"):
        "the re twin of one of the module's constant phrase patterns (its \\s written out as a character class), "
        "compiled once per pattern at import; no match of its own",
    ("packages/rewards-math/src/grpo_rewards_math/extract/phrases.py", "_Rule.search", "self.ascii.search"):
        "the re twin runs only where the regex pattern would run without a timer (timeout None: a text of at "
        "most TIMED_CHARS = 2,048 characters): the phrase patterns' cost there is bounded by the text, at worst "
        "quadratic in 2,048 characters (a few ms), as the module documents next to REGEX_TIMEOUT",
    ("packages/rewards-math/src/grpo_rewards_math/extract/phrases.py", "_Rule.finditer", "self.ascii.finditer"):
        "as _Rule.search: the re twin runs only on a text of at most TIMED_CHARS characters (timeout None)",
    ("packages/rewards-math/src/grpo_rewards_math/extract/phrases.py", "_Rule.match", "self.ascii.match"):
        "as _Rule.search: the re twin runs only on a text of at most TIMED_CHARS characters (timeout None); the one "
        "pattern matched (_SENTENCE_END) skips to its end atomically, linear",
    ("packages/rewards-format/src/grpo_rewards_format/boxes.py", "renders_blank", "compiled"):
        "compiles the module's constant token and dimension patterns; both matches in the loop pass timeout=",
    ("packages/rewards-format/src/grpo_rewards_format/text_utils.py", "is_blank", "compiled"):
        "compiles the constant VISIBLE pattern (one character class); no match of its own",
    ("packages/rewards-format/src/grpo_rewards_format/text_utils.py", "is_blank", "compiled().search"):
        "VISIBLE is one character class: search tries one character per position, linear",
    ("packages/rewards-format/src/grpo_rewards_format/text_utils.py", "visible_words", "compiled"):
        "compiles the constant ZERO_WIDTH and SEPARATOR patterns (character classes); no match of its own",
    ("packages/rewards-format/src/grpo_rewards_format/text_utils.py", "visible_words", "compiled().sub"):
        "ZERO_WIDTH is one character class and SEPARATOR one class repeated: each sub reads each character once",
    ("packages/rewards-format/src/grpo_rewards_format/steps.py", "ReasoningSteps.__call__", "self._pattern.finditer"):
        r"STEP_LINE is anchored at line starts; its runs ([ \t]*, \d+, [ \t]+, [^\n]*) are separated by "
        "disjoint characters, so an attempt backtracks at most over its own line: linear; a deadline is "
        "also checked every 1,024 lines",
    ("packages/rewards-judge/src/grpo_rewards_judge/parse.py", "<module>", "re.compile"):
        r"the grade-line patterns of the three constant reply keys: ^[ \t*_#>`-]*KEY[ \t*_`]*[:=]([^\n]*)$, "
        "each class run followed by a character outside it, the value the rest of the line: linear (200,000 "
        "newlines, spaces or asterisks: 0.03 s)",
    ("packages/rewards-code/src/grpo_rewards_code/extract.py", "<module>", "re.compile"):
        "_FENCE: a constant pattern whose blanks and tag are atomic groups (grpo_rewards.patterns.atomic, never "
        "backtracked into); the rest of the opening line is one class run up to its newline, and the lazy body stops "
        "at the next line that starts with ``` (any later opening line closes it): each character is read a bounded "
        "number of times, linear",
    ("packages/rewards-gym/src/grpo_rewards_gym/safety.py", "_tokens", "re.compile"):
        "the module's constant token patterns as one atomic star of alternatives (found inside a lookahead, "
        "consumed by a backreference): nothing is ever backtracked into, so a match is linear in the (ASCII, "
        "bounded) answer",
    ("packages/rewards-gym/src/grpo_rewards_gym/safety.py", "<module>", "re.compile"):
        "constant patterns: a number literal with nothing after it (with a fixed lookbehind), a name, quoted strings without "
        "their quote inside, the letters A-E; each attempt reads forward only, so every match is linear",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifeval.py", "_keywords", "re.search"):
        "re.escape(keyword), case-insensitive: a literal, matched in linear time (a keyword like (a+)+$ is text)",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifeval.py", "_keyword_frequency", "re.findall"):
        "re.escape(keyword), case-insensitive: a literal, matched in linear time",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifeval.py", "_forbidden_words", "re.search"):
        r"\b + re.escape(word) + \b: a literal between word boundaries, linear",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifeval.py", "_sections", "re.split"):
        r"\s? + re.escape(splitter) + \s?\d+\s?: a literal with single optional spaces and one digit run that "
        "ends the pattern: an attempt backtracks over its own digits only, linear",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifeval.py", "_postscript", "re.search"):
        r"the constant p\.\s?p\.\s?s or p\.\s?s\. (single optional spaces), or re.escape(marker): linear",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifevalg.py", "_increment_word", "re.findall"):
        "re.escape(keyword), case-insensitive: a literal, matched in linear time",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifevalg.py", "<module>", "re.compile"):
        "IFEval's sentence-splitter patterns: constant initials or a suffix, a space and an alternation of "
        "constant words (no quantified group): linear",
    ("packages/rewards-instructions/src/grpo_rewards_instructions/ifevalg.py", "_word_once", "re.findall"):
        "re.escape(keyword), case-insensitive: a literal, matched in linear time",
    ("packages/rewards-text/src/grpo_rewards_text/normalize.py", "Normalizer.__init__", "re.compile"):
        r"\b( alternation of re.escape(article) )\b: constant words, no quantified group: linear",
    ("packages/rewards-text/src/grpo_rewards_text/schema.py", "_Walk._additional", "re.search"):
        "a schema's own patternProperties, which jsonschema applies to the same keys with re as well: "
        "not provably linear, so text.json is registered with a hard deadline (timeout=10 s, a worker)",
    ("examples/third-party-plugin/src/grpo_rewards_keywords/__init__.py", "_patterns", "re.compile"):
        r"re.escape(keyword) between fixed lookarounds (?<!\w)...(?!\w): a literal, matched in linear time",
}


def _key(site) -> tuple[str, str, str]:
    return site.path, site.function, site.call


def _all(find) -> dict[tuple[str, str, str], list[int]]:
    found: dict[tuple[str, str, str], list[int]] = {}
    for path in project_modules():
        for site in find(scan(path)):
            found.setdefault(_key(site), []).append(site.line)
    return found


def test_the_scan_covers_every_package_and_the_example_plugin():
    dirs = {str(p.relative_to(ROOT)).split("/src/")[0] for p in project_modules()}
    assert {"packages/core", "packages/rewards-math", "packages/rewards-format", "packages/rewards-length",
            "examples/third-party-plugin"} <= dirs


def test_no_unreviewed_call_evaluates_or_unpickles_text():
    found = _all(dangerous_calls)
    new = {f"{k[0]}:{lines} in {k[1]}: {k[2]}" for k, lines in found.items() if k not in ALLOWED_DANGEROUS}
    assert not new, "unreviewed call sites (review them, then add them to ALLOWED_DANGEROUS with a reason):\n" + \
        "\n".join(sorted(new))


def test_every_reviewed_dangerous_call_site_still_exists():
    assert set(ALLOWED_DANGEROUS) <= set(_all(dangerous_calls)), "drop stale entries from ALLOWED_DANGEROUS"


def test_every_regex_match_has_a_timeout_or_a_reviewed_linear_pattern():
    found = _all(untimed_regex_calls)
    new = {f"{k[0]}:{lines} in {k[1]}: {k[2]}" for k, lines in found.items() if k not in ALLOWED_UNTIMED_REGEX}
    assert not new, "regex calls without timeout= (add one, or prove the pattern linear in ALLOWED_UNTIMED_REGEX):\n" \
        + "\n".join(sorted(new))


def test_every_reviewed_regex_call_site_still_exists():
    assert set(ALLOWED_UNTIMED_REGEX) <= set(_all(untimed_regex_calls)), "drop stale entries"


# -- the scanner itself: it finds what it must, through aliases -------------------------------
SAMPLE = '''
import pickle as pk
import regex
import re
from sympy import sympify as sp, S
from sympy.parsing.sympy_parser import parse_expr

def score(text, pattern):
    a = eval(text)
    b = sp(text) + S(text) + S(2) + parse_expr(text)
    c = pk.loads(text.encode())
    regex.search(pattern, text)
    regex.compile(pattern).finditer(text)
    regex.compile(pattern).finditer(text, timeout=0.1)
    re.search(pattern, text)
    re.search(r"\\d+", text)

class R:
    def __call__(self, text):
        return self._compiled(text) or self.parse_expr() or text.split(",")
'''


def test_scanner_finds_calls_through_aliases(tmp_path: Path):
    scanner = scan(tmp_path / "sample.py", SAMPLE, root=tmp_path)
    assert [(s.function, s.call) for s in dangerous_calls(scanner)] == [
        ("score", "builtins.eval"), ("score", "sympy.sympify"), ("score", "sympy.S"),
        ("score", "sympy.parsing.sympy_parser.parse_expr"), ("score", "pickle.loads"),
    ]
    assert [(s.function, s.call) for s in untimed_regex_calls(scanner)] == [
        ("score", "regex.search"), ("score", "regex.compile().finditer"), ("score", "re.search"),
        ("R.__call__", "self._compiled"),
    ]
