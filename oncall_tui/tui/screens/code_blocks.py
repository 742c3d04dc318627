"""Copy one code block of a message: its blocks numbered, a digit or Enter copies one.

Any other character typed here is the next message's, as in the keys help: the list closes and
the key goes on in the composer, with the keys typed behind it; a paste goes there whole.
"""

from __future__ import annotations

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from oncall_tui.core.code_blocks import CodeBlock
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language
from oncall_tui.texts import counted, text
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.typing_on import TypingClosesIt, TypingField


class CodeBlockPicker(ModalScreen[CodeBlock | None]):
    """Dismissed with the block chosen, or ``None`` (Esc)."""

    BINDINGS = [Binding("escape", "dismiss_none", show=False)]

    def __init__(self, blocks: list[CodeBlock], typing_to: TypingField | None = None) -> None:
        super().__init__()
        self.blocks = blocks
        self.lang = ui_lang(self)
        self._typing = TypingClosesIt(self, typing_to)

    def compose(self) -> ComposeResult:
        with Vertical(id="code-dialog"):
            yield Label(Text(text("code.title", self.lang)), classes="dialog-title")
            yield OptionList(
                *(
                    Option(self._describe(number, block), id=str(number - 1))
                    for number, block in enumerate(self.blocks, 1)
                ),
                id="code-blocks",
            )
            yield Label(Text(text("code.keys", self.lang)), classes="dialog-keys")

    def _describe(self, number: int, block: CodeBlock) -> Text:
        lines = line_count(block.line_count, self.lang)
        head = f"{number}  {block.language or '—'} · {lines}  "
        line = Text(head, style="bold")
        first = block.first_line.strip()
        line.append(terminal_safe(first if len(first) <= 60 else first[:59] + "…"))
        return line

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @property
    def closed_for_key_under(self) -> bool:
        return self._typing.closing

    def close_for_key_under(self) -> bool:
        """A key of the chat's closes the list (:class:`~...key_order.ClosedByKeysUnder`)."""
        return self._typing.close()

    def on_key(self, event: events.Key) -> None:
        """A digit copies its block (one with no block rings the bell); other typing goes on in
        the composer, and every key behind it."""
        if event.character and event.character in "0123456789" and not self._typing.closing:
            event.stop()
            index = int(event.character) - 1
            if 0 <= index < len(self.blocks):
                self.dismiss(self.blocks[index])
            else:
                self.app.bell()
            return
        self._typing.key(event)

    def on_paste(self, event: events.Paste) -> None:
        self._typing.paste(event)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.blocks[int(event.option.id or 0)])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def line_count(count: int, lang: Language) -> str:
    """``1 line``, ``12 lines``: how long a code block is, in the user's language."""
    return counted("code.lines", count, lang)
