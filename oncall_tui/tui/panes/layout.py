"""The main screen's three panes at every width: the sessions on the left, the chat, the context
panel on the right.

The chat keeps at least three fifths of the width below :data:`NARROW` columns: the panel is
folded away there and opens over the chat (ctrl+b), and the sessions pane takes at most
:data:`SESSIONS_SHARE` of the width; below :data:`SESSIONS_FOLD` columns (half of a split
terminal) it is folded away too, and the chat has the whole width. What the user chooses stays
whatever the terminal does: the panel hidden with ctrl+b where it is a column does not come
back after a resize, and the sessions pane hidden with alt+1 is shown again only by its key or
by filtering the sessions; shown with alt+1 in a narrow terminal, it stays.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget

from oncall_tui.tui.widgets.composer import Composer

NARROW = 120
"""Below this many columns the context panel is folded away, and opens over the chat."""
SESSIONS_WIDTH = 26
"""The sessions pane's width where it fits."""
SESSIONS_SHARE = 0.4
"""At most this share of the width goes to the sessions pane: the chat keeps the rest."""
SESSIONS_FOLD = 70
"""Below this many columns the sessions pane starts folded away (alt+1 shows it): a chat of 36
columns beside it, at 60, cut every log line and code block."""


class PaneLayout:
    """Fits ``screen``'s panes to its width, and shows or hides them as the user asks."""

    def __init__(self, screen: Screen[None], sessions: Widget, panel: Widget) -> None:
        self._screen = screen
        self._sessions = sessions
        self._panel = panel
        self.panel_hidden = False
        """The user hid the panel where it is a column (ctrl+b): kept through resizes."""
        self.sessions_chosen: bool | None = None
        """The user showed (``True``) or hid the sessions pane with alt+1: kept through
        resizes; ``None``, it follows the width."""
        self._sessions_folded: bool | None = None
        """Whether the width was below :data:`SESSIONS_FOLD` at the last fit."""

    def fit(self, width: int) -> None:
        """Wide, the panel is a column of its own unless the user hid it; narrow, it is folded
        away (an overlay, opened with ctrl+b) and the gauge's figures stay in sight on the
        composer's border. The sessions pane gives the chat its share at any width, and folds
        away below :data:`SESSIONS_FOLD` columns unless the user chose otherwise."""
        self._sessions.styles.width = min(SESSIONS_WIDTH, int(width * SESSIONS_SHARE))
        folded = width < SESSIONS_FOLD
        if folded != self._sessions_folded:  # as the width crosses the fold, not at every resize
            self._sessions_folded = folded
            chosen = self.sessions_chosen
            self._show(self._sessions, not folded if chosen is None else chosen)
        narrow = width < NARROW
        if narrow != self._screen.has_class("-narrow"):
            self._screen.set_class(narrow, "-narrow")
            self._show(self._panel, not narrow and not self.panel_hidden)

    def toggle_panel(self) -> None:
        shown = not self._panel.display
        if not self._screen.has_class("-narrow"):  # over the chat, opening and closing is for now
            self.panel_hidden = not shown
        self._show(self._panel, shown)

    def toggle_sessions(self) -> None:
        """alt+1: the sessions pane, hidden or shown; the chat takes its width."""
        self.sessions_chosen = not self._sessions.display
        self._show(self._sessions, self.sessions_chosen)

    def _show(self, pane: Widget, shown: bool) -> None:
        """Show or hide ``pane``; the focus leaves a pane that goes, for the composer."""
        pane.display = shown
        focused = self._screen.focused
        if not shown and focused is not None and pane in focused.ancestors_with_self:
            self._screen.query_one(Composer).focus()
