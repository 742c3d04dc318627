"""ctrl+f: search every message and title of the user's sessions; Enter opens the session at
the message found. The query runs off the UI's loop, a moment after the typing stops."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from oncall_tui.core.text import terminal_safe
from oncall_tui.texts import text
from oncall_tui.tui.chat_log.times import local_now, short_time
from oncall_tui.tui.service_calls import ServiceCalls
from oncall_tui.tui.widgets.in_order import InOrderInput
from oncall_tui.tui.widgets.lang import ui_lang

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.services.search import SearchHit

TYPING_PAUSE = 0.15
"""Seconds after the last key before the query runs: one search per pause, not per key."""
RESULTS = 100


class SearchQuery(InOrderInput):
    """The query; ↓ moves to the results (when there are any)."""

    BINDINGS = [Binding("down", "screen.to_results", show=False)]


class SearchScreen(ModalScreen["SearchHit | None"]):
    """Dismissed with the hit chosen, or ``None`` (Esc)."""

    BINDINGS = [Binding("escape", "dismiss_none", show=False)]

    def __init__(self, services: Services, query: str = "") -> None:
        super().__init__()
        self.services = services
        self.lang = ui_lang(self)
        self.query_text = query
        self.hits: list[SearchHit] = []
        self._timer: Timer | None = None
        self._calls = ServiceCalls(self, lambda error: self._show([], error.message(self.lang)))

    def compose(self) -> ComposeResult:
        with Vertical(id="search-dialog"):
            yield Label(Text(text("search.title", self.lang)), classes="dialog-title")
            yield SearchQuery(
                self.query_text,
                placeholder=text("search.placeholder", self.lang),
                id="search-query",
                max_length=200,
            )
            yield OptionList(id="search-results")
            yield Label("", id="search-note")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._note(text("search.hint", self.lang))
        if self.query_text:
            self.run_search(self.query_text)

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        query = event.value
        self._timer = self.set_timer(TYPING_PAUSE, lambda: self.run_search(query))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter in the query opens the newest hit, searching first if the typing pause has
        not run the query yet (Enter right behind the keys)."""
        if self._timer is not None:
            self._timer.stop()
        self.run_search(event.value, open_first=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return bool(self.hits) if action == "to_results" else True

    def action_to_results(self) -> None:
        """↓ from the query moves to the results, the first one highlighted."""
        results = self.query_one(OptionList)
        results.highlighted = 0
        results.focus()

    def run_search(self, query: str, open_first: bool = False) -> None:
        """Search for ``query`` off the UI's loop; a newer search replaces one still running."""
        services, owner = self.services, self.services.owner

        def hits() -> list[SearchHit]:
            return services.search.search(owner, query, limit=RESULTS) if query.strip() else []

        def found(hits: list[SearchHit]) -> None:
            if not query.strip():
                note = text("search.hint", self.lang)
            elif not hits:
                note = text("search.none", self.lang)
            elif len(hits) == RESULTS:
                note = text("search.many", self.lang, count=RESULTS)
            else:
                note = text("search.count", self.lang, count=len(hits))
            self._show(hits, note)
            if open_first and hits:
                self.dismiss(hits[0])

        self._calls.start(hits, found, group="search", exclusive=True)

    def _show(self, hits: list[SearchHit], note: str) -> None:
        self.hits = hits
        results = self.query_one(OptionList)
        results.clear_options()
        results.add_options([Option(self._describe(hit), id=str(i)) for i, hit in enumerate(hits)])
        self._note(note)

    def _note(self, note: str) -> None:
        self.query_one("#search-note", Label).update(Text(terminal_safe(note)))

    def _describe(self, hit: SearchHit) -> Text:
        lang = self.lang
        stamp = short_time(hit.created_at, local_now(), lang)  # as the message's own header
        who = text(f"search.role.{hit.role or 'title'}", lang)
        line = Text()
        line.append(terminal_safe(hit.session_title), style="bold")
        line.append(f"  {stamp} · {who}\n", style="dim")
        snippet = Text(terminal_safe(hit.snippet))
        for start, end in hit.highlights:
            snippet.stylize("bold reverse", start, end)
        line.append_text(snippet)
        return line

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.hits[int(event.option.id or 0)])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
