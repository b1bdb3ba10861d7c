"""What a program can cost: capped tmpfs, one program's memory at a time, a total budget per row, a deadline
that always ends before the reward's own."""

from __future__ import annotations

from grpo_rewards_code import TestsPassed
from grpo_rewards_code.definitions import OPTIONS
from grpo_rewards_code.sandbox import SHM_BYTES, TMP_BYTES, Limits


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


def test_tmp_and_dev_shm_are_capped(sandbox):
    fill = ("import os\nfor d in ('/tmp', '/dev/shm'):\n    n = 0\n    try:\n        for k in range(1000):\n"
            "            with open(f'{d}/f{k}', 'wb') as f:\n                f.write(b'x' * (8 << 20))\n"
            "            n += 8\n    except OSError as e:\n        print(d, n, e.errno)")
    (result,) = sandbox.run_python(fill, [{"kind": "stdio", "input": ""}], Limits(time=10.0))
    # ENOSPC once the mount is full: 64 MiB and 16 MiB
    assert result["stdout"].split() == ["/tmp", str(TMP_BYTES >> 20), "28", "/dev/shm", str(SHM_BYTES >> 20), "28"]


def test_assert_tests_run_one_program_at_a_time(sandbox):
    """Each assert test's program server runs the program only when its own test starts: the program's
    module code finds no other program process alive (before: all of them ran at once, 8 x the memory)."""
    program = ("import os\nopen(f'/tmp/loaded-{os.getpid()}', 'w').close()\n"
               "def others():\n    return sum(1 for f in os.listdir('/tmp') if f.startswith('loaded-')\n"
               "               and int(f[7:]) != os.getpid() and os.path.exists(f'/proc/{f[7:]}'))")
    row = {"test_list": [f"assert others() in (0,) and {k} >= 0" for k in range(8)]}
    assert TestsPassed()(fence(program), **row) == (1.0, "passed")


def test_a_row_s_total_budget_ends_it_as_the_program_s_timeout(sandbox):
    row = {"tests": [{"input": f"{k}\n", "output": "1\n"} for k in range(40)]}  # 40 x 1.4 s of wall each
    sleeper = fence("import time\ntime.sleep(60)")
    assert TestsPassed(time_limit=0.2, total_time_limit=2.0)(sleeper, **row) == (0.0, "timeout")
    asserts = {"test_list": [f"assert f({k}) in (1,)" for k in range(40)]}
    assert TestsPassed(time_limit=0.2, total_time_limit=2.0)(fence("import time\ndef f(x):\n    time.sleep(60)"),
                                                               **asserts) == (0.0, "timeout")


def test_the_sandbox_s_deadline_ends_before_the_reward_s_own_for_any_number_of_tests():
    for n in (1, 120, 10_000):
        for limits in (Limits(), Limits(time=60.0), TestsPassed(total_time_limit=450).limits({})):
            assert limits.deadline(n, compiled=True) < OPTIONS.timeout


def test_a_rows_limits_are_held_to_the_parameters_ranges_and_numbers_past_a_float_do_not_raise():
    # before: a row's time_limit or memory_limit of 10**400 raised OverflowError out of code.tests_passed (the run
    # ended), and a row's 1e-300 s timed out every program (the parameter's own floor is 0.01 s)
    scorer = TestsPassed()
    cases = {10 ** 400: (60.0, 16384), float("inf"): (60.0, 16384), 1e-300: (0.01, 16), float("nan"): (2.0, 512),
             "2 seconds": (2.0, 512), 0.5: (0.5, 16), -3: (2.0, 512), True: (2.0, 512)}
    for value, (seconds, megabytes) in cases.items():
        limits = scorer.limits({"time_limit": value, "memory_limit": value})
        assert (limits.time, limits.memory) == (seconds, megabytes << 20), value



def test_a_rows_limits_are_read_with_their_units():
    # before: the leading digits alone, so "1000 ms" was 1000 s (held to 60), "1 GB" 1 MB (held to 16),
    # "1e999 seconds" 1 s, and CodeContests' {"seconds": 2, "nanos": 500000000} the default 2 s
    scorer = TestsPassed()
    times = {"1000 ms": 1.0, "1.5 seconds": 1.5, "250 milliseconds per test": 0.25, "1e999 seconds": 60.0,
             "3 sec": 3.0, "4": 4.0, "2 hours": 2.0, "ms": 2.0, "0 seconds": 2.0, "1E1S": 10.0,
             "{\"seconds\": 1}": 2.0}
    for text, seconds in times.items():
        assert scorer.limits({"time_limit": text}).time == seconds, text
    assert scorer.limits({"time_limit": {"seconds": 2, "nanos": 500_000_000}}).time == 2.5
    assert scorer.limits({"time_limit": {"seconds": 0, "nanos": 0}}).time == 2.0
    assert scorer.limits({"time_limit": {"nanos": 10 ** 400}}).time == 60.0
    memory = {"1 GB": 1024, "262144 kilobytes": 256, "64 MiB": 64, "268435456 bytes": 256, "2 gigabytes": 2048,
              "300": 300, "12 parsecs": 512, "1 TB": 512}
    for text, megabytes in memory.items():
        assert scorer.limits({"memory_limit": text}).memory == megabytes << 20, text

def test_a_row_whose_limits_are_past_a_floats_range_is_scored(sandbox):
    row = {"tests": [{"input": "1 2\n", "output": "3\n"}], "time_limit": 10 ** 400, "memory_limit": 10 ** 400}
    assert TestsPassed()(fence("print(sum(map(int, input().split())))"), **row) == (1.0, "passed")
