"""Real loopback servers for the judge tests: ``transformers serve``, a scripted judge, a stopping relay.

- :class:`TransformersServe`: ``transformers serve`` on a free 127.0.0.1 port, offline, loading the
  models the requests name (the embedded SmolLM2-135M-Instruct folder, the tiny random model).
- :class:`ScriptedJudge`: an HTTP server of our own on 127.0.0.1 that answers each chat completion
  with the next scripted reply (a status, a body, headers, a delay) and records what it received
  and how many requests it held at once.
- :class:`StoppingRelay`: a TCP relay in front of a server that, once it has passed ``after``
  complete responses, stops the server process (SIGSTOP) before passing the next byte on, so the
  requests after it meet a stopped server.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, process: subprocess.Popen[Any] | None, seconds: float, log: Path | None = None) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            tail = log.read_text()[-3000:] if log is not None and log.exists() else ""
            raise RuntimeError(f"the server exited with {process.returncode} before answering:\n{tail}")
        try:
            if httpx.get(url, timeout=2.0, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {seconds:g} s")


#: seconds a served model may stay idle before ``transformers serve`` unloads it: longer than any test run
MODEL_TIMEOUT = 24 * 3600


class TransformersServe:
    """``transformers serve`` on 127.0.0.1, offline, one torch thread (the machine is shared); a model it loaded
    stays loaded for the session (its default unloads one idle for 300 s: in a parallel run the judge tests are
    spread over the whole run, and each reload cost ~20 s)."""

    def __init__(self, log: Path, threads: int = 1) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": str(threads),
               "MKL_NUM_THREADS": str(threads), "TOKENIZERS_PARALLELISM": "false", "NO_PROXY": "127.0.0.1,localhost"}
        script = Path(sys.executable).parent / "transformers"
        self.process = subprocess.Popen(
            [str(script), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--device", "cpu",
             "--dtype", "float32", "--log-level", "warning", "--model-timeout", str(MODEL_TIMEOUT)],
            stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            wait_for(f"http://127.0.0.1:{self.port}/health", self.process, 180.0, log)
        except BaseException:
            self.close()
            raise

    def chat(self, model: str, messages: list[dict[str, str]], **body: Any) -> dict[str, Any]:
        """One chat completion sent directly (the reference the judge's results are compared with)."""
        import httpx

        response = httpx.post(f"{self.base_url}/chat/completions", timeout=300.0, trust_env=False,
                              json={"model": model, "messages": messages, "stream": False, **body})
        response.raise_for_status()
        return dict(response.json())

    def close(self) -> None:
        """Ctrl-C, as a user stops it (its multiprocessing child then removes its ``/tmp/pymp-*`` folder, which a
        SIGTERM left behind on every run); SIGTERM, then SIGKILL, if it has not ended 20 s later."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)  # in case a test left it stopped
            for stop in (lambda: self.process.send_signal(signal.SIGINT), self.process.terminate, self.process.kill):
                stop()
                try:
                    self.process.wait(20)
                    return
                except subprocess.TimeoutExpired:
                    continue


@dataclass
class Script:
    """One scripted answer: ``reply`` is the judge's text (a chat completion is built around it)
    unless ``body`` is given; ``delay`` seconds before answering; ``trickle``: seconds between the body's bytes,
    sent one at a time; ``trickle_headers``: the same for the status line and headers, with a header of
    ``padding`` bytes among them; ``gzip``: the body compressed (``Content-Encoding: gzip``); ``encoding``: the body
    gzipped once per ``gzip`` named in it, and the ``Content-Encoding`` header it names."""

    reply: str = "Score: 5"
    status: int = 200
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    finish_reason: str = "stop"
    trickle: float = 0.0
    trickle_headers: float = 0.0
    padding: int = 0
    gzip: bool = False
    encoding: str | None = None


class ScriptedJudge:
    """An OpenAI-compatible judge of our own on 127.0.0.1 whose answers are scripted.

    ``answer`` is a list of :class:`Script` (taken in order; the last repeats) or a function of the
    request body returning one. ``hold_until`` makes each request wait (up to ``hold_seconds``)
    until that many are in flight, so a concurrency limit shows as the most held at once.
    """

    def __init__(self, answer: list[Script] | Callable[[dict[str, Any]], Script], *, hold_until: int = 0,
                 hold_seconds: float = 3.0) -> None:
        self.answer = answer
        self.hold_until = hold_until
        self.hold_seconds = hold_seconds
        self.received: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Condition()
        judge = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                script = judge._enter(body, dict(self.headers))
                try:
                    if script.delay:
                        time.sleep(script.delay)
                    payload = (script.body if script.body is not None else json.dumps({
                        "id": "scripted", "object": "chat.completion", "model": body.get("model"),
                        "choices": [{"index": 0, "finish_reason": script.finish_reason,
                                     "message": {"role": "assistant", "content": script.reply}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}})).encode()
                    import gzip

                    for _ in range(1 if script.gzip else (script.encoding or "").count("gzip")):
                        payload = gzip.compress(payload)
                    if script.trickle_headers:  # the status line and headers, a byte at a time
                        head = (f"HTTP/1.1 {script.status} OK\r\nContent-Type: application/json\r\n"
                                f"X-Padding: {'a' * script.padding}\r\n"
                                f"Content-Length: {len(payload)}\r\n\r\n").encode()
                        for i in range(len(head)):
                            self.wfile.write(head[i:i + 1])
                            self.wfile.flush()
                            time.sleep(script.trickle_headers)
                        self.wfile.write(payload)
                        return
                    self.send_response(script.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    if script.gzip or script.encoding:
                        self.send_header("Content-Encoding", script.encoding or "gzip")
                    for k, v in script.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if not script.trickle:
                        self.wfile.write(payload)
                    for i in range(len(payload) if script.trickle else 0):
                        self.wfile.write(payload[i:i + 1])
                        self.wfile.flush()
                        time.sleep(script.trickle)
                finally:
                    judge._leave()

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # the default backlog of 5 makes a 6th simultaneous client wait a SYN retry

            def handle_error(self, request: Any, client_address: Any) -> None:
                """A client that gave up on a delayed reply (a judge's request timeout, as the tests intend) is
                no error of the server's; anything else is printed as ``socketserver`` does."""
                if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        # (serve_forever's default poll of 0.5 s made each close wait up to half a second: ~20 s of a test run idle)
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()

    def _enter(self, body: dict[str, Any], headers: dict[str, str]) -> Script:
        with self._lock:
            index = len(self.received)
            self.received.append(body)
            self.headers.append(headers)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self._lock.notify_all()
            if self.hold_until:
                self._lock.wait_for(lambda: self.in_flight >= self.hold_until, timeout=self.hold_seconds)
        if callable(self.answer):
            return self.answer(body)
        return self.answer[min(index, len(self.answer) - 1)]

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> ScriptedJudge:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class StoppingRelay:
    """A loopback TCP relay to ``target_port`` that stops the process ``pid`` (SIGSTOP) once ``after``
    complete HTTP responses have passed, before passing anything more; :meth:`close` resumes it."""

    def __init__(self, target_port: int, pid: int, after: int) -> None:
        self.target_port = target_port
        self.pid = pid
        self.after = after
        self.responses = 0
        self.stopped = False
        self.closed = False
        self._lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = int(self.listener.getsockname()[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._sockets: list[socket.socket] = [self.listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self._sockets += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, responses: bool) -> None:
        buffer = b""
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            if not responses:  # requests always go on: after the stop they reach a stopped server
                sink.sendall(data)
                continue
            buffer += data
            while True:  # pass on complete responses only, counting them
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    break
                head = buffer[:end].decode("latin-1").lower()
                length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")
                               if line.startswith("content-length:")), 0)
                if len(buffer) < end + 4 + length:
                    break
                response, buffer = buffer[:end + 4 + length], buffer[end + 4 + length:]
                with self._lock:
                    self.responses += 1
                    if self.responses >= self.after and not self.stopped and not self.closed:
                        os.kill(self.pid, signal.SIGSTOP)  # once: close() resumes it for good
                        self.stopped = True
                try:
                    sink.sendall(response)
                except OSError:  # the relay was closed
                    return

    def close(self) -> None:
        with self._lock:
            self.closed = True
            if self.stopped:
                os.kill(self.pid, signal.SIGCONT)
        for s in self._sockets:
            try:
                s.close()
            except OSError:
                pass
