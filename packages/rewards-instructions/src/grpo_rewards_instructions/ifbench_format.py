"""IFBench's ``format:`` checkers (:mod:`grpo_rewards_instructions.ifbench` holds the registry of ids)."""

from __future__ import annotations

import itertools
import string

from . import text
from .ifbench_common import _EDGE, Args, _no_punctuation


def _newline_words(value: str, args: Args) -> bool:
    value = _no_punctuation(value)
    lines = [line for line in value.strip().split("\n") if line != ""]
    return len(lines) == len(value.strip().split())


def strict_options(options: str) -> bool:
    r"""``re.match(r"\W*[aA]\W*[bB]\W*[cC]\W*", options) is not None``, as a scan: the options name
    the letters a, b, c in order, with only non-word characters before and between them.

    >>> strict_options("(A), (B), (C)"), strict_options("yes/no/maybe")
    (True, False)
    """
    pos = 0
    for letter in "abc":
        while pos < len(options) and not (options[pos].isalnum() or options[pos] == "_"):
            pos += 1
        if pos == len(options) or options[pos].lower() != letter or not options[pos].isascii():
            return False
        pos += 1
    return True


def split_options(options: str) -> tuple[bool, tuple[str, ...]]:
    """The original's reading of ``options``: whether the answer must match exactly, and the options
    (split on ``/``, else on ``or`` anywhere in the text, else on ``,``)."""
    separator = "/" if "/" in options else "or" if "or" in options else ","
    return strict_options(options), tuple(option.strip() for option in options.split(separator))


def _options(value: str, args: Args) -> bool:
    strict, options = split_options(args["options"])
    if strict:
        return value in options
    answer = value.strip(_EDGE).lower()
    return any(option.strip(_EDGE).lower() == answer for option in options)


_CLOSER = {")": "(", "]": "[", "}": "{"}


def _nested_parentheses(value: str, args: Args) -> bool:
    open_brackets: list[str] = []
    deepest = 0
    for char in value:
        if char in "([{":
            open_brackets.append(char)
            deepest = max(deepest, len(open_brackets))
        elif char in _CLOSER:
            if open_brackets and open_brackets[-1] == _CLOSER[char]:
                open_brackets.pop()
                if deepest >= 5 and len(open_brackets) < deepest:
                    return True
            else:  # a mismatch starts the count again
                open_brackets, deepest = [], 0
    return False


def _nested_quotes(value: str, args: Args) -> bool:
    open_quotes: list[str] = []
    deepest = 0
    for char in value:
        if open_quotes and char == open_quotes[-1]:
            open_quotes.pop()
            if deepest - len(open_quotes) >= 3:
                return True
        elif char in "\"'":
            open_quotes.append(char)
            deepest = max(deepest, len(open_quotes))
    return False


def _title_case(value: str, args: Args) -> bool:
    for word in text.word_tokens(value):
        if not word or not word[0].isalpha():
            continue
        if len(word) == 1:
            if word.islower():
                return False
            continue
        head, tail = word[0], word[1:]
        if head.isupper() and tail.islower():
            continue
        if head.islower() and (tail.isupper() or tail.islower()):
            return False
    return True


def _quote_explained(value: str, args: Args) -> bool:
    value = "".join(value.replace("'\"'", "").split())  # the character '"' named, then no whitespace
    if '""' in value:  # a quote closed and the next opened with nothing between
        return False
    rest = value.strip(string.digits + string.punctuation.replace('"', ""))
    return not (rest and rest[-1] == '"')


def _separator_list(value: str, args: Args) -> bool:
    return value.count(args["sep"]) >= 2


def _italic_thesis(value: str, args: Args) -> bool:
    start = value.find("<i>")
    if start < 0:
        start = value.find("<em>")
        if start < 0:
            return False
    value = value[start:]
    end = value.find("</i>")
    if end < 0:
        end = value.find("</em>")
        if end < 0:
            return False
    # the original's offsets, fit for <i>...</i>: with <em> it keeps a ">" and a trailing ">"
    return value[3:end].strip() != "" and value[end + 4:].strip() != ""


def _sub_bullets(value: str, args: Args) -> bool:
    return all("-" in bullet for bullet in value.split("*")[1:])


def _sentences_then_bullets(value: str, args: Args) -> bool:
    before_bullets: bool | list[str] = True  # the original reuses one name: True, then a line's sentences
    sentences = bullets = 0
    for line in value.split("\n"):
        if line.strip().startswith("*"):
            before_bullets = False
            if sentences < 2:
                return False
            bullets += 1
        elif before_bullets:
            before_bullets = text.sentences(line.strip())
            sentences += len(before_bullets)
        else:
            return False
    return bullets >= 2


def _output_template(value: str, args: Args) -> bool:
    return all(part in value for part in ("My Answer:", "My Conclusion:", "Future Outlook:"))


def _no_whitespace(value: str, args: Args) -> bool:
    return not any(char.isspace() for char in value)


def _is_emoji(char: str) -> bool:
    import emoji  # IFBench's emoji table (emoji.EMOJI_DATA); a single character is or is not one

    return bool(emoji.is_emoji(char))


def _emoji_per_sentence(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    for index, sentence in enumerate(sentences):
        bare = _no_punctuation(sentence).strip()
        if not bare:
            return False
        # the last character, or the one before it (the original's allowance for a trailing space)
        if _is_emoji(bare[-1]) or _is_emoji(bare[-2] if len(bare) > 1 else bare[-1]):
            continue
        if index == len(sentences) - 1:
            return False
        following = _no_punctuation(sentences[index + 1]).strip()  # Punkt may start the next sentence with it
        if not following or not _is_emoji(following[0]):
            return False
    return True


def kept_lines(lines: list[str]) -> list[str]:
    """The lines IFBench's ``format:line_indent`` keeps: it removes blank lines with
    ``lines.remove(line)`` while iterating over ``lines``, so the line after each removed one is
    skipped (stays), and ``remove`` takes the first line equal to the blank one, which may be an
    earlier skipped line. Reproduced in one pass: per distinct blank line, a queue of the ones still
    present.

    >>> kept_lines(["a", "", "", "b", " ", "c"])
    ['a', '', 'b', 'c']
    >>> kept_lines(["", "", "x", ""])  # the last blank removes the skipped first one
    ['x', '']
    """
    from collections import deque

    present: dict[str, deque[int]] = {}
    removed: set[int] = set()
    skip = False
    for index, line in enumerate(lines):
        blank = not line.strip()
        if blank:
            present.setdefault(line, deque()).append(index)
        if skip:
            skip = False
            continue
        if blank:
            removed.add(present[line].popleft())
            skip = True
    return [line for index, line in enumerate(lines) if index not in removed]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _indent_stairs(value: str, args: Args) -> bool:
    lines = kept_lines(value.split("\n"))
    return all(_indent(b) > _indent(a) for a, b in itertools.pairwise(lines))
