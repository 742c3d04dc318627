"""The agent host's child process: ``python -m oncall_tui.llm.host_process``.

It reads requests from stdin, one JSON object per line, and answers on stdout the same way;
every answer carries the ``id`` of its turn. Requests:

- ``{"op": "turn", "id", "url", "model", "num_ctx", "timeout", "deadline", "turn"}`` runs a
  turn;
- ``{"op": "cancel", "id"}`` cancels one.

A turn answers with its items (``token``, ``tool_start``, ``tool_end``, ``usage``), at most one
``error`` (a catalogued :class:`OncallError`), and always ends with ``end``. Text pieces are
joined for up to :data:`TOKEN_SECONDS`, so a fast model costs the parent one line per tick
rather than one per token. The process ends when stdin closes, so it never outlives its parent.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, BinaryIO

from oncall_tui.core.events import TokenDelta
from oncall_tui.core.joining import TextJoiner
from oncall_tui.errors import OncallError
from oncall_tui.llm.agent import run_turn
from oncall_tui.llm.factory import build_chat_model
from oncall_tui.llm.host import NICENESS
from oncall_tui.llm.turn import Turn, error_to_json, item_to_json

TOKEN_SECONDS = 0.02
LINE_LIMIT = 1 << 26
"""A request holds a whole history and the selected skills: lines far past asyncio's 64 KiB."""

Write = Callable[[dict[str, object]], None]


async def serve(requests: asyncio.StreamReader, write: Write) -> None:
    """Run turns until ``requests`` ends; then cancel what still runs."""
    running: dict[int, asyncio.Task[None]] = {}
    while line := await requests.readline():
        request = json.loads(line)
        turn_id = int(request["id"])
        if request["op"] == "turn":
            running[turn_id] = asyncio.create_task(_turn(turn_id, request, write))
            running[turn_id].add_done_callback(partial(_forget, running, turn_id))
        elif request["op"] == "cancel" and turn_id in running:
            running[turn_id].cancel()
    for task in list(running.values()):
        task.cancel()
    await asyncio.gather(*running.values(), return_exceptions=True)


def _forget(running: dict[int, asyncio.Task[None]], turn_id: int, _: object) -> None:
    running.pop(turn_id, None)


async def _turn(turn_id: int, request: Mapping[str, Any], write: Write) -> None:
    def emit(document: dict[str, object]) -> None:
        write({"id": turn_id, **document})

    def flush() -> None:
        if text := joiner.take():
            emit(TokenDelta(text).to_json())

    joiner = TextJoiner(TOKEN_SECONDS, flush)
    try:
        url, name = str(request["url"]), str(request["model"])
        model = build_chat_model(url, name, int(request["num_ctx"]), float(request["timeout"]))
        turn = Turn.from_json(request["turn"])
        deadline = float(request["deadline"])
        async for item in run_turn(model, turn, url=url, model_name=name, deadline=deadline):
            if isinstance(item, TokenDelta):
                joiner.add(item.text)
                continue
            flush()
            emit(item_to_json(item))
    except OncallError as error:
        flush()
        emit(error_to_json(error))
    except asyncio.CancelledError:
        flush()
        emit({"type": "end", "cancelled": True})
        return
    except Exception as exc:  # a fault here must end the turn, not leave the parent waiting
        flush()
        problem = f"{type(exc).__name__}: {exc}"[:200]
        emit(error_to_json(OncallError("STREAM_FAILED", "engine_error", problem=problem)))
    flush()
    emit({"type": "end"})


def _writer(stream: BinaryIO) -> Write:
    def write(document: dict[str, object]) -> None:
        stream.write(json.dumps(document, ensure_ascii=False).encode() + b"\n")
        stream.flush()

    return write


async def _main(out: BinaryIO) -> None:
    loop = asyncio.get_running_loop()
    requests = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(requests), sys.stdin)
    await serve(requests, _writer(out))


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a turn stops
    os.nice(NICENESS)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not break the wire
    asyncio.run(_main(out))


if __name__ == "__main__":
    main()
