"""The UI catalog: every label, key description, dialog, status line, CLI line and export
heading a person reads, in English and Chinese, by a stable key, read from ``catalog.json``
beside this module (data a translator edits, not code; keys grouped by their prefix).

Error messages have their own catalog (:mod:`oncall_tui.errors`), with codes clients rely on;
everything else the app says is here. A key missing in one language, a key written twice, or a
user-facing string left outside the catalog fails ``tests/core/test_texts.py``. Values are
``str.format`` templates: ``text("keys.bound", "zh", key="f9")``.
"""

from __future__ import annotations

import json
from pathlib import Path

from oncall_tui.errors import Language
from oncall_tui.redaction import redact

TEXTS: dict[str, dict[Language, str]] = json.loads(
    Path(__file__).with_name("catalog.json").read_text(encoding="utf-8")
)


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
