"""ChatClient.embed: OpenAI's /embeddings against a scripted loopback server (order, retries, errors, timeouts)."""

from __future__ import annotations

import json

import pytest
from judge_servers import Script, ScriptedJudge

from grpo_rewards_judge import ChatClient


def _embeddings(body, shuffled=False):
    rows = [{"object": "embedding", "index": i, "embedding": [float(len(t)), float(i), 0.5]}
            for i, t in enumerate(body["input"])]
    if shuffled:
        rows.reverse()
    return Script(body=json.dumps({"object": "list", "data": rows, "model": body["model"],
                                   "usage": {"prompt_tokens": 7, "total_tokens": 7}}))


def test_embed_posts_the_inputs_and_returns_one_vector_per_input_in_order():
    with ScriptedJudge(lambda body: _embeddings(body, shuffled=True)) as server:
        reply = ChatClient(server.base_url, "minilm", body={"temperature": 0.0}).embed(["a", "bcd", ""])
        assert server.received == [{"model": "minilm", "input": ["a", "bcd", ""]}]  # no chat settings sent
    assert (reply.status, reply.vectors, reply.prompt_tokens, reply.attempts) == (
        "ok", [[1.0, 0.0, 0.5], [3.0, 1.0, 0.5], [0.0, 2.0, 0.5]], 7, 1)


def test_embed_retries_a_503_and_then_succeeds():
    answers = iter([Script(status=503, body="busy"), None])

    def answer(body):
        script = next(answers)
        return script if script is not None else _embeddings(body)

    with ScriptedJudge(answer) as server:
        reply = ChatClient(server.base_url, "m", backoff=0.01).embed(["x"])
    assert (reply.status, reply.attempts, reply.vectors) == ("ok", 2, [[1.0, 0.0, 0.5]])


def test_embed_reports_a_reply_that_is_not_an_embeddings_answer():
    with ScriptedJudge([Script(body=json.dumps({"data": [{"index": 0}]}))]) as server:
        reply = ChatClient(server.base_url, "m").embed(["x"])
    assert reply.status == "error" and reply.vectors is None and "not an embeddings answer" in reply.error


def test_embed_reports_too_few_vectors():
    with ScriptedJudge([Script(body=json.dumps({"data": [{"index": 0, "embedding": [1.0]}]}))]) as server:
        reply = ChatClient(server.base_url, "m").embed(["x", "y"])
    assert reply.status == "error" and "1 embeddings for 2 inputs" in reply.error


def test_embed_of_a_server_that_never_answers_times_out():
    with ScriptedJudge([Script(delay=3.0)]) as server:
        reply = ChatClient(server.base_url, "m", request_timeout=0.3, max_retries=0).embed(["x"])
    assert reply.status == "timeout" and reply.attempts == 1


def test_embed_of_an_unreachable_server_is_unreachable():
    reply = ChatClient("http://127.0.0.1:9/v1", "m", request_timeout=0.5, max_retries=0).embed(["x"])
    assert reply.status == "unreachable"


# A server's embeddings that mean nothing were read as good: NaN made every cosine -1.0, a zero or empty vector 0.0,
# a repeated index gave one input another's vector; each is now an error naming what is wrong (the reward then
# pays None, label 'unavailable', and warns), never a vector.
BROKEN_EMBEDDINGS = [
    ('[{"index": 0, "embedding": [NaN, 1.0]}, {"index": 1, "embedding": [1.0, 0.0]}]', "embedding 0 holds nan"),
    ('[{"index": 0, "embedding": [1.0, 0.0]}, {"index": 1, "embedding": [-Infinity, 0.0]}]', "embedding 1 holds -inf"),
    ('[{"index": 0, "embedding": ["1", "0"]}, {"index": 1, "embedding": [1.0, 0.0]}]', "embedding 0 holds '1'"),
    ('[{"index": 0, "embedding": [true, false]}, {"index": 1, "embedding": [1.0, 0.0]}]', "embedding 0 holds True"),
    # a 400-digit component: OverflowError out of math.isfinite, past the client's handling
    ('[{"index": 0, "embedding": [1' + "0" * 400 + ', 0]}, {"index": 1, "embedding": [1.0, 0.0]}]',
     "embedding 0 holds 1" + "0" * 400),
    ('[{"index": 0, "embedding": [1.0, 0.0, 0.0]}, {"index": 1, "embedding": [1.0, 0.0]}]', "lengths differ (2, 3)"),
    ('[{"index": 0, "embedding": []}, {"index": 1, "embedding": []}]', "the embeddings are empty"),
    ('[{"index": 0, "embedding": [0.3, 0.1]}, {"index": 1, "embedding": [0.0, 0.0]}]', "embedding 1 is all zeros"),
    ('[{"index": 0, "embedding": [1.0, 0.0]}, {"index": 0, "embedding": [0.0, 1.0]}]', "indexes [0, 0] are not each"),
    ('[{"index": 0, "embedding": [1.0, 0.0]}, {"index": 5, "embedding": [0.0, 1.0]}]', "indexes [0, 5] are not each"),
    ('[{"index": 0, "embedding": [1.0, 0.0]}, {"index": 1, "embedding": [0.0, 1.0]}, '
     '{"index": 2, "embedding": [1.0, 1.0]}]', "3 embeddings for 2 inputs"),
    ('[{"index": 0, "embedding": "AACAPwAAAAA="}, {"index": 1, "embedding": "AACAPwAAAAA="}]', "embedding 0 is str"),
]


@pytest.mark.parametrize(("data", "error"), BROKEN_EMBEDDINGS, ids=[e for _, e in BROKEN_EMBEDDINGS])
def test_embed_reports_embeddings_that_mean_nothing_as_an_error(data, error):
    with ScriptedJudge([Script(body='{"data": ' + data + "}")]) as server:
        reply = ChatClient(server.base_url, "m").embed(["x", "y"])
    assert (reply.status, reply.vectors) == ("error", None)
    assert reply.error.startswith("not an embeddings answer (ValueError: ") and error in reply.error


def test_embed_takes_rows_without_an_index_in_their_order():
    body = '{"data": [{"embedding": [3, 4]}, {"embedding": [0.5, -1e-3]}]}'
    with ScriptedJudge([Script(body=body)]) as server:
        reply = ChatClient(server.base_url, "m").embed(["x", "y"])
    assert (reply.status, reply.vectors) == ("ok", [[3.0, 4.0], [0.5, -0.001]])


@pytest.mark.parametrize("usage", ['{"prompt_tokens": "n/a", "completion_tokens": [3]}', "[1, 2]", '"none"',
                                   '{"prompt_tokens": NaN, "completion_tokens": -4}',
                                   # OverflowError out of math.isfinite, past the client's reading into the batch
                                   '{"prompt_tokens": 1' + "0" * 400 + ', "completion_tokens": 1e999}'])
def test_an_odd_usage_field_costs_no_grade_and_no_vectors(usage):
    # the counts are only summed for the logs: int("n/a") made a readable grade an 'error' (None)
    chat = ('{"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '
            '"Score: 7"}}], "usage": ' + usage + "}")
    with ScriptedJudge([Script(body=chat)]) as server:
        reply = ChatClient(server.base_url, "m").complete([{"role": "user", "content": "grade"}])
    assert (reply.status, reply.text, reply.prompt_tokens, reply.completion_tokens) == ("ok", "Score: 7", 0, 0)
    with ScriptedJudge([Script(body='{"data": [{"embedding": [3, 4]}], "usage": ' + usage + "}")]) as server:
        embedded = ChatClient(server.base_url, "m").embed(["x"])
    assert (embedded.status, embedded.vectors, embedded.prompt_tokens) == ("ok", [[3.0, 4.0]], 0)


def test_a_usage_field_gives_its_token_counts():
    chat = ('{"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '
            '"Score: 7"}}], "usage": {"prompt_tokens": 12, "completion_tokens": 3}}')
    with ScriptedJudge([Script(body=chat)]) as server:
        reply = ChatClient(server.base_url, "m").complete([{"role": "user", "content": "grade"}])
    assert (reply.status, reply.prompt_tokens, reply.completion_tokens) == ("ok", 12, 3)
