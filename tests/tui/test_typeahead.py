"""What is typed while the app starts is kept and lands in the composer."""

from __future__ import annotations

from pathlib import Path

from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.typeahead import clean_typeahead, read_typeahead
from oncall_tui.tui.widgets.composer import Composer


def test_escape_sequences_and_control_characters_are_dropped() -> None:
    assert clean_typeahead("pod \x1b[Aapi-7\x07 down\r\nnext\tline\x1b[200~") == (
        "pod api-7 down\nnext\tline"
    )


def test_without_a_terminal_there_is_nothing_to_read() -> None:
    assert read_typeahead() == ""  # pytest's stdin is not a terminal


async def test_the_draft_opens_in_the_composer_with_the_cursor_at_its_end(tmp_path: Path) -> None:
    settings = Settings(db_path=tmp_path / "t.db", user="alice", ollama_url="http://127.0.0.1:9")
    app = build_app(settings, typeahead="pod api-7 is crashloo")
    async with app.run_test() as pilot:
        composer = app.screen.query_one(Composer)
        await pilot.press("p", "i", "n", "g")
        assert composer.text == "pod api-7 is crashlooping"
        assert app.focused is composer
