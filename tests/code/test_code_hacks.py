"""The hack corpus pays nothing, through the command users run, and no process outlives any entry."""

from __future__ import annotations

import contextlib
import io
import os

from code_procs import sandbox_processes

from grpo_rewards import get_reward
from grpo_rewards.cli import main
from grpo_rewards_code.hacks import corpus
from grpo_rewards_code.languages import missing


def runnable() -> list[dict]:
    """The entries whose language this machine runs (a missing toolchain is None, tested elsewhere)."""
    return [entry for entry in corpus() if missing(entry["columns"].get("language", "python")) is None]

LISTED = {"sys_exit_before_tests", "os_exit_before_tests", "always_equal_call", "always_equal_stdio",
          "first_expected_line_only", "files_outside_tmp", "socket", "fork_bomb", "memory_hog", "infinite_loop",
          "gigabyte_of_output", "kill_the_parent", "result_channel", "posix_system", "monkeypatch",
          "sleep_past_deadline", "atexit_pass",
          # issue 39: forged reports, the seccomp exit status, the host's sysctls, threads, /tmp, near misses
          "forged_sandbox_error", "forged_done", "forged_index", "forged_desync", "seccomp_exit_status",
          "proc_sys_writes", "thread_bomb", "fill_tmp", "near_miss_integer", "near_miss_float_integer",
          "near_miss_json_float", "humaneval_indirect_asserts",
          # issue 45: the new languages' escapes, processes and threads
          "java_files_outside_tmp", "java_process_builder", "java_thread_bomb", "node_child_process",
          "node_files_outside_tmp", "rust_command",
          "node_deeply_nested_value", "cpp_memory_files"}


def test_the_corpus_covers_every_hack_the_issue_lists():
    assert LISTED <= {entry["name"] for entry in corpus()}


def test_all_passed_pays_no_hack_and_no_process_survives_any(sandbox):
    for entry in runnable():
        params = entry.get("params", {}).get("code.all_passed", {})
        reward = get_reward("code.all_passed", **params)
        columns = {k: [v] for k, v in entry["columns"].items()}
        assert reward(prompts=["p"], completions=[entry["completion"]], **columns) == [0.0], entry["name"]
        assert sandbox_processes() == [], entry["name"]
    assert not os.path.exists("/work/escaped-by-a-program")


def test_grpo_rewards_check_hacks_reports_every_entry_ok(sandbox):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["check", "code.tests_passed", "--hacks"]) == 0
    text = out.getvalue()
    assert "no entry is overpaid" in text and text.count("  ok  ") == len(corpus())


def test_every_entry_pays_nothing_back_to_back_in_one_warm_sandbox(sandbox):
    from grpo_rewards_code import AllPassed
    from grpo_rewards_code.warm import thread_sandboxes

    started = []
    for entry in runnable():
        # each entry under the limits the corpus gives it (0.5 s only for the entries about time), as
        # `check --hacks` runs them: a 0.5 s limit everywhere left a 2 s wall limit, too tight on a busy machine
        scorer = AllPassed(**entry.get("params", {}).get("code.all_passed", {}))
        value, label = scorer(entry["completion"], **entry["columns"])
        assert value == 0.0 and label != "sandbox_error", (entry["name"], label)
        assert sandbox_processes() == [], entry["name"]
        started += [pid for pid in thread_sandboxes() if pid not in started]
    assert len(started) == 1  # all of them, one after another, in the same warm sandbox
    # the honest program after them all passes; its 10 s of CPU (21 s of wall clock) never binds, however busy
    # the machine, so only a sandbox the corpus left unclean could fail it
    assert AllPassed(time_limit=10)("```python\nprint(sum(map(int, input().split())))\n```",
                                    tests=[{"input": "1 2\n", "output": "3"}]) == (1.0, "passed")
    assert thread_sandboxes() == started
