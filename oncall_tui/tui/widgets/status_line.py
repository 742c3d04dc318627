"""The main screen's status line: one line under the chat, of the open session or of the app.

What is said of a session (a reply failed, memory compacted, exported to a file) goes when
another session opens, and what a session's work says once that session is no longer open is a
notification instead (:meth:`StatusLine.say_about`). What concerns the app (a database away,
the model missing, the settings file's problems) is said whatever session is open
(``app_wide``). Every pane of the main screen is handed this one line, and reports its catalog
errors here (:meth:`StatusLine.report`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError, joined, note
from oncall_tui.texts import text as t
from oncall_tui.tui.commands import keys_here, still_streaming
from oncall_tui.tui.messages import CannotGoOn
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.plain_text import PlainText

if TYPE_CHECKING:
    from oncall_tui.services.container import Services


WRITES_REFUSED = frozenset({"disk_full", "database_read_only"})
"""The reasons of a database that answers but takes nothing."""

SERVER_AWAY_CODES = frozenset({"MODEL_UNAVAILABLE", "MODEL_NOT_FOUND", "STREAM_FAILED"})
"""A send that fails with one of these has the server checked again, so the panel says whether
it is still there (a stream cut off: the server may have died with it), and the line says so
when it answers again."""


class StatusLine(PlainText):
    """The line, and what it speaks of."""

    def __init__(self, services: Services, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._services = services
        self.open_session: int | None = None
        """The session open on the screen (``None``: a new one, not stored yet)."""
        self.database_away = False
        """The line says the database is away (until a call reaches it again)."""
        self._about: int | None = None
        """The session the line speaks of, unless it speaks of the app."""
        self._app_wide = True
        """The line says something of the app (or nothing)."""
        self._server_away: str | None = None
        """The line says the model server could not be used: what to add once it can be
        (a failed reply's retry key, or nothing); ``None`` while it says anything else."""
        self._streaming_refusal = False
        """The line says a reply still streams (why a send or a change was refused)."""

    @property
    def is_error(self) -> bool:
        return self.has_class("-error")

    def say(self, text: str, error: bool = False, *, app_wide: bool = False) -> None:
        """Say ``text``, of the open session unless ``app_wide``."""
        self.show(terminal_safe(text))
        self.set_class(error, "-error")
        self._about = self.open_session
        self._app_wide = app_wide or not text
        self._server_away = None
        self._streaming_refusal = False

    def server_away(self, hint: str = "") -> None:
        """What the line says now is that the model server could not be used: once it can,
        :meth:`server_back` says so, adding ``hint``."""
        self._server_away = hint

    def server_back(self, *ready: str) -> None:
        """The model server answers with the model: a line that says it could not be used
        says ``ready`` instead (it said "not reachable" until another error came)."""
        if self._server_away is not None:
            hint = self._server_away
            self.say(joined(ui_lang(self), *ready, hint), app_wide=self._app_wide)

    def refuse_while_streaming(self) -> None:
        """A send, or leaving the session, was refused: a reply streams. Says so, and how to
        stop it, until the reply ends (:meth:`reply_ended`)."""
        self.say(still_streaming(self), error=True)
        self._streaming_refusal = True

    def reply_ended(self, *, unsent: bool) -> None:
        """The reply ended: a line that says it streams says instead that a message typed
        meanwhile (``unsent``) can go now, or nothing."""
        if self._streaming_refusal:
            self.say(t("send.reply_ended", ui_lang(self)) if unsent else "")

    def clear_unless_error(self) -> None:
        """Clear a progress text ("Sending…"); an error said since stays."""
        if not self.is_error:
            self.say("")

    def report(self, error: OncallError) -> None:
        """A service call's catalog error: a database that cannot be opened at all ends the app
        (nothing works without it: it says why); anything else is said here, and what was typed
        is kept for a later try."""
        if error.code == "DATABASE_UNAVAILABLE" and not self._services.database_opened:
            self.app.post_message(CannotGoOn(error))
        else:
            self.show_error(error)

    def show_error(self, error: OncallError, *, also: str = "") -> None:
        """The error, then ``also`` (what it undid); a database that is away says too that the
        answers it did not take are kept (this line is the one place sure to be seen)."""
        lang = ui_lang(self)
        if error.reason == "nothing_to_retry":  # a key pressed, not an argument given
            self.say(t("status.nothing_to_retry", lang))
            return
        said = self.with_picker_keys(error.code, error.message(lang))
        message = joined(lang, said, also) if also else said
        database = error.code in ("DATABASE_UNAVAILABLE", "DATABASE_BUSY")
        if database:
            # A database that cannot be written (a full disk, a read-only file, another
            # writer's lock) still answers reads: the next read must not take back what a
            # refused write said.
            away = error.code == "DATABASE_UNAVAILABLE" and error.reason not in WRITES_REFUSED
            self.database_away = away
            if self._services.has_held():
                # Kept on this computer only where a file holds each: one the spool refused
                # is kept while the app runs (and handed back at its end).
                memory = bool(self._services.held_only_in_memory())
                kept = note("reply_held_memory" if memory else "reply_held", lang)
                message = joined(lang, message, kept)
        # A session deleted or cleared in another window mid-reply is left (for a new one, or
        # read again): what is said of it must stay.
        gone = error.reason in ("session_gone", "session_cleared")
        self.say(message, error=True, app_wide=database or gone)
        if error.code in SERVER_AWAY_CODES:
            self.server_away()

    def with_picker_keys(self, code: str, message: str) -> str:
        """An error's ``message``; a model the server does not have (``code``) says which keys
        pick one it has, as bound: found by the server's check, by a send before it stored the
        question, or by the model call after."""
        if code != "MODEL_NOT_FOUND":
            return message
        hint = t("panel.missing_model_hint", ui_lang(self), keys=keys_here(self, "models"))
        return f"{message} ({hint})"

    def show_fault(self, exc: Exception) -> None:
        """Something no catalog entry names (a bug): said of the app; it goes on."""
        self.say(t("status.unexpected", ui_lang(self), error=exc), error=True, app_wide=True)

    def show_warning(self, text: str) -> None:
        """The settings file's problems, said at start."""
        self.say_also(text, error=True)

    def say_also(self, text: str, error: bool = False) -> None:
        """Say ``text`` of the app, after what the line says of the app now: at start, the
        settings file's warning and "your unsent message is back" come in either order, and
        the second had put the first out of sight (an error stays one)."""
        now = self.text if self._app_wide else ""
        said = joined(ui_lang(self), now, text) if now else text
        self.say(said, error or (self.is_error and bool(now)), app_wide=True)

    def withdraw(self, said: str) -> None:
        """What the line says of the app, without ``said`` (a sentence :meth:`say_also` added,
        no longer true); the rest stays as it was."""
        lang = ui_lang(self)
        whole = joined(lang, said)
        if self._app_wide and whole in self.text:
            rest = self.text.replace(whole, "", 1).replace("  ", " ").strip()
            self.say(rest, self.is_error and bool(rest), app_wide=True)

    def database_answered(self) -> None:
        """A call reached the database: a line that says it is away is said no more."""
        if self.database_away:
            self.database_away = False
            self.say("")

    def say_about(self, session_id: int | None, text: str, *, error: bool = False) -> None:
        """Say ``text`` of session ``session_id``: here while it is open, else as a
        notification, which names no other session's work on this one's line."""
        if session_id == self.open_session:
            self.say(text, error)
        else:
            shown = terminal_safe(text)
            self.app.notify(
                shown, severity="error" if error else "information", markup=False, timeout=8
            )

    def session_opened(self, session_id: int | None, *, keep: bool) -> None:
        """A session opens: the line stops speaking of any other, and of this one too unless
        ``keep`` (a reopening that keeps what an action said of it)."""
        self.open_session = session_id
        if self._app_wide:
            return
        if not keep or self._about != session_id:
            self.say("")
