"""A loopback fake of an OpenAI-compatible model server (llama.cpp's ``llama-server``, vLLM).

`FakeOpenAI` is `FakeOllama`'s twin for the OpenAI chat-completions wire protocol, so the real
``langchain-openai`` client (and the ``openai`` SDK under it) runs in tests. Same scripting:
a FIFO of `Reply` objects (from `tests.fakes.ollama_server`; a bare `str` is
``Reply(text=...)``), then the optional `responder`, else an echo of the last user message;
the same models (`DEFAULT_MODELS`), so a test runs unchanged on either server.

Routes, under ``/v1`` as the clients' base URL has it:

- ``POST /v1/chat/completions``: SSE (``data: {chunk}`` events, then ``data: [DONE]``) over
  chunked transfer encoding, or one JSON object for ``"stream": false``. Text comes in
  ``delta.content`` pieces; tool calls as ``delta.tool_calls`` fragments (a first one with
  the id and name, then the arguments' JSON in pieces); the last choice chunk carries
  ``finish_reason`` (``stop``, ``tool_calls``, ``length``); then, when the request asks for
  ``stream_options.include_usage``, a chunk with no choices and the ``usage``.
  ``Reply.prompt_eval_count`` / ``eval_count`` are ``usage.prompt_tokens`` /
  ``completion_tokens`` (default: a rough estimate from the request / the reply).
- ``GET /v1/models``: the models, with vLLM's ``max_model_len`` (the window Ollama would use
  for the model, so windows agree across the fakes) unless ``max_model_len=False``;
  ``list_models=False`` lists none, as some servers do.
- ``GET /props`` (llama.cpp, at the root): only when ``props_n_ctx`` is set;
  ``props_top_level`` puts ``n_ctx`` at the top level as some versions do.

``Reply.end_after`` ends a stream cleanly after that many pieces, without the finishing
chunk, the usage or ``[DONE]`` (a stream that just stops); ``done_marker=False`` never sends
``[DONE]`` after the finishing chunk and the usage, as some servers do.

With ``api_key`` set, every ``/v1`` request must carry ``Authorization: Bearer KEY`` or gets
401. Requests are recorded with their headers and their bodies' bytes as sent
(`chat_raw_requests`).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.loopback import LoopbackServer

from .ollama_server import (
    DEFAULT_MODELS,
    JSON,
    FakeModel,
    Reply,
    Responder,
    rough_token_count,
    split_text,
)

__all__ = ["FakeOpenAI", "OpenAIRequest"]

WINDOW_CAP = 8192
"""The cap Ollama's window rule puts on a model's trained length (the app's default)."""
ARGUMENT_PIECE = 7
"""Characters of a tool call's arguments per streamed fragment."""


@dataclass(frozen=True)
class OpenAIRequest:
    """A request the server received: method, path, JSON body (``{}`` for a GET), headers
    (names in lower case), the body's bytes as sent (``b""`` for a GET)."""

    method: str
    path: str
    body: JSON
    headers: Mapping[str, str] = field(default_factory=dict)
    raw: bytes = b""


def served_window(model: FakeModel) -> int | None:
    """The window the server runs ``model`` with: what Ollama's rule would give it."""
    if model.num_ctx is not None:
        return model.num_ctx
    if model.context_length is not None:
        return min(model.context_length, WINDOW_CAP)
    return None


class FakeOpenAI(LoopbackServer[Reply | str]):
    """Fake OpenAI-compatible server; use as a context manager or call `start()`/`stop()`."""

    thread_name = "fake-openai"

    def __init__(
        self,
        models: Iterable[FakeModel | str] = DEFAULT_MODELS,
        replies: Iterable[Reply | str] = (),
        responder: Responder | None = None,
        *,
        api_key: str | None = None,
        list_models: bool = True,
        max_model_len: bool = True,
        props_n_ctx: int | None = None,
        props_top_level: bool = False,
        build: str = "b6000-fake",
        done_marker: bool = True,
    ) -> None:
        super().__init__(replies)
        self.models: dict[str, FakeModel] = {}
        for m in models:
            model = m if isinstance(m, FakeModel) else FakeModel(m)
            self.models[model.name] = model
        self.responder = responder
        self.api_key = api_key
        self.list_models = list_models
        self.max_model_len = max_model_len
        self.props_n_ctx = props_n_ctx
        self.props_top_level = props_top_level
        self.build = build
        self.done_marker = done_marker
        self.on_first_chunk: Callable[[], None] | None = None
        """Called as the first streamed chunk of each reply is written."""
        self.requests: list[OpenAIRequest] = []

    def make_server(self) -> _Server:
        return _Server(self)

    @property
    def url(self) -> str:
        """The base URL clients are given: the server's root and ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[JSON]:
        """Bodies of all chat-completion requests so far, in order."""
        with self._lock:
            return [r.body for r in self.requests if r.path == "/v1/chat/completions"]

    @property
    def chat_raw_requests(self) -> list[bytes]:
        """The bytes of all chat-completion request bodies so far, exactly as sent, in order."""
        with self._lock:
            return [r.raw for r in self.requests if r.path == "/v1/chat/completions"]

    def find_model(self, name: str) -> FakeModel | None:
        return self.models.get(name)

    def _record(self, request: OpenAIRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, body: JSON) -> Reply:
        with self._lock:
            item = self._script.popleft() if self._script else None
        if item is None and self.responder is not None:
            item = self.responder(body)
        if item is None:
            users = [m for m in body.get("messages", []) if m.get("role") == "user"]
            item = f"echo: {_text_of(users[-1])}" if users else "echo"
        return Reply(text=item) if isinstance(item, str) else item

    # -- response bodies --------------------------------------------------------
    def models_body(self) -> JSON:
        entries: list[JSON] = []
        if self.list_models:
            for model in self.models.values():
                entry: JSON = {
                    "id": model.name,
                    "object": "model",
                    "created": 1_700_000_000,
                    "owned_by": "fake",
                }
                window = served_window(model)
                if self.max_model_len and window is not None:
                    entry["max_model_len"] = window
                entries.append(entry)
        return {"object": "list", "data": entries}

    def props_body(self) -> JSON:
        if self.props_top_level:
            return {"n_ctx": self.props_n_ctx, "build_info": self.build}
        return {
            "default_generation_settings": {"n_ctx": self.props_n_ctx, "temperature": 0.8},
            "total_slots": 1,
            "build_info": self.build,
        }


def _text_of(message: JSON) -> str:
    content = message.get("content", "")
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def _deltas(reply: Reply, serial: int) -> list[JSON]:
    """The streamed ``delta`` objects of a reply, before the finishing chunk; ``serial``
    numbers the request, so call ids differ across the requests of a turn."""
    pieces = split_text(reply.text, reply.chunk_size)
    deltas: list[JSON] = [  # reasoning apart, as llama.cpp's server streams it
        {"reasoning_content": piece} for piece in split_text(reply.thinking, reply.chunk_size)
    ]
    deltas += [{"content": piece} for piece in pieces]
    if deltas:  # the role comes with the first piece, so drop_after counts text pieces
        deltas[0] = {"role": "assistant", **deltas[0]}
    for index, (name, arguments) in enumerate(reply.tool_calls):
        call_id = f"call_{serial}_{index}"
        first = {"index": index, "id": call_id, "type": "function"}
        opening: JSON = {"tool_calls": [{**first, "function": {"name": name, "arguments": ""}}]}
        deltas.append({"role": "assistant", **opening} if not deltas else opening)
        text = json.dumps(dict(arguments))
        for start in range(0, len(text), ARGUMENT_PIECE):
            piece = text[start : start + ARGUMENT_PIECE]
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    return deltas


def _finish_reason(reply: Reply) -> str:
    if reply.done_reason == "length":
        return "length"
    return "tool_calls" if reply.tool_calls else "stop"


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeOpenAI) -> None:
        super().__init__(("127.0.0.1", fake.bind_port), _Handler)
        self.fake = fake


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = "fake-openai"
    sys_version = ""

    @property
    def fake(self) -> FakeOpenAI:
        assert isinstance(self.server, _Server)
        return self.server.fake

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    # -- plumbing --------------------------------------------------------------
    def _send_json(self, status: int, body: JSON) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str, kind: str) -> None:
        self._send_json(status, {"error": {"message": message, "type": kind, "code": status}})

    def _write_event(self, payload: str) -> None:
        data = f"data: {payload}\n\n".encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _abort(self) -> None:
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _read_json(self) -> tuple[JSON, bytes]:
        """The request's body, parsed, and its bytes as sent."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw or b"{}")
        return (body if isinstance(body, dict) else {"_": body}), raw

    def _authorized(self) -> bool:
        key = self.fake.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send_error(401, "Invalid API Key", "authentication_error")
        return False

    # -- routes ------------------------------------------------------------------
    def do_GET(self) -> None:
        self.fake._record(
            OpenAIRequest("GET", self.path, {}, {k.lower(): v for k, v in self.headers.items()})
        )
        if self.path == "/v1/models":
            if self._authorized():
                self._send_json(200, self.fake.models_body())
        elif self.path == "/props" and self.fake.props_n_ctx is not None:
            self._send_json(200, self.fake.props_body())
        else:
            self._send_error(404, "File Not Found", "not_found_error")

    def do_POST(self) -> None:
        body, raw = self._read_json()
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake._record(OpenAIRequest("POST", self.path, body, headers, raw))
        try:
            if self.path != "/v1/chat/completions":
                self._send_error(404, "File Not Found", "not_found_error")
            elif self._authorized():
                name = str(body.get("model") or "")
                if self.fake.find_model(name) is None:
                    self._send_error(404, f"The model `{name}` does not exist.", "NotFoundError")
                else:
                    self._chat(body, name)
        except OSError:  # client went away (timeout, cancelled stream, ...)
            self.close_connection = True

    def _chat(self, body: JSON, model: str) -> None:
        reply = self.fake._next_reply(body)
        if reply.status != 200:
            self._send_error(reply.status, reply.error, "server_error")
            return
        deltas = _deltas(reply, len(self.fake.chat_requests))
        prompt_tokens = reply.prompt_eval_count
        if prompt_tokens is None:
            prompt_tokens = rough_token_count([body.get("messages"), body.get("tools")])
        completion_tokens = reply.eval_count
        if completion_tokens is None:
            completion_tokens = max(1, len(deltas) - 1)
        usage: JSON = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        base: JSON = {"id": "chatcmpl-fake", "created": int(time.time()), "model": model}
        if body.get("stream") is not True:
            time.sleep(reply.delay_per_chunk * len(deltas))
            if reply.drop_after is not None:
                self._abort()
                return
            message: JSON = {"role": "assistant", "content": reply.text}
            if reply.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(dict(args))},
                    }
                    for i, (name, args) in enumerate(reply.tool_calls)
                ]
            choice = {"index": 0, "message": message, "finish_reason": _finish_reason(reply)}
            self._send_json(
                200, {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            )
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = {**base, "object": "chat.completion.chunk"}
        cut = reply.drop_after if reply.drop_after is not None else reply.end_after
        for index, delta in enumerate(deltas[:cut]):
            time.sleep(reply.delay_per_chunk)
            if index == 0 and self.fake.on_first_chunk is not None:
                self.fake.on_first_chunk()
            choice = {"index": 0, "delta": delta, "finish_reason": None}
            self._write_event(json.dumps({**chunk, "choices": [choice]}))
        if reply.drop_after is not None and reply.drop_after <= len(deltas):
            self._abort()  # no finishing chunk, no [DONE], no terminating zero-length chunk
            return
        if reply.end_after is None:  # else the stream just stops: no finish_reason, no [DONE]
            finish = {"index": 0, "delta": {}, "finish_reason": _finish_reason(reply)}
            self._write_event(json.dumps({**chunk, "choices": [finish]}))
            options = body.get("stream_options")
            if isinstance(options, dict) and options.get("include_usage"):
                self._write_event(json.dumps({**chunk, "choices": [], "usage": usage}))
            if self.fake.done_marker:
                self._write_event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
