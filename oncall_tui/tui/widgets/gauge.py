"""The context gauge: tokens used of the window, with the 70% and 95% marks drawn in."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from oncall_tui.core.memory import COMPACT_PERCENT, LIMIT_PERCENT, ContextUsage
from oncall_tui.texts import text as t
from oncall_tui.tui.widgets.lang import ui_lang

COMPACT_MARK = COMPACT_PERCENT / 100
LIMIT_MARK = LIMIT_PERCENT / 100


class ContextGauge(Widget):
    """A one-line bar plus a figures line. Style classes: ``-warn`` from 70%, ``-limit`` from 95%.

    The marks sit where compaction (70%) and the hard stop (95%) begin, so the user can see
    how far away each is before it happens.
    """

    DEFAULT_CSS = """
    ContextGauge { height: 2; }
    """

    used: reactive[int] = reactive(0)
    """Tokens in the next request's context (last known)."""
    window: reactive[int] = reactive(0)
    """The context window the model is asked to use (``num_ctx``); 0 while unknown."""
    reading: reactive[bool] = reactive(False)
    """No reading has come yet (the app is starting): said as such, not as an unknown window."""

    @property
    def usage(self) -> ContextUsage | None:
        return ContextUsage(self.used, self.window) if self.window else None

    @property
    def ratio(self) -> float:
        return self.used / self.window if self.window else 0.0

    @property
    def percent(self) -> float:
        """As the services report it: one decimal, never capped."""
        usage = self.usage
        return 0.0 if usage is None else usage.percent

    @property
    def at_limit(self) -> bool:
        usage = self.usage
        return usage is not None and usage.at_limit

    def update_usage(self, used: int, window: int) -> None:
        self.reading = False
        if (used, window) == (self.used, self.window):
            return
        self.used, self.window = used, window
        self.post_message(self.Changed(self.summary))

    def watch_used(self) -> None:
        self._restyle()

    def watch_window(self) -> None:
        self._restyle()

    class Changed(Message):
        """The reading changed; ``summary`` says it in a few words."""

        def __init__(self, summary: str) -> None:
            super().__init__()
            self.summary = summary

    @property
    def summary(self) -> str:
        """``context 6.2% of 8,192``: the reading where the bar is not shown."""
        if not self.window:
            return ""
        return t("gauge.summary", ui_lang(self), percent=self.percent, window=self.window)

    def figures(self, width: int | None = None) -> str:
        """The figures line, in the first of its forms that fits ``width`` cells: a wide
        window near its end (``120,000 / 131,072 tokens · 91.6%``) had its percentage wrapped
        out of sight; without the word "tokens", then the percentage alone."""
        lang = ui_lang(self)
        if not self.window:
            return t("gauge.reading" if self.reading else "gauge.unknown", lang)
        figures = {"used": self.used, "window": self.window, "percent": self.percent}
        for key in ("gauge.figures", "gauge.figures_short"):
            form = t(key, lang, **figures)
            if width is None or cell_len(form) <= width:
                return form
        return f"{self.percent}%"

    def _restyle(self) -> None:
        usage = self.usage
        self.set_class(usage is not None and usage.past_compact_threshold, "-warn")
        self.set_class(self.at_limit, "-limit")

    def render(self) -> Text:
        width = max(10, self.size.width)
        filled = round(min(1.0, self.ratio) * width)
        marks = {round(COMPACT_MARK * width) - 1: "╎", round(LIMIT_MARK * width) - 1: "┃"}
        usage = self.usage
        if self.at_limit:
            bar_style = "bold red"
        elif usage is not None and usage.past_compact_threshold:
            bar_style = "bold yellow"
        else:
            bar_style = "green"
        bar = Text()
        for column in range(width):
            glyph = marks.get(column, "█" if column < filled else "░")
            style = bar_style if column < filled else "dim"
            if column in marks:
                style = "bold " + ("red" if column == max(marks) else "yellow")
            bar.append(glyph, style)
        figures = self.figures(self.size.width)
        return Text.assemble(bar, "\n", (figures, bar_style if self.window else "dim"))
