"""The error catalog's texts, in English and Chinese, read from ``catalog.json`` beside this
module (data a translator edits, not code):

- :data:`CATALOG`: a message per code;
- :data:`REASONS`: the exact rule a reason names, which refines a code; a reason given to a code
  whose message has no ``{detail}`` replaces the whole message (the same code said of another
  server);
- :data:`NOTES`: what completes a message with what happened around it, never an error on its
  own;
- :data:`KINDS`: the words for what a message is about, and for what a settings file's value
  must be (``config_wrong_type``).

Read through :class:`~oncall_tui.errors.OncallError`; ``tests/core/test_texts.py`` checks every
key has both languages and the same fields in each, and that no key is written twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oncall_tui.errors import Language

_TABLES: dict[str, dict[str, dict[Language, str]]] = json.loads(
    Path(__file__).with_name("catalog.json").read_text(encoding="utf-8")
)
CATALOG = _TABLES["codes"]
REASONS = _TABLES["reasons"]
NOTES = _TABLES["notes"]
KINDS = _TABLES["kinds"]
