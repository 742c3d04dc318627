"""The draft: the composer's text, kept in a private file across the app's end."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.services import drafts
from oncall_tui.services.container import Services
from oncall_tui.services.drafts import (
    DRAFT_FILE,
    LOCK_FILE,
    MAX_DRAFT_BYTES,
    PROMPT_DRAFT_FILE,
    DraftKeeper,
    PromptDraft,
    slot_file,
)
from oncall_tui.settings import Settings

SECRET = "db password is hunter2, see pod api-7"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "spool" / "pair"


@pytest.fixture
def keeper(folder: Path) -> Iterator[DraftKeeper]:
    keeper = DraftKeeper(folder)
    assert keeper.claim()
    yield keeper
    keeper.release()


def test_a_draft_kept_is_read_back_by_the_next_app(folder: Path, keeper: DraftKeeper) -> None:
    assert keeper.read() == ""
    assert keeper.keep("why is db-3 slow?\nsince 02:50", 1)
    keeper.release()
    after = DraftKeeper(folder)
    assert after.claim()
    assert after.read() == "why is db-3 slow?\nsince 02:50"
    after.release()


def test_the_file_and_its_folder_are_private(folder: Path, keeper: DraftKeeper) -> None:
    keeper.keep(SECRET, 1)
    assert stat.S_IMODE((folder / DRAFT_FILE).stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / LOCK_FILE).stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("empty", ["", " \n\t "])
def test_an_empty_composer_removes_the_draft(folder: Path, keeper: DraftKeeper, empty: str) -> None:
    keeper.keep("half a question", 1)
    assert keeper.keep(empty, 2)
    assert not (folder / DRAFT_FILE).exists()
    assert keeper.read() == ""


def test_a_writing_that_comes_late_loses_to_a_newer_one(keeper: DraftKeeper) -> None:
    assert keeper.keep("newer", 5)
    assert not keeper.keep("older", 4)
    assert not keeper.keep("same", 5)
    assert keeper.read() == "newer"


def test_each_app_keeps_its_own_draft_and_the_next_takes_the_first_slot_free(
    folder: Path, keeper: DraftKeeper
) -> None:
    """A second pane's app keeps its text too (it was lost with its terminal), beside the
    first's; neither reads the other's."""
    keeper.keep("the first app's", 1)
    second = DraftKeeper(folder)
    assert second.claim()
    assert second.read() == ""
    assert second.keep("the second app's", 9)
    assert keeper.read() == "the first app's"
    assert (folder / slot_file(DRAFT_FILE, 2)).read_text() == "the second app's"
    second.release()  # its terminal went: the next app takes its slot, and its text
    third = DraftKeeper(folder)
    assert third.claim()
    assert third.read() == "the second app's"
    third.release()
    keeper.release()


def test_past_the_slots_an_app_keeps_no_draft_until_one_is_free(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drafts, "SLOTS", 2)
    first, second, third = DraftKeeper(folder), DraftKeeper(folder), DraftKeeper(folder)
    assert (first.claim(), second.claim(), third.claim()) == (True, True, False)
    assert (third.keep("not kept", 1), third.read()) == (False, "")
    first.release()
    assert third.claim()
    second.release()
    third.release()


def test_the_limit_is_kept_and_one_byte_past_it_is_not(keeper: DraftKeeper, folder: Path) -> None:
    at_limit = "x" * MAX_DRAFT_BYTES
    assert keeper.keep(at_limit, 1)
    assert keeper.read() == at_limit
    assert not keeper.keep(at_limit + "y", 2)
    # The older draft is not what the composer held: it is not given back either.
    assert not (folder / DRAFT_FILE).exists()


def test_a_file_past_the_limit_is_not_read(keeper: DraftKeeper, folder: Path) -> None:
    (folder / DRAFT_FILE).write_bytes(b"x" * (MAX_DRAFT_BYTES + 1))
    assert keeper.read() == ""


def test_without_a_spool_nothing_is_kept(tmp_path: Path) -> None:
    keeper = DraftKeeper(None)
    assert not keeper.claim()
    assert not keeper.keep("text", 1)
    assert keeper.read() == ""


def test_a_folder_that_cannot_be_made_keeps_nothing_and_says_so_in_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "file").write_text("not a directory")
    keeper = DraftKeeper(tmp_path / "file" / "pair")
    with caplog.at_level(logging.WARNING, logger="oncall_tui"):
        assert not keeper.claim()
    assert "the draft cannot be kept" in caplog.text


def test_the_text_is_never_logged(
    folder: Path, keeper: DraftKeeper, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="oncall_tui"):
        keeper.keep(SECRET, 1)
        keeper.read()
        keeper.keep(SECRET * (MAX_DRAFT_BYTES // len(SECRET) + 1), 2)
        keeper.keep("", 3)
    assert caplog.records  # the oversized draft is logged, as a size
    assert "hunter2" not in caplog.text


def test_each_owner_and_database_has_its_own_draft(tmp_path: Path) -> None:
    def keeper(user: str, db: str) -> DraftKeeper:
        settings = Settings(db_path=tmp_path / db, user=user, spool_dir=tmp_path / "spool")
        return Services(settings).drafts

    alice = keeper("alice", "a.db")
    assert alice.claim()
    alice.keep("alice's", 1)
    others = [keeper("bob", "a.db"), keeper("alice", "b.db")]
    for other in others:
        assert other.claim()  # not alice's draft: no lock of hers is in the way
        assert other.read() == ""
        other.release()
    alice.release()
    again = keeper("alice", "a.db")
    assert again.claim()
    assert again.read() == "alice's"
    again.release()


def test_the_prompt_editor_s_edits_are_kept_privately_and_read_back_once_claimed(
    folder: Path, keeper: DraftKeeper, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    assert keeper.read_prompt() is None
    draft = PromptDraft(7, "DB on-call", SECRET)
    assert keeper.keep_prompt(draft)
    assert stat.S_IMODE((folder / PROMPT_DRAFT_FILE).stat().st_mode) == 0o600
    keeper.release()
    beside = DraftKeeper(folder)  # not claimed: another app's drafts are not its to read
    assert beside.read_prompt() is None
    assert not beside.keep_prompt(PromptDraft(None, "x", "y"))
    assert beside.claim()
    assert beside.read_prompt() == draft
    assert beside.keep_prompt(None)  # none: the file goes
    assert not (folder / PROMPT_DRAFT_FILE).exists()
    assert beside.read_prompt() is None
    beside.release()
    assert "hunter2" not in caplog.text


@pytest.mark.parametrize(
    "written",
    [b"not json", b"[1, 2]", b'{"label": 3, "content": "x"}', b"{" + b" " * MAX_DRAFT_BYTES],
)
def test_a_prompt_draft_file_that_is_not_one_is_not_read(
    folder: Path, keeper: DraftKeeper, written: bytes
) -> None:
    (folder / PROMPT_DRAFT_FILE).write_bytes(written)
    assert keeper.read_prompt() is None


def test_a_prompt_draft_of_a_prompt_id_that_is_no_id_is_a_new_prompt(
    folder: Path, keeper: DraftKeeper
) -> None:
    (folder / PROMPT_DRAFT_FILE).write_text('{"prompt_id": true, "label": "a", "content": "b"}')
    assert keeper.read_prompt() == PromptDraft(None, "a", "b")
