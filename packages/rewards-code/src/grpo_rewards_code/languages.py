"""The languages the sandbox runs, and how each is compiled and run: one :class:`Language` per language.

Python runs in the harness itself. The others are programs the harness executes: each is compiled (or, for
JavaScript, syntax-checked) once per program inside the sandbox, with its own compile limits, then run per
test as a child with the test's limits and seccomp filter, as C++ always was.

Memory. A native program (C++, Rust) runs under ``RLIMIT_AS`` = the memory limit. The JVM and Node.js
reserve far more address space than they use (the JVM its heap and code cache, V8 its pointer cage and code
range) and do not start under a 512 MB ``RLIMIT_AS``. They are bounded two ways instead:

- the runtime's own heap flag at the memory limit (``java -Xmx``, ``node --max-old-space-size``): the
  program's objects never exceed it (``OutOfMemoryError``, ``JavaScript heap out of memory``: ``memory``);
- ``RLIMIT_DATA`` (every private writable mapping the process commits: heap, thread stacks, metaspace,
  JIT code; reservations that are never written are not counted) at the memory limit plus the runtime's
  own allowance (:attr:`Language.overhead`), so native memory outside the heap is bounded as well. No
  cgroup is needed; the kernel refuses the mapping and the runtime dies with a message that reads as
  ``memory`` (:attr:`Language.memory_markers`).

A language whose toolchain is not installed is named by :func:`missing` (what to install); the reward
then scores ``None`` with ``sandbox_error`` and a warning.

>>> sorted(LANGUAGES)
['cpp', 'java', 'javascript', 'python', 'rust']
>>> java_class("import java.util.*;\\npublic class Solution { public static void main(String[] a) {} }")
'Solution'
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from typing import Any

#: a test's PATH inside the sandbox
PATH = "/usr/bin:/bin"
MB = 1 << 20


@dataclass(frozen=True)
class Language:
    """How one language is compiled and run (see the module's docstring)."""

    name: str
    #: fence tags (lower case) that name it; the first is how the README and ``show`` name it
    tags: tuple[str, ...]
    #: what to install when its toolchain is missing
    install: str
    #: ``as``: RLIMIT_AS at the memory limit; ``data``: RLIMIT_DATA at the limit plus :attr:`overhead`
    rlimit: str = "as"
    #: bytes the runtime itself may commit beyond the program's memory limit (``data`` languages)
    overhead: int = 0
    #: text in a test's stderr that says it ran out of memory
    memory_markers: tuple[str, ...] = ()
    #: processes (threads included) per test: a runtime's own threads count against RLIMIT_NPROC
    processes: int = 32
    #: call and assert tests (Python's own); the others run stdin/stdout tests only
    calls: bool = False


LANGUAGES: dict[str, Language] = {
    "python": Language("python", ("python", "python3", "py", "py3"), "", calls=True),
    "cpp": Language("cpp", ("cpp", "c++", "cxx", "cc", "c"), "g++ (apt-get install g++)",
                    memory_markers=("std::bad_alloc",)),
    "java": Language("java", ("java",), "a JDK with javac and java on PATH (apt-get install openjdk-17-jdk-headless)",
                     rlimit="data", overhead=320 * MB, processes=64,
                     memory_markers=("java.lang.OutOfMemoryError", "insufficient memory for the Java Runtime",
                                     "Could not reserve enough space", "Native memory allocation")),
    "javascript": Language("javascript", ("javascript", "js", "node", "nodejs"),
                           "Node.js 18 or later as `node` on PATH (apt-get install nodejs)",
                           rlimit="data", overhead=256 * MB, processes=64,
                           memory_markers=("JavaScript heap out of memory", "Fatal process out of memory",
                                           "Fatal JavaScript invalid size error", "Allocation failed",
                                           "Array buffer allocation failed")),
    "rust": Language("rust", ("rust", "rs"), "Rust (rustup: curl https://sh.rustup.rs | sh; rustc on PATH or in "
                     "~/.cargo/bin) and a C linker `cc` (apt-get install gcc)",
                     memory_markers=("memory allocation of",)),
}
#: the Java and Node.js flags of every run (``{memory}``: the memory limit in MB)
JAVA_FLAGS = ("-Xmx{memory}m", "-Xms8m", "-Xss16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
              "-XX:-UsePerfData", "-XX:ReservedCodeCacheSize=64m", "-XX:MaxMetaspaceSize=128m", "-Xshare:auto")
NODE_FLAGS = ("--max-old-space-size={memory}",)
CPP_FLAGS = ("-O2", "-std=c++17", "-pipe")
RUST_FLAGS = ("-O", "--edition", "2021", "-C", "codegen-units=1")


#: the C++ compiler of ``language: cpp``
CPP_COMPILER = "/usr/bin/g++"


def _which(binary: str) -> str | None:
    """``binary`` on ``$PATH``, else in cargo's bin folder (``$CARGO_HOME``, else ``~/.cargo``: rustup's place)."""
    cargo = os.path.join(os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo"), "bin")
    return shutil.which(binary, path=os.pathsep.join([os.environ.get("PATH", PATH), cargo]))


def _rust_sysroot() -> tuple[str, str] | str:
    """(rustc's real binary, its sysroot), or why there is none. rustup's ``rustc`` is a proxy that needs
    ``$RUSTUP_HOME``: the sandbox runs the toolchain's own binary, its sysroot bound read-only."""
    rustc = _which("rustc")
    if rustc is None:
        return "no rustc on PATH or in ~/.cargo/bin"
    try:
        out = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True, timeout=20, check=True,
                             stdin=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{rustc} --print sysroot failed: {exc}"[:300]
    real = os.path.join(out, "bin", "rustc")
    if not out or not os.access(real, os.X_OK):
        return f"{rustc} names no usable sysroot ({out!r})"
    return real, os.path.realpath(out)


def _outside_usr(path: str) -> list[str]:
    """The directories outside /usr that symlinks in ``path`` (one level, and its conf/lib) point into: Debian's
    JDK keeps its configuration in /etc/java-N-openjdk."""
    found: list[str] = []
    for folder in (path, os.path.join(path, "conf"), os.path.join(path, "lib")):
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            full = os.path.join(folder, entry)
            if os.path.islink(full):
                target = os.path.realpath(full)
                if target.startswith("/etc/") and os.path.exists(target):
                    top = "/".join(target.split("/")[:3])
                    if top not in found:
                        found.append(top)
    return found


@cache
def toolchain(name: str) -> dict[str, Any] | str:
    """What the sandbox needs to run ``name``: ``{"compiler": ..., "runtime": ..., "read_only": (...)}``, or why it
    cannot (naming what to install). Probed once per process (``toolchain.cache_clear()`` probes again)."""
    language = LANGUAGES[name]
    if name == "python":
        return {"read_only": ()}
    if name == "cpp":
        if not os.access(CPP_COMPILER, os.X_OK):
            return f"no C++ compiler at {CPP_COMPILER}: install {language.install}"
        return {"compiler": CPP_COMPILER, "read_only": ()}
    if name == "rust":
        found = _rust_sysroot()
        if isinstance(found, str):
            return f"{found}: install {language.install}"
        if shutil.which("cc", path=PATH) is None:
            return f"rustc links with cc, which is not in {PATH}: install {language.install}"
        return {"compiler": found[0], "read_only": (found[1],)}
    binaries = ("javac", "java") if name == "java" else ("node",)
    paths = [_which(b) for b in binaries]
    if None in paths:
        return f"no {' or '.join(b for b, p in zip(binaries, paths) if p is None)} on PATH: install {language.install}"
    real = [os.path.realpath(p) for p in paths if p]
    read_only: list[str] = []
    for binary in real:
        if not binary.startswith("/usr/"):
            read_only.append(os.path.dirname(os.path.dirname(binary)))  # a JDK or Node.js outside /usr: its home
        elif name == "java":
            read_only += [d for d in _outside_usr(os.path.dirname(os.path.dirname(binary))) if d not in read_only]
    if name == "java":
        return {"compiler": real[0], "runtime": real[1], "read_only": tuple(read_only)}
    return {"runtime": real[0], "read_only": tuple(read_only)}


def binds() -> tuple[str, ...]:
    """The directories every available toolchain needs bound read-only (a JDK's configuration under ``/etc``, Rust's
    sysroot under ``~/.rustup``): bound in every sandbox, so one warm sandbox per thread runs every language."""
    out: list[str] = []
    for name in LANGUAGES:
        found = toolchain(name)
        if isinstance(found, dict):
            out += [d for d in found["read_only"] if d not in out]
    return tuple(sorted(out))


def missing(name: str) -> str | None:
    """None when this machine can run ``name``, else what is missing and what to install."""
    if name not in LANGUAGES:
        return f"the sandbox runs {', '.join(LANGUAGES)}, not {name!r}"
    found = toolchain(name)
    return found if isinstance(found, str) else None


def available() -> list[str]:
    """The languages this machine can run, in :data:`LANGUAGES`' order."""
    return [name for name in LANGUAGES if missing(name) is None]


_PUBLIC_CLASS = re.compile(r"\bpublic\s+(?:(?:final|abstract|strictfp)\s+)*(?:class|interface|enum|record)\s+"
                           r"([A-Za-z_$][\w$]*)")
_MAIN_CLASS = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)[^{]*\{(?:(?!\bclass\b).)*?"
                         r"\bstatic\s+(?:public\s+)?void\s+main\s*\(", re.DOTALL)
_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*;", re.MULTILINE)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.DOTALL)


def java_class(source: str) -> str:
    """The class a Java program runs as: its public top-level class (the file must be named after it), else the
    class that declares ``main``, else ``Main`` (in the program's ``package``, when it declares one)."""
    text = _COMMENTS.sub(" ", source)
    found = _PUBLIC_CLASS.search(text) or _MAIN_CLASS.search(text)
    return found.group(1) if found else "Main"


def _graders(files: tuple[tuple[str, str], ...]) -> tuple[str, list[str]]:
    """An IOI problem's program path and the grader sources to compile with it (as its compile script does); a
    checker compiled with its headers (``checker/testlib.h``) is ``checker/checker.cpp``."""
    names = [name for name, _ in files]
    if not any(n.startswith("graders/") for n in names):  # a checker with its headers: checker/checker.cpp
        return "/tmp/checker/checker.cpp", []
    problem = next((n[len("graders/"):-2] for n in names if n.endswith(".h") and not n.endswith("/testlib.h")), "solution")
    return f"/tmp/graders/{problem}.cpp", [f"/tmp/{n}" for n in ("graders/grader.cpp", "graders/stub.cpp") if n in names]


def job_parts(name: str, source: str, memory: int, compile_time: float, compile_memory: int,
              files: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """The harness job's language fields for a program in ``name`` (not Python): where its source goes, how it
    is compiled (``compile``: argv, env, limits), how each test runs (``run``), its memory rlimit (the directories
    to bind read-only: :func:`binds`); for C++ and Rust, ``output``: the one binary the compile makes (what
    :mod:`grpo_rewards_code.compile_cache` keeps). ``memory``: the test's memory limit in bytes."""
    language = LANGUAGES[name]
    for path, _ in files:
        if not path or path.startswith("/") or any(p in ("", ".", "..") for p in path.split("/")):
            raise ValueError(f"a file compiled with the program must be a relative path without '.' or '..' parts, "
                             f"not {path!r}")
    tools = toolchain(name)
    assert isinstance(tools, dict), tools
    mb = max(16, memory // MB)
    env = {"PATH": PATH, "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}
    data = compile_memory
    if name == "java":
        main = java_class(source)
        package = _PACKAGE.search(_COMMENTS.sub(" ", source))
        source_path = f"/tmp/{main}.java"
        compile_argv = [tools["compiler"], "-J-Xmx512m", "-J-Xms8m", "-J-XX:+UseSerialGC", "-J-XX:-UsePerfData",
                        "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8", "-nowarn", "-d", "/tmp", source_path]
        run = [tools["runtime"], *(f.format(memory=mb) for f in JAVA_FLAGS), "-cp", "/tmp",
               f"{package.group(1)}.{main}" if package else main]
    elif name == "cpp" and files:  # an IOI problem: the program is graders/<problem>.cpp, compiled with its grader
        (source_path, graders), binary = _graders(files), "/tmp/solution"
        compile_argv = [tools["compiler"], "-DEVAL", "-std=gnu++17", "-O2", "-pipe", "-o", binary, source_path, *graders]
        run = [binary]
    elif name == "cpp":
        source_path, binary = "/tmp/solution.cpp", "/tmp/solution"
        compile_argv = [tools["compiler"], *CPP_FLAGS, "-o", binary, source_path]
        run = [binary]
    elif name == "rust":
        source_path, binary = "/tmp/solution.rs", "/tmp/solution"
        compile_argv = [tools["compiler"], *RUST_FLAGS, "-o", binary, source_path]
        run = [binary]
    else:  # javascript: `node --check` reads it without running it (a syntax error is compile_error)
        source_path = "/tmp/solution.js"
        compile_argv = [tools["runtime"], "--check", source_path]
        run = [tools["runtime"], *(f.format(memory=mb) for f in NODE_FLAGS), source_path]
    memory_limit = memory if language.rlimit == "as" else memory + language.overhead
    output = {"output": run[0]} if name in ("cpp", "rust") else {}  # one binary: kept by compile_cache
    return {**output, "source_path": source_path, "files": [[f"/tmp/{path}", text] for path, text in files],
            "compile": {"argv": compile_argv, "env": env, "rlimit": "data" if name == "java" else "as",
                        "time": compile_time, "memory": data},
            "run": {"argv": run, "env": env},
            "rlimit": language.rlimit, "run_memory": memory_limit, "processes": language.processes,
            "memory_markers": list(language.memory_markers)}
