"""The sessions pane: newest first, filtered as you type."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from oncall_tui.core.text import terminal_safe
from oncall_tui.texts import text as t
from oncall_tui.tui.widgets.in_order import InOrderInput
from oncall_tui.tui.widgets.lang import key_texts, translate_bindings, ui_lang
from oncall_tui.tui.widgets.typing_on import TypingGoesOn, TypingHandOff

if TYPE_CHECKING:
    from oncall_tui.services.views import SessionView


class SessionList(TypingGoesOn, Vertical):
    """A filter box over an option list of sessions. Enter (or a click) opens one. The filter
    takes its own characters and pastes: those that come here are the list's."""

    BINDINGS = [
        Binding("delete", "delete", "Delete session"),
        Binding("slash", "filter", "Filter", id="sessions.filter", show=False),
        Binding("escape", "clear_filter", "Clear filter", id="sessions.clear_filter", show=False),
        Binding("down", "to_list", show=False),  # the list takes its own ↓
    ]

    sessions: reactive[tuple[SessionView, ...]] = reactive((), always_update=True)
    """All of the user's sessions, newest first."""
    current: reactive[int | None] = reactive(None)
    """The open session, highlighted in the list."""

    class Opened(Message):
        def __init__(self, session_id: int) -> None:
            super().__init__()
            self.session_id = session_id

    class DeleteRequested(Message):
        def __init__(self, session_id: int) -> None:
            super().__init__()
            self.session_id = session_id

    class Titled(Message):
        """The open session's title is another (renamed, titled by its first message, or
        another session opened); ``None``: a new session, not stored yet."""

        def __init__(self, title: str | None) -> None:
            super().__init__()
            self.title = title

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._typing: TypingHandOff = TypingHandOff(self)
        """Typing in the list goes on in the composer (:mod:`.typing_on`)."""
        self.lang = ui_lang(self)
        translate_bindings(self, key_texts(self.BINDINGS, "sessions"))
        self._shown: list[tuple[str | None, str]] = []
        """The options on show, as (session id, label): a rebuild to the same is skipped."""
        self._title: str | None = None
        """The open session's title, as last said (:class:`Titled`)."""

    def compose(self) -> ComposeResult:
        yield InOrderInput(
            placeholder=t("sessions.filter", self.lang), id="session-filter", compact=True
        )
        yield OptionList(id="session-options")

    def on_descendant_focus(self) -> None:
        self._typing.back()

    def watch_sessions(self) -> None:
        self._rebuild()

    def watch_current(self) -> None:
        self._rebuild()

    @on(Input.Changed, "#session-filter")
    def _filter_changed(self) -> None:
        self._rebuild()

    @on(Input.Submitted, "#session-filter")
    def _filter_submitted(self) -> None:
        """Enter in the filter opens the first match, and the filter is done with."""
        match = next((key for key, _ in self._shown if key is not None), None)
        if match is not None:
            self.query_one("#session-filter", Input).value = ""
            self.post_message(self.Opened(int(match)))

    @on(OptionList.OptionSelected, "#session-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.post_message(self.Opened(int(event.option.id)))

    def action_filter(self) -> None:
        """Filter by title; a pane the user hid (alt+1) is shown again for it."""
        self.display = True
        self.query_one("#session-filter", Input).focus()

    def action_to_list(self) -> None:
        """↓ in the filter moves to the list, as the search's query to its hits: on the first
        session that matches what is typed, else on the open one (the list's cursor)."""
        options = self.query_one(OptionList)
        if self.query_one("#session-filter", Input).value.strip():
            first = next((i for i, (key, _) in enumerate(self._shown) if key is not None), None)
            if first is None:
                return
            options.highlighted = first
        options.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":  # with no filter, Esc is the screen's (cancel a reply)
            return bool(self.query_one("#session-filter", Input).value)
        return True

    def action_clear_filter(self) -> None:
        self.query_one("#session-filter", Input).value = ""

    def action_delete(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        if option.id is not None:
            self.post_message(self.DeleteRequested(int(option.id)))

    def _rebuild(self) -> None:
        """Show the sessions that match the filter, and the open session if it is not stored yet
        (a new session: its row is there before its first message, which only retitles it).

        A list of another length lays out the screen, a frame of tens of milliseconds; the
        options are replaced in place (``set_options``), so one of the same length does not,
        and the same list is left alone: every send ends by reloading the sessions, mostly to
        the same list."""
        if not self.is_mounted:
            return
        needle = self.query_one("#session-filter", Input).value.strip()
        terms = _filter_terms(needle) if needle else []
        options = self.query_one(OptionList)
        current = None if self.current is None else str(self.current)
        untitled = t("sessions.new", self.lang)
        titles = [(s, s.title or untitled) for s in self.sessions]
        shown: list[tuple[str | None, str]] = [
            (str(s.id), ("▸ " if s.id == self.current else "  ") + terminal_safe(title))
            for s, title in titles
            if all(term in title.lower() for term in terms)
        ]
        if not needle and all(s.id != self.current for s in self.sessions):
            shown.insert(0, (current, f"▸ {t('sessions.new', self.lang)}"))
        if needle and not shown:
            no_match = t("sessions.no_match", self.lang, needle=terminal_safe(needle))
            shown.append((None, f"  {no_match}"))
        if shown != self._shown:
            if shown:  # of the same length, in place: no layout
                options.set_options(
                    Option(label, id=key, disabled=key is None and bool(needle))
                    for key, label in shown
                )
            else:
                options.clear_options()
            self._shown = shown
        for index, (key, _) in enumerate(shown):
            if key == current:
                options.highlighted = index
        title = next((s.title for s in self.sessions if s.id == self.current), None)
        if title != self._title:
            self._title = title
            self.post_message(self.Titled(title))


def _filter_terms(needle: str) -> list[str]:
    """The filter's terms as the search reads them, in lower case; the search's rules load with
    the first filter typed, off the start-up path (two dataclasses and a pattern, 1.8 ms)."""
    from oncall_tui.core.search import query_terms

    return [term.lower() for term in query_terms(needle)]
