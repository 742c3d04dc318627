"""The main screen's session actions: rename (a session not started yet is created with its
title), delete (asking, with the title and message count), find."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on

from oncall_tui.texts import text
from oncall_tui.tui.key_order import hold_keys_for
from oncall_tui.tui.screens.background import BackgroundScreen
from oncall_tui.tui.widgets.session_list import SessionList

if TYPE_CHECKING:
    from oncall_tui.services.export import ExportFormat
    from oncall_tui.services.views import SessionView


class SessionActions(BackgroundScreen):
    """Acts on the sessions through the services; the list is refreshed after each change."""

    session_id: int | None = None

    @on(SessionList.DeleteRequested)
    def _delete_requested(self, event: SessionList.DeleteRequested) -> None:
        self._confirm_delete(event.session_id)

    def action_delete_session(self) -> None:
        if self.session_id is None:
            self.notify(text("delete.nothing", self.services.settings.lang))
            return
        self._confirm_delete(self.session_id)

    def _confirm_delete(self, session_id: int) -> None:
        from oncall_tui.tui.widgets.dialogs import ConfirmDialog

        def decided(yes: bool | None) -> None:
            if yes:
                self._in_thread(
                    lambda: self.services.sessions.delete(self.services.owner, session_id),
                    lambda _: self.load_sessions(open_newest=self.session_id == session_id),
                )

        lang = self.services.settings.lang
        listed = self._listed(session_id)
        question = (
            text("delete.ask_id", lang, id=session_id)
            if listed is None
            else text(
                "delete.ask",
                lang,
                title=listed.title or text("sessions.new", lang),
                count=f"{listed.message_count:,}",
            )
        )
        dialog = ConfirmDialog(
            text("delete.title", lang),
            question,
            yes_label=text("delete.yes", lang),
            destructive=True,
        )
        self.app.push_screen(dialog, decided)

    def action_rename_session(self) -> None:
        """Rename the open session, the dialog showing its title; a session not started yet
        is created with the title (the incident is named before the first message)."""
        from oncall_tui.tui.widgets.dialogs import TextDialog

        session_id, owner = self.session_id, self.services.owner
        shown = self._listed(session_id)

        def renamed(title: str | None) -> None:
            if not title or (shown is not None and title == shown.title):
                return
            if session_id is None:
                self._in_thread(
                    lambda: self.services.sessions.create(owner, title),
                    lambda view: self.load_sessions(select=view.id),
                )
            else:
                self._in_thread(
                    lambda: self.services.sessions.rename(owner, session_id, title),
                    lambda _: self.load_sessions(),
                )

        current = "" if shown is None else shown.title
        lang = self.services.settings.lang
        dialog = TextDialog(text("rename.title", lang), text("rename.prompt", lang), value=current)
        self.app.push_screen(dialog, renamed)

    def _listed(self, session_id: int | None) -> SessionView | None:
        """The session as the sessions list last read it."""
        listed = self.query_one(SessionList).sessions
        return next((s for s in listed if s.id == session_id), None)

    def action_export(self) -> None:
        """Write the open session to a file for the postmortem: the dialog shows the path
        (the current directory, a name with the session and the time), Enter writes it; a
        path ending in ``.json`` gets the JSON document instead of Markdown."""
        from oncall_tui.tui.widgets.dialogs import TextDialog

        session_id, owner = self.session_id, self.services.owner
        lang = self.services.settings.lang
        if session_id is None:
            self.notify(text("export.nothing", lang), timeout=3)
            return

        def write(path: str | None) -> None:
            if not path or not path.strip():
                return
            target = Path(path.strip()).expanduser()
            fmt: ExportFormat = "json" if target.suffix.lower() == ".json" else "md"
            self._in_thread(
                lambda: self.services.export.write(owner, session_id, fmt, target),
                lambda written: self.say_about(
                    session_id, text("export.done", lang, path=str(written))
                ),
            )

        def ask(name: str) -> None:
            dialog = TextDialog(
                text("export.title", lang), text("export.prompt", lang), value=str(_here() / name)
            )
            self.app.push_screen(dialog, write)

        named = self._in_thread(
            lambda: self.services.export.default_filename(owner, session_id, "md"), ask
        )
        hold_keys_for(self.app, named)  # what is typed behind ctrl+s goes to the dialog

    def action_find_session(self) -> None:
        self.query_one(SessionList).action_filter()

    if TYPE_CHECKING:  # the main screen's, which this part of it uses

        def load_sessions(
            self, *, open_newest: bool = False, select: int | None = None
        ) -> None: ...


def _here() -> Path:
    """Where the export is offered: the directory the app was started in (where the engineer
    works), else the home directory if that one has gone."""
    try:
        return Path.cwd()
    except OSError:
        return Path.home()
