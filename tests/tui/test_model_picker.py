"""The model picker (f5) against the loopback Ollama: what each model is, which one is in use,
the list before the details, and Enter/Esc."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Label, OptionList

from oncall_tui.services.views import ModelInfo
from oncall_tui.settings import Settings
from oncall_tui.texts import text
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.screens import models as models_screen
from oncall_tui.tui.screens.models import (
    ModelPicker,
    human_size,
    model_facts,
    model_prompt,
    token_count,
)
from tests.conftest import ollama_at, port_outside_the_ephemeral_range
from tests.fakes.ollama_server import DEFAULT_MODELS, FakeModel, FakeOllama
from tests.tui.harness import keys_in_one_read, screen_rows, spy, wait_until

QWEN_FACTS = "8.2B qwen3 · Q4_K_M · 5.2 GB · 40k ctx, uses 8k"
GEMMA_FACTS = "2.5B gemma · Q4_K_M · 1.7 GB · 8k ctx · no tools"
TINY_FACTS = "1.1B llama · Q4_K_M · 638 MB · 2k ctx"


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


def app_on(server_url: str, tmp_path: Path, model: str = "qwen3:8b") -> OncallApp:
    settings = Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=server_url, model=model)
    return build_app(settings)


def rows(app: OncallApp) -> list[str]:
    """The terminal's rows as text."""
    return screen_rows(app)


def picker(app: OncallApp) -> ModelPicker:
    screen = app.screen
    assert isinstance(screen, ModelPicker)
    return screen


def note(app: OncallApp) -> str:
    label = picker(app).query_one("#model-note", Label)
    return str(label.render()) if label.display else ""


async def open_picker(app: OncallApp, pilot: Pilot[None], *, described: bool = True) -> None:
    await pilot.press("f5")
    await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
    screen = picker(app)
    await wait_until(pilot, lambda: bool(screen.models))
    if described:
        await wait_until(pilot, lambda: "Reading" not in note(app))
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_each_model_shows_what_it_is_and_fits_the_screen(
    server: FakeOllama, tmp_path: Path, size: tuple[int, int]
) -> None:
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=size) as pilot:
        await open_picker(app, pilot)
        shown = rows(app)
        for facts in (QWEN_FACTS, TINY_FACTS, GEMMA_FACTS):
            assert any(facts in row for row in shown), (facts, shown)
        assert sum(row.count("no tools") for row in shown) == 1
        dialog = picker(app).query_one("#model-dialog")
        assert dialog.region.right <= size[0]
        assert dialog.region.bottom <= size[1]
        assert note(app) == ""


async def test_the_title_names_the_server_and_the_current_model_whole_on_a_narrow_screen(
    server: FakeOllama, tmp_path: Path
) -> None:
    """At 60 columns it was cut: "Models on http://127.0.0.1:PORT (current: qwen3"."""
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=(60, 20)) as pilot:
        await open_picker(app, pilot)
        shown = rows(app)  # what the terminal shows; the dialog's, between its edges
        at = next(i for i, row in enumerate(shown) if "Models on" in row)
        inside = [row[row.index("█") + 1 : row.rindex("█")] for row in shown[at : at + 2]]
        title = " ".join(row.strip() for row in inside)
        assert title == f"Models on {server.url} (current: qwen3:8b)", shown


async def test_the_current_model_is_marked_and_highlighted_when_set_without_its_tag(
    tmp_path: Path,
) -> None:
    with FakeOllama(models=["llama3.1:8b", "qwen3:latest"]) as server:
        app = app_on(server.url, tmp_path, model="qwen3")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_picker(app, pilot)
            assert picker(app).query_one(OptionList).highlighted == 1
            shown = rows(app)
            assert any("● qwen3:latest  (current)" in row for row in shown), shown
            assert any("   llama3.1:8b" in row for row in shown)
            assert sum(row.count("●") for row in shown) == 1


async def test_a_configured_model_not_pulled_is_said_and_the_cursor_is_on_the_first_model(
    tmp_path: Path,
) -> None:
    """First start with a model the server lacks: Enter picks the first model at once."""
    with FakeOllama(models=[m for m in DEFAULT_MODELS if m.name != "qwen3:8b"]) as server:
        app = app_on(server.url, tmp_path, model="qwen3:8b")
        async with app.run_test(size=(80, 24)) as pilot:
            await open_picker(app, pilot)
            assert picker(app).query_one(OptionList).highlighted == 0
            said = note(app)
            assert "qwen3:8b" in said
            assert "not installed" in said
            assert "ollama pull qwen3:8b" in said
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.services.settings.model == "llama3.2:3b")
            assert not isinstance(app.screen, ModelPicker)


async def test_enter_on_the_current_model_under_its_other_name_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOllama(models=["llama3.1:8b", "qwen3:latest"]) as server:
        app = app_on(server.url, tmp_path, model="qwen3")
        async with app.run_test(size=(80, 24)) as pilot:
            switches = spy(monkeypatch, app.services, "use_model")
            await open_picker(app, pilot)
            await pilot.press("enter")
            await wait_until(pilot, lambda: not isinstance(app.screen, ModelPicker))
            assert switches == []
            assert app.services.settings.model == "qwen3"


async def test_enter_picks_the_highlighted_model(server: FakeOllama, tmp_path: Path) -> None:
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_picker(app, pilot)
        await pilot.press("down", "down", "down", "enter")
        await wait_until(pilot, lambda: app.services.settings.model == "gemma:2b")
        assert not isinstance(app.screen, ModelPicker)


async def test_keys_typed_behind_f5_wait_for_the_list_then_pick_and_send(
    server: FakeOllama, tmp_path: Path
) -> None:
    """Found in tmux: f5, ↓, Enter and a message in one burst. The ↓ and Enter reached the
    picker before its list came, and went nowhere, and so did the message typed after them."""
    server.tags_gate = threading.Event()
    server.script("hello")
    app = app_on(server.url, tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            keys_in_one_read(app, "f5", "down", "enter", *"hi", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
            await pilot.pause(0.2)
            assert picker(app).models == []  # the list has not come: the keys wait
            server.tags_gate.set()
            await wait_until(pilot, lambda: app.services.settings.model == "llama3.2:3b")
            await wait_until(pilot, lambda: bool(server.chat_requests))
            request = server.chat_requests[-1]
            assert (request["model"], request["messages"][-1]["content"]) == ("llama3.2:3b", "hi")
    finally:
        server.tags_gate.set()


async def test_esc_keeps_the_current_model(server: FakeOllama, tmp_path: Path) -> None:
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_picker(app, pilot)
        await pilot.press("down", "escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ModelPicker))
        assert app.services.settings.model == "qwen3:8b"


async def test_the_list_comes_first_and_the_details_fill_in_where_the_cursor_is(
    server: FakeOllama, tmp_path: Path
) -> None:
    server.show_gate = threading.Event()
    app = app_on(server.url, tmp_path)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await open_picker(app, pilot, described=False)
            assert note(app) == text("models.reading", "en")
            shown = rows(app)
            assert any("8.2B qwen3 · Q4_K_M · 5.2 GB" in row for row in shown)
            assert not any("ctx" in row or "no tools" in row for row in shown)
            await pilot.press("down")
            server.show_gate.set()
            await wait_until(pilot, lambda: all(m.described for m in picker(app).models))
            await pilot.pause()
            assert picker(app).query_one(OptionList).highlighted == 1
            shown = rows(app)
            assert any(GEMMA_FACTS in row for row in shown)
            assert note(app) == ""
    finally:
        server.show_gate.set()


async def test_a_model_without_details_is_listed_and_the_note_says_so(tmp_path: Path) -> None:
    broken = FakeModel("llama3.2:3b", family="llama", parameter_size="3.2B", show_status=500)
    with FakeOllama(models=[DEFAULT_MODELS[0], broken]) as server:
        app = app_on(server.url, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_picker(app, pilot)
            shown = rows(app)
            assert any("3.2B llama · Q4_K_M · 5.2 GB " in row for row in shown)
            assert any(QWEN_FACTS in row for row in shown)
            assert "no details for 1 model" in note(app)


async def test_ollama_down_the_picker_says_so_and_lists_once_it_is_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ollama serve` run in another pane while the picker says it does not answer: the
    models show without closing it (asked again every few seconds; here, a tenth)."""
    monkeypatch.setattr(models_screen, "RECHECK_SECONDS", 0.1)
    port = port_outside_the_ephemeral_range()
    url = f"http://127.0.0.1:{port}"
    app = app_on(url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
        await wait_until(pilot, lambda: url in note(app))
        assert "not reachable" in note(app)
        assert picker(app).query_one(OptionList).option_count == 0
        with ollama_at(port):
            await wait_until(pilot, lambda: bool(picker(app).models))
            highlighted = picker(app).query_one(OptionList).highlighted_option
            assert highlighted is not None
            assert highlighted.id == "qwen3:8b"


async def test_no_models_says_how_to_pull_one_and_lists_the_one_pulled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(models_screen, "RECHECK_SECONDS", 0.1)
    with FakeOllama(models=[]) as server:
        app = app_on(server.url, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f5")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
            await wait_until(pilot, lambda: "ollama pull" in note(app))
            server.models["qwen3:8b"] = DEFAULT_MODELS[0]  # `ollama pull qwen3:8b`
            await wait_until(pilot, lambda: [m.name for m in picker(app).models] == ["qwen3:8b"])


# -- one model's lines, without the app ----------------------------------------------------------

LISTED = ModelInfo(
    name="qwen3:8b",
    size_bytes=5_225_388_164,
    family="qwen3",
    parameter_size="8.2B",
    quantization_level="Q4_K_M",
    modified_at=None,
)


def test_facts_leave_out_what_the_server_did_not_say() -> None:
    bare = ModelInfo("bare:1b", None, None, None, None, None)
    assert model_facts(bare, "en") == []
    assert model_facts(LISTED, "en") == ["8.2B qwen3", "Q4_K_M", "5.2 GB"]
    family_only = ModelInfo("f:1b", None, "llama", None, None, None)
    assert model_facts(family_only, "en") == ["llama"]


def test_the_window_used_is_said_only_when_it_differs() -> None:
    same = replace(LISTED, context_length=2048, window_tokens=2048)
    capped = replace(LISTED, context_length=131072, window_tokens=8192)
    assert model_facts(same, "en")[-1] == "2k ctx"
    assert model_facts(capped, "en")[-1] == "128k ctx, uses 8k"
    assert model_facts(capped, "zh")[-1] == "128k 上下文，使用 8k"


def test_no_tools_only_when_the_capabilities_lack_them() -> None:
    def text(tools: bool | None) -> str:
        return str(model_prompt(replace(LISTED, tools=tools), current=False, lang="en"))

    assert text(False).endswith(" · no tools")
    assert "no tools" not in text(True)
    assert "no tools" not in text(None)  # an older Ollama: unknown, not "no"


def test_current_and_no_tools_are_said_in_the_users_language() -> None:
    """They were English in a Chinese picker (found at 60x20 in tmux)."""
    text = str(model_prompt(replace(LISTED, tools=False), current=True, lang="zh"))
    assert "（当前）" in text
    assert text.endswith(" · 不支持工具")
    assert "current" not in text
    assert "no tools" not in text


def test_a_name_with_control_characters_is_drawn_inert() -> None:
    hostile = replace(LISTED, name="evil\x1b[2J:7b", family="x\x07")
    text = str(model_prompt(hostile, current=True, lang="en"))
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "● evil␛[2J:7b  (current)" in text


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (999, "999 B"),
        (1000, "1.0 KB"),
        (999_499, "999 KB"),
        (999_500, "1.0 MB"),
        (9_940_000_000, "9.9 GB"),
        (9_960_000_000, "10 GB"),
        (637_700_138, "638 MB"),
        (5_225_388_164, "5.2 GB"),
    ],
)
def test_sizes_are_written_as_ollama_list_writes_them(size: int, shown: str) -> None:
    assert human_size(size) == shown


@pytest.mark.parametrize(
    ("tokens", "shown"),
    [
        (1023, "1023"),
        (1024, "1k"),
        (1536, "1.5k"),
        (10188, "9.9k"),
        (10189, "10k"),
        (100_000, "98k"),
        (131_072, "128k"),
        (1_048_575, "1024k"),
        (1_048_576, "1M"),
    ],
)
def test_context_lengths_are_written_in_k(tokens: int, shown: str) -> None:
    assert token_count(tokens) == shown


async def test_typing_a_name_moves_the_cursor_to_it(
    server: FakeOllama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """qwen3:8b, llama3.2:3b, tiny:2k, gemma:2b: letters typed together make one name; after
    a pause a new one starts; a name that begins nowhere is looked for inside the names."""
    now = [1000.0]
    monkeypatch.setattr("oncall_tui.tui.screens.models.monotonic", lambda: now[0])
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_picker(app, pilot)
        options = picker(app).query_one(OptionList)
        assert options.highlighted == 0
        await pilot.press("g")
        assert options.highlighted == 3
        now[0] += 0.5
        await pilot.press("t")  # "gt": no name has it, the cursor stays
        assert options.highlighted == 3
        now[0] += 1.0  # a pause: a new name
        await pilot.press("t", "i")
        assert options.highlighted == 2
        now[0] += 1.0
        await pilot.press("3", ".")  # in no name's beginning: inside llama3.2:3b
        assert options.highlighted == 1
        now[0] += 1.0
        await pilot.press("Q")
        assert options.highlighted == 0


async def test_f5_a_name_and_enter_in_one_burst_pick_that_model(
    server: FakeOllama, tmp_path: Path
) -> None:
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        keys_in_one_read(app, "f5", "l", "l", "enter")
        await wait_until(pilot, lambda: app.services.settings.model == "llama3.2:3b")
        assert not isinstance(app.screen, ModelPicker)


@pytest.mark.parametrize("chorded", [True, False])
async def test_esc_and_a_word_typed_at_once_close_the_picker_and_the_word_is_the_message(
    server: FakeOllama, tmp_path: Path, chorded: bool
) -> None:
    """Found in tmux: f5, then Esc and "tiny pods?" typed at once. A terminal sends alt+t as
    ESC and ``t``, so Esc and the ``t`` behind it read as alt+t, which nothing takes: the
    picker stayed open, the rest of the words went to its filter, and the Enter chose
    tiny:2k. Alt+t in one read (``chorded``: no character) or Esc and ``t`` in two (Textual's
    alt+t with its character) are Esc, then ``t``."""
    server.script("hello")
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_picker(app, pilot)
        alt_t = events.Key("alt+t", None if chorded else "t")
        app.post_message(alt_t)
        keys_in_one_read(app, *"iny pods?", "enter")
        await wait_until(pilot, lambda: bool(server.chat_requests))
        request = server.chat_requests[-1]
        assert (request["model"], request["messages"][-1]["content"]) == ("qwen3:8b", "tiny pods?")
        assert app.services.settings.model == "qwen3:8b"


async def test_replies_by_another_model_than_the_one_in_use_name_it(
    server: FakeOllama, tmp_path: Path
) -> None:
    """An engineer moved to a bigger model mid-incident: which answers came from the small
    one is said in their headers (and kept when the session is reopened), the one in use
    names none, and a copied reply names its model whichever it is."""
    from oncall_tui.tui.chat_log import ChatLog

    server.script("Roll back 1.42.0.", "The pool is at 100/100.")
    app = app_on(server.url, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.screen.query_one(ChatLog)
        await pilot.press(*"p99 up", "enter")
        await wait_until(pilot, lambda: [m.status for m in log.messages] == ["complete"] * 2)
        first = log.messages[1]
        assert (first.model, first.names_model) == ("qwen3:8b", False)
        assert "qwen3" not in first.header

        await open_picker(app, pilot)
        await pilot.press("down", "down", "down", "enter")  # gemma:2b
        await wait_until(pilot, lambda: first.names_model)
        assert first.header.endswith(" · qwen3:8b")
        await wait_until(pilot, lambda: any(" · qwen3:8b" in row for row in rows(app)))

        await pilot.press(*"db?", "enter")
        await wait_until(pilot, lambda: [m.status for m in log.messages] == ["complete"] * 4)
        second = log.messages[3]
        assert (second.model, second.names_model) == ("gemma:2b", False)
        log.focus()
        await pilot.press("c")  # the newest reply, by the model in use, is copied with it
        assert app.clipboard.split("\n")[0].endswith("assistant · gemma:2b")

    app = app_on(server.url, tmp_path, model="gemma:2b")
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.screen.query_one(ChatLog)
        await pilot.press("alt+l", "enter")  # the session, reopened
        await wait_until(pilot, lambda: len(log.messages) == 4)
        assert [m.names_model for m in log.messages] == [False, True, False, False]
        await open_picker(app, pilot)
        await pilot.press("up", "up", "up", "enter")  # back to qwen3:8b
        await wait_until(pilot, lambda: log.messages[3].names_model)
        assert not log.messages[1].names_model
        assert log.messages[3].header.endswith(" · gemma:2b")
