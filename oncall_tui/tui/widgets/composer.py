"""The composer: a multi-line TextArea where Enter sends and ctrl+j inserts a newline."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class Composer(TextArea):
    """Enter sends; ctrl+j, alt+enter or shift+enter (where the terminal reports it) break
    the line. The text sent leaves the composer only when the app says the send was accepted,
    and only that text: what was typed after it stays."""

    BINDINGS = [
        Binding("enter", "submit", "Send"),  # handled in _on_key; listed for the footer
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

    async def _on_key(self, event: events.Key) -> None:
        # Here, in order with the typed characters before it: a priority binding would run as
        # the key reaches the app, before text typed just ahead of it (a fast typist, a paste
        # without bracketing, tmux send-keys) has been inserted, and send too little or nothing.
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_submit()
            return
        await super()._on_key(event)

    def action_submit(self) -> None:
        if self.text.strip():
            self.post_message(self.Submitted(self, self.text))

    def remove_sent(self, sent: str) -> None:
        """Take ``sent`` out of the composer once it is stored, keeping what was typed after
        it while the send was on its way (the cursor stays with that text). Text the user
        changed meanwhile is theirs now, and stays as it is."""
        if not self.text.startswith(sent):
            return
        lines = sent.split("\n")
        self.delete((0, 0), (len(lines) - 1, len(lines[-1])))
        if self.text.strip() == "":
            self.clear()

    def action_newline(self) -> None:
        self.insert("\n")
