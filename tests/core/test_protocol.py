import pytest

from grpo_rewards import check_each_row, completion_text


def test_string_completion_is_its_own_text():
    assert completion_text("x = 3") == "x = 3"


def test_conversational_completion_reads_the_final_assistant_message():
    completion = [
        {"role": "assistant", "content": "Let me think."},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": "It is 4."},
    ]
    assert completion_text(completion) == "It is 4."


def test_tool_call_turns_are_skipped_for_the_final_answer():
    completion = [
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "add"}}]},
        {"role": "tool", "name": "add", "content": "4"},
        {"role": "assistant", "content": "The sum is 4."},
    ]
    assert completion_text(completion) == "The sum is 4."


def test_a_completion_that_ends_in_a_tool_call_is_read_as_the_call():
    completion = [{"role": "assistant", "content": None,
                   "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": {"a": 1}}}]}]
    assert completion_text(completion) == (
        '[{"function": {"arguments": {"a": 1}, "name": "add"}, "type": "function"}]'
    )


def test_content_parts_keep_only_their_text():
    completion = [{"role": "assistant", "content": [{"type": "text", "text": "4"}, {"type": "image"}]}]
    assert completion_text(completion) == "4"


def test_unreadable_completions_have_no_text():
    assert completion_text(None) is None
    assert completion_text(42) is None
    assert completion_text([{"role": "user", "content": "hi"}]) is None
    assert completion_text([]) is None


class _BadRow(ValueError):
    pass


def _needs_answer(row):
    if not isinstance(row, dict):
        raise _BadRow(f"a row is a {type(row).__name__}")
    if not row.get("answer"):
        raise _BadRow("no answer")
    return row["answer"]


def test_check_each_row_names_each_bad_row_by_its_index_from_zero():
    rows = [{"answer": "4"}, {}, "text", {"answer": "5"}]
    assert check_each_row(rows, _needs_answer, _BadRow) == ["row 1: no answer", "row 2: a row is a str"]


def test_check_each_row_stops_reading_after_max_problems():
    read = []

    def check(row):
        read.append(row)
        _needs_answer(row)

    assert check_each_row(iter([{}, {}, {}, {}]), check, _BadRow, max_problems=2) == ["row 0: no answer", "row 1: no answer"]
    assert len(read) == 2
    assert check_each_row([{}], check, _BadRow, max_problems=0) == []


def test_check_each_row_lets_an_error_of_another_type_through():
    with pytest.raises(KeyError):
        check_each_row([{"answer": "4"}], lambda row: row["missing"], (_BadRow, TypeError))


def test_check_each_row_reports_nothing_for_good_rows():
    assert check_each_row([{"answer": "4"}, {"answer": "x"}], _needs_answer, _BadRow) == []
