"""Running an evaluating reasoning-gym scorer inside grpo-rewards-code's sandbox (``gym.accuracy`` with ``sandbox: true``).

The answer check of :mod:`grpo_rewards_gym.safety` still runs first; the sandbox is a second wall:
an answer that reached ``eval`` there could neither read nor write the host's files (only the
interpreter, site-packages and the source trees are visible, read-only) nor reach the network.
It costs a sandbox and an import of reasoning-gym per sample (one to a few seconds), so it is off
by default. Needs ``grpo-rewards-code`` (``pip install grpo-rewards-code``).
"""

from __future__ import annotations

import json
from typing import Any

#: the program run in the sandbox: import what it needs and say so (before it reads the answer, which may run
#: in the scorer: what the answer prints comes after), rebuild the row's dataset, score the answer, print the float
READY = "ready: imported"
PROGRAM = f"""
import json, sys
from reasoning_gym import create_dataset
from grpo_rewards_gym import codec
print({READY!r}, flush=True)
job = json.loads(sys.stdin.read())
dataset = create_dataset(job["name"], **codec.loads(job["config"]))
print(repr(float(dataset.score_answer(job["answer"], codec.loads(job["entry"])))))
"""


class SandboxFailed(RuntimeError):
    """The sandbox could not run the scorer (no sandbox here, or it failed)."""


def score_in_sandbox(name: str, config_text: str, entry_text: str, answer: str) -> float:
    """The dataset's ``score_answer(answer, entry)``, computed inside the sandbox; raises ValueError when the
    scorer failed there (an answer it cannot score) and :class:`SandboxFailed` when the sandbox did."""
    try:
        from grpo_rewards_code.sandbox import Limits, SandboxUnavailable, get_sandbox, host_sys_path
    except ImportError as exc:
        raise SandboxFailed("sandbox: true needs grpo-rewards-code (pip install grpo-rewards-code)") from exc
    job = json.dumps({"name": name, "config": config_text, "entry": entry_text, "answer": answer})
    try:
        (result,) = get_sandbox().run_python(PROGRAM, [{"kind": "stdio", "input": job}],
                                             Limits(time=20.0, memory=4 << 30), sys_path=host_sys_path())
    except SandboxUnavailable as exc:
        raise SandboxFailed(str(exc)) from exc
    ready, _, value = result.get("stdout", "").partition("\n")
    if ready != READY:  # the environment failed before any answer was read: reasoning-gym missing inside, ...
        raise SandboxFailed(f"the sandbox cannot run reasoning-gym's scorer: {result.get('status')} "
                            f"{result.get('error') or ''}".strip() + " (the sandbox sees this process's sys.path, read-only: "
                            "is reasoning-gym installed there?)")
    status = result.get("status")
    if status == "runtime_error":  # the scorer raised on the answer, as it would in-process: unscorable
        raise ValueError(f"the scorer failed in the sandbox: {result.get('error') or ''}")
    if status != "ok":  # a limit of the sandbox (its time, its memory), not the answer's fault: no value
        raise SandboxFailed(f"the sandboxed scorer stopped: {status} {result.get('error') or ''}".strip())
    number: Any = value.strip()
    return float(number)
