"""The text areas of the app other than the composer (:mod:`.composer`): a prompt's content,
the read-only viewer. Apart from :mod:`.in_order`, which the composer brings to the first
frame: a widget class is work at its definition, and these come later."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType
from textual.widgets import TextArea

from oncall_tui.tui.widgets.in_order import TEXT_ENDS, InOrderBindings, TextEnds


class InOrderTextArea(InOrderBindings, TextEnds, TextArea):
    """A text area of the app other than the composer: a prompt's content, the read-only
    viewer; its keys run in order, and ctrl+home and ctrl+end reach the text's ends."""

    BINDINGS: ClassVar[list[BindingType]] = TEXT_ENDS
