"""``tools.python``: a Python interpreter for the model, run in the code package's sandbox.

Each ``run_python(code)`` call is one program in ``grpo_rewards_code``'s sandbox (bubblewrap: no
network, read-only file system but a private ``/tmp``, rlimits, a seccomp filter; the warm sandbox
forks a fresh supervisor per program and kills every process and empties ``/tmp`` after it). State
is kept across the calls of one rollout by running the rollout's earlier cells again, silently,
before the new one (their output is discarded, what they write to descriptors 1 and 2 too; an error in
one is skipped as it was the first time; a cell stopped by a limit is not kept, nor one that ended the
interpreter, ``os._exit``: it would end every later call before its code ran). ``time_limit`` is each call's own: the
program's CPU limit is the new cell's ``time_limit`` plus the CPU time the earlier cells took when they ran (with a
quarter more, for the replay's variation; at most 60 s in all). ``warm=False``
starts a new sandbox for each call instead (bench/tools.md compares the two). ``reset`` forgets the cells, so nothing crosses
rollouts: not a variable, not a file, not a process. Code whose earlier cells are not
deterministic (random numbers, the clock) sees new values on each call.

The tool returns what the code printed (stdout and stderr together, capped at ``max_output``
characters) and the error it raised, if any. Where the sandbox cannot run at all (no bubblewrap,
no namespaces), the tool says so to the model and warns once, naming the cause.
"""

from __future__ import annotations

import json
import secrets
import warnings
from typing import Any

from grpo_rewards import params as checks

#: The program one call runs: the earlier cells (output discarded, also what they write to the descriptors
#: themselves, ``os.write(1, ...)``; errors skipped), then the new one, then ``marker`` (written when the cell
#: ended, raising or not, but not when it ended the interpreter: ``os._exit``, a signal).
_PROGRAM = """\
import io as _io, json as _json, os as _os, sys as _sys
_g = {{"__name__": "__main__", "__builtins__": __builtins__}}
_out = _sys.stdout
_out.flush()
_saved = (_os.dup(1), _os.dup(2))
_null = _os.open(_os.devnull, _os.O_WRONLY)
_os.dup2(_null, 1)
_os.dup2(_null, 2)
_sys.stdout = _sys.stderr = _io.StringIO()
_cell = None
for _cell in _json.loads({cells!r}):
    try:
        exec(compile(_cell, "<earlier cell>", "exec"), _g)
    except BaseException:
        pass
_sys.stdout = _sys.stderr = _out
_os.dup2(_saved[0], 1)
_os.dup2(_saved[1], 2)
for _fd in (*_saved, _null):
    _os.close(_fd)
del _io, _json, _cell, _saved, _null, _fd
try:
    exec(compile({code!r}, "<cell>", "exec"), _g)
finally:
    try:
        _out.write({marker!r})
        _out.flush()
    except BaseException:
        pass
"""

_STATUS = {"timeout": "the code ran past its time limit and was stopped",
           "memory": "the code ran out of memory and was stopped",
           "output_limit": "the code printed too much and was stopped",
           "exited": "the code ended the interpreter (os._exit); what it defined is not kept"}


class Python:
    """A Python interpreter in a sandbox; variables and functions persist across the calls of one rollout."""

    def __init__(self, time_limit: float = 2.0, memory_mb: int = 256, max_output: int = 2000,
                 max_cells: int = 16, warm: bool = True) -> None:
        self.warm = checks.boolean(warm, "warm")
        self.time_limit = checks.number(time_limit, "time_limit", low=0.01, high=60)  # code.tests_passed's bounds
        self.memory_mb = checks.integer(memory_mb, "memory_mb", low=16, high=16384)
        self.max_output = checks.integer(max_output, "max_output", low=1)
        self.max_cells = checks.integer(max_cells, "max_cells", low=1)
        self._cells: list[str] = []
        self._times: list[float] = []  # each kept cell's CPU seconds when it ran: its replay's budget
        self._warned = False

    def reset(self, **row: Any) -> None:
        self._cells, self._times = [], []

    def run_python(self, code: str) -> str:
        """Run Python code and return what it printed and the error it raised, if any. Variables, functions and imports from earlier calls are kept.

        Args:
            code: the Python code to run; use print() to show values
        """
        from grpo_rewards_code import Limits, Sandbox, SandboxUnavailable, get_sandbox

        if not isinstance(code, str) or not code.strip():
            return "error: give the code to run as text"
        if len(self._cells) >= self.max_cells:
            return f"error: this conversation already ran {self.max_cells} cells, the most allowed"
        marker = f"\n[end of cell {secrets.token_hex(8)}]"
        program = _PROGRAM.format(cells=json.dumps(self._cells), code=code, marker=marker)
        replay = sum(self._times)  # (the limit covered the replay too: two 1.2 s cells under 2 s, the second stopped)
        budget = min(60.0, self.time_limit + 1.25 * replay + (0.05 if self._times else 0.0))
        limits = Limits(time=budget, memory=self.memory_mb << 20, output=max(self.max_output * 4, 4096))
        try:
            sandbox = get_sandbox()
            if not self.warm:
                sandbox = Sandbox(sandbox.backend, sandbox.binary, warm=False)
            result = sandbox.run_python(program, [{"kind": "stdio", "input": ""}], limits)[0]
        except SandboxUnavailable as exc:
            if not self._warned:
                self._warned = True
                warnings.warn(f"tools.python: the sandbox cannot run code: {exc}", RuntimeWarning, stacklevel=2)
            return f"error: the Python sandbox is not available ({exc})"
        status = result.get("status")
        output = str(result.get("stdout") or "")
        ended = marker in output
        output = output.replace(marker, "")
        # a cell stopped by a limit would stop every later call too, and one that ended the interpreter would end
        # every later call before its code ran: neither is kept
        if status not in _STATUS and ended:
            self._cells.append(code)
            self._times.append(max(0.0, float(result.get("time") or 0.0) - replay))
        if status == "ok" and not ended:
            status = "exited"
        if len(output) > self.max_output:
            output = output[: self.max_output] + f"\n... ({len(output) - self.max_output} more characters)"
        if status == "ok":
            return output or "(no output)"
        problem = result.get("error") or _STATUS.get(str(status), f"the code failed ({status})")
        return (output + ("\n" if output and not output.endswith("\n") else "")) + f"error: {problem}"
