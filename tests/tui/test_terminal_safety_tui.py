"""Text from the database or a model never reaches the terminal as control sequences.

A message, a session title, a tool call's summary, the summary, a prompt label and a skill's
name and description are stored holding an OSC 52 clipboard write and a colour change; the
real app shows them, and no segment it renders for the terminal holds a control character
(the app's own styling is written by the driver, outside the segments' text).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from oncall_tui.core.text import terminal_safe
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from oncall_tui.tui.screens.summary import SummaryScreen
from oncall_tui.tui.widgets.text_dialogs import TextViewerDialog
from tests.tui.harness import screen_rows, scripted_app, seed_session, wait_until

SIZE = (140, 44)
OSC52 = "\x1b]52;c;SGVsbG8=\x07"
RED = "\x1b[31m"
C1 = "\x9b2J"
HOSTILE = f"{OSC52}{RED}{C1}"
CONTROLS = (
    {chr(c) for c in range(0x20) if chr(c) not in "\n\t"}
    | {"\x7f"}
    | {chr(c) for c in range(0x80, 0xA0)}
)


def rendered(pilot: Pilot[Any]) -> str:
    """Every character the app's current screen would write as text to the terminal."""
    return "\n".join(screen_rows(pilot.app))


def assert_safe(pilot: Pilot[Any], *visible: str) -> None:
    text = rendered(pilot)
    leaked = sorted({repr(c) for c in text if c in CONTROLS})
    assert leaked == [], f"control characters on screen: {leaked}"
    for part in visible:
        assert part in text, part


def seed(db_path: Path, app: Any) -> int:
    """A session, a tool call, a summary, a prompt and a skill, all hostile."""
    services = app.services
    session_id = seed_session(
        app, 1, title=f"outage {HOSTILE} title", compacted=0, summary=f"summary {HOSTILE} end"
    )
    now = datetime.now(UTC).isoformat(sep=" ")
    with sqlite3.connect(db_path) as connection:
        connection.execute(
            "UPDATE message SET content = ? WHERE session_id = ? AND role = 'assistant'",
            (f"answer {HOSTILE} done\n\n**bold {RED}text**", session_id),
        )
        connection.execute(
            "UPDATE message SET content = ? WHERE session_id = ? AND role = 'user'",
            (f"question {HOSTILE} asked", session_id),
        )
        message_id = connection.execute(
            "SELECT id FROM message WHERE session_id = ? AND role = 'assistant'", (session_id,)
        ).fetchone()[0]
        connection.execute(
            "INSERT INTO tool_audit (session_id, message_id, call_id, tool_name, arguments,"
            " status, summary, started_at, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                message_id,
                "call-1",
                f"load_skill{RED}",
                json.dumps({"skill_name": HOSTILE}),
                "ok",
                f"Loaded skill: {HOSTILE}",
                now,
                3,
            ),
        )
    skill_md = (
        '---\nname: hostile\ndescription: "desc \\e]52;c;SGVsbG8=\\a \\e[31m red"\n---\n'
        f"# Body\n{HOSTILE}\n"
    ).encode()
    skill = services.configuration.add_skill("alice", "SKILL.md", skill_md)
    with sqlite3.connect(db_path) as connection:
        connection.execute("UPDATE skill SET name = ? WHERE id = ?", (f"host{RED}ile", skill.id))
    prompt = services.configuration.create_prompt("alice", f"label {HOSTILE}", "Be safe.")
    services.configuration.save_configuration(
        "alice", system_prompt_id=prompt.id, skill_ids=[skill.id]
    )
    return int(session_id)


async def test_stored_text_on_the_main_screen_holds_no_control_characters(
    tmp_path: Path,
) -> None:
    db_path = tmp_path / "t.db"
    app, _ = scripted_app(db_path)
    async with app.run_test(size=SIZE) as pilot:
        session_id = seed(db_path, app)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.shown.load(open_newest=True)
        await wait_until(pilot, lambda: screen.session_id == session_id)
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 2)
        await pilot.pause()
        await wait_until(pilot, lambda: "label" in rendered(pilot))
        assert_safe(pilot, "outage", "question", "answer", "Loaded skill", "summary", "label")
        block: MessageBlock = log.messages[1]
        block.toggle_tools()  # the call's arguments, shown
        await pilot.pause()
        assert_safe(pilot, "skill_name")


async def test_the_summary_screen_holds_no_control_characters(tmp_path: Path) -> None:
    db_path = tmp_path / "t.db"
    app, _ = scripted_app(db_path)
    async with app.run_test(size=SIZE) as pilot:
        session_id = seed(db_path, app)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.shown.load(open_newest=True)
        await wait_until(pilot, lambda: screen.session_id == session_id)
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        await pilot.pause()
        assert_safe(pilot, "summary")


async def test_the_skill_library_holds_no_control_characters(tmp_path: Path) -> None:
    db_path = tmp_path / "t.db"
    app, _ = scripted_app(db_path)
    async with app.run_test(size=SIZE) as pilot:
        seed(db_path, app)
        await pilot.press("f4")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, SkillLibraryScreen) and app.screen.loaded,
        )
        await pilot.pause()
        assert_safe(pilot, "desc", "host")
        await pilot.press("tab")  # from the path field to the list, where v views
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, TextViewerDialog))
        await pilot.pause()
        assert_safe(pilot, "Body")


def test_the_placeholders_are_visible_and_keep_the_length() -> None:
    assert terminal_safe(OSC52) == "␛]52;c;SGVsbG8=␇"
    assert terminal_safe("a\x1b[31mb\r\n\tc\x7f\x9b") == "a␛[31mb␍\n\tc␡\ufffd"
    assert len(terminal_safe(HOSTILE)) == len(HOSTILE)
