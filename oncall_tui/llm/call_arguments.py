"""A tool call's arguments as the tool's JSON schema wants them: a call written as text (or a
native one) carries ``"40"`` for an integer, a JSON string for an object, or a name the tool
does not take; :func:`conform` fits what is obvious and refuses the rest. Plain data; used by
:mod:`oncall_tui.llm.text_calls`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_INVALID = object()
"""A value that does not fit its schema."""


def positional_names(schema: Mapping[str, Any]) -> list[str]:
    """Which arguments positional values fill: the required ones in order, else the only one."""
    properties = list(schema.get("properties", {}))
    required = [name for name in schema.get("required", []) if name in properties]
    return required or (properties if len(properties) == 1 else [])


def conform(arguments: object, schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` as ``schema`` (a JSON schema object) wants them, obvious types coerced;
    ``None`` when they do not fit: not an object, an unknown name, a required one missing, a
    value of the wrong type. A tool that takes no arguments at all (the clock; not one that
    takes any) takes none, whatever was written: ``{"timezone": "UTC"}`` cannot change what it
    does, and a native call so written runs too."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None
    properties: Mapping[str, Any] = schema.get("properties", {})
    if not properties and not schema.get("additionalProperties"):
        return {}
    fitted: dict[str, Any] = {}
    for name, value in arguments.items():
        if name not in properties:
            return None
        value = coerce(value, properties[name])
        if value is _INVALID:
            return None
        fitted[name] = value
    if any(name not in fitted for name in schema.get("required", [])):
        return None
    return fitted


def coerce(value: object, schema: Mapping[str, Any]) -> object:
    """``value`` as the type ``schema`` names, or :data:`_INVALID`."""
    options = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(options, list):
        for option in options:
            fitted = coerce(value, option)
            if fitted is not _INVALID:
                return fitted
        return _INVALID
    kinds = schema.get("type")
    if kinds is None:
        fitted = value
    else:
        fitted = _INVALID
        for kind in kinds if isinstance(kinds, list) else [kinds]:
            fitted = _as_kind(value, kind)
            if fitted is not _INVALID:
                break
    enum = schema.get("enum")
    if fitted is not _INVALID and isinstance(enum, list) and fitted not in enum:
        return _INVALID
    return fitted


def _as_kind(value: object, kind: str) -> object:
    if kind == "string":
        if isinstance(value, str):
            return value
        return (
            str(value)
            if isinstance(value, int | float) and not isinstance(value, bool)
            else _INVALID
        )
    if kind == "integer":
        if isinstance(value, bool):
            return _INVALID
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
            return int(value)
        return _INVALID
    if kind == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return _INVALID
        return _INVALID
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return _INVALID
    if kind in ("array", "object"):
        wanted = list if kind == "array" else dict
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                return _INVALID
        return value if isinstance(value, wanted) else _INVALID
    if kind == "null":
        return None if value is None else _INVALID
    return _INVALID
