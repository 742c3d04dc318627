"""The UI catalog: every label, key description, dialog, status line and CLI line a person
reads, in English and Chinese, by a stable key.

Error messages have their own catalog (:mod:`oncall_tui.errors`), with codes clients rely on;
everything else the app says is here. A key missing in one language, or a user-facing string
left outside the catalog, fails ``tests/core/test_texts.py``. Values are ``str.format`` templates:
``text("keys.bound", "zh", key="f9")``.
"""

from __future__ import annotations

from oncall_tui.errors import Language
from oncall_tui.redaction import redact
from oncall_tui.texts.cli import CLI
from oncall_tui.texts.export import EXPORT
from oncall_tui.texts.tui import TUI
from oncall_tui.texts.tui_screens import SCREENS

TEXTS: dict[str, dict[Language, str]] = {**TUI, **CLI, **SCREENS, **EXPORT}


def text(key: str, lang: Language, /, **fields: object) -> str:
    """The catalog's text for ``key`` in ``lang``, filled with ``fields``: never with a secret
    they carry (:mod:`oncall_tui.redaction`; the TUI's status line and notifications, the CLI's
    lines)."""
    template = TEXTS[key][lang]
    return redact(template.format(**fields)) if fields else template


def counted(key: str, count: int, lang: Language, /, **fields: object) -> str:
    """``key``'s text for ``count`` (filled in as ``count``), or ``key_one``'s for a count of
    one: "its one message", not "its 1 messages"."""
    return text(f"{key}_one" if count == 1 else key, lang, count=count, **fields)


def stored_word(kind: str, value: str, lang: Language, /) -> str:
    """A stored word (``kind`` ``role``: a message's role; ``reply``: its status; or any
    catalog prefix) in ``lang``; one the catalog lacks, as stored."""
    key = f"{kind}.{value}"
    return text(key, lang) if key in TEXTS else value


__all__ = ["TEXTS", "counted", "stored_word", "text"]
