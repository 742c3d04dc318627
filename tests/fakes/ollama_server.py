"""A loopback fake of the Ollama HTTP API for tests.

`FakeOllama` runs a stdlib `ThreadingHTTPServer` on 127.0.0.1 (random port) in a
daemon thread, so it serves both sync and async clients (the `ollama` package,
`langchain_ollama.ChatOllama`, plain httpx). It implements just enough of the wire
protocol: `GET /`, `GET /api/version`, `GET /api/tags`, `POST /api/show` and
`POST /api/chat` (NDJSON streaming over chunked transfer encoding, or a single
JSON object when the request has `"stream": false`).

Replies to `/api/chat` come from a FIFO script of `Reply` objects (a bare `str`
is shorthand for `Reply(text=...)`); when the script is empty the optional
`responder` callable is asked, else the server echoes the last user message.

    with FakeOllama() as server:
        server.script(Reply.tool_call("get_time", {}), "It is noon.")
        llm = ChatOllama(base_url=server.url, model="qwen3:8b")
        ...
        assert server.chat_requests[1]["messages"][-1]["role"] == "tool"

Every POST is recorded with its parsed body and the exact bytes the client sent
(`chat_raw_requests`): a test of the prompt cache compares requests byte for byte.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.loopback import LoopbackServer

__all__ = [
    "DEFAULT_MODELS",
    "FakeModel",
    "FakeOllama",
    "RecordedRequest",
    "Reply",
    "Responder",
    "rough_token_count",
    "split_text",
]

JSON = dict[str, Any]


def split_text(text: str, chunk_size: int | None = None) -> list[str]:
    """Split `text` per word (keeping trailing whitespace) or per `chunk_size` chars."""
    if chunk_size is None:
        return re.findall(r"\s*\S+\s*", text) or ([text] if text else [])
    return [text[i : i + chunk_size] for i in range(0, len(text), chunk_size)]


def rough_token_count(payload: Any) -> int:
    """A crude ~4-chars-per-token estimate of a JSON-able payload (at least 1)."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return max(1, len(text) // 4)


@dataclass(frozen=True)
class FakeModel:
    """One installed model as reported by `/api/tags` and `/api/show`.

    A field set to `None` is left out of the bodies, as an older or different server would:
    `capabilities=None` is an Ollama from before capabilities were reported, `context_length=None`
    a `model_info` without one. `show_status` makes `/api/show` answer that HTTP error for this
    model (`/api/chat` still works); `show_delay` makes it answer that many seconds late.
    `refuses_tools` makes `/api/chat` refuse a request with tools, whatever `/api/show` says
    (an Ollama too old to report capabilities, with a model whose template has no tools).
    """

    name: str
    family: str | None = "qwen3"
    parameter_size: str | None = "8.2B"
    quantization_level: str | None = "Q4_K_M"
    context_length: int | None = 40960
    num_ctx: int | None = None  # adds a `num_ctx` PARAMETER line to /api/show
    capabilities: tuple[str, ...] | None = ("completion", "tools")
    size: int | None = 5_225_388_164
    digest: str = "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41"
    modified_at: str = "2025-10-01T12:00:00.000000000+00:00"
    show_status: int = 200
    show_delay: float = 0.0
    refuses_tools: bool = False


DEFAULT_MODELS: tuple[FakeModel, ...] = (
    FakeModel("qwen3:8b"),
    FakeModel(
        "llama3.2:3b",
        family="llama",
        parameter_size="3.2B",
        context_length=131072,
        size=2_019_393_189,
        digest="a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
    ),
    FakeModel(
        "tiny:2k",
        family="llama",
        parameter_size="1.1B",
        context_length=2048,
        num_ctx=2048,
        size=637_700_138,
        digest="2af3b81862c6be03c769683af18efdadb2c33f60ff32ab6f83e42c043d6c7816",
    ),
    FakeModel(
        "gemma:2b",
        family="gemma",
        parameter_size="2.5B",
        context_length=8192,
        capabilities=("completion",),
        size=1_678_456_656,
        digest="b50d6c999e592ae4f79acae23b4feaefbdfceaa7cd366df2610e3072c052a160",
    ),
)
"""``tiny:2k`` has a 2,048-token window (its Modelfile sets ``num_ctx``); ``gemma:2b`` cannot
call tools: Ollama refuses a chat request that offers it any."""


@dataclass(frozen=True)
class Reply:
    """One scripted `/api/chat` reply.

    text: assistant content, streamed in pieces from `split_text(text, chunk_size)`.
    thinking: a thinking model's reasoning, streamed first, in pieces of the same size, in the
        `thinking` field that Ollama 0.9 and later use when the request sets no `think`.
    tool_calls: `(name, arguments)` pairs, sent in one message after the text.
    prompt_eval_count / eval_count: token counts in the done record (default: a
        rough estimate from the request / the reply).
    drop_after: stream this many chunks, then close the socket without the done
        record (for `stream: false`, close without any response).
    end_after: stream this many chunks, then end the response as a finished one ends (the
        closing zero-length chunk) but without the done record: a stream that just stops.
    delay_per_chunk: seconds to sleep before each chunk (slow server).
    status / error: when `status != 200`, answer `{"error": error}` with it.
    """

    text: str = ""
    thinking: str = ""
    tool_calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    chunk_size: int | None = None
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    done_reason: str = "stop"
    drop_after: int | None = None
    end_after: int | None = None
    delay_per_chunk: float = 0.0
    status: int = 200
    error: str = "internal server error"

    @classmethod
    def tool_call(cls, name: str, arguments: Mapping[str, Any], **kw: Any) -> Reply:
        """A reply consisting of a single tool call."""
        return cls(tool_calls=((name, arguments),), **kw)

    @classmethod
    def failure(cls, status: int = 500, error: str = "internal server error") -> Reply:
        """An HTTP error reply with Ollama's `{"error": ...}` body."""
        return cls(status=status, error=error)


Responder = Callable[[JSON], Reply | str]


@dataclass(frozen=True)
class RecordedRequest:
    """A POST the server received: path, parsed JSON body and the body's bytes as sent."""

    path: str
    body: JSON
    raw: bytes = b""


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class FakeOllama(LoopbackServer[Reply | str]):
    """Fake Ollama server; use as a context manager or call `start()`/`stop()`."""

    thread_name = "fake-ollama"

    def __init__(
        self,
        models: Iterable[FakeModel | str] = DEFAULT_MODELS,
        replies: Iterable[Reply | str] = (),
        responder: Responder | None = None,
        version: str = "0.12.6",
    ) -> None:
        super().__init__(replies)
        self.models: dict[str, FakeModel] = {}
        for m in models:
            model = m if isinstance(m, FakeModel) else FakeModel(m)
            self.models[model.name] = model
        self.responder = responder
        self.version = version
        self.on_first_chunk: Callable[[], None] | None = None
        """Called as the first streamed chunk of each reply is written (benches time it)."""
        self.show_gate: threading.Event | None = None
        """When set to an event, every `/api/show` waits for it (at most 10 s) before answering:
        a test sees what a client does before the details come."""
        self.tags_gate: threading.Event | None = None
        """The same for `/api/tags`: a test sees what a client does before the list comes."""
        self.requests: list[RecordedRequest] = []

    def make_server(self) -> ThreadingHTTPServer:
        return _Server(self)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def chat_requests(self) -> list[JSON]:
        """Bodies of all `/api/chat` requests so far, in order."""
        with self._lock:
            return [r.body for r in self.requests if r.path == "/api/chat"]

    @property
    def chat_raw_requests(self) -> list[bytes]:
        """The bytes of all `/api/chat` request bodies so far, exactly as sent, in order."""
        with self._lock:
            return [r.raw for r in self.requests if r.path == "/api/chat"]

    def find_model(self, name: str) -> FakeModel | None:
        """Look up a model like Ollama does (`qwen3` means `qwen3:latest`)."""
        return self.models.get(name) or self.models.get(f"{name}:latest")

    def _record(self, path: str, body: JSON, raw: bytes = b"") -> None:
        with self._lock:
            self.requests.append(RecordedRequest(path, body, raw))

    def _next_reply(self, body: JSON) -> Reply:
        with self._lock:
            item = self._script.popleft() if self._script else None
        if item is None and self.responder is not None:
            item = self.responder(body)
        if item is None:
            users = [m for m in body.get("messages", []) if m.get("role") == "user"]
            item = f"echo: {users[-1].get('content', '')}" if users else "echo"
        return Reply(text=item) if isinstance(item, str) else item

    # -- response bodies --------------------------------------------------------
    def tags_body(self) -> JSON:
        return {"models": [_tag_entry(m) for m in self.models.values()]}

    def show_body(self, model: FakeModel) -> JSON:
        params: list[tuple[str, Any]] = [("temperature", 0.6), ("top_k", 20)]
        if model.num_ctx is not None:
            params.append(("num_ctx", model.num_ctx))
        parameters = "\n".join(f"{k:<30} {v}" for k, v in params)
        modelfile = f'# Modelfile generated by "ollama show"\nFROM {model.name}\n' + "".join(
            f"PARAMETER {k} {v}\n" for k, v in params
        )
        arch = model.family or "llama"
        model_info: JSON = {
            "general.architecture": arch,
            "general.parameter_count": 8_190_735_360,
            f"{arch}.embedding_length": 4096,
        }
        if model.context_length is not None:
            model_info[f"{arch}.context_length"] = model.context_length
        body: JSON = {
            "license": "Apache License 2.0",
            "modelfile": modelfile,
            "parameters": parameters,
            "template": "{{ .Prompt }}",
            "details": _details(model),
            "model_info": model_info,
            "modified_at": model.modified_at,
        }
        if model.capabilities is not None:
            body["capabilities"] = list(model.capabilities)
        return body


def _details(model: FakeModel) -> JSON:
    details: JSON = {"parent_model": "", "format": "gguf"}
    if model.family is not None:
        details["family"] = model.family
        details["families"] = [model.family]
    if model.parameter_size is not None:
        details["parameter_size"] = model.parameter_size
    if model.quantization_level is not None:
        details["quantization_level"] = model.quantization_level
    return details


def _tag_entry(model: FakeModel) -> JSON:
    entry: JSON = {
        "name": model.name,
        "model": model.name,
        "modified_at": model.modified_at,
        "digest": model.digest,
        "details": _details(model),
    }
    if model.size is not None:
        entry["size"] = model.size
    return entry


def _chat_messages(reply: Reply) -> list[JSON]:
    """The streamed `message` objects of a reply (without the final done record)."""
    messages: list[JSON] = [
        {"role": "assistant", "content": "", "thinking": piece}
        for piece in split_text(reply.thinking, reply.chunk_size)
        if piece
    ]
    messages += [
        {"role": "assistant", "content": piece}
        for piece in split_text(reply.text, reply.chunk_size)
    ]
    if reply.tool_calls:
        calls = [
            {"function": {"index": i, "name": name, "arguments": dict(args)}}
            for i, (name, args) in enumerate(reply.tool_calls)
        ]
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
    return messages


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # never wait for slow/hung handlers on shutdown

    def __init__(self, fake: FakeOllama) -> None:
        super().__init__(("127.0.0.1", fake.bind_port), _Handler)
        self.fake = fake


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive + chunked streaming like Ollama
    disable_nagle_algorithm = True
    """TCP_NODELAY, as Go's servers (Ollama's) set by default: without it a body written after
    its headers waits for the client's delayed ACK, about 40 ms a response on a kept-alive
    connection."""

    @property
    def fake(self) -> FakeOllama:
        assert isinstance(self.server, _Server)
        return self.server.fake

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    # -- plumbing --------------------------------------------------------------
    def _send_json(self, status: int, body: JSON) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _write_chunk(self, obj: JSON) -> None:
        data = json.dumps(obj).encode() + b"\n"
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

    # -- routes ------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path in ("/", ""):
            data = b"Ollama is running"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif self.path == "/api/version":
            self._send_json(200, {"version": self.fake.version})
        elif self.path == "/api/tags":
            if (gate := self.fake.tags_gate) is not None:
                gate.wait(10)
            self._send_json(200, self.fake.tags_body())
        else:
            self._send_json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:
        body, raw = self._read_json()
        self.fake._record(self.path, body, raw)
        name = str(body.get("model") or body.get("name") or "")
        model = self.fake.find_model(name)
        try:
            if self.path == "/api/show":
                if (gate := self.fake.show_gate) is not None:
                    gate.wait(10)
                if model is not None and model.show_delay:
                    time.sleep(model.show_delay)
                if model is None:
                    self._send_json(404, {"error": f"model '{name}' not found"})
                elif model.show_status != 200:
                    self._send_json(model.show_status, {"error": "internal server error"})
                else:
                    self._send_json(200, self.fake.show_body(model))
            elif self.path == "/api/chat":
                if model is None:
                    msg = f'model "{name}" not found, try pulling it first'
                    self._send_json(404, {"error": msg})
                elif body.get("tools") and (
                    model.refuses_tools or "tools" not in (model.capabilities or ("tools",))
                ):
                    # a server that reports no capabilities does not check them either
                    msg = f"registry.ollama.ai/library/{name} does not support tools"
                    self._send_json(400, {"error": msg})
                else:
                    self._chat(body, name)
            else:
                self._send_json(404, {"error": "404 page not found"})
        except OSError:  # client went away (timeout, cancelled stream, ...)
            self.close_connection = True

    def _chat(self, body: JSON, model: str) -> None:
        reply = self.fake._next_reply(body)
        if reply.status != 200:
            self._send_json(reply.status, {"error": reply.error})
            return
        messages = _chat_messages(reply)
        prompt_tokens = reply.prompt_eval_count
        if prompt_tokens is None:
            prompt_tokens = rough_token_count([body.get("messages"), body.get("tools")])
        eval_count = reply.eval_count
        if eval_count is None:
            eval_count = max(1, len(messages))
        done: JSON = {
            "model": model,
            "created_at": _now(),
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": reply.done_reason,
            "total_duration": 1_234_567_890,
            "load_duration": 12_345_678,
            "prompt_eval_count": prompt_tokens,
            "prompt_eval_duration": 123_456_789,
            "eval_count": eval_count,
            "eval_duration": 987_654_321,
        }
        if body.get("stream", True) is False:
            time.sleep(reply.delay_per_chunk * len(messages))
            if reply.drop_after is not None:
                self._abort()
                return
            full: JSON = {"role": "assistant", "content": reply.text}
            if calls := [m["tool_calls"] for m in messages if "tool_calls" in m]:
                full["tool_calls"] = calls[0]
            self._send_json(200, {**done, "message": full})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        cut = reply.drop_after if reply.drop_after is not None else reply.end_after
        for index, message in enumerate(messages[:cut]):
            time.sleep(reply.delay_per_chunk)
            if index == 0 and self.fake.on_first_chunk is not None:
                self.fake.on_first_chunk()
            self._write_chunk(
                {"model": model, "created_at": _now(), "message": message, "done": False}
            )
        if reply.drop_after is not None and reply.drop_after <= len(messages):
            self._abort()  # no done record, no terminating zero-length chunk
            return
        if reply.end_after is None:  # else the stream just stops: no done record
            self._write_chunk({**done, "created_at": _now()})
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
