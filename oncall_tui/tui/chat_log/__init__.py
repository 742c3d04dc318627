"""The chat log: one scrolling widget that draws the open page of a session.

:class:`ChatLog` is the widget; :class:`MessageBlock` a message it shows (a plain model);
:mod:`.entries` what else it holds and how an entry becomes lines; :mod:`.markdown` how a
reply's text becomes lines, a paragraph at a time; :mod:`.plain` how a user's does, verbatim;
:mod:`.times` when a message was said, as its header and its copy show it.
"""

from oncall_tui.tui.chat_log.log import ChatLog
from oncall_tui.tui.chat_log.message import MessageBlock

__all__ = ["ChatLog", "MessageBlock"]
