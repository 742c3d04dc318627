"""The factory-built ChatOllama always sends num_ctx and gives up on a silent server."""

from __future__ import annotations

import time

import httpx
import pytest

from oncall_tui.llm.factory import build_chat_model, read_timeout_of
from tests.fakes import FakeOllama, Reply


@pytest.mark.asyncio
async def test_num_ctx_is_sent_on_every_chat_request(server: FakeOllama) -> None:
    model = build_chat_model(server.url, "qwen3:8b", num_ctx=6144, timeout=30)
    await model.ainvoke("first")
    _ = [chunk async for chunk in model.astream("second")]
    await model.ainvoke("third", stream=False)
    assert [r["options"]["num_ctx"] for r in server.chat_requests] == [6144, 6144, 6144]


def test_sync_calls_send_num_ctx_too(server: FakeOllama) -> None:
    build_chat_model(server.url, "qwen3:8b", num_ctx=2048, timeout=30).invoke("hi")
    assert server.chat_requests[0]["options"] == {"num_ctx": 2048}


@pytest.mark.asyncio
async def test_slow_server_fails_after_the_read_timeout(server: FakeOllama) -> None:
    server.script(Reply(text="a very slow reply", delay_per_chunk=4.0))
    model = build_chat_model(server.url, "qwen3:8b", num_ctx=2048, timeout=1.0)
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        await model.ainvoke("hi")
    assert time.monotonic() - started < 3.5  # well before the first piece would have come
    assert read_timeout_of(model) == 1.0


def test_read_timeout_of_a_model_without_one() -> None:
    assert read_timeout_of(object()) is None
