"""The composer: a multi-line TextArea where Enter sends and ctrl+j inserts a newline."""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import TextArea

from oncall_tui.core.text import one_line, terminal_safe
from oncall_tui.texts import text as t
from oncall_tui.tui.widgets.in_order import TEXT_ENDS, InOrderBindings, TextEnds
from oncall_tui.tui.widgets.lang import translate_bindings, ui_lang

NEWLINE_KEYS = ("ctrl+j", "alt+enter", "shift+enter")
HISTORY_LIMIT = 200
"""Earlier messages ↑ can bring back."""


COMPOSER_KEYS = {
    "submit": "composer.key.submit",
    "newline": "composer.key.newline",
    "clear_text": "composer.key.clear_text",
    "select_all": "composer.key.select_all",
}
"""The composer's own bindings' descriptions in the catalog, by action."""
TITLE_ROOM = 8
"""The open session's title is on the border only where this many cells of it fit beside
the gauge's figures (at 60 columns, 30 do)."""


class Composer(InOrderBindings, TextEnds, TextArea):
    """Enter sends; ctrl+j, alt+enter or shift+enter (where the terminal reports it) break
    the line. The text sent leaves the composer only when the app says the send was accepted,
    and only that text: what was typed after it stays.

    ↑ in an empty composer brings back earlier messages (this session's, newest first, then
    the other sessions'), ↓ goes back towards the newest and then to an empty composer. A
    recalled message is edited like typed text; once changed, ↑ and ↓ move the cursor again."""

    ALLOW_MAXIMIZE = False
    """Alone on the screen it hid the replies it sent: the palette's Maximize fills the
    screen with the chat instead."""

    # Not in the footer (the placeholder says Enter and ctrl+j; F1 lists them all), so that
    # the screen's keys fit at 80 columns.
    BINDINGS = [
        Binding("enter", "submit", "Send", show=False),
        Binding(",".join(NEWLINE_KEYS), "newline", "Newline", show=False),
        Binding("ctrl+l", "clear_text", "Clear", show=False, tooltip="Empty the composer"),
        Binding("alt+a", "select_all", "Select all", show=False),
        # The chat scrolls without the focus leaving the composer (the screen's action; a
        # composer on another screen leaves the keys alone).
        Binding("pageup", "screen.page_chat(-1)", show=False),
        Binding("pagedown", "screen.page_chat(1)", show=False),
        *TEXT_ENDS,
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
            placeholder=t("composer.placeholder", ui_lang(self)),
        )
        translate_bindings(self, COMPOSER_KEYS)
        self.earlier: list[str] = []
        """Messages ↑ brings back, newest first."""
        self._recalled: int | None = None
        """The index in ``earlier`` of the message shown, while it is shown unchanged."""
        self._sent: str | None = None
        """The text on its way to being stored, while the composer still shows it."""
        self._title: str | None = None
        self._figures = ""
        self._labelled = ""
        """The border's text as last set."""

    # -- the border: which session, how full ------------------------------------------------

    def show_title(self, title: str | None) -> None:
        """The open session's title on the border, before the figures, so that the engineer
        sees which incident they type into where they type (the sessions pane cuts a title at
        its width, and is folded away in a narrow terminal). ``None``: a new session."""
        self._title = title
        self._label()

    def show_figures(self, figures: str) -> None:
        """The context gauge's reading, at the border's right end: always whole."""
        self._figures = figures
        self._label()

    def on_resize(self) -> None:
        self._label()

    def _label(self) -> None:
        label = Content(self._figures)
        room = self.size.width - label.cell_length - 6  # the border's ends, and " · "
        if self._title and room >= TITLE_ROOM:
            title = Content(terminal_safe(one_line(self._title))).truncate(room, ellipsis=True)
            label = Content.assemble(title, " · ", label)
        if label.plain != self._labelled:  # (a resize mostly leaves it as it was)
            self._labelled = label.plain
            self.border_title = label  # as Content: a title's brackets are not markup

    async def on_key(self, event: events.Key) -> None:
        # ↑/↓ recall before the cursor's bindings; every other binding of the composer (Enter,
        # the newline keys, ctrl+a, ctrl+k, Backspace…) runs next, in order with the
        # characters around it (:class:`InOrderBindings`); then the TextArea types the rest.
        if event.key in ("up", "down") and self._recall(older=event.key == "up"):
            self._take(event)
        elif event.is_printable:
            self._typing_ahead()

    def on_paste(self) -> None:
        self._typing_ahead()  # (before the TextArea puts the paste where the cursor is)

    def _typing_ahead(self) -> None:
        """Text typed or pasted while the sent text waits to be stored goes on a line of its
        own (the sent text leaves the composer once stored, and only it)."""
        if self._sent is not None and self.text == self._sent:
            self.move_cursor(self.document.end)
            self.insert("\n")

    def type_key(self, key: str, character: str | None) -> None:
        """A key typed for the composer that a pane or another screen received (a dialog that
        opened under the typing hands it back): a character is inserted, Enter sends, ctrl+j
        and alt+enter break the line and Backspace deletes, as if typed here. Other keys are
        dropped: they would act on whatever screen is in front."""
        self._take_focus()
        if key == "enter":
            self.action_submit()
        elif key in NEWLINE_KEYS:
            self.action_newline()
        elif key == "backspace":
            self.action_delete_left()
        elif character is not None and character.isprintable():
            self.type_text(character)

    def type_text(self, text: str) -> None:
        """Text typed or pasted for the composer where it did not have the focus: put where
        the cursor is, as if typed here."""
        self._take_focus()
        self._typing_ahead()
        start, end = self.selection
        self.replace(text, start, end, maintain_selection_offset=False)

    def _take_focus(self) -> None:
        """Typing handed here brings the focus, shown: the keys after it are typed here too,
        not a pane's (a "c" in the chat copied a message), and a pane filling the screen gives
        the others back (the typing went on out of sight). The screen's focus is set while a
        dialog is in front too: it is where the focus comes back to."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        screen.set_focus(self)

    @staticmethod
    def _take(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def action_submit(self) -> None:
        """Ask the screen to send the text. From here on, what is typed goes on a line of its
        own (keys that came with the Enter are handled before the screen hears of it), so it
        stays apart from the text sent, whatever becomes of the send: :meth:`sent` takes that
        text out once it is stored, :meth:`send_ended` ends the arrangement."""
        if self.text.strip():
            if self._sent is None:  # else one is on its way already, and the screen says so
                self._sent = self.text
            self.post_message(self.Submitted(self, self.text))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_clear_text(self) -> None:
        self.clear()  # an edit like any other: ctrl+z brings the text back
        self._recalled = None

    # -- what was sent ----------------------------------------------------------------------

    def sent(self) -> None:
        """The text on its way is stored: take it out, keeping what was typed after it while
        it was on its way (the cursor stays with that text). Text the user changed meanwhile
        is theirs now, and stays as it is. It becomes the newest message ↑ brings back."""
        sent, self._sent = self._sent, None
        if sent is None:
            return
        self.remember([sent], newest=True)
        if self.text == sent:
            self.clear()
        elif self.text.startswith(sent + "\n"):
            lines = sent.split("\n")
            self.delete((0, 0), (len(lines), 0))

    def send_ended(self) -> None:
        """The send is over or was refused, stored or not: typing edits the text again."""
        self._sent = None

    def remember(self, messages: Iterable[str], *, newest: bool = False) -> None:
        """Messages ↑ can bring back, newest first: set anew, or (``newest``) put in front."""
        given = [m for m in messages if m.strip()]
        merged = given + self.earlier if newest else given
        unique = list(dict.fromkeys(merged))  # a message sent twice is recalled once
        self.earlier = unique[:HISTORY_LIMIT]
        self._recalled = None

    def _recall(self, *, older: bool) -> bool:
        """Show the next older (or newer) message, if ↑/↓ means that here; else False."""
        recalling = self._recalled is not None and self.text == self.earlier[self._recalled]
        if not recalling:
            self._recalled = None
            if not older or self.text:
                return False
        row = self.cursor_location[0]
        if recalling and row != (0 if older else self.document.line_count - 1):
            return False  # within a recalled message of several lines, the cursor moves
        current = -1 if self._recalled is None else self._recalled
        wanted = current + 1 if older else current - 1
        if wanted >= len(self.earlier):
            return True  # the oldest is shown: ↑ stays on it
        self.text = "" if wanted < 0 else self.earlier[wanted]
        self._recalled = None if wanted < 0 else wanted
        self.move_cursor(self.document.end)
        return True
