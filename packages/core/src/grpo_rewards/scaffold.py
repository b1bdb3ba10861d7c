"""``grpo-rewards new-plugin NAME``: write a complete reward plugin package that passes its own tests.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     root = write_plugin("shout", tmp)
...     sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
['README.md', 'pyproject.toml', 'src/grpo_rewards_shout/__init__.py', 'src/grpo_rewards_shout/plugin.py', 'tests/conftest.py', 'tests/test_shout.py']
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from pathlib import Path
from string import Template

from .templates import FILES

PREFIXES = ("grpo-rewards-", "grpo_rewards_")


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
    if not re.fullmatch(r"[a-z][a-z0-9_]*", namespace) or keyword.iskeyword(namespace):
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


def write_plugin(name: str, directory: str | Path = ".") -> Path:
    """Write the package for plugin ``name`` into ``directory/<distribution>``; return that folder."""
    names = plugin_names(name)
    root = Path(directory) / names["distribution"]
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} already exists and is not empty")
    for path_template, content_template in FILES.items():
        path = root / Template(path_template).substitute(names)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(content_template).substitute(names), encoding="utf-8")
    return root


def new_plugin_command(argv: list[str]) -> int:
    """``grpo-rewards new-plugin NAME [--dir DIR]``."""
    parser = argparse.ArgumentParser(
        prog="grpo-rewards new-plugin",
        description="Write a complete reward plugin package: pyproject with the entry point, the reward "
                    "module, tests using the plugin-author kit, a README.")
    parser.add_argument("name", help="the plugin's namespace, like 'shout' (package grpo-rewards-shout)")
    parser.add_argument("--dir", default=".", help="folder to create the package in (default: here)")
    args = parser.parse_args(argv)
    try:
        root = write_plugin(args.name, args.dir)
    except (ValueError, FileExistsError) as exc:
        print(f"grpo-rewards new-plugin: error: {exc}", file=sys.stderr)
        return 2
    names = plugin_names(args.name)
    print(f"Wrote {root}/")
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        print(f"  {path.relative_to(root)}")
    print(f"\nNext:\n  cd {root}\n  pip install -e '.[test]'\n  pytest\n"
          f"  grpo-rewards check {names['namespace']}.mentions")
    return 0
