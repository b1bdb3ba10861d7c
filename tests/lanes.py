"""The test suite's lanes and shared settings, read by ``tests/conftest.py`` (and importable by any test).

>>> examples(300, thorough=3000) in (300, 3000)
True
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent

#: The folders whose modules any test or child process may import by name (each package's tests and helpers).
HELPER_DIRS = sorted(p for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
                     and any(p.glob("*.py")))

#: Fixtures that make a test slow: they build or load a model, start a server or a Ray cluster. A test
#: using one is marked ``slow`` by the root conftest (a new slow fixture, wherever it is defined, goes here).
SLOW_FIXTURES = frozenset({
    "tiny_model",  # writes a random model (transformers)
    "embedded_model",  # converts or loads SmolLM2-135M
    "serve",  # starts transformers serve
    "ray_start",  # starts a Ray cluster
    "reward_model_dir",  # writes a tiny reward model (torch, transformers)
    "fixture_site",  # pip-installs the fixture plugins (tests/core/conftest.py)
    "dupe_site",
})

#: Modules that are slow without such a fixture, with why (path under tests/). A module may instead say
#: ``pytestmark = pytest.mark.slow`` itself, and a test ``@pytest.mark.slow``; every ``test_ray*`` module is slow.
SLOW_MODULES = {
    "code/test_code_train.py": "trains on the tiny model",
    "e2e/test_third_party_plugin.py": "installs the example plugin package and trains",
    "hardening/test_kill_resume.py": "trains, kills and resumes runs",
    "hardening/test_fuzz_rewards.py": "fuzzes every registered reward with hypothesis (a third of the fast lane's time)",
    "judge/test_judge_train.py": "trains against a served judge",
    "kit/test_kit_scaffold.py": "installs the scaffolded package",
    "train/test_train.py": "trains",
    "train/test_plain_trl_example.py": "trains with the example script",
    "train/test_model.py": "converts the embedded model",
    "train/test_tiny.py": "writes tiny models",
}


#: Tests measured slow: each one that took at least :data:`MEASURED_SLOW_S` seconds in a quiet fast-lane
#: run (mostly a real sandbox, worker processes, a gym contract sweep), by node id, one per line. It is
#: written by ``python tests/lanes.py junit.xml ...`` from ``pytest -m "not slow" --junitxml=junit.xml``
#: runs and keeps the fast lane near two minutes (bench/README.md); the ids already in it stay.
MEASURED_SLOW = TESTS / "measured_slow.txt"
MEASURED_SLOW_S = 0.5


#: Modules kept in the fast lane whatever they measure, with why (path under tests/): checks of the sources that
#: new code trips, which the fast lane is run to catch (one such check was a session's only fresh-clone failure).
ALWAYS_FAST = {
    "hardening/test_hardening_static.py": "scans every module for eval of text and unreviewed regular expressions",
}


def measured_slow() -> frozenset[str]:
    """The node ids of :data:`MEASURED_SLOW` (empty when the file is missing), but those of :data:`ALWAYS_FAST`."""
    try:
        lines = MEASURED_SLOW.read_text("utf-8").splitlines()
    except FileNotFoundError:
        return frozenset()
    fast = tuple(f"tests/{module}::" for module in ALWAYS_FAST)
    return frozenset(line for line in lines if line and not line.startswith("#") and not line.startswith(fast))


def group_not_kept(item: Any) -> str | None:
    """Why the pytest item ``item``, in a worker of ``--dist loadgroup``, would not run with its ``xdist_group``, or
    None. pytest-xdist schedules a group by the ``@group`` it adds to the node id; where the id does not carry it
    nothing says that the tests of one resource are spread over the workers (each starting its own server or Ray
    module run; two pip installs of one folder racing: 40 failures in one run), so such a test fails with this."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not getattr(item.config.option, "loadgroup", False):
        return None
    names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                    for m in item.iter_markers("xdist_group")})
    if not names or item.nodeid.endswith("@" + "_".join(names)):
        return None
    return (f"--dist loadgroup keeps no test together here: this test is in the group {names[0]!r}, but its node id "
            "does not say so, and pytest-xdist schedules by the node id (pytest 9.2 ignores the id pytest-xdist "
            "sets: pytest-dev/pytest-xdist#1386). Install requirements-dev.txt (pytest<9.2).")


def without_group(nodeid: str) -> str:
    """``nodeid`` without the ``@group`` pytest-xdist's ``--dist loadgroup`` adds to a grouped test's id in a worker
    (pytest-xdist's own rule: an ``@`` after the last ``]``).

    >>> without_group("tests/judge/test_judge_serve.py::test_x@transformers-serve"), without_group("t.py::t[a@b]")
    ('tests/judge/test_judge_serve.py::test_x', 't.py::t[a@b]')
    """
    at = nodeid.rfind("@")
    return nodeid[:at] if at > nodeid.rfind("]") else nodeid


def slow_in_junit(paths: Iterable[Path], seconds: float = MEASURED_SLOW_S, root: Path = TESTS.parent) -> set[str]:
    """The node ids (relative to ``root``, pytest's rootdir) of the tests that ran for at least ``seconds``
    in the JUnit XML reports at ``paths``; skipped tests are left out."""
    import xml.etree.ElementTree as ET

    found = set()
    for path in paths:
        for case in ET.parse(path).iter("testcase"):
            if float(case.get("time", 0)) < seconds or case.find("skipped") is not None:
                continue
            parts = case.get("classname", "").split(".")
            # the module is the longest prefix of the class name that is a file (the rest are classes)
            for cut in range(len(parts), 0, -1):
                if (root / Path(*parts[:cut])).with_suffix(".py").is_file():
                    name = without_group(case.get("name", ""))
                    found.add("::".join(["/".join(parts[:cut]) + ".py", *parts[cut:], name]))
                    break
    return found


def needs(*modules: str) -> Any:
    """A mark that skips a test (or, as ``pytestmark``, a module) unless each of ``modules`` is installed.

    Unlike ``pytest.importorskip`` at a module's top it imports nothing: importing torch, transformers
    or trl while pytest collects costs seconds in every xdist worker, even when ``-m "not slow"`` then
    leaves the module's tests out. The tests import what they use themselves.
    """
    import pytest

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")


def is_slow_module(path: Path) -> bool:
    """Whether every test of the module at ``path`` is slow (:data:`SLOW_MODULES`, or a Ray module)."""
    try:
        relative = path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return False
    return relative in SLOW_MODULES or is_ray_module(path)


def is_ray_module(path: Path) -> bool:
    """Whether the module at ``path`` is a Ray module, run in a private network namespace (tests/scale/conftest.py)."""
    return path.name.startswith("test_ray")


#: Seconds a Ray test may wait for its module's namespace run, which runs in the background with the others
#: (tests/scale/ray_runs.py: each module at most its own 600 s, two at a time)
RAY_WAIT_TIMEOUT = 3600

#: Fixtures and modules that pip-install a folder of this repository (see :func:`one_worker_group`).
INSTALLING_FIXTURES = frozenset({"fixture_site", "dupe_site"})
INSTALLING_MODULES = frozenset({"test_third_party_plugin.py", "test_kit_scaffold.py"})


def pip_install_copies(target: Path, *projects: Path) -> None:
    """pip-install the packages in the folders ``projects`` (of this repository) into ``target``, each built from a
    copy beside it (``TARGET-sources/``): setuptools writes ``build/`` and ``*.egg-info`` next to what it builds,
    and the repository's folders are not the tests' to write. A failed install fails with pip's output."""
    sources = target.parent / f"{target.name}-sources"
    skip = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    copies = [shutil.copytree(project, sources / project.name, ignore=skip) for project in projects]
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                          "--no-index", "--target", str(target), *map(str, copies)], capture_output=True, text=True)
    names = ", ".join(p.name for p in projects)
    assert run.returncode == 0, f"pip install of {names} failed:\n{run.stdout}\n{run.stderr}"

#: Hypothesis profiles: ``ci`` is the default; ``thorough`` runs the heavy property tests at full strength.
PROFILES = ("ci", "thorough")


def one_worker_group(path: Path, fixtures: Iterable[str]) -> str | None:
    """The ``xdist_group`` of a test that must share a worker with others, or None.

    The tests of the one ``transformers serve``
    (a session fixture) share a worker, so it starts once. The tests that pip-install a package of this
    repository share one too, so that each install is made once a run (each builds from a copy in its temporary
    folder, never in the repository, where setuptools would write ``build/`` and ``*.egg-info``; with the group
    and without it the suite took 330 and 341 s against 360 and 343 s, alternating, 2026-12-07: not told apart).
    """
    used = set(fixtures)
    if "serve" in used:
        return "transformers-serve"
    if used & INSTALLING_FIXTURES or path.name in INSTALLING_MODULES:
        return "pip-install-from-repo"
    return None


def register_profiles() -> None:
    """Register the hypothesis profiles and load ``ci`` (``--hypothesis-profile`` loads another after this).

    Both leave out the per-example deadline and the too-slow health check: the time an example
    takes follows the machine's load, never the code's correctness. ``ci`` is derandomized (the same
    examples each run) and keeps no example database; ``thorough`` explores afresh.
    """
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:  # hypothesis is a dev requirement; a test that needs it imports it itself
        return
    quiet = [HealthCheck.too_slow]
    settings.register_profile("ci", deadline=None, derandomize=True, database=None, suppress_health_check=quiet)
    settings.register_profile("thorough", deadline=None, max_examples=1000, suppress_health_check=quiet)
    settings.load_profile("ci")


def examples(ci: int, *, thorough: int) -> int:
    """How many examples a heavy property test runs: ``ci`` in CI, ``thorough`` under that profile."""
    from hypothesis import settings

    return thorough if settings.get_current_profile_name() == "thorough" else ci


if __name__ == "__main__":  # python tests/lanes.py junit.xml ...: add the slow tests of those runs to MEASURED_SLOW
    import sys

    ids = sorted(measured_slow() | {i for i in slow_in_junit(map(Path, sys.argv[1:]))
                                    if not i.startswith(tuple(f"tests/{m}::" for m in ALWAYS_FAST))})
    header = (f"# Tests that took at least {MEASURED_SLOW_S} s in a quiet run of the fast lane, marked slow by\n"
              "# tests/conftest.py. Written by: python tests/lanes.py junit.xml (see tests/lanes.py).\n")
    MEASURED_SLOW.write_text(header + "".join(f"{i}\n" for i in ids), "utf-8")
    print(f"{len(ids)} tests in {MEASURED_SLOW}")
