"""App-level messages: what happened, told to whoever needs to refresh."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from textual.message import Message

from oncall_tui.errors import OncallError


class ConfigurationChanged(Message):
    """The active prompt, the skill selection, or a prompt/skill itself changed.

    Posted by the prompt editor and the skill library (to the app); the main screen then
    refreshes its context panel and gauge, since the system prompt size may have changed.
    """


class PromptDraftTaken(Message):
    """The prompt editor opened on the edits kept when the app last ended: what the start
    said of them is said no more (it was, once they were saved and gone)."""


@dataclass
class SessionsChanged(Message):
    """A session was created, renamed or deleted: the main screen reads the sessions again."""

    select: int | None = None
    """A session to open after the refresh, if any."""
    _: KW_ONLY
    open_newest: bool = False
    """Open the newest session after it (the open one was deleted)."""


@dataclass
class CannotGoOn(Message):
    """The app cannot work (its database cannot be opened): it ends, and says why."""

    error: OncallError
