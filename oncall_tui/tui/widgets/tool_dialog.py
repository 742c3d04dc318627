"""The question before a ``confirm`` tool runs: answered only on purpose, never by typing.

The dialog opens when the model's reply calls the tool, which is often while the engineer is
typing the next message. So it takes no answer until it has been on screen for
:data:`GRACE_SECONDS` and no key has come for :data:`QUIET_SECONDS`: a key typed before it
was drawn, or in the burst of typing under way when it opened, cannot run the tool or decline
it. Those keys go back to the composer, in order (its :meth:`Composer.type_key`), and the
dialog stays. After that, ``y`` (or Enter on "Run", reached with Tab) runs the tool; ``n``,
Esc or Enter on "Don't run", where the focus starts, declines it; any other typing goes to the
composer again and starts the quiet gap over. A mouse click on "Run" counts only once answers
do. The key line says which of the two the dialog is doing. PgUp/PgDn scroll long arguments at
any time: reading them is what the wait is for.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events
from textual.timer import Timer
from textual.widgets import Button, Static

from oncall_tui.core.events import ToolConfirmation
from oncall_tui.texts import text as t
from oncall_tui.tui.widgets import dialogs
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from oncall_tui.tui.widgets.lang import ui_lang

if TYPE_CHECKING:
    from oncall_tui.tui.widgets.typing_on import Typed

GRACE_SECONDS = 1.5
"""How long the dialog is on screen before an answer counts (longer than a key-every-0.3 s
burst needs to show it is still going, short enough to read the question in)."""

QUIET_SECONDS = 1.0
"""How long no key may have come before an answer counts: typing that goes on through the
dialog's opening (a key every second or faster) never answers it."""

ANSWER_KEYS = frozenset({"y", "n", "escape", "enter", "tab", "shift+tab"})
"""The keys that answer the dialog or move between its buttons, once answers count."""

TYPING_KEYS = frozenset({"enter", "backspace", "ctrl+j", "alt+enter", "shift+enter"})
"""Keys, besides characters, that the composer takes as typing."""

READING_KEYS = frozenset({"pageup", "pagedown"})
"""Keys that scroll a long question (:class:`ConfirmDialog`): reading it answers nothing, so
they act at once, and say nothing of typing."""


class ToolConfirmDialog(ConfirmDialog):
    """Run this tool? The server, the tool and the arguments, asked so that only a deliberate
    answer counts (see the module's description). Dismisses with ``True`` to run it."""

    def __init__(
        self, request: ToolConfirmation, typed: Typed, pasted: Callable[[str], None]
    ) -> None:
        lang = ui_lang(self)  # the running app's, read before the texts the dialog is built of
        arguments = json.dumps(request.arguments, ensure_ascii=False, indent=2)
        super().__init__(
            t("tools.confirm.title", lang, name=request.name),
            t(
                "tools.confirm.ask",
                lang,
                server=request.server,
                tool=request.tool,
                arguments=arguments,
            ),
            yes_label=t("tools.confirm.yes", lang),
            no_label=t("tools.confirm.no", lang),
        )
        self._typed = typed
        self._pasted = pasted
        """Takes a paste handed back (:meth:`Composer.type_text`)."""
        self._last_key: float | None = None
        """When the last key that went to the composer came."""
        self._timer: Timer | None = None

    # -- when answers count --------------------------------------------------------------------

    def wait_seconds(self) -> float | None:
        """How long until an answer counts: ``0.0`` from then on, ``None`` while the dialog
        is not on screen."""
        if self._drawn_at is None:
            return None
        ready_at = self._drawn_at + GRACE_SECONDS
        if self._last_key is not None:
            ready_at = max(ready_at, self._last_key + QUIET_SECONDS)
        return max(0.0, ready_at - dialogs.clock())

    @property
    def answers_count(self) -> bool:
        return self.wait_seconds() == 0.0

    def _now_drawn(self) -> None:
        """Drawn in front (when pushed, or again after a screen over it closed): the grace
        period starts with that frame."""
        super()._now_drawn()
        if self.is_current:
            self._check()

    def _check(self) -> None:
        """Say in the key line whether answers count; look again when they will."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        wait = self.wait_seconds()
        if wait is None:
            return
        self._show_keys()
        if wait > 0.0:
            self._timer = self.set_timer(wait, self._check)

    # -- keys ----------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """Before answers count, every key is held back from the dialog, and typing goes to
        the composer; after, answers and Tab act, and typing goes to the composer again."""
        if event.key in READING_KEYS:
            return
        typing = event.is_printable or event.key in TYPING_KEYS
        if self.answers_count and (event.key in ANSWER_KEYS or not typing):
            return  # an answer, a move between the buttons, or a key of the app's
        event.stop()  # before the bindings (the dialog's y/n/esc, the button's Enter)
        event.prevent_default()
        self._last_key = dialogs.clock()
        if typing:
            self._typed(event.key, event.character)
        self._check()

    def on_paste(self, event: events.Paste) -> None:
        """A paste is typing, whenever it comes: it goes to the composer, and answers
        count only once it has stopped for a while, as after a key."""
        event.stop()
        event.prevent_default()
        self._last_key = dialogs.clock()
        self._pasted(event.text)
        self._check()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Before answers count, a click does not leave the focus on "Run" (an Enter
        typed just after would run the tool): it goes back to "Don't run"."""
        if not self.answers_count and event.widget.id == "yes":
            event.prevent_default()
            self.query_one("#no", Button).focus()

    def _answer(self, yes: bool) -> None:
        if self.answers_count:  # a click on a button before then does nothing
            self.dismiss(yes)

    def _keys_text(self, focused_id: str) -> str:
        if not self.answers_count:
            return t("dialog.tool.waiting", self.lang)
        return t("dialog.tool.keys", self.lang, focused=self._labels[focused_id])

    def _show_keys(self) -> None:
        focused = self.focused
        focused_id = focused.id if isinstance(focused, Button) and focused.id else "no"
        if self.is_mounted:
            self.query_one("#confirm-keys", Static).update(self._keys_text(focused_id))
