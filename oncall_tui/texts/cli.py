"""What the command line prints for people (``--json`` output is data, not text)."""

from __future__ import annotations

from oncall_tui.errors import Language

CLI: dict[str, dict[Language, str]] = {}
