"""What the sessions pane's keys do: rename (a session not started yet is created with its
title), delete (asking, with the title and message count), export for the postmortem. Each
change is followed by :class:`~oncall_tui.tui.messages.SessionsChanged` from the pane, upon which
the screen reads the sessions again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from oncall_tui.texts import counted, text
from oncall_tui.tui.key_order import hold_keys_for, refuse_keys_behind
from oncall_tui.tui.messages import SessionsChanged
from oncall_tui.tui.panes.part import StatusPart
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.session_list import SessionList
from oncall_tui.tui.widgets.status_line import StatusLine
from oncall_tui.tui.widgets.typing_on import composer_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from oncall_tui.errors import OncallError
    from oncall_tui.services.container import Services
    from oncall_tui.services.views import SessionView


DATABASE_CODES = ("DATABASE_UNAVAILABLE", "DATABASE_BUSY")
"""Errors that bring a dialog back on what was typed, as well as being said on the status line."""


class SessionActions(StatusPart):
    """The actions on the sessions of ``listing`` (the pane), said on ``status``."""

    def __init__(self, services: Services, listing: SessionList, status: StatusLine) -> None:
        super().__init__(services, listing, status)
        self._listing = listing

    def delete(self, session_id: int | None) -> None:
        """Ask, naming the session and its messages; Yes deletes it (the newest opens if it was
        the one open)."""
        lang = ui_lang(self._listing)
        if session_id is None:
            self._listing.notify(text("delete.nothing", lang))
            return
        from oncall_tui.tui.widgets.dialogs import ConfirmDialog

        services = self._services

        def decided(yes: bool | None) -> None:
            if yes:
                self._calls.start(
                    lambda: services.sessions.delete(services.owner, session_id),
                    lambda _: self._changed(open_newest=self._status.open_session == session_id),
                )

        listed = self._listed(session_id)
        question = (
            text("delete.ask_id", lang, id=session_id)
            if listed is None
            else counted(
                "delete.ask",
                listed.message_count,
                lang,
                title=listed.title or text("sessions.new", lang),
            )
        )
        dialog = ConfirmDialog(
            text("delete.title", lang),
            question,
            yes_label=text("delete.yes", lang),
            destructive=True,
            typing_to=composer_of(self._listing),
        )
        self._listing.app.push_screen(dialog, decided)

    def rename(self, session_id: int | None) -> None:
        """Rename the session, the dialog showing its title; a session not started yet is
        created with the title (the incident is named before the first message). A title
        refused (too long) brings the dialog back on what was typed, saying why."""
        from oncall_tui.tui.widgets.text_dialogs import TextDialog

        services, owner = self._services, self._services.owner
        shown = self._listed(session_id)
        lang = ui_lang(self._listing)

        def renamed(title: str | None) -> None:
            if not title or (shown is not None and title == shown.title):
                return

            def stored() -> SessionView:
                if session_id is None:
                    return services.sessions.create(owner, title)
                return services.sessions.rename(owner, session_id, title)

            started = self._calls.start(
                stored,
                lambda view: self._changed(select=view.id if session_id is None else None),
                report=self._asked_again("VALIDATION_INVALID_ARGUMENT", title, ask),
            )
            hold_keys_for(self._listing.app, started)  # typed behind Enter: to the dialog if back

        def ask(value: str, error: str | None = None) -> None:
            title, prompt = text("rename.title", lang), text("rename.prompt", lang)
            # Typing names it anew; a title given back after a refusal is edited instead.
            dialog = TextDialog(title, prompt, value=value, error=error, replace=error is None)
            self._listing.app.push_screen(dialog, renamed)

        ask("" if shown is None else shown.title)

    def export(self, session_id: int | None) -> None:
        """Write the session to a file for the postmortem: the dialog shows the path (the
        current directory, a name with the session and the time), Enter writes it, after asking
        whether to replace a file that exists; a path ending in ``.json`` gets the JSON
        document instead of Markdown."""
        from oncall_tui.services.export import format_for
        from oncall_tui.tui.widgets.text_dialogs import TextDialog

        services, owner = self._services, self._services.owner
        lang = ui_lang(self._listing)
        if session_id is None:
            self._listing.notify(text("export.nothing", lang), timeout=3)
            refuse_keys_behind(self._listing.app)  # a file name typed behind: not a message
            return

        def write(target: Path) -> None:
            written = self._calls.start(
                lambda: services.export.write(owner, session_id, format_for(target), target),
                lambda written: self._status.say_about(
                    session_id, text("export.done", lang, path=str(written))
                ),
                report=self._asked_again("EXPORT_FAILED", str(target), ask),
            )
            hold_keys_for(self._listing.app, written)  # typed behind: to the dialog if back

        def chosen(path: str | None) -> None:
            if not path or not path.strip():
                return
            typed = path.strip()  # (a slash at its end says a folder: kept)

            def resolve() -> tuple[Path, bool]:  # a folder given: the offered name in it
                fmt = format_for(Path(typed))
                target = services.export.target(owner, session_id, fmt, typed)
                return target, target.exists()

            checked = self._calls.start(
                resolve,
                lambda found: self._replace(found[0], write) if found[1] else write(found[0]),
                report=self._asked_again("EXPORT_FAILED", typed, ask),
            )
            hold_keys_for(self._listing.app, checked)  # typed behind Enter: to the question

        def ask(path: str, error: str | None = None) -> None:
            title, prompt = text("export.title", lang), text("export.prompt", lang)
            dialog = TextDialog(title, prompt, value=path, error=error)
            self._listing.app.push_screen(dialog, chosen)

        named = self._calls.start(
            lambda: services.export.default_filename(owner, session_id, "md"),
            lambda name: ask(str(here() / name)),
        )
        hold_keys_for(self._listing.app, named)  # what is typed behind ctrl+s goes to the dialog

    def _replace(self, target: Path, write: Callable[[Path], None]) -> None:
        """A file that exists is written over only once the user has said so: the name typed
        may be a log of the incident, or another session's export."""
        from oncall_tui.tui.widgets.dialogs import ConfirmDialog

        lang = ui_lang(self._listing)
        dialog = ConfirmDialog(
            text("export.replace.title", lang),
            text("export.replace.ask", lang, path=str(target)),
            yes_label=text("export.replace.yes", lang),
            destructive=True,
            typing_to=composer_of(self._listing),
        )

        def answered(yes: bool | None) -> None:
            if yes:
                write(target)
            else:  # said: the line still said the export before, as if this one was done
                self._status.say(text("export.not_replaced", lang, path=str(target)))

        self._listing.app.push_screen(dialog, answered)

    def _asked_again(
        self, code: str, typed: str, ask: Callable[[str, str | None], None]
    ) -> Callable[[OncallError], None]:
        """Where the service refuses what a dialog took (``code``: a title too long, a path
        where no file can be written), the dialog comes back on ``typed``, saying why: it is
        not typed again. So it does where the database is away or busy (a title typed in an
        outage was lost), which the status line says too. Any other error is said there."""

        def report(error: OncallError) -> None:
            if error.code != code:
                self._status.report(error)
                if error.code not in DATABASE_CODES:
                    return
            ask(typed, error.message(ui_lang(self._listing)))

        return report

    def _listed(self, session_id: int | None) -> SessionView | None:
        """The session as the sessions list last read it."""
        return next((s for s in self._listing.sessions if s.id == session_id), None)

    def _changed(self, *, select: int | None = None, open_newest: bool = False) -> None:
        self._listing.post_message(SessionsChanged(select, open_newest=open_newest))


def here() -> Path:
    """Where a file the user asks for goes (an export is offered there, a screenshot is
    saved there): the directory the app was started in (where the engineer works), else the
    home directory if that one has gone."""
    try:
        return Path.cwd()
    except OSError:
        return Path.home()
