"""The composer: a multi-line TextArea where Enter sends and ctrl+j inserts a newline."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class Composer(TextArea):
    """Enter sends; ctrl+j, alt+enter or shift+enter (where the terminal reports it) break
    the line. The text is cleared only when the app says the send was accepted."""

    BINDINGS = [
        Binding("enter", "submit", "Send", priority=True),
        Binding("ctrl+j,alt+enter,shift+enter", "newline", "Newline", show=True),
    ]

    class Submitted(Message):
        def __init__(self, composer: Composer, text: str) -> None:
            super().__init__()
            self.composer = composer
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            placeholder="Message · Enter sends · ctrl+j new line",
        )

    def action_submit(self) -> None:
        if self.text.strip():
            self.post_message(self.Submitted(self, self.text))

    def action_newline(self) -> None:
        self.insert("\n")
