"""First start: what to do, where the example skills are, and whether Ollama is ready."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from oncall_tui.core.examples import skills_examples_path
from oncall_tui.errors import Language
from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.panes import chat as chat_pane
from oncall_tui.tui.panes import server as server_pane
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.status_line import StatusLine
from oncall_tui.tui.widgets.welcome import Welcome
from tests.conftest import ollama_at, port_outside_the_ephemeral_range
from tests.fakes.chat_model import Turn
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.tui.harness import scripted_app, seed_session, sessions_read_late, wait_until
from tests.tui.test_ollama_and_palette import closed_port_url, panel_model_text

SIZE = (120, 36)


def focusable(log: ChatLog) -> bool:
    return log.can_focus


def shown(welcome: Welcome) -> str:
    lines = welcome.render_lines(welcome.region.reset_offset)
    return "\n".join(line.text for line in lines)


def test_the_bundled_examples_are_found() -> None:
    path = skills_examples_path()
    assert path is not None
    assert (path / "log-analysis" / "SKILL.md").is_file()


async def test_first_start_says_what_to_do_and_that_ollama_and_the_model_are_ready(
    tmp_path: Path,
) -> None:
    with FakeOllama() as server:
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", ollama_url=server.url, model="qwen3:8b"
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            welcome = app.screen.query_one(Welcome)
            await wait_until(pilot, lambda: "qwen3:8b is ready" in shown(welcome))
            text = " ".join(shown(welcome).split())
            assert "press Enter" in text
            assert "f4 / alt+s adds a skill" in text
            assert str(skills_examples_path()) in text.replace(" ", "")
            assert "f1 / alt+h lists every key" in text
            assert f"Ollama 0.12.6 answers at {server.url}" in text
            assert "The model qwen3:8b is ready." in text
            assert app.screen.query_one(ChatLog).size.height == 0


@pytest.mark.parametrize("size", [SIZE, (60, 20)])
async def test_first_start_says_how_to_start_ollama_when_it_does_not_answer(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """At 60x20 the guide above it cut this off (there was no room left below it): what to
    run comes first."""
    url = closed_port_url()
    app = build_app(Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=url))
    async with app.run_test(size=size) as pilot:
        welcome = app.screen.query_one(Welcome)
        await wait_until(pilot, lambda: "does not answer" in shown(welcome))
        assert "ollama serve" in " ".join(shown(welcome).split())


async def test_the_guide_follows_ollama_started_after_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ollama serve` run in another pane: the guide said "does not answer" until a key asked
    again. While the server is away it is asked again every few seconds (here, a tenth)."""
    monkeypatch.setattr(server_pane, "RECHECK_SECONDS", 0.1)
    port = port_outside_the_ephemeral_range()
    url = f"http://127.0.0.1:{port}"
    settings = Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=url, model="qwen3:8b")
    app = build_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        welcome = app.screen.query_one(Welcome)
        await wait_until(pilot, lambda: "does not answer" in shown(welcome))
        with ollama_at(port) as server:
            await wait_until(pilot, lambda: "The model qwen3:8b is ready." in shown(welcome))
            asked = len([r for r in server.requests if r.path == "/api/show"])
            await pilot.pause(0.5)  # it answers with the model: asked no more
            assert len([r for r in server.requests if r.path == "/api/show"]) == asked


async def test_a_missing_model_asked_again_is_not_said_again_over_the_status_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check runs again while the model is missing: what the status line says meanwhile
    (an export, a refusal) stays there."""
    monkeypatch.setattr(server_pane, "RECHECK_SECONDS", 0.1)
    with FakeOllama() as server:
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", ollama_url=server.url, model="nope:1b"
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            status = app.screen.query_one("#status", PlainText)
            await wait_until(pilot, lambda: "ollama pull nope:1b" in status.text)
            app.screen.query_one(StatusLine).say("Exported to /tmp/x.md")
            shows = len([r for r in server.requests if r.path == "/api/show"])
            await wait_until(
                pilot, lambda: len([r for r in server.requests if r.path == "/api/show"]) > shows
            )
            await pilot.pause(0.3)
            assert status.text == "Exported to /tmp/x.md"


async def test_another_server_where_ollama_should_be_is_not_said_to_be_down(
    tmp_path: Path,
) -> None:
    """llama-server on the port, --provider forgotten: "start it with ollama serve" would be
    the wrong advice; the guide and the panel say what answers there."""
    with FakeOpenAI() as other:
        url = other.url.removesuffix("/v1")
        app = build_app(Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=url))
        async with app.run_test(size=SIZE) as pilot:
            welcome = app.screen.query_one(Welcome)
            await wait_until(pilot, lambda: "Something answers" in shown(welcome))
            text = " ".join(shown(welcome).split())
            assert f"{url}/api/version gave HTTP 404" in text
            assert "ollama serve" not in text
            assert f"{url} answers HTTP 404" in panel_model_text(app)


async def test_a_missing_model_is_said_with_the_command_that_pulls_it(tmp_path: Path) -> None:
    with FakeOllama() as server:
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", ollama_url=server.url, model="nope:1b"
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            welcome = app.screen.query_one(Welcome)
            await wait_until(pilot, lambda: "not pulled" in shown(welcome))
            assert "ollama pull nope:1b" in " ".join(shown(welcome).split())


async def test_a_missing_model_at_start_is_said_beside_the_settings_warning(
    tmp_path: Path,
) -> None:
    """``mdoel = "qwen3:8b"`` in the file: the default model was used, which was not pulled,
    and "not available" took the line where the slip that explains it had been said."""
    with FakeOllama() as server:
        settings = Settings(
            db_path=tmp_path / "t.db",
            user="alice",
            ollama_url=server.url,
            model="nope:1b",
            config_path=tmp_path / "config.toml",
            config_ignored=("mdoel",),
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            status = app.screen.query_one(StatusLine)
            await wait_until(
                pilot,
                lambda: "ollama pull nope:1b" in status.text and "mdoel (model?)" in status.text,
            )


async def test_the_welcome_gives_way_to_the_chat_at_the_first_send_and_returns_for_a_new_session(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text="Looking.")])
    async with app.run_test(size=SIZE) as pilot:
        welcome, log = app.screen.query_one(Welcome), app.screen.query_one(ChatLog)
        composer = app.screen.query_one(Composer)
        await wait_until(pilot, lambda: app.focused is composer)
        assert welcome.display
        assert log.size.height == 0
        assert not focusable(log)
        await pilot.press(*"disk full on db-3", "enter")
        await wait_until(pilot, lambda: log.size.height > 20 and not welcome.display)
        assert focusable(log)
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: welcome.display and log.size.height == 0)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_welcome_speaks_chinese_and_never_cuts_the_examples_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: Language
) -> None:
    """The path is what the user types: in Chinese it was cut (``…/work/m…``), the sentence
    before it being one word, and any path longer than the guide's column was."""
    examples = Path("/srv/oncall/a-deployment-with-a-long-name/share/skills-examples")
    monkeypatch.setattr(chat_pane, "skills_examples_path", lambda: examples)
    app, _ = scripted_app(tmp_path / "t.db", lang=lang)
    async with app.run_test(size=(70, 24)) as pilot:
        welcome = app.screen.query_one(Welcome)
        title = "从这里开始" if lang == "zh" else "where to start"
        await wait_until(pilot, lambda: title in shown(welcome))
        screen = app.screen
        assert isinstance(screen, MainScreen)
        # the server's line ends in "…" while it is asked ("Asking Ollama whether it is ready…")
        await wait_until(pilot, lambda: screen.server_check.state.reachable is not None)
        await pilot.pause()
        lines = shown(welcome).splitlines()
        assert str(examples) in "".join(line.strip() for line in lines)
        assert not [line for line in lines if line.rstrip().endswith("…")]
        if lang == "zh":  # the sentence before the path fills its lines
            said = next(i for i, line in enumerate(lines) if "添加技能" in line)
            assert len(lines[said].strip()) > 20, lines[said]


async def test_a_slow_start_says_it_is_reading_the_sessions_not_where_to_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Until the sessions are read, an empty log is no empty database: no guide, no "context
    window unknown"; then the most recent session opens."""
    app, _ = scripted_app(tmp_path / "t.db")
    seed_session(app, 1, title="last night's incident")
    with sessions_read_late(app, monkeypatch) as release:
        async with app.run_test(size=SIZE) as pilot:
            welcome = app.screen.query_one(Welcome)
            gauge = app.screen.query_one(ContextGauge)
            await wait_until(pilot, lambda: "Reading your sessions" in shown(welcome))
            await pilot.pause(0.3)  # a start that takes its time: still saying so
            text = shown(welcome)
            assert "Reading your sessions" in text
            assert "where to start" not in text
            assert "unknown" not in gauge.figures()
            release.set()
            log = app.screen.query_one(ChatLog)
            await wait_until(pilot, lambda: len(log.messages) == 2)
            assert log.messages[0].content == "question 0"


async def test_a_first_message_sent_while_the_sessions_are_read_and_refused_leaves_the_guide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question typed as the app starts, sent while the sessions were read and refused (the
    model is not there): no session opens under the text the user keeps, and the welcome said
    "Reading your sessions… the most recent one opens here" for ever after. Once read, it is the
    guide of a new session, as after ctrl+n."""
    with FakeOllama(models=["llama3.2:1b"]) as server:
        server.show_gate = threading.Event()  # the model's details come late
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", ollama_url=server.url, model="qwen3:8b"
        )
        app = build_app(settings)
        seed_session(app, 1, title="last night's incident")
        with sessions_read_late(app, monkeypatch) as release:
            async with app.run_test(size=SIZE) as pilot:
                screen = app.screen
                assert isinstance(screen, MainScreen)
                welcome = screen.query_one(Welcome)
                await wait_until(pilot, lambda: "Reading your sessions" in shown(welcome))
                screen.query_one(Composer).text = "pods crashlooping in api"
                await pilot.press("enter")
                await wait_until(pilot, lambda: screen.sending)
                release.set()  # the sessions are read while the send waits for the model
                await wait_until(pilot, lambda: len(screen.sessions.sessions) == 1)
                assert screen.sending
                server.show_gate.set()
                await wait_until(pilot, lambda: "not available" in screen.status.text)
                await wait_until(pilot, lambda: "where to start" in shown(welcome))
                assert "Reading your sessions" not in shown(welcome)
                assert screen.session_id is None
                assert screen.query_one(Composer).text == "pods crashlooping in api"


async def test_with_no_session_stored_the_guide_follows_the_reading(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        welcome = app.screen.query_one(Welcome)
        await wait_until(pilot, lambda: "where to start" in shown(welcome))
        assert "Reading your sessions" not in shown(welcome)
