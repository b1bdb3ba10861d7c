"""A small client for an OpenAI-compatible ``/chat/completions`` (and ``/embeddings``) endpoint: concurrent, bounded, retried.

Works against ``transformers serve``, ``vllm serve``, OpenAI and anything else that speaks the
Chat Completions API. Each request has a timeout (connect, read and write, and the whole answer, its status
line, headers and body, within ``request_timeout`` of sending: a server that trickles its answer a byte at a time
does not hold a batch for ever; an answer past :data:`MAX_ANSWER_BYTES`, or encoded otherwise than in :data:`ENCODINGS`, is an
error); a 429 or 5xx answer or a refused connection is retried at most ``max_retries`` times with exponential backoff (the
server's ``Retry-After`` is honoured, capped at ``max_backoff``); a timeout is not retried. Requests of
one batch run on at most ``max_concurrency`` threads sharing one connection pool; after one of them
times out or cannot reach the server, the batch's requests not yet sent are given up
(:meth:`ChatClient.complete_many`). The HTTP library (httpx, ``pip install 'grpo-rewards-judge[http]'``)
is imported when the first request is sent.

>>> ChatClient("http://127.0.0.1:9/v1", "m", request_timeout=0.5, max_retries=0).complete(
...     [{"role": "user", "content": "hi"}]).status
'unreachable'
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from grpo_rewards import jsontext, params
from grpo_rewards.forking import renew_after_fork

from .deadline import REQUEST_DEADLINE, bound_by_deadline

#: The largest answer read (a chat completion is a few KiB, 1,000 embeddings of 4,096 floats ~80 MiB as JSON).
MAX_ANSWER_BYTES = 256 * 2**20

#: Headers that describe an answer's encoding on the wire, not its decoded body.
_WIRE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})

#: HTTP statuses worth another try: rate limited, or the server failing for the moment.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class AnswerNotRead(Exception):
    """The server's answer is not read: it passed :data:`MAX_ANSWER_BYTES`, or its encoding is not one read."""


#: The answer encodings read, one layer at most: a 64 KiB read of deflate inflates to at most ~64 MiB, checked
#: against :data:`MAX_ANSWER_BYTES` after each; a layer within a layer (``gzip, gzip``) inflated 7 KiB to 4 GiB in
#: one step, before any check (``MemoryError`` out of the client, or the process killed for memory).
ENCODINGS = ("gzip", "deflate")


@dataclass(frozen=True)
class Reply:
    """One request's outcome: ``status`` is ``ok``, ``timeout``, ``unreachable`` or ``error``."""

    status: str
    text: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    attempts: int = 1
    error: str | None = None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Embeddings:
    """One embeddings request's outcome: ``status`` as :class:`Reply`'s, ``vectors`` one per input when ``ok``."""

    status: str
    vectors: list[list[float]] | None = None
    prompt_tokens: int = 0
    seconds: float = 0.0
    attempts: int = 1
    error: str | None = None


def http_library() -> Any:
    """The ``httpx`` module, or an ``ImportError`` saying which extra installs it."""
    try:
        import httpx
    except ImportError:
        raise ImportError("judge.rubric and judge.pairwise talk to the judge server through httpx: "
                          "pip install 'grpo-rewards-judge[http]'") from None
    return httpx


def api_key_from(env: str | None) -> str | None:
    """The API key held by the environment variable ``env`` (never a key itself); ``None`` without one."""
    if env is None:
        return None
    if not env or not env.replace("_", "a").isalnum():
        raise ValueError(f"api_key_env names an environment variable (like OPENAI_API_KEY), not {env!r}: "
                         "the key itself never goes into a config file")
    key = os.environ.get(env)
    if not key:
        raise ValueError(f"api_key_env: the environment variable {env} is not set (or empty)")
    return key


class ChatClient:
    """Chat completions against ``base_url`` (the part before ``/chat/completions``, such as ``.../v1``).

    The arguments are taken as given: the rewards check them (with ``grpo_rewards.params``).
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, request_timeout: float = 60.0,
                 max_retries: int = 2, backoff: float = 0.5, max_backoff: float = 10.0, max_concurrency: int = 8,
                 body: Mapping[str, Any] | None = None) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.embeddings_url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.api_key = api_key
        self.request_timeout = float(request_timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_concurrency = max_concurrency
        self.body = dict(body or {})
        self._client: Any = None
        self._lock = threading.Lock()
        renew_after_fork(self)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_client"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        renew_after_fork(self)

    def _after_fork(self) -> None:
        """In a forked child: a connection pool of its own. The parent's keep-alive connections are its
        sockets too; a child sending on one reads whatever answer comes next on it, another process's
        grade (seen: children of a forked pool scored with each other's replies). They are left to the
        parent, never closed here."""
        self._client = None
        self._lock = threading.Lock()

    def _http(self) -> Any:
        with self._lock:
            if self._client is None:
                httpx = http_library()
                headers = {"Accept-Encoding": ", ".join(ENCODINGS)}  # (not br or zstd, were their packages here)
                if self.api_key:
                    headers["Authorization"] = f"Bearer {self.api_key}"
                transport = httpx.HTTPTransport(limits=httpx.Limits(max_connections=self.max_concurrency,
                                                                    max_keepalive_connections=self.max_concurrency),
                                                trust_env=False)  # as the client's (SSL_CERT_FILE is not read)
                bound_by_deadline(transport)
                self._client = httpx.Client(
                    timeout=httpx.Timeout(self.request_timeout),
                    transport=transport,
                    headers=headers,
                    trust_env=False,  # a judge on loopback is not sent through the machine's HTTP proxy
                )
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def complete_many(self, conversations: Sequence[list[dict[str, str]]]) -> list[Reply]:
        """One :class:`Reply` per conversation, in order, at most ``max_concurrency`` in flight.

        Once a request of the batch ends ``timeout`` or ``unreachable`` (after its retries), the batch's
        requests not yet sent are not sent: each gets the same status, its error saying why. A stalled or
        dead server then costs a batch one timeout (or one request's retries) per request in flight, not
        one per request (64 requests at 8 in flight to a server that never answers waited 8 timeouts in turn
        before this; now one). The next batch tries the server again."""
        if not conversations:
            return []
        gave_up: list[Reply] = []

        def one(conversation: list[dict[str, str]]) -> Reply:
            if gave_up:
                first = gave_up[0]
                return Reply(first.status, attempts=0, error=f"not sent: an earlier request of this batch failed "
                                                              f"({first.error})")
            reply = self.complete(conversation)
            if reply.status in ("timeout", "unreachable"):
                gave_up.append(reply)
            return reply

        if len(conversations) == 1 or self.max_concurrency == 1:
            return [one(c) for c in conversations]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(conversations)),
                                thread_name_prefix="judge") as pool:
            return list(pool.map(one, conversations))

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        """One chat completion, retried on 429/5xx and refused connections; never raises."""
        payload = {**self.body, "model": self.model, "messages": messages, "stream": False}
        started = time.perf_counter()
        response, attempts, failure = self._post(self.url, payload, started)
        if failure is not None:
            return failure
        return self._read(response, started, attempts)

    def embed(self, texts: Sequence[str]) -> Embeddings:
        """The embeddings of ``texts`` from ``POST {base_url}/embeddings`` (OpenAI's Embeddings API), in
        order, in one request; retried like :meth:`complete`; never raises.

        ``body`` is not sent (it holds chat-completion settings); the request is ``{"model", "input"}``.
        """
        started = time.perf_counter()
        response, attempts, failure = self._post(self.embeddings_url, {"model": self.model, "input": list(texts)},
                                                 started)
        if failure is not None:
            return Embeddings(failure.status, seconds=failure.seconds, attempts=failure.attempts, error=failure.error)
        seconds = time.perf_counter() - started
        try:
            data = jsontext.loads(response.content)  # (nested too deeply: a ValueError too)
            vectors = _vectors(data["data"], len(texts))
            tokens = _tokens(data, "prompt_tokens")
            return Embeddings("ok", vectors=vectors, prompt_tokens=tokens, seconds=seconds, attempts=attempts)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            return Embeddings("error", seconds=seconds, attempts=attempts,
                              error=f"not an embeddings answer ({type(exc).__name__}: {exc}): {response.text[:300]}")

    def _post(self, url: str, payload: dict[str, Any], started: float) -> tuple[Any, int, Reply | None]:
        """POST ``payload`` to ``url`` with the retry policy: ``(response, attempts, None)`` on HTTP 200,
        else ``(None, attempts, Reply)`` saying what failed."""
        httpx = http_library()
        client = self._http()
        attempt = 0
        while True:
            attempt += 1
            retry_after: float | None = None
            try:
                response = self._send(client, url, payload)
            except httpx.TimeoutException as exc:
                return None, attempt, Reply("timeout", seconds=time.perf_counter() - started, attempts=attempt,
                                            error=f"no answer within {self.request_timeout:g} s ({type(exc).__name__})")
            except httpx.DecodingError as exc:  # the server's answer is broken, not the connection: not retried
                return None, attempt, Reply("error", seconds=time.perf_counter() - started, attempts=attempt,
                                            error=f"the answer cannot be decoded ({type(exc).__name__}: {exc})")
            except httpx.HTTPError as exc:  # refused, reset, DNS: the server cannot be reached
                error = f"{type(exc).__name__}: {exc}"
                status = "unreachable"
            except AnswerNotRead as exc:
                return None, attempt, Reply("error", seconds=time.perf_counter() - started, attempts=attempt,
                                            error=str(exc))
            else:
                if response.status_code == 200:
                    return response, attempt, None
                error = f"HTTP {response.status_code}: {response.text[:300]}"
                if response.status_code not in RETRY_STATUSES:
                    return None, attempt, Reply("error", seconds=time.perf_counter() - started, attempts=attempt,
                                                error=error)
                status = "unreachable"
                retry_after = _retry_after(response.headers.get("retry-after"))
            if attempt > self.max_retries:
                return None, attempt, Reply(status, seconds=time.perf_counter() - started, attempts=attempt, error=error)
            delay = self.backoff * 2 ** (attempt - 1) if retry_after is None else retry_after
            time.sleep(min(delay, self.max_backoff))

    def _send(self, client: Any, url: str, payload: dict[str, Any]) -> Any:
        """POST ``payload`` and read the whole answer within ``request_timeout`` of sending (httpx's own timeouts
        are per read: a byte every few seconds would keep one going for ever); returns the answer, read. The
        deadline is this thread's while it sends: each read of the connection waits at most until then."""
        httpx = http_library()
        deadline = REQUEST_DEADLINE.at = time.monotonic() + self.request_timeout
        try:
            with client.stream("POST", url, json=payload) as response:
                encoding = response.headers.get("content-encoding", "")
                layers = [e.strip().lower() for e in encoding.split(",") if e.strip().lower() not in ("", "identity")]
                if len(layers) > 1 or not set(layers) <= set(ENCODINGS):
                    raise AnswerNotRead(f"the answer's Content-Encoding {encoding!r} is not read (one layer of "
                                        f"{' or '.join(ENCODINGS)} at most)")
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_ANSWER_BYTES:
                        raise AnswerNotRead(f"the answer is larger than {MAX_ANSWER_BYTES // 2**20} MiB; "
                                            "not read further")
                    if time.monotonic() > deadline:
                        raise httpx.ReadTimeout(f"the answer was not complete within {self.request_timeout:g} s",
                                                request=response.request)
            # (the body is decoded already: the headers that describe its encoding on the wire are left out)
            headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _WIRE_HEADERS]
            return httpx.Response(response.status_code, headers=headers, content=bytes(body), request=response.request)
        finally:
            REQUEST_DEADLINE.at = None

    def _read(self, response: Any, started: float, attempt: int) -> Reply:
        seconds = time.perf_counter() - started
        try:
            data = jsontext.loads(response.content)  # (nested too deeply: a ValueError too)
            choice = data["choices"][0]
            message = choice["message"]
            text = message.get("content")
            finish_reason = choice.get("finish_reason")
            if not isinstance(text, str) and finish_reason not in ("length", "content_filter"):
                # (cut at max_tokens, or filtered, a reply may have no text; otherwise it is no judge's reply: it was
                # parsed as an empty one, 'unparsable' and paid unparsable_value, quietly, on every sample)
                calls = " (tool_calls only)" if message.get("tool_calls") else ""
                raise ValueError(f"the message has no text: content {json.dumps(text)[:100]}{calls}")
            return Reply("ok", text=text if isinstance(text, str) else None, finish_reason=finish_reason,
                         prompt_tokens=_tokens(data, "prompt_tokens"),
                         completion_tokens=_tokens(data, "completion_tokens"),
                         seconds=seconds, attempts=attempt)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            return Reply("error", seconds=seconds, attempts=attempt,
                         error=f"not a chat completion ({type(exc).__name__}: {exc}): {response.text[:300]}")


def _tokens(answer: Any, key: str) -> int:
    """A token count of an answer's ``usage`` (0 when it has none a count can be read from): the counts are only
    summed for the logs, so a proxy's odd ``usage`` (``"n/a"``, a list, NaN) never costs the grade beside it.

    >>> _tokens({"usage": {"prompt_tokens": 12}}, "prompt_tokens"), _tokens({"usage": {"prompt_tokens": "n/a"}}, "prompt_tokens")
    (12, 0)
    >>> _tokens({"usage": [1]}, "prompt_tokens"), _tokens({"usage": {"completion_tokens": float("nan")}}, "completion_tokens")
    (0, 0)
    >>> _tokens({"usage": {"prompt_tokens": 10 ** 400}}, "prompt_tokens")
    0
    """
    usage = answer.get("usage") if isinstance(answer, dict) else None
    value = usage.get(key) if isinstance(usage, dict) else None
    if not params.finite(value) or value < 0:  # (a 400-digit count raised OverflowError out of math.isfinite)
        return 0
    return int(value)


def _vectors(rows: Any, n: int) -> list[list[float]]:
    """The ``n`` vectors of an embeddings answer's ``data``, in input order, or a ``ValueError`` saying what is wrong
    with them: each ``index`` (when the rows have one) names a distinct input, and the vectors are of finite
    numbers, of one length, none empty or all zeros (no direction: its cosine with anything means nothing). A server
    answering NaN, a repeated index or a zero vector was read as good before: cosines of -1.0 or 0.0, paid as such.

    >>> _vectors([{"index": 1, "embedding": [0.0, 1.0]}, {"index": 0, "embedding": [1, 0]}], 2)
    [[1.0, 0.0], [0.0, 1.0]]
    >>> _vectors([{"index": 0, "embedding": [1.0, float("nan")]}], 1)
    Traceback (most recent call last):
    ...
    ValueError: embedding 0 holds nan, not a finite number
    """
    if n == 0:
        return []
    if not isinstance(rows, list) or len(rows) != n:
        raise ValueError(f"{len(rows) if isinstance(rows, list) else 'no list of'} embeddings for {n} inputs")
    indexes = [row.get("index") for row in rows]
    if all(i is None for i in indexes):
        indexes = list(range(n))
    if sorted(i for i in indexes if isinstance(i, int) and not isinstance(i, bool)) != list(range(n)):
        raise ValueError(f"the indexes {indexes} are not each of 0 to {n - 1} once")
    vectors: list[list[float]] = [[] for _ in range(n)]
    for i, row in zip(indexes, rows):
        vector = row["embedding"]
        if not isinstance(vector, list):
            raise ValueError(f"embedding {i} is {type(vector).__name__}, not a list of numbers")
        for x in vector:
            if not params.finite(x):  # (math.isfinite raised OverflowError on a 400-digit component)
                raise ValueError(f"embedding {i} holds {x!r}, not a finite number")
        vectors[i] = [float(x) for x in vector]
    lengths = sorted({len(v) for v in vectors})
    if len(lengths) > 1 or not lengths[0]:
        raise ValueError(f"the embeddings' lengths differ ({', '.join(map(str, lengths))})" if len(lengths) > 1
                         else "the embeddings are empty")
    for i, vector in enumerate(vectors):
        if not any(vector):
            raise ValueError(f"embedding {i} is all zeros (it has no direction)")
    return vectors


def _retry_after(value: str | None) -> float | None:
    try:
        seconds = float(value) if value is not None else None
    except ValueError:  # an HTTP date: fall back to the backoff
        return None
    return seconds if seconds is not None and seconds >= 0 else None
