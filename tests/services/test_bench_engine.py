"""The engine-overhead bench times what it says: sends answered by its instant gateway."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from types import ModuleType

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from oncall_tui.services.container import Services
from oncall_tui.settings import Settings

BENCH = Path(__file__).resolve().parents[2] / "bench" / "engine_overhead.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("engine_overhead", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sends_are_answered_by_the_instant_gateway_not_a_model(tmp_path: Path) -> None:
    bench = load_bench()
    settings = Settings(db_path=tmp_path / "bench.db", user=bench.OWNER)
    # A model that would answer differently, and fail a second call: it must never be asked.
    model = FakeListChatModel(responses=["from the model"])
    services = Services(settings, gateway=bench.InstantGateway(model, window=131_072))
    try:
        session_id = bench.seed(services, 100, 10)
        timings = asyncio.run(bench.time_sends(services, session_id, 2))
        messages = services.sessions.messages(bench.OWNER, session_id)
    finally:
        services.close()
    assert len(timings) == 2
    replies = [message.content for message in messages[100:] if message.role == "assistant"]
    assert replies == ["Checked: the pod was OOMKilled; raise the memory limit."] * 2
