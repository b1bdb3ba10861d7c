"""A C++ or Rust source is compiled once (grpo_rewards_code.compile_cache), by the process and the worker processes
it starts together: a row's checker is the same program for every completion, and testlib's took about 7 s of g++
on each. The cache keeps what the compiler made, never what a program did afterwards, and never a failed compile."""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from forked import Forked

from grpo_rewards_code.compile_cache import CACHE, DRAFT_AGE, FOLDER_ENV, CompileCache, key
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


def test_a_process_takes_the_binary_another_process_compiles_instead_of_compiling_it_too(tmp_path):
    # the workers of the core's pool judge one group's completions: the first to reach the row's checker compiles
    # it, the others wait on its lock (or find the binary already there) and compile nothing
    folder = tmp_path / "shared"
    here = CompileCache(folder=folder)
    assert here.claim("k", wait=0.0) is None  # this process compiles, holding the key's lock
    child = Forked(lambda: (lambda other: (other.claim("k", wait=600.0), other.hits, other.misses))(
        CompileCache(folder=folder)))
    here.done("k", b"binary")
    assert child.result() == (b"binary", 1, 0)  # (waiting on a lock never released: killed, and fails)
    assert (folder / "k.bin").read_bytes() == b"binary" and (here.hits, here.misses) == (0, 1)
    assert os.stat(folder).st_mode & 0o777 == 0o700


def test_after_another_processs_failed_compile_a_process_compiles_itself(tmp_path):
    folder = tmp_path / "shared"
    here = CompileCache(folder=folder)
    assert here.claim("k", wait=0.0) is None
    child = Forked(lambda: (lambda other: (other.claim("k", wait=600.0), other.misses))(CompileCache(folder=folder)))
    here.done("k", None)  # a compile error: nothing kept, nothing written
    assert child.result() == (None, 1)
    assert list(folder.iterdir()) == [folder / "k.lock"]


@pytest.mark.timeout(300)
def test_a_process_killed_while_compiling_holds_no_one_up(tmp_path):
    folder = tmp_path / "shared"
    context = multiprocessing.get_context("fork")
    claimed = context.Event()

    def compile_for_ever() -> None:
        CompileCache(folder=folder).claim("k", wait=0.0)
        claimed.set()
        time.sleep(600)

    process = context.Process(target=compile_for_ever)
    process.start()
    assert claimed.wait(60)
    process.kill()
    process.join()
    # the kernel released its lock: this claim compiles at once (with the lock kept, it waits 600 s: fails)
    assert CompileCache(folder=folder).claim("k", wait=600.0) is None


def test_the_shared_folder_keeps_the_most_recently_used_binaries_within_the_size_limit(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "notes.bin").write_bytes(b"a user's file, bigger than the limit")  # in a folder the user named
    cache = CompileCache(max_bytes=10, folder=folder)
    for name in ("a" * 64, "b" * 64, "c" * 64):  # (keys: 64 hexadecimal digits)
        assert cache.claim(name, wait=0.0) is None
        cache.done(name, name[:6].encode())
        time.sleep(0.01)  # (distinct modification times)
    assert sorted(p.name for p in folder.glob("*.bin")) == ["c" * 64 + ".bin", "notes.bin"]  # 6 bytes; two are 12
    cache.clear()
    assert sorted(p.name for p in folder.glob("*.bin")) == ["notes.bin"]


def test_a_folder_others_can_write_to_is_not_shared_and_says_so(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    (folder / "k.bin").write_bytes(b"planted")
    cache = CompileCache(folder=folder)
    with pytest.warns(RuntimeWarning, match="only this user can write to; each process compiles for itself"):
        assert cache.claim("k", wait=0.0) is None  # compiled here, the planted binary never read
    cache.done("k", b"binary")
    assert (folder / "k.bin").read_bytes() == b"planted" and cache.claim("k", wait=0.0) == b"binary"


def test_the_processes_started_from_here_share_the_folder_and_it_goes_with_the_process_that_named_it(tmp_path):
    assert CACHE.folder is not None and os.environ[FOLDER_ENV] == str(CACHE.folder)
    show = "from grpo_rewards_code.compile_cache import CACHE; print(CACHE.folder)"
    assert subprocess.run([sys.executable, "-c", show], capture_output=True, text=True,
                          check=True).stdout.strip() == str(CACHE.folder)
    env = {k: v for k, v in os.environ.items() if k != FOLDER_ENV}
    assert subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, check=True,
                          env={**env, FOLDER_ENV: "off"}).stdout.strip() == "None"
    named = ("import sys; from grpo_rewards_code.compile_cache import CACHE; CACHE.claim('k', 0.0); "
             "CACHE.done('k', b'binary'); print(CACHE.folder); assert (CACHE.folder / 'k.bin').is_file()")
    folder = subprocess.run([sys.executable, "-c", named], capture_output=True, text=True, check=True,
                            env=env).stdout.strip()
    assert folder.startswith(os.path.join(tempfile.gettempdir(), "grpo-rewards-compiled-"))
    assert not os.path.exists(folder)
    mine = tmp_path / "mine"  # a folder the user names stays
    subprocess.run([sys.executable, "-c", named], capture_output=True, text=True, check=True,
                   env={**env, FOLDER_ENV: str(mine)})
    assert (mine / "k.bin").read_bytes() == b"binary"


def test_a_folder_whose_owner_was_killed_is_removed_by_the_next_process_that_makes_one(tmp_path):
    # the owner removes its folder at exit; killed (SIGKILL, the OOM killer) it cannot: the next process does,
    # and only that one: a live owner's folder, a folder without the owner's lock file and another user's stay
    env = {**{k: v for k, v in os.environ.items() if k != FOLDER_ENV}, "TMPDIR": str(tmp_path)}
    hold = ("import sys, time; from grpo_rewards_code.compile_cache import CACHE; CACHE.claim('k', 0.0); "
            "CACHE.done('k', b'binary'); print(CACHE.folder, flush=True); time.sleep(600)")
    killed = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True, env=env)
    living = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert killed.stdout is not None and living.stdout is not None
        dead, alive = Path(killed.stdout.readline().strip()), Path(living.stdout.readline().strip())
        killed.kill()
        killed.wait()
        assert (dead / "k.bin").read_bytes() == b"binary" and (alive / "k.bin").is_file()
        unowned = tmp_path / "grpo-rewards-compiled-1-0123456789ab"  # no .owner: a worker's, or an older version's
        unowned.mkdir()
        show = "from grpo_rewards_code.compile_cache import CACHE; print(CACHE.folder)"
        made = Path(subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, check=True,
                                   env=env, timeout=120).stdout.strip())
        assert not dead.exists() and (alive / "k.bin").is_file() and unowned.is_dir() and not made.exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, unowned.name])
    finally:
        living.kill()
        living.wait()
        killed.wait()
    # a forked child of the owner keeps the folder in use after the owner is killed (it shares the owner's lock);
    # once the child has ended too, the folder goes with the next process that makes one
    forker = ("import os, time; from grpo_rewards_code.compile_cache import CACHE\n"
              "child = os.fork()\nif child == 0:\n    os.dup2(os.open(os.devnull, os.O_RDWR), 1)\n    time.sleep(600)\n"
              "    os._exit(0)\n"
              "print(CACHE.folder, child, flush=True)\nos.kill(os.getpid(), 9)")
    printed = subprocess.run([sys.executable, "-c", forker], stdout=subprocess.PIPE, text=True, env=env,
                             timeout=120).stdout.split()  # (the child lets go of the pipe)
    folder, child = Path(printed[0]), int(printed[1])
    try:
        subprocess.run([sys.executable, "-c", show], check=True, env=env, capture_output=True, timeout=120)
        assert folder.is_dir()
    finally:
        os.kill(child, signal.SIGKILL)
    with open(folder / ".owner") as owner:  # the lock is free once the child's files are closed by its end
        deadline = time.monotonic() + 60
        while True:
            try:
                fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                assert time.monotonic() < deadline, "the killed child still holds the lock"
                time.sleep(0.05)
        fcntl.flock(owner, fcntl.LOCK_UN)
    subprocess.run([sys.executable, "-c", show], check=True, env=env, capture_output=True, timeout=120)
    assert not folder.exists()


def test_a_draft_being_made_by_another_process_is_left_to_it_and_an_abandoned_one_is_removed(tmp_path):
    # a process that starts beside another once removed the other's draft between its mkdtemp and its flock: the
    # other then had no folder ("cannot be made or read"); a young draft is now left alone, an old one goes
    # (ages 20 s clear of DRAFT_AGE either side: the process that looks starts a few seconds after they are set)
    env = {**{k: v for k, v in os.environ.items() if k != FOLDER_ENV}, "TMPDIR": str(tmp_path)}
    young_ages, old_ages = (0.0, 10.0, DRAFT_AGE - 20), (DRAFT_AGE + 20, 3600.0, 30 * 86400.0)
    drafts = {age: tmp_path / f".grpo-rewards-compiled-draft-{i}" for i, age in enumerate(young_ages + old_ages)}
    now = time.time()
    for age, draft in drafts.items():
        draft.mkdir()
        (draft / ".owner").touch()  # made, not yet locked
        os.utime(draft, (now - age, now - age))
    show = "from grpo_rewards_code.compile_cache import CACHE; print(CACHE.folder)"
    subprocess.run([sys.executable, "-c", show], check=True, env=env, capture_output=True, timeout=120)
    assert {age: draft.is_dir() for age, draft in drafts.items()} == {**dict.fromkeys(young_ages, True),
                                                                        **dict.fromkeys(old_ages, False)}


def test_the_modules_example_runs():
    import doctest

    from grpo_rewards_code import compile_cache

    result = doctest.testmod(compile_cache)
    assert (result.attempted, result.failed) == (4, 0)
