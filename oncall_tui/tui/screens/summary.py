"""A read-only view of the session summary: what the model is told about earlier messages.

A character typed here is the next message's, as in the keys help: the summary closes and the
key goes on in the composer, with the keys typed behind it (a ``q`` closed it, and the rest of
the question was typed without it); a paste goes there whole.

The header (what the summary covers, when it was written, whether it was cut off) and the
keys that close the dialog sit outside the scrolling text, so neither is pushed off a small
terminal by a long summary. The styles are the screen's own, under an id of its own: the app
stylesheet's shared dialog rule outranks a default style and sizes the box to its content,
which let a long summary push the header out of sight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from oncall_tui.core.memory import MemoryState
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language
from oncall_tui.texts import counted
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log.rich_markdown import ThemedMarkdown
from oncall_tui.tui.chat_log.times import full_time
from oncall_tui.tui.commands import closing_keys, keymap_here
from oncall_tui.tui.widgets.lang import translate_bindings, ui_lang
from oncall_tui.tui.widgets.typing_on import TypingClosesIt, TypingGoesOn

if TYPE_CHECKING:
    from oncall_tui.tui.widgets.typing_on import TypingField


def summary_header(memory: MemoryState, lang: Language) -> list[str]:
    """The header's lines: what the summary covers, its status, and where the messages are."""
    count = memory.compacted_message_count
    when = memory.last_compacted_at
    stamp = full_time(when) if when else t("summary.time_unknown", lang)  # local, as the chat
    status = t(f"summary.status.{memory.memory_summary_status}", lang)  # complete, truncated
    if memory.memory_summary_status == "truncated":
        status += t("summary.cut_off", lang)
    return [
        counted("summary.covers", count, lang, stamp=stamp),
        t("summary.status", lang, status=status),
        t("summary.where", lang),
    ]


class SummaryScreen(TypingGoesOn, ModalScreen[None]):
    """The summary under a fixed header; the text scrolls, the border says how to close."""

    DEFAULT_CSS = """
    SummaryScreen {
        align: center middle;
        & > #summary-box {
            width: 80%;
            min-width: 40;
            max-width: 100;
            height: auto;
            max-height: 90%;
            padding: 0 1;
            border: thick $primary;
            border-title-style: bold;
            border-subtitle-color: $text;
            background: $surface;
        }
        & .summary--header { width: 1fr; height: auto; }
        & .summary--status { color: $text-warning; }
        & #summary-text {
            height: auto;
            max-height: 100%;
            border-top: solid $panel;
        }
        & #summary-text:focus { border-top: solid $primary; }
    }
    """

    def __init__(self, memory: MemoryState | None, typing_to: TypingField | None = None) -> None:
        super().__init__()
        self.memory = memory
        self.lang = ui_lang(self)
        # As bound (f6 closed it where [keys] had given show_summary f9, and f9 did not).
        self.close_keys = closing_keys("show_summary", keymap_here(self))
        closing = Binding(",".join(self.close_keys), "dismiss", "Close", id="summary.close")
        self._bindings = BindingsMap.merge([self._bindings, BindingsMap([closing])])
        translate_bindings(self, {"summary.close": "dialog.close"})
        self._typing = TypingClosesIt(self, typing_to)

    def compose(self) -> ComposeResult:
        memory = self.memory
        box = Vertical(id="summary-box")
        lang = self.lang
        said = "/".join("esc" if key == "escape" else key for key in self.close_keys)
        close_keys = t("summary.close_keys", lang, keys=said)
        box.border_title = t("summary.title", lang)
        box.border_subtitle = close_keys
        with box:
            if memory is None or not memory.memory_summary:
                yield Static(t("summary.none", lang), classes="summary--header", markup=False)
                return
            header = summary_header(memory, lang)
            truncated = memory.memory_summary_status == "truncated"
            yield Static(header[0], markup=False, classes="summary--header")
            yield Static(
                header[1],
                markup=False,
                classes="summary--header" + (" summary--status" if truncated else ""),
            )
            yield Static(header[2], markup=False, classes="summary--header")
            box.border_subtitle = f"{t('summary.scroll_keys', lang)} · {close_keys}"
            with VerticalScroll(id="summary-text"):
                text = terminal_safe(memory.memory_summary)
                yield Static(ThemedMarkdown(text, self.app))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
