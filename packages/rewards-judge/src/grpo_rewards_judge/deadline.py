"""The whole deadline of one request on httpx's connections: every read and write of a request's connection waits at most
until ``request_timeout`` after it was sent (:class:`~grpo_rewards_judge.client.ChatClient` sets the deadline of the
request each thread sends in :data:`REQUEST_DEADLINE`; :func:`bound_by_deadline` wraps a transport's connections).

>>> import time
>>> REQUEST_DEADLINE.at = time.monotonic() + 2.0
>>> within_deadline(60.0) <= 2.0, within_deadline(None) <= 2.0
(True, True)
>>> REQUEST_DEADLINE.at = None
>>> within_deadline(60.0)
60.0
"""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["REQUEST_DEADLINE", "DeadlineBackend", "DeadlineStream", "bound_by_deadline", "within_deadline"]

#: The deadline of the request this thread is sending (``time.monotonic()``), read by :class:`DeadlineStream`.
REQUEST_DEADLINE = threading.local()


def bound_by_deadline(transport: Any) -> None:
    """Make every connection of ``transport`` (an ``httpx.HTTPTransport``) wait at most until the deadline of the
    request its thread is sending: httpx's timeouts are per read, so a server that sent its status line and
    headers a byte at a time, each within the read timeout, held a request for hours (h11 reads up to 64 KiB of
    them). Its connection pool's network backend (httpcore's, a public parameter of httpcore's pool; httpx builds
    the pool) is wrapped; where a later httpx builds it otherwise, nothing is wrapped and the body's own deadline
    in :meth:`~grpo_rewards_judge.client.ChatClient._send` is what is left (tests/judge/test_judge_scripted.py shows which)."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is not None and not isinstance(backend, DeadlineBackend):
        pool._network_backend = DeadlineBackend(backend)  # type: ignore[union-attr]


def within_deadline(timeout: float | None) -> float | None:
    """``timeout`` cut to what is left of this thread's request deadline (never 0: a socket with no time left
    would turn non-blocking and its error read as a lost connection, not as a timeout)."""
    deadline = getattr(REQUEST_DEADLINE, "at", None)
    if deadline is None:
        return timeout
    left = max(deadline - time.monotonic(), 1e-3)
    return left if timeout is None else min(timeout, left)


class DeadlineBackend:
    """httpcore's network backend whose connections wait at most until the request's deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> DeadlineStream:
        return DeadlineStream(self._inner.connect_tcp(host, port, within_deadline(timeout), local_address,
                                                       socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        return DeadlineStream(self._inner.connect_unix_socket(path, within_deadline(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineStream:
    """httpcore's network stream whose every read and write waits at most until the request's deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return bytes(self._inner.read(max_bytes, within_deadline(timeout)))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, within_deadline(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> DeadlineStream:
        return DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, within_deadline(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)
