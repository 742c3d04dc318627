"""Questions asked in a modal dialog (yes or no; save, discard or cancel) and an inline error
line; the dialogs that take or show text are :mod:`.text_dialogs`.

Every dialog is driven entirely from the keyboard and says which keys it takes. Texts shown
here may carry user data (labels, file names, skill bodies), so none of them is parsed as
markup, and each is made terminal-safe (:func:`oncall_tui.core.text.terminal_safe`) as it
enters.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Literal, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from oncall_tui.core.text import terminal_safe
from oncall_tui.texts import text as t
from oncall_tui.tui.widgets.lang import translate_bindings, ui_lang

if TYPE_CHECKING:
    from oncall_tui.tui.widgets.typing_on import TypingClosesIt, TypingField

READ_SECONDS = 0.4
"""How long a question is on screen before an answer counts: less than it takes
to read it, more than a burst of typing (or a link's round trip) puts between two keys."""

clock: Callable[[], float] = time.monotonic
"""Where the dialogs read the time (tests replace it)."""

UnsavedChoice = Literal["save", "discard", "cancel"]
"""What to do with unsaved edits before an action that would replace them."""

DIALOG_KEYS = {
    key: key
    for key in (
        "dialog.yes",
        "dialog.no",
        "dialog.cancel",
        "dialog.save",
        "dialog.discard",
        "dialog.close",
        "dialog.parent",
    )
}
"""The dialogs' bindings' descriptions in the catalog, by binding id (the same keys)."""

DIALOG_CSS = """
    align: center middle;
    & > Vertical {
        width: 64;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        padding: 1 2;
        border: thick $primary 80%;
        background: $surface;
    }
    & .dialog--title { text-style: bold; width: 1fr; }
    & .dialog--message { width: 1fr; margin: 1 0; }
    & .dialog--body { height: auto; margin: 1 0; & .dialog--message { margin: 0; } }
    & .dialog--keys { color: $text-muted; width: 1fr; }
    & Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    & Button { margin-left: 1; min-width: 10; }
"""


class ErrorText(Static):
    """One inline error message (a catalog message), hidden while there is none."""

    DEFAULT_CSS = """
    ErrorText {
        color: $text-error;
        background: $error-muted;
        padding: 0 1;
        width: 1fr;
        height: auto;
        display: none;
        &.-shown { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", markup=False, id=id, classes=classes)
        self.message: str | None = None
        """The message shown, or ``None`` when hidden."""

    def show_error(self, message: str | None) -> None:
        """Show ``message``; ``None`` (or an empty message) hides the line."""
        self.message = message or None
        self.update(terminal_safe(message or ""))
        self.set_class(bool(message), "-shown")


AnswerT = TypeVar("AnswerT")


class Question(ModalScreen[AnswerT]):
    """A dialog that knows whether it has been read: an answer that cannot be undone counts
    only once it has been drawn in front for :data:`READ_SECONDS` (:attr:`read`). Keys typed
    behind the key that opened it go to it (:mod:`~oncall_tui.tui.key_order`): one of them
    was not an answer to a question nobody had seen yet."""

    def __init__(self) -> None:
        super().__init__()
        self._drawn_at: float | None = None
        """When the dialog was last drawn in front (``None`` while it is not)."""

    @property
    def read(self) -> bool:
        drawn = self._drawn_at
        return drawn is not None and clock() - drawn >= READ_SECONDS

    def on_screen_resume(self) -> None:
        self._drawn_at = None
        self.call_after_refresh(self._now_drawn)

    def on_screen_suspend(self) -> None:
        self._drawn_at = None

    def _now_drawn(self) -> None:
        if self.is_current:
            self._drawn_at = clock()


class ConfirmDialog(Question[bool]):
    """Ask a yes/no question; dismisses with ``True`` only for an explicit yes.

    The focus starts on "No", so an Enter typed by habit changes nothing; the focused button
    is marked (``▸ No ◂``, in reverse) and the key line says what Enter does, so the choice
    is plain on any terminal, colours or not. ``destructive`` paints "Yes" as a danger. An
    answer counts only once the question has been read (:class:`Question`; ``alt+x y`` typed in
    one burst deleted a session, ``f7 y`` switched to manual and started a compaction): before,
    y, n and Enter ring the bell and the dialog stays (``Delete y Enter`` answered "No" with the
    Enter, and the question was gone before it was seen); Esc, which answers nothing, closes it
    at once.

    Over the chat (``typing_to``: the composer), a character that is not an answer, typed
    before any answer, closes it unanswered too, and goes on in the composer with every key
    behind it: it is the next question being typed (``f7`` and "and now?" in one read lost the
    words to the question switching to manual asks); so does a paste, whenever it comes. Once
    a y or n has come, counted or not, the keys are the question's, as ever ("yes" typed with
    alt+x).
    """

    DEFAULT_CSS = (
        "ConfirmDialog {"
        + DIALOG_CSS
        + """
    & Button.-style-default:focus { text-style: bold reverse; }
    & #yes:focus, & #no:focus {
        border-top: tall $accent;
        border-bottom: tall $accent;
    }
    &.-short Horizontal { margin-top: 0; }
    &.-short #yes, &.-short #no, &.-short #yes:focus, &.-short #no:focus {
        height: 1;
        border-top: none;
        border-bottom: none;
    }
}"""
    )
    AUTO_FOCUS = "#no"  # from the first frame: never "Yes", not even for a moment
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="dialog.yes"),
        Binding("n", "answer(False)", "No", id="dialog.no"),
        Binding("escape", "dismiss(False)", "Cancel", id="dialog.cancel"),
        Binding("pageup", "scroll_body(-1)", show=False),
        Binding("pagedown", "scroll_body(1)", show=False),
    ]
    OTHER_ROWS = 13
    """The rows of the dialog besides the question: borders, padding, title, key line and
    buttons. A question longer than the rest of the terminal scrolls (PgUp/PgDn); the key
    line and the buttons stay on screen."""
    SHORT_ROWS = 24
    """Below this many rows the buttons are one row each, without their borders and the gap
    above them (:data:`SAVED_ROWS`), so that the question is read whole more often (the
    focused one is marked ``▸ … ◂`` all the same)."""
    SAVED_ROWS = 3
    ANSWERS = frozenset({"y", "n"})
    """The characters that answer (:attr:`BINDINGS`); any other is typing."""

    def __init__(
        self,
        title: str,
        message: str,
        *,
        yes_label: str | None = None,
        no_label: str | None = None,
        destructive: bool = False,
        typing_to: TypingField | None = None,
    ) -> None:
        """``yes_label`` and ``no_label`` default to "Yes" and "No" in the user's language;
        ``typing_to`` takes what is typed that is not an answer (``None``: it is dropped)."""
        super().__init__()
        self._typing: TypingClosesIt | None = None
        self._answering = False
        """A y or n has come (too early to count, maybe): what follows is not typing."""
        if typing_to is not None:
            from oncall_tui.tui.widgets.typing_on import TypingClosesIt

            self._typing = TypingClosesIt(self, typing_to, closed=False)
        self.lang = ui_lang(self)
        translate_bindings(self, DIALOG_KEYS)
        self._title = terminal_safe(title)
        self._message = terminal_safe(message)
        yes = t("dialog.yes", self.lang) if yes_label is None else yes_label
        no = t("dialog.no", self.lang) if no_label is None else no_label
        self._labels = {"yes": terminal_safe(yes), "no": terminal_safe(no)}
        self._destructive = destructive

    @property
    def answers_count(self) -> bool:
        """Whether an answer counts now (see the class)."""
        return self.read

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title, markup=False, classes="dialog--title")
            with VerticalScroll(classes="dialog--body", can_focus=False):
                yield Static(self._message, markup=False, classes="dialog--message")
            yield Static(
                self._keys_text("no"), id="confirm-keys", classes="dialog--keys", markup=False
            )
            with Horizontal():
                yield Button(
                    self._button_label("yes", focused=False),
                    id="yes",
                    variant="error" if self._destructive else "primary",
                )
                yield Button(self._button_label("no", focused=True), id="no")

    def on_resize(self, event: events.Resize) -> None:
        short = event.size.height < self.SHORT_ROWS
        self.set_class(short, "-short")
        other = self.OTHER_ROWS - (self.SAVED_ROWS if short else 0)
        body = self.query_one(".dialog--body", VerticalScroll)
        body.styles.max_height = max(3, event.size.height - other)

    @property
    def closed_for_key_under(self) -> bool:
        return self._typing is not None and self._typing.closing

    def close_for_key_under(self) -> bool:
        """A key of the chat's closes the question unanswered, as typing does, unless an
        answer has begun (:class:`~..key_order.ClosedByKeysUnder`)."""
        return not self._answering and self._typing is not None and self._typing.close()

    def on_key(self, event: events.Key) -> None:
        typing = self._typing
        if typing is None:
            return
        if not typing.closing and event.key in self.ANSWERS:
            self._answering = True  # (the binding answers, or rings the bell)
        elif typing.closing or not self._answering:
            typing.key(event)

    def on_paste(self, event: events.Paste) -> None:
        if self._typing is not None:  # never an answer: the next message's
            self._typing.paste(event)

    def action_scroll_body(self, pages: int) -> None:
        body = self.query_one(".dialog--body", VerticalScroll)
        if pages < 0:
            body.scroll_page_up()
        else:
            body.scroll_page_down()

    def _button_label(self, button_id: str, *, focused: bool) -> Content:
        label = self._labels[button_id]
        return Content(f"▸ {label} ◂" if focused else f"  {label}  ")  # never markup

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Mark the focused button and name it in the key line."""
        for button in self.query(Button):
            if button.id is not None:
                button.label = self._button_label(button.id, focused=button is event.widget)
        if isinstance(event.widget, Button) and event.widget.id in self._labels:
            self.query_one("#confirm-keys", Static).update(self._keys_text(event.widget.id))

    def _keys_text(self, focused_id: str) -> str:
        return t("dialog.confirm.keys", self.lang, focused=self._labels[focused_id])

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._answer(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self._answer(answer)

    def _answer(self, yes: bool) -> None:
        """Every answer, by key or button, ends here (a subclass may hold it back)."""
        if self.answers_count:
            self.dismiss(yes)
        else:
            self.app.bell()


class UnsavedChangesDialog(Question[UnsavedChoice]):
    """Save, discard or keep editing: asked before anything would drop unsaved edits.

    The focus starts on "Keep editing", the only answer that changes nothing, and
    the only one that counts before the question has been read (:class:`Question`): "Save"
    and "Discard" ring the bell until then (the ``s`` of a prompt's name typed behind ctrl+n
    saved the edits it asked about, unseen).
    """

    DEFAULT_CSS = "UnsavedChangesDialog {" + DIALOG_CSS + "}"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "Save", id="dialog.save"),
        Binding("d", "choose('discard')", "Discard", id="dialog.discard"),
        Binding("escape,c", "choose('cancel')", "Cancel", id="dialog.cancel"),
    ]

    def __init__(self, message: str, *, title: str | None = None) -> None:
        """``title`` defaults to "Unsaved changes" in the user's language."""
        super().__init__()
        self.lang = ui_lang(self)
        translate_bindings(self, DIALOG_KEYS)
        self._title = terminal_safe(
            t("dialog.unsaved.title", self.lang) if title is None else title
        )
        self._message = terminal_safe(message)

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical():
            yield Static(self._title, markup=False, classes="dialog--title")
            yield Static(self._message, markup=False, classes="dialog--message")
            yield Static(t("dialog.unsaved.keys", lang), classes="dialog--keys", markup=False)
            with Horizontal():
                yield Button(t("dialog.save", lang), id="save", variant="primary")
                yield Button(t("dialog.discard", lang), id="discard", variant="error")
                yield Button(t("dialog.keep_editing", lang), id="cancel")  # as its keys say

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose(event.button.id or "cancel")

    def action_choose(self, choice: str) -> None:
        if choice not in ("save", "discard"):
            self.dismiss("cancel")
        elif not self.read:  # the edits are written, or go for good: only once it could be read
            self.app.bell()
        else:
            self.dismiss("save" if choice == "save" else "discard")
