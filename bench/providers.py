"""The two model clients side by side: what a send costs through each, on the loopback fakes.

For each provider (``ollama``: ``langchain-ollama`` on `FakeOllama`; ``openai``:
``langchain-openai`` on `FakeOpenAI`, SSE), time ``ChatService.send`` of a short message
answered with 60 streamed words: the first text piece and the whole send, medians and p95 over
``--sends`` sends in one session. Also the one-time costs in a fresh interpreter: importing the
client package, and building the first chat model. The fakes answer at once, so what is timed
is the client stack and the engine, not a model. Prints figures; asserts nothing.

    python bench/providers.py [--sends 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the loopback fakes live in tests/

from oncall_tui.core.events import ReplyDone, TokenDelta  # noqa: E402
from oncall_tui.services.container import Services  # noqa: E402
from oncall_tui.settings import Settings  # noqa: E402
from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI  # noqa: E402

MODEL = "llama3.1:8b"
REPLY = " ".join(f"word{i}" for i in range(60))
ONE_TIME = {
    "ollama": (
        "langchain_ollama",
        "from oncall_tui.llm.factory import build_chat_model as b; "
        "b('http://127.0.0.1:9', 'm', 8192, 10.0)",
    ),
    "openai": (
        "langchain_openai",
        "from oncall_tui.llm.openai_model import build_openai_chat_model as b; "
        "b('http://127.0.0.1:9/v1', 'm', 10.0)",
    ),
}


def one_time(provider: str) -> tuple[float, float]:
    """Milliseconds to import the client package, then to build the first model, in a fresh
    interpreter (the median of three)."""
    package, build = ONE_TIME[provider]
    code = (
        "import time; t = time.perf_counter(); "
        f"import {package}; i = time.perf_counter(); {build}; b_ = time.perf_counter(); "
        "print((i - t) * 1000, (b_ - i) * 1000)"
    )
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout.split()
        runs.append((float(out[0]), float(out[1])))
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


async def sends(provider: str, count: int) -> tuple[list[float], list[float]]:
    """Milliseconds to the first text piece and to the end, per send."""
    fake = FakeOpenAI if provider == "openai" else FakeOllama
    firsts: list[float] = []
    totals: list[float] = []
    with fake(models=[FakeModel(MODEL)]) as server, tempfile.TemporaryDirectory() as scratch:
        server.responder = lambda _body: Reply(REPLY, prompt_eval_count=500)
        where = {"base_url": server.url} if provider == "openai" else {"ollama_url": server.url}
        settings = Settings(
            db_path=Path(scratch) / "bench.db",
            user="bench",
            provider=provider,
            model=MODEL,
            **where,  # type: ignore[arg-type]  # one of the two addresses
        )
        services = Services(settings)
        session_id = services.sessions.create("bench").id
        for _ in range(count + 1):  # the first send warms the stack up: not counted
            start = time.perf_counter()
            first: float | None = None
            async for event in services.chat.send("bench", session_id, "status?"):
                if isinstance(event, TokenDelta) and first is None:
                    first = time.perf_counter()
                if isinstance(event, ReplyDone):
                    end = time.perf_counter()
            if first is not None:
                firsts.append((first - start) * 1000)
                totals.append((end - start) * 1000)
        services.close()
    return firsts[1:], totals[1:]


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(len(values) * 0.95) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sends", type=int, default=30)
    args = parser.parse_args()
    print(
        "| provider | import ms | first model ms | first piece median / p95 ms "
        "| whole send median / p95 ms |"
    )
    print("|---|---|---|---|---|")
    for provider in ("ollama", "openai"):
        imported, built = one_time(provider)
        firsts, totals = asyncio.run(sends(provider, args.sends))
        print(
            f"| {provider} | {imported:.0f} | {built:.0f} | "
            f"{statistics.median(firsts):.1f} / {p95(firsts):.1f} | "
            f"{statistics.median(totals):.1f} / {p95(totals):.1f} |"
        )


if __name__ == "__main__":
    main()
