"""The error catalog: stable codes, one message per language, one exception type.

Every user-facing failure is an :class:`OncallError` carrying a catalog code and,
for rule-specific failures, a *reason* key whose text is catalogued too. Clients
(CLI, TUI) render ``error.message(lang)``; nothing else formats error text. A message never
holds a secret (:mod:`oncall_tui.redaction`), whatever text its params carry.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from oncall_tui.errors.catalog import CATALOG, KINDS, NOTES, REASONS
from oncall_tui.redaction import redact

Language = Literal["en", "zh"]

COUNTS = frozenset({"limit", "length", "fit", "size", "minimum", "maximum", "window"})
"""Params that are counts (characters, bytes, tokens), written with their thousands marked; an
id, a port or a line number is written as it is."""


class OncallError(Exception):
    """A user-facing failure with a stable catalog code.

    ``reason`` names a rule in :data:`REASONS`; its text becomes ``{detail}``.
    ``params`` fill the placeholders of both. A ``kind`` param is translated.
    """

    def __init__(self, code: str, reason: str | None = None, **params: object) -> None:
        if code not in CATALOG:
            raise KeyError(f"unknown error code {code!r}")
        if reason is not None and reason not in REASONS:
            raise KeyError(f"unknown error reason {reason!r}")
        self.code = code
        self.reason = reason
        self.params: dict[str, object] = dict(params)
        super().__init__(self.message("en"))

    @property
    def server_answered(self) -> bool:
        """A model server answered, but not as its API should (the key refused, another service
        on its port): the error carries the HTTP status it answered with. ``False`` for one that
        did not answer, and for any other error."""
        return self.code == "MODEL_UNAVAILABLE" and self.params.get("status") is not None

    def message(self, lang: Language) -> str:
        values = self._values(lang)
        template = CATALOG[self.code][lang]
        if self.reason is not None:
            reason = REASONS[self.reason][lang].format_map(_Lenient(values))
            if "{detail}" not in template:  # a whole message of its own (another server's)
                return redact(reason)
            values["detail"] = reason
        return redact(template.format_map(_Lenient(values)))  # no secret, whatever the params

    def detail(self, lang: Language) -> str:
        """The error's own words, without its code's sentence: "num_ctx must be between …",
        not "Invalid argument: num_ctx must be between …" (see :class:`DetailOf`)."""
        values = self._values(lang)
        if self.reason is not None:
            return redact(REASONS[self.reason][lang].format_map(_Lenient(values)))
        return redact(str(values.get("detail", "")))

    def _values(self, lang: Language) -> dict[str, object]:
        """The params as said in ``lang``: an error in its words, a ``kind`` translated, a
        count with its thousands marked (12,000, as the screens write it)."""
        values: dict[str, object] = {}
        for key, value in self.params.items():
            if isinstance(value, OncallError):
                value = _embedded(value.message(lang))
            elif isinstance(value, DetailOf):
                value = value.error.detail(lang)
            elif key in COUNTS and isinstance(value, int) and not isinstance(value, bool):
                value = f"{value:,}"
            values[key] = value
        kind = values.get("kind")
        if isinstance(kind, str) and kind in KINDS:
            values["kind"] = KINDS[kind][lang]
        for key, prefix in (("mode", "mode."), ("problem", "problem.")):
            # A memory mode, by the name the panel gives it; a file's problem the app words
            # itself ("no such file"), in the user's language (a server's own stays as said).
            value = values.get(key)
            if isinstance(value, str) and f"{prefix}{value}" in KINDS:
                values[key] = KINDS[f"{prefix}{value}"][lang]
        return values

    def to_json(self, lang: Language) -> dict[str, object]:
        return {"code": self.code, "message": self.message(lang), "reason": self.reason}


class DetailOf:
    """A param that says an error by its detail alone, inside a message that has its own
    sentence ("'num_ctx' is refused: num_ctx must be between …")."""

    def __init__(self, error: OncallError) -> None:
        self.error = error


def note(key: str, lang: Language, **params: object) -> str:
    """A catalogued note (see :data:`NOTES`), filled with ``params``."""
    return redact(NOTES[key][lang].format_map(_Lenient(params)))


def held_saved_note(count: int, lang: Language) -> str:
    """That ``count`` held replies are stored now (:mod:`oncall_tui.services.spool`)."""
    return note("held_saved_one" if count == 1 else "held_saved", lang, count=count)


def joined(lang: Language, *sentences: str) -> str:
    """Sentences said one after another, each with its stop: a space between them in English,
    none in Chinese, whose stops and brackets are full width. A part wholly in brackets (a key
    hint) takes no stop; a sentence that ends with one does, or trails off (``…``)."""
    stop, gap = ("。", "") if lang == "zh" else (".", " ")

    def ended(text: str) -> bool:
        if text.startswith(("(", "（")):
            return text.endswith((")", "）"))
        return text.endswith(("。", "！", "？", ".", "!", "?", "…"))

    said = [text.strip() for text in sentences if text.strip()]
    return gap.join(text if ended(text) else text + stop for text in said)


def _embedded(message: str) -> str:
    """A whole message placed inside another's sentence: without its closing stop."""
    return message.rstrip().rstrip(".。")


class _Lenient(dict[str, object]):
    """Formatting map that leaves unknown placeholders visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def resolve_language(requested: str | None, environ: Mapping[str, str] | None = None) -> Language:
    """``--lang`` wins; else the POSIX locale variables in their order of precedence."""
    if requested in ("en", "zh"):
        return "zh" if requested == "zh" else "en"
    env = os.environ if environ is None else environ
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
