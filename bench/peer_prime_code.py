"""verl's prime_code local path (installed --no-deps in a bench venv), on rows written by bench_code.py peer.

    /tmp/peer/bin/python bench/peer_prime_code.py ROWS.json     # prints one JSON line of results
The package is loaded from verl/utils/reward_score/ without importing verl itself (whose __init__
needs torch, ray, ...): prime_code imports only the standard library and numpy.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from importlib.util import find_spec
from pathlib import Path

_VERL = find_spec("verl")  # located, not imported: verl/__init__ needs torch, ray, ...
assert _VERL is not None and _VERL.submodule_search_locations
sys.path.insert(0, str(Path(next(iter(_VERL.submodule_search_locations))) / "utils" / "reward_score"))
import prime_code  # noqa: E402


def main() -> None:
    cases = json.loads(Path(sys.argv[1]).read_text())
    out = {}
    for name, items in cases.items():
        start = time.perf_counter()

        def score(item: dict) -> float:
            with contextlib.redirect_stdout(io.StringIO()):
                success, _ = prime_code.compute_score(item["completion"], item.get("peer_in_outs", item["in_outs"]),
                                                      continuous=True)
            return float(success)

        with ThreadPoolExecutor(2) as pool:
            values = list(pool.map(score, items))
        out[name] = {"values": values, "seconds": time.perf_counter() - start}
    sys.__stdout__.write(json.dumps(out) + "\n")  # redirect_stdout in two threads can leave sys.stdout swapped


if __name__ == "__main__":
    main()
