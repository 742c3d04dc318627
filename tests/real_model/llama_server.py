"""A real llama.cpp server for the tests that run a real model (``pytest -m real_model``).

The server is llama.cpp's own (``xllamacpp``: a prebuilt wheel of it, OpenAI-compatible API);
the model is one of :mod:`tests.real_model.models` (SmolLM2-135M-Instruct or
Qwen2.5-Coder-1.5B-Instruct), given as a :class:`Model`. It runs in a child process
(``python -m tests.real_model.llama_server MODEL_JSON``), never in the test process: the
native server keeps threads of its own, a crash in it cannot take pytest down, and its log
(llama.cpp writes to stderr) lands in a file the test reads.

The child listens on 127.0.0.1 and a port the system picks, says its address as one JSON line
on stdout once the model is loaded, and serves until its stdin closes; then it destroys the
server (which stops llama.cpp's loop and frees the port) and exits.
:meth:`LlamaServer.stop` closes that stdin, and kills the child only if it does not end.

What the log promises, read at verbosity 4: one ``new prompt, ... task.n_tokens = N`` line
per completion request, ``N`` being the whole prompt (cached tokens included), which is the
``usage.prompt_tokens`` the server reports for that request; and one ``print_timing`` block per
request with the prompt tokens it processed (the rest came from its prompt cache) and the
reply's, with their times. :meth:`LlamaServer.requests` reads both, request by request.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from tests.real_model.models import Model

MODEL_NAME = "smollm2-135m-instruct"
"""SmolLM2's name on the server (its alias; llama.cpp would otherwise use the file path)."""
WINDOW = 8192
"""The server's context length (``n_ctx``), which its ``/props`` reports."""
SEED = 17
"""A fixed sampling seed: the same requests get the same replies, run after run."""
REPLY_TOKENS = 96
"""SmolLM2's longest reply (the server's ``n_predict`` for a request that sets no limit): a
reply cut there ends with ``finish_reason: length``, which the engine stores as ``truncated``.
A model this small can ramble for hundreds of tokens, and nothing here reads what it says."""
START_TIMEOUT = 180.0
STOP_TIMEOUT = 30.0

_PROMPT = re.compile(r"new prompt, .*task\.n_tokens = (\d+)")
_TIMING = re.compile(r"\|\s+(prompt eval|eval) time =\s+([\d.]+) ms /\s+(\d+) tokens")
_REQUEST = re.compile(
    r"new prompt, .*task\.n_tokens = (?P<n_tokens>\d+)"
    r"|\|\s+prompt eval time =\s+(?P<prompt_ms>[\d.]+) ms /\s+(?P<prompt_n>\d+) tokens"
    r"|\|\s+eval time =\s+(?P<reply_ms>[\d.]+) ms /\s+(?P<reply_n>\d+) tokens"
)


@dataclass(frozen=True, slots=True)
class Request:
    """One completion request as the server's log tells it."""

    n_tokens: int
    """The whole prompt, cached tokens included (``usage.prompt_tokens``)."""
    prompt_n: int = 0
    """The prompt tokens the server processed for it (``timings.prompt_n``)."""
    prompt_ms: float = 0.0
    reply_n: int = 0
    reply_ms: float = 0.0

    @property
    def cache_n(self) -> int:
        """The prompt tokens served from the prompt cache (``timings.cache_n``)."""
        return self.n_tokens - self.prompt_n

    @property
    def cached_share(self) -> float:
        return self.cache_n / self.n_tokens if self.n_tokens else 0.0


@dataclass(frozen=True, slots=True)
class Throughput:
    """What the server's log says of its speed, summed over every request so far."""

    requests: int
    prompt_tokens: int
    prompt_seconds: float
    reply_tokens: int
    reply_seconds: float

    @property
    def prompt_per_second(self) -> float:
        return self.prompt_tokens / self.prompt_seconds if self.prompt_seconds else 0.0

    @property
    def reply_per_second(self) -> float:
        return self.reply_tokens / self.reply_seconds if self.reply_seconds else 0.0


class LlamaServer:
    """The child process serving the model; a context manager that stops it on exit.

    ``base_url`` is the OpenAI-compatible root (``http://127.0.0.1:PORT/v1``);
    ``load_seconds`` how long the child took from its start to a loaded model.
    """

    def __init__(self, model: Model, log_path: Path) -> None:
        self.model = model
        self.log_path = log_path
        self._log: IO[bytes] = log_path.open("wb")
        started = time.monotonic()
        config = json.dumps({**asdict(model), "path": str(model.path)})
        self._process = subprocess.Popen(  # the interpreter running the tests
            [sys.executable, "-m", "tests.real_model.llama_server", config],
            cwd=Path(__file__).resolve().parents[2],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        try:
            ready = self._ready_line()
        except BaseException:
            self.stop()
            raise
        self.url: str = ready["url"]
        self.load_seconds = time.monotonic() - started
        self.base_url = f"{self.url}/v1"

    def _ready_line(self) -> dict[str, str]:
        stdout = self._process.stdout
        if stdout is None:
            raise RuntimeError("the server's stdout is not a pipe")
        readable, _, _ = select.select([stdout], [], [], START_TIMEOUT)
        line = stdout.readline() if readable else b""
        if not line:
            raise RuntimeError(f"the llama.cpp server did not start; see {self.log_path}")
        document: dict[str, str] = json.loads(line)
        return document

    def prompt_counts(self) -> list[int]:
        """The whole prompt of every completion request so far, in order (the server's
        ``usage.prompt_tokens`` of each)."""
        return [int(m.group(1)) for m in _PROMPT.finditer(self._read_log())]

    def requests(self) -> list[Request]:
        """Every completion request so far, in order, with its prompt and reply counts and
        times (one slot: requests run one after another, so their log lines do not mix)."""
        found: list[Request] = []
        for match in _REQUEST.finditer(self._read_log()):
            if match["n_tokens"] is not None:
                found.append(Request(int(match["n_tokens"])))
            elif not found:
                continue
            elif match["prompt_n"] is not None:
                last = found[-1]
                found[-1] = Request(
                    last.n_tokens, int(match["prompt_n"]), float(match["prompt_ms"])
                )
            else:
                last = found[-1]
                found[-1] = Request(
                    last.n_tokens,
                    last.prompt_n,
                    last.prompt_ms,
                    int(match["reply_n"]),
                    float(match["reply_ms"]),
                )
        return found

    def throughput(self) -> Throughput:
        prompt_ms = reply_ms = 0.0
        prompt_n = reply_n = requests = 0
        for match in _TIMING.finditer(self._read_log()):
            kind, ms, tokens = match.group(1), float(match.group(2)), int(match.group(3))
            if kind == "prompt eval":
                prompt_ms, prompt_n, requests = prompt_ms + ms, prompt_n + tokens, requests + 1
            else:
                reply_ms, reply_n = reply_ms + ms, reply_n + tokens
        return Throughput(requests, prompt_n, prompt_ms / 1000, reply_n, reply_ms / 1000)

    def _read_log(self) -> str:
        self._log.flush()
        return self.log_path.read_text("utf-8", errors="replace")

    def stop(self) -> None:
        """Close the child's stdin (it stops the server and exits); kill it if it hangs."""
        process = self._process
        if process.stdin is not None and not process.stdin.closed:
            process.stdin.close()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        self._log.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def serve(config: str) -> None:
    """The child: load the model, say the address, serve until stdin closes."""
    import xllamacpp  # only here, in the child process

    model = json.loads(config)
    params = xllamacpp.CommonParams()
    params.model.path = model["path"]
    params.model_alias = {model["alias"]}
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, chosen by the system
    params.n_ctx = model["window"]
    params.n_parallel = 1
    # --jinja: the model's own chat template renders tool schemas and parses tool calls into
    # the response's tool_calls; without it the server's built-in template sees no tools.
    params.use_jinja = model["jinja"]
    params.sampling.seed = SEED
    params.sampling.temp = model["temperature"]
    params.verbosity = 4  # the log's per-request prompt counts
    params.n_predict = model["reply_tokens"]
    # One thread to generate, two for prompts: llama.cpp's threads wait for each other at
    # every layer, so on a busy machine (a test suite beside it) each extra thread that is
    # not scheduled stalls the rest; one generating thread stays near its full speed.
    params.cpuparams.n_threads = model["threads"]
    params.cpuparams_batch.n_threads = min(2, os.cpu_count() or 1)
    server = xllamacpp.Server(params)
    sys.stdout.write(json.dumps({"url": server.listening_address}) + "\n")
    sys.stdout.flush()
    sys.stdin.read()  # until the parent closes it (or dies)
    del server  # its destructor stops llama.cpp's loop and closes the socket


if __name__ == "__main__":
    serve(sys.argv[1])
