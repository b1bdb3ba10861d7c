"""The reward is safe to call from several threads at once, and from an event-loop thread as TRL does."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from grpo_rewards_math import make_accuracy
from grpo_rewards_math.correctness import clear_cache

BATCH = [r"\boxed{12}", r"\boxed{13}", "nothing", r"\boxed{(t+1)^2}", r"\boxed{t^2+1}"]
GOLDS = ["12", "12", "12", "t^2 + 2t + 1", "t^2 + 2t + 1"]
EXPECTED = [1.0, 0.0, 0.0, 1.0, 0.0]


def test_concurrent_calls_from_threads_score_alike_and_count_every_sample():
    clear_cache()
    reward = make_accuracy(options={"timeout": 30.0})
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: reward(completions=list(BATCH), solution=GOLDS), range(8)))
    assert results == [EXPECTED] * 8
    assert reward.stats == {"correct": 16, "wrong": 16, "no_answer": 8}


def test_call_from_an_event_loop_in_another_thread():
    clear_cache()
    reward = make_accuracy(options={"timeout": 30.0})
    out: list[list[float | None]] = []

    async def score() -> list[float | None]:  # called on the loop's own (non-main) thread
        return reward(completions=BATCH, solution=GOLDS)

    thread = threading.Thread(target=lambda: out.append(asyncio.run(score())))
    thread.start()
    thread.join(timeout=120)
    assert out == [EXPECTED]
