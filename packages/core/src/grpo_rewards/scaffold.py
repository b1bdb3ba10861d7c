"""``grpo-rewards new-plugin NAME``: write a complete reward plugin package that passes its own tests.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     root = write_plugin("shout", tmp)
...     sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
['README.md', 'pyproject.toml', 'src/grpo_rewards_shout/__init__.py', 'src/grpo_rewards_shout/plugin.py', 'tests/conftest.py', 'tests/test_shout.py']
"""

from __future__ import annotations

import keyword
import re
from importlib import metadata
from pathlib import Path
from string import Template

from .errors import quote
from .plugin import PROJECT_NAME
from .registry import FIRST_PARTY
from .templates import BATCH, ENVIRONMENT, FILES, NO_ENVIRONMENT, PLAIN

PREFIXES = ("grpo-rewards-", "grpo_rewards_")
#: The longest plugin name: it names folders and files (``grpo-rewards-NAME``, ``test_NAME.py``), which
#: a file system allows 255 bytes each, and is typed in every reward name.
MAX_NAME = 64


def plugin_names(name: str) -> dict[str, str]:
    """The names of a plugin called ``name``: namespace, module, distribution, title.

    >>> plugin_names("grpo-rewards-json-check")["module"]
    'grpo_rewards_json_check'
    """
    namespace = name.strip()
    for prefix in PREFIXES:
        if namespace.startswith(prefix):
            namespace = namespace[len(prefix):]
    namespace = namespace.replace("-", "_")
    if len(namespace) > MAX_NAME:
        raise ValueError(f"plugin name {quote(name)} is {len(namespace)} characters long; give at most {MAX_NAME} "
                         "(it names the package's folders and files, and every reward as NAME.reward)")
    if keyword.iskeyword(namespace):
        raise ValueError(f"plugin name {name!r} is a Python keyword; choose another name (it names the plugin's "
                         "Python package and attributes)")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", namespace):
        raise ValueError(
            f"plugin name {name!r} must be lower case letters, digits and '_' or '-', starting with a letter "
            "(it becomes the reward namespace, as in 'math' for math.accuracy)"
        )
    from . import __version__

    major, minor = (int(part) for part in __version__.split(".")[:2])
    upper = f"{major}.{minor + 1}" if major == 0 else f"{major + 1}"
    return {
        "namespace": namespace,
        "module": f"grpo_rewards_{namespace}",
        "distribution": f"grpo-rewards-{namespace.replace('_', '-')}",
        "title": namespace.replace("_", " ").title(),
        "core_requirement": f"grpo-rewards>={major}.{minor},<{upper}",
    }


def taken_by(namespace: str) -> str | None:
    """Who already uses the plugin name ``namespace``: a first-party package or an installed plugin."""
    if namespace in FIRST_PARTY:
        return f"the first-party package {FIRST_PARTY[namespace]}"
    for ep in metadata.entry_points(group=PROJECT_NAME):
        if ep.name == namespace:
            dist = getattr(ep, "dist", None)
            return f"the installed package {dist.metadata['Name']}" if dist is not None else f"{ep.value}"
    return None


def write_plugin(name: str, directory: str | Path = ".", *, batch: bool = False, environment: bool = False) -> Path:
    """Write the package for plugin ``name`` into ``directory/<distribution>``; return that folder.

    With ``batch=True`` the package also holds a batch-form reward with a parameter and a
    required dataset column (``unique_mentions``); with ``environment=True`` an environment for TRL's
    tool loop that owns its reward (``counter``). A name a first-party or installed plugin
    already uses is refused: the package would replace it or clash with it.
    """
    names = plugin_names(name)
    owner = taken_by(names["namespace"])
    if owner is not None:
        raise ValueError(f"plugin name {names['namespace']!r} is taken by {owner}; choose another name "
                         f"(installing {names['distribution']} would replace or clash with it)")
    root = Path(directory) / names["distribution"]
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} already exists and is not empty")
    chosen = {**(BATCH if batch else PLAIN), **(ENVIRONMENT if environment else NO_ENVIRONMENT)}
    variant = {key: Template(value).substitute(names) for key, value in chosen.items()}
    for path_template, content_template in FILES.items():
        path = root / Template(path_template).substitute(names)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(content_template).substitute({**names, **variant}), encoding="utf-8")
    return root
