"""A C++ or Rust source is compiled once per process (grpo_rewards_code.compile_cache): a row's checker is the same
program for every completion, and testlib's took about 7 s of g++ on each. The cache keeps what the compiler made,
never what a program did afterwards, and never a failed compile."""

from __future__ import annotations

import threading

import pytest
from forked import Forked

from grpo_rewards_code.compile_cache import CACHE, CompileCache, key
from grpo_rewards_code.formats import StdioTest
from grpo_rewards_code.languages import job_parts, missing
from grpo_rewards_code.runner import LocalRunner, Program
from grpo_rewards_code.sandbox import Limits

#: prints ``original``, then swaps its own binary on /tmp for a script that prints ``replaced``: the job's next
#: test runs the script; the cache must still hold the compiled program
SWAPS_ITSELF = r"""#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>
int main() {
  unlink("/tmp/solution");
  FILE* f = fopen("/tmp/solution", "w");
  if (f) { fputs("#!/bin/sh\necho replaced\n", f); fclose(f); chmod("/tmp/solution", 0755); }
  puts("original");
}
"""
TWICE = [StdioTest("", "original"), StdioTest("", "original")]


def _outputs(results):
    return [(r.status, r.stdout.strip()) for r in results]


@pytest.fixture
def cache():
    CACHE.clear()
    yield CACHE
    CACHE.clear()


def test_a_program_that_replaces_its_own_binary_leaves_the_kept_one_as_compiled(sandbox, cache):
    runner = LocalRunner(sandbox)
    first = runner.run(Program(SWAPS_ITSELF, "cpp"), TWICE, Limits())
    assert (cache.hits, cache.misses) == (0, 1)
    second = runner.run(Program(SWAPS_ITSELF, "cpp"), TWICE, Limits())
    assert (cache.hits, cache.misses) == (1, 1)
    # the second test of each run ran the script the first left; the second run began with the compiled program
    assert _outputs(first) == _outputs(second) == [("ok", "original"), ("ok", "replaced")]


def test_a_15_mb_binary_comes_back_whole_and_runs_from_the_cache(sandbox, cache):
    # a program with 15 MB of initialised data: its binary is one 20 MB line of the harness's output
    source = ('#include <cstdio>\nchar a[15 << 20] = {1};\nint main(int c, char**) { a[c] = 0; a[(15 << 20) - 1] = 3;'
              ' printf("%d\\n", (int)a[0] + (int)a[(15 << 20) - 1]); }\n')
    runs = [LocalRunner(sandbox).run(Program(source, "cpp"), [StdioTest("", "4")], Limits()) for _ in range(2)]
    assert [_outputs(r) for r in runs] == [[("ok", "4")]] * 2
    assert (cache.hits, cache.misses) == (1, 1)
    assert cache.size > 15 << 20


def test_a_binary_over_the_size_limit_is_compiled_every_time(sandbox, cache, monkeypatch):
    monkeypatch.setattr(cache, "max_binary", 1000)  # every binary is larger: the harness sends none back
    runs = [LocalRunner(sandbox).run(Program('#include <cstdio>\nint main() { puts("hi"); }', "cpp"),
                                     [StdioTest("", "hi")], Limits()) for _ in range(2)]
    assert [_outputs(r) for r in runs] == [[("ok", "hi")]] * 2
    assert (cache.hits, cache.misses, cache.size) == (0, 2, 0)


def test_a_program_run_from_the_cache_finds_its_source_where_a_compile_leaves_it(sandbox, cache):
    source = ('#include <cstdio>\nint main() { FILE* f = fopen("/tmp/solution.cpp", "r"); long n = 0;'
              ' if (f) { while (fgetc(f) != EOF) n++; } printf("%ld\\n", f ? n : -1L); }\n')
    runs = [LocalRunner(sandbox).run(Program(source, "cpp"), [StdioTest("", "")], Limits()) for _ in range(2)]
    assert [_outputs(r) for r in runs] == [[("ok", str(len(source)))]] * 2
    assert (cache.hits, cache.misses) == (1, 1)


def test_a_compile_error_is_never_kept(sandbox, cache):
    runner = LocalRunner(sandbox)
    for _ in range(2):
        [result] = runner.run(Program("int main( {", "cpp"), [StdioTest("", "")], Limits())
        assert result.status == "compile_error"
    assert (cache.hits, cache.misses) == (0, 2)


def test_runs_of_one_source_in_several_threads_compile_it_once(sandbox, cache):
    source = '#include <cstdio>\nint main() { int a, b; if (scanf("%d %d", &a, &b) == 2) printf("%d\\n", a * b); }\n'
    outputs = []

    def run():
        outputs.append(_outputs(LocalRunner(sandbox).run(Program(source, "cpp"), [StdioTest("6 7\n", "42")], Limits())))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outputs == [[("ok", "42")]] * 4
    assert (cache.hits, cache.misses) == (3, 1)


def test_a_rust_program_is_kept_too(sandbox, cache):
    if missing("rust"):
        pytest.skip(missing("rust"))
    source = 'fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap(); print!("{}", s.trim().len()); }'
    results = [LocalRunner(sandbox).run(Program(source, "rust"), [StdioTest("abcd\n", "4")], Limits()) for _ in range(2)]
    assert [_outputs(r) for r in results] == [[("ok", "4")]] * 2
    assert (cache.hits, cache.misses) == (1, 1)


def _job(language, source, files=()):
    parts = job_parts(language, source, 256 << 20, 20.0, 2 << 30, files)
    return {"language": language, "program": source, **parts}


def test_the_key_covers_the_source_the_files_and_the_compile_command():
    if missing("cpp"):
        pytest.skip(missing("cpp"))
    base = key(_job("cpp", "int main() {}"))
    assert base is not None and len(base) == 64
    assert key(_job("cpp", "int main() {}")) == base
    assert key(_job("cpp", "int main() { }")) != base
    graders = (("graders/grader.cpp", "int f();"), ("graders/solution.h", ""))
    assert key(_job("cpp", "int main() {}", graders)) != base
    job = _job("cpp", "int main() {}")
    job["compile"]["argv"] = [*job["compile"]["argv"], "-DX"]
    assert key(job) != base


def test_only_one_binary_languages_are_kept():
    for language in ("python", "java", "javascript"):
        if language == "python" or not missing(language):
            job = {"language": language, "program": "x"} if language == "python" else _job(language, "x")
            assert key(job) is None


def test_the_least_recently_used_binary_goes_first_and_an_oversized_one_is_never_kept():
    cache = CompileCache(max_bytes=10, max_binary=6)
    for name in "abc":
        assert cache.claim(name, wait=0.0) is None
        cache.done(name, name.encode() * 4)
        if name == "b":
            assert cache.claim("a", wait=0.0) == b"aaaa"  # "a" used again: "b" is now the oldest
    assert [cache.claim(n, wait=0.0) for n in "abc"] == [b"aaaa", None, b"cccc"]
    cache.done("b", None)
    assert cache.claim("big", wait=0.0) is None
    cache.done("big", b"x" * 7)
    assert cache.claim("big", wait=0.0) is None
    assert (cache.hits, cache.misses) == (3, 6)


def test_a_forked_child_neither_waits_for_the_parents_compile_nor_for_its_lock():
    # at the fork, one thread of the parent holds the lock and another compile is in progress (as when
    # datasets.map(num_proc=...) forks beside a scoring thread): the child keeps the binaries and goes on
    cache = CompileCache()
    cache.claim("kept", wait=0.0)
    cache.done("kept", b"binary")
    assert cache.claim("compiling", wait=0.0) is None  # in progress, never done in the parent's lifetime here
    child = Forked(lambda: (cache.claim("kept", wait=0.0), cache.claim("compiling", wait=600.0), cache.misses),
                   while_starting=cache._lock)
    assert child.result() == (b"binary", None, 3)  # (hung on the parent's lock or compile: fails, nothing left)


def test_the_modules_example_runs():
    import doctest

    from grpo_rewards_code import compile_cache

    result = doctest.testmod(compile_cache)
    assert (result.attempted, result.failed) == (4, 0)
