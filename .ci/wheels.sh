#!/usr/bin/env bash
# Packaging as users install it: build an sdist and a wheel (from the sdist) for every package
# under packages/ and for examples/third-party-plugin, check their metadata, then install the
# BUILT wheels (never the source tree, never editable) into clean virtual environments:
#   1. the core alone: `grpo-rewards list --json` works, torch is not installed, new-plugin works;
#   2. the core plus one reward package at a time: that package's rewards are listed, nothing broken.
# Needs: python3 (>=3.10) and pip access to PyPI for build tools and dependencies. Run from anywhere.
#   bash .ci/wheels.sh            (WORK=/some/dir keeps the build folder for inspection)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
if [ -z "${WORK:-}" ]; then
    WORK="$(mktemp -d -t grpo-wheels.XXXXXX)"
    trap 'rm -rf "$WORK"' EXIT
fi
DIST="$WORK/dist"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
mkdir -p "$DIST"
step() { printf '\n== %s\n' "$*"; }
fail() { printf 'wheels.sh: FAIL: %s\n' "$*" >&2; exit 1; }

PROJECTS=()
for dir in "$ROOT"/packages/*/ "$ROOT"/examples/third-party-plugin/; do
    [ -f "$dir/pyproject.toml" ] && PROJECTS+=("${dir%/}")
done
[ "${#PROJECTS[@]}" -ge 2 ] || fail "expected the core and at least one reward package, found: ${PROJECTS[*]:-none}"

step "build tools in $WORK/build-venv"
"$PYTHON" -m venv "$WORK/build-venv"
# One build environment for all (no per-package isolated env): the build backend is setuptools.
"$WORK/build-venv/bin/python" -m pip install --quiet build "setuptools>=77"

for project in "${PROJECTS[@]}"; do
    step "build ${project#"$ROOT"/}: sdist, then a wheel from the sdist"
    "$WORK/build-venv/bin/python" -m build --no-isolation --outdir "$DIST" "$project" > "$WORK/build-$(basename "$project").log" 2>&1 \
        || { tail -n 40 "$WORK/build-$(basename "$project").log"; fail "build of $project"; }
done
ls -1 "$DIST"

step "metadata of every wheel and sdist"
"$WORK/build-venv/bin/python" - "$DIST" "${#PROJECTS[@]}" <<'PY'
import sys, tarfile, zipfile
from email.parser import Parser
from pathlib import Path

dist, expected = Path(sys.argv[1]), int(sys.argv[2])
wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
problems = []
if len(wheels) != expected or len(sdists) != expected:
    problems.append(f"expected {expected} wheels and sdists, got {len(wheels)} and {len(sdists)}")
for wheel in wheels:
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(z.read(info).decode())
        eps_name = info.replace("METADATA", "entry_points.txt")
        eps = z.read(eps_name).decode() if eps_name in names else ""
    name = meta["Name"]
    where = wheel.name
    for key in ("Version", "Summary", "Requires-Python"):
        if not meta[key]:
            problems.append(f"{where}: no {key}")
    if not (meta["License-Expression"] or meta["License"]):
        problems.append(f"{where}: no licence")
    readme = (meta.get_payload() or "").strip()
    if not readme or not meta["Description-Content-Type"]:
        problems.append(f"{where}: no readme as long description")
    elif len(readme) < 200:
        print(f"  warning: {where}: the readme PyPI would show is only {len(readme)} characters: {readme[:80]!r}")
    requires = meta.get_all("Requires-Dist") or []
    if name == "grpo-rewards":
        if "grpo-rewards = grpo_rewards.cli:main" not in eps:
            problems.append(f"{where}: no grpo-rewards console script")
        if any("torch" in r and "extra ==" not in r for r in requires):
            problems.append(f"{where}: torch is a base requirement: {requires}")
        for module in ("grpo_rewards/testing.py", "grpo_rewards/contract/__init__.py", "grpo_rewards/templates/__init__.py",
                       "grpo_rewards/py.typed"):
            if module not in names:
                problems.append(f"{where}: {module} is missing")
    else:
        core = [r for r in requires if r.replace("_", "-").startswith("grpo-rewards") and "extra ==" not in r]
        if not core or ">=" not in core[0] or "<" not in core[0].replace("<=", ""):
            problems.append(f"{where}: needs a compatible-range dependency on grpo-rewards, has {requires}")
        if "[grpo_rewards]" not in eps:
            problems.append(f"{where}: no entry point in group grpo_rewards")
        typed = name.replace("-", "_") + "/py.typed"
        if name in ("grpo-rewards-length", "grpo-rewards-format", "grpo-rewards-math", "grpo-rewards-gym",
                    "grpo-rewards-judge", "grpo-rewards-code") \
                and typed not in names:
            problems.append(f"{where}: {typed} is missing (type checkers would ignore its annotations)")
    print(f"  {where}: {name} {meta['Version']}, licence {meta['License-Expression'] or meta['License']}, "
          f"requires {requires}")
for sdist in sdists:
    with tarfile.open(sdist) as t:
        members = t.getnames()
    for needed in ("pyproject.toml", "PKG-INFO"):
        if not any(m.count("/") == 1 and m.endswith("/" + needed) for m in members):
            problems.append(f"{sdist.name}: no {needed}")
if problems:
    print("\n".join(f"  PROBLEM: {p}" for p in problems))
    sys.exit(1)
print(f"  {len(wheels)} wheels and {len(sdists)} sdists have complete metadata")
PY

CORE_WHEEL="$(ls "$DIST"/grpo_rewards-*.whl)"
[ -f "$CORE_WHEEL" ] || fail "no core wheel"

step "core alone, from its wheel"
"$PYTHON" -m venv "$WORK/venv-core"
"$WORK/venv-core/bin/python" -m pip install --quiet "$CORE_WHEEL"
"$WORK/venv-core/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is not None)" \
    || fail "the core's base install pulled in torch"
"$WORK/venv-core/bin/grpo-rewards" list --json > "$WORK/list-core.json"
"$WORK/venv-core/bin/python" - "$WORK/list-core.json" <<'PY'
import json, sys
listing = json.load(open(sys.argv[1]))
assert listing["plugins"] == [] and listing["broken"] == [], listing
print("  core alone: no plugins, nothing broken")
PY
(cd "$WORK" && "$WORK/venv-core/bin/grpo-rewards" new-plugin wheelcheck --dir "$WORK/scaffold" > /dev/null) \
    || fail "new-plugin from the installed core wheel"
[ -f "$WORK/scaffold/grpo-rewards-wheelcheck/pyproject.toml" ] || fail "new-plugin wrote no pyproject.toml"
echo "  new-plugin works from the installed wheel"

for wheel in "$DIST"/*.whl; do
    [ "$wheel" = "$CORE_WHEEL" ] && continue
    dist_name="$(basename "$wheel" | cut -d- -f1)"
    step "core + $dist_name, from their wheels, in a clean venv"
    venv="$WORK/venv-$dist_name"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --find-links "$DIST" "$CORE_WHEEL" "$wheel" \
        || fail "pip install of $wheel"
    # this wheel's plugins, and those of the first-party reward packages it requires (text needs instructions)
    namespaces="$("$venv/bin/python" - "$wheel" "$DIST" <<'PY'
import configparser, re, sys, zipfile
from email.parser import Parser
from pathlib import Path

def plugins(wheel, seen):
    z = zipfile.ZipFile(wheel)
    eps = configparser.ConfigParser()
    eps.read_string(z.read(next(n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt"))).decode())
    found = list(eps["grpo_rewards"])
    meta = Parser().parsestr(z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode())
    for req in meta.get_all("Requires-Dist") or []:
        name = re.match(r"[A-Za-z0-9._-]+", req).group(0).replace("-", "_")
        if name.startswith("grpo_rewards_") and "extra ==" not in req and name not in seen:
            seen.add(name)
            found += plugins(next(Path(sys.argv[2]).glob(f"{name}-*.whl")), seen)
    return found

print(" ".join(plugins(sys.argv[1], set())))
PY
)"
    "$venv/bin/grpo-rewards" list --json > "$venv/list.json"
    "$venv/bin/python" - "$venv/list.json" $namespaces <<'PY'
import json, sys
listing, namespaces = json.load(open(sys.argv[1])), sys.argv[2:]
assert listing["broken"] == [], f"broken plugins: {listing['broken']}"
plugins = {p["name"]: p for p in listing["plugins"]}
assert sorted(plugins) == sorted(namespaces), f"expected plugins {namespaces}, listed {sorted(plugins)}"
for name in namespaces:
    rewards = [r["name"] for r in plugins[name]["rewards"]]
    assert rewards and all(r.startswith(name + ".") for r in rewards), f"{name}: rewards {rewards}"
    print(f"  {name} ({plugins[name]['distribution']} {plugins[name]['version']}): {', '.join(rewards)}")
PY
    first="$("$venv/bin/python" -c "import json,sys; print(json.load(open(sys.argv[1]))['plugins'][0]['rewards'][0]['name'])" "$venv/list.json")"
    "$venv/bin/grpo-rewards" show "$first" > /dev/null || fail "grpo-rewards show $first"
done

step "all packages built, installed from wheels, and discovered"
