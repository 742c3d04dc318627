"""Concurrent writers on one session: is every message stored, and every reply kept?

Starts a loopback Ollama and ``--writers`` processes that each send ``--sends`` messages into
the same session through the real services and ``langchain-ollama`` client, as scripts and a
second terminal do. Then counts what the database holds against what the writers were told.
Prints figures; asserts nothing.

    python bench/concurrent_writers.py [--writers 8] [--sends 25]

Targets: no errors, no lost replies (a reply the writer received but the database lacks),
positions dense, each reply after its question.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from oncall_tui.core.events import (  # noqa: E402
    CompactionFailed,
    MemoryCompacted,
    ReplyDone,
    ReplyFailed,
    UserMessageStored,
)
from oncall_tui.errors import OncallError  # noqa: E402
from oncall_tui.services.container import Services  # noqa: E402
from oncall_tui.settings import Settings  # noqa: E402

if TYPE_CHECKING:  # the workers' processes never load the fake server
    from tests.fakes.ollama_server import FakeOllama

OWNER = "bench"


def settings(database: Path, url: str) -> Settings:
    return Settings(db_path=database, user=OWNER, ollama_url=url, model="qwen3:8b")


async def write(
    database: Path, url: str, session_id: int, name: str, sends: int
) -> dict[str, object]:
    """One writer: its sends, what it was told was stored, and the errors it met."""
    services = Services(settings(database, url))
    questions: list[int] = []
    replies: list[int] = []
    errors: list[str] = []
    compactions = {"stored": 0, "discarded": 0}
    try:
        for i in range(sends):
            try:
                async for event in services.chat.send(OWNER, session_id, f"{name} q{i}"):
                    if isinstance(event, UserMessageStored):
                        questions.append(event.message_id)
                    elif isinstance(event, ReplyDone):
                        replies.append(event.message_id)
                    elif isinstance(event, ReplyFailed):
                        errors.append(event.code)
                    elif isinstance(event, MemoryCompacted):
                        compactions["stored"] += 1
                    elif isinstance(event, CompactionFailed):
                        compactions["discarded"] += 1
            except OncallError as error:
                errors.append(error.code)
    finally:
        services.close()
    return {
        "questions": questions,
        "replies": replies,
        "errors": errors,
        "compactions": compactions,
    }


def serve() -> tuple[FakeOllama, str]:
    from tests.fakes.ollama_server import FakeOllama, Reply

    def echo(body: dict[str, object]) -> Reply:
        messages = body["messages"]
        assert isinstance(messages, list)
        question = [m for m in messages if m["role"] == "user"][-1]["content"]
        return Reply(f"answer to {question}", delay_per_chunk=0.002)

    server = FakeOllama(responder=echo).start()
    return server, server.url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--sends", type=int, default=25)
    parser.add_argument("--worker", nargs=4, metavar=("DB", "URL", "SESSION", "NAME"))
    args = parser.parse_args()
    if args.worker:
        logging.disable(logging.WARNING)  # the discarded compactions are counted, not printed
        database, url, session_id, name = args.worker
        report = asyncio.run(write(Path(database), url, int(session_id), name, args.sends))
        print(json.dumps(report))
        return

    server, url = serve()
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "oncall.db"
        services = Services(settings(database, url))
        session_id = services.sessions.create(OWNER, "shared").id
        started = time.monotonic()
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--sends",
                    str(args.sends),
                    "--worker",
                    str(database),
                    url,
                    str(session_id),
                    f"w{n}",
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(args.writers)
        ]
        reports = [json.loads(worker.communicate()[0]) for worker in workers]
        elapsed = time.monotonic() - started
        messages = services.sessions.messages(OWNER, session_id)
        services.close()
    server.stop()

    stored = {m.id: m for m in messages}
    told_questions = [i for r in reports for i in r["questions"]]
    told_replies = [i for r in reports for i in r["replies"]]
    errors = [e for r in reports for e in r["errors"]]
    position = {m.content: m.position for m in messages}
    misordered = sum(
        1
        for m in messages
        if m.role == "assistant"
        and position.get(m.content.removeprefix("answer to "), -1) > m.position
    )
    print(
        f"writers {args.writers} x sends {args.sends} = {args.writers * args.sends} sends, "
        f"{elapsed:.1f} s"
    )
    print(f"| user messages stored | {sum(m.role == 'user' for m in messages)} |")
    print(f"| replies stored | {sum(m.role == 'assistant' for m in messages)} |")
    print(f"| errors | {len(errors)} {sorted(set(errors))} |")
    print(f"| lost replies | {sum(1 for i in told_replies if i not in stored)} |")
    print(f"| lost questions | {sum(1 for i in told_questions if i not in stored)} |")
    print(f"| positions dense | {[m.position for m in messages] == list(range(len(messages)))} |")
    print(f"| replies before their question | {misordered} |")
    stored_compactions = sum(r["compactions"]["stored"] for r in reports)
    discarded = sum(r["compactions"]["discarded"] for r in reports)
    print(
        "| automatic compactions stored / discarded (overtaken) |"
        f" {stored_compactions} / {discarded} |"
    )


if __name__ == "__main__":
    main()
