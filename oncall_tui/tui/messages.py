"""App-level messages: what happened, told to whoever needs to refresh."""

from __future__ import annotations

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


class SessionsChanged(Message):
    """A session was created, renamed or deleted: the main screen reads the sessions again."""

    def __init__(self, select: int | None = None, *, open_newest: bool = False) -> None:
        super().__init__()
        self.select = select
        """A session to open after the refresh, if any."""
        self.open_newest = open_newest
        """Open the newest session after it (the open one was deleted)."""


class CannotGoOn(Message):
    """The app cannot work (its database cannot be opened): it ends, and says why."""

    def __init__(self, error: OncallError) -> None:
        super().__init__()
        self.error = error
