"""The unsafe mode (``GRPO_REWARDS_CODE_SANDBOX=unsafe``: no sandbox) has no private ``/tmp``: each job writes its
source, binary, graders and a checker's files in a directory of its own, removed after it, never at fixed places on
the host's ``/tmp`` (where a user's ``/tmp/solution.cpp`` was overwritten, and two jobs at once wrote each other's
program)."""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grpo_rewards_code.formats import StdioTest, TestFormatError
from grpo_rewards_code.judging import _one_file_in, row_checker
from grpo_rewards_code.languages import job_parts, missing
from grpo_rewards_code.runner import FilesTest, LocalRunner, Program, _public
from grpo_rewards_code.sandbox import Limits, Sandbox, relocate

#: the fixed places a compiled job used on the host's /tmp before
FIXED = ("/tmp/solution", "/tmp/solution.cpp", "/tmp/solution.rs", "/tmp/Main.java", "/tmp/files",
         "/tmp/graders", "/tmp/checker")

#: prints where it runs and where its binary is, and leaves a file, a closed directory and a link to a
#: folder of the user's behind
WHERE = r"""#include <climits>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>
int main() {
  char cwd[PATH_MAX], exe[PATH_MAX];
  getcwd(cwd, sizeof cwd);
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n < 0 ? 0 : n] = 0;
  FILE* f = fopen("left.txt", "w");
  fputs("x", f);
  fclose(f);
  mkdir("closed", 0700);
  fclose(fopen("closed/inside", "w"));
  chmod("closed", 0);
  symlink("OUTSIDE", "link");
  printf("%s %s\n", cwd, exe);
}
"""


def _fixed_state():
    """What the host's /tmp holds at the fixed places (a user's files there must stay as they are)."""
    state = {}
    for path in FIXED:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            state[path] = None
        else:
            state[path] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return state


@pytest.fixture
def unsafe():
    if missing("cpp"):
        pytest.skip(missing("cpp"))
    return LocalRunner(Sandbox("unsafe"))


def test_a_compiled_job_runs_in_a_directory_of_its_own_removed_after_it(unsafe, tmp_path):
    outside = tmp_path / "users-folder"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    before = _fixed_state()
    [result] = unsafe.run(Program(WHERE.replace("OUTSIDE", str(outside)), "cpp"), [StdioTest("", "")], Limits())
    assert result.status == "ok", result
    cwd, exe = result.stdout.split()
    assert os.path.dirname(cwd) == tempfile.gettempdir() and os.path.basename(cwd).startswith("grpo-rewards-code-")
    assert exe == f"{cwd}/solution"
    assert not os.path.exists(cwd)  # removed, with the closed directory; the link removed, never followed
    assert (outside / "keep.txt").read_text() == "mine"
    assert _fixed_state() == before


def test_a_checkers_files_are_written_in_the_jobs_directory(unsafe):
    checker = "import os, sys\nprint(os.getcwd() == os.path.dirname(os.path.dirname(sys.argv[1])), open(sys.argv[2]).read())"
    before = _fixed_state()
    [result] = unsafe.run(Program(checker), [FilesTest((("input", "1 2"), ("answer", "3")))], Limits())
    assert (result.status, result.stdout) == ("ok", "True 3\n")
    assert _fixed_state() == before


def test_two_compiled_jobs_at_once_each_run_their_own_program(unsafe):
    outputs: dict[int, list[str]] = {}

    def job(k):
        source = f'#include <cstdio>\nint main() {{ puts("program {k}"); }}\n'
        outputs[k] = [r.stdout.strip() for r in unsafe.run(Program(source, "cpp"), [StdioTest("", "")] * 3, Limits())]

    threads = [threading.Thread(target=job, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert outputs == {k: [f"program {k}"] * 3 for k in range(4)}


def test_a_rows_file_names_never_leave_the_jobs_directory(unsafe, tmp_path):
    # an IOI row's checker header, or a program's files, named to climb out of the directory they are written in
    victim = tmp_path / "victim"
    victim.mkdir()
    climb = f"checker/../../../../../../..{victim}/planted.h"
    row = {"grader_files": json.dumps([["checker/checker.cpp", '#include "testlib.h"\nint main() {}'],
                                       [climb, "// a row's text"], ["checker/testlib.h", "// testlib"]])}
    with pytest.raises(TestFormatError, match=re.escape(f"a checker file must be checker/<name>, not {climb!r}")):
        row_checker(row)
    with pytest.raises(ValueError, match=re.escape("must be a relative path without '.' or '..' parts")):
        unsafe.run(Program("int main() {}", "cpp", ((f"x/../..{victim}/p.h", ""),)), [StdioTest("", "")], Limits())
    with pytest.raises(ValueError, match=r"a files test's file must be a plain file name, not '\.\./p'"):
        unsafe.run(Program("print(1)"), [FilesTest((("../p", "x"),))], Limits())
    assert list(victim.iterdir()) == []


#: path parts a row's file name is built from: climbing, empty and hidden parts, separators, the folders themselves
_PARTS = st.sampled_from(["..", ".", "", "a", "b.h", ".h", "checker", "graders", "/", "x/..", "\\", "\0", "~"])
_NAMES = st.one_of(st.lists(_PARTS, max_size=6).map("/".join), st.text(max_size=12))


@given(name=_NAMES)
def test_every_file_name_a_row_can_give_is_refused_or_stays_in_its_folder(name):
    root = "/tmp/grpo-rewards-code-job"
    for folder in ("checker", "graders"):
        try:
            _one_file_in(name, folder)
        except TestFormatError:
            pass
        else:
            assert os.path.dirname(os.path.normpath(os.path.join(root, name))) == f"{root}/{folder}", name
    try:
        _public(FilesTest(((name, "x"),)))
    except ValueError:
        pass
    else:
        assert os.path.dirname(os.path.normpath(os.path.join(root, "files", name))) == f"{root}/files", name
    if not missing("cpp"):
        try:
            job_parts("cpp", "int main() {}", 1 << 28, 10.0, 1 << 30, ((name, ""),))
        except ValueError:
            pass
        else:
            assert os.path.normpath(os.path.join(root, name)).startswith(root + "/"), name


def test_relocating_a_job_moves_where_its_files_go_never_what_they_say():
    job = {"source_path": "/tmp/graders/sum.cpp", "program": "/tmp/x in the program", "tests": [{"input": "/tmp/y"}],
           "files": [["/tmp/graders/sum.h", "/tmp/ is in the text"], ["/tmp/graders/grader.cpp", "/tmp"]],
           "compile": {"argv": ["g++", "-o", "/tmp/solution", "/tmp/graders/sum.cpp"], "env": {"HOME": "/tmp"}}}
    assert relocate(job, "/tmp/job") == {
        "source_path": "/tmp/job/graders/sum.cpp", "program": "/tmp/x in the program", "tests": [{"input": "/tmp/y"}],
        "files": [["/tmp/job/graders/sum.h", "/tmp/ is in the text"], ["/tmp/job/graders/grader.cpp", "/tmp"]],
        "compile": {"argv": ["g++", "-o", "/tmp/job/solution", "/tmp/job/graders/sum.cpp"], "env": {"HOME": "/tmp/job"}},
        "scratch": "/tmp/job"}
