"""The user's language, as a widget or dialog finds it: the app's ``lang`` (from the settings).

Widgets are built by screens that may not pass the language down; they read it from the app
they run in. Outside an app (a bare widget in a test), English.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from textual.binding import Binding, BindingType
from textual.dom import DOMNode

from oncall_tui.errors import Language
from oncall_tui.texts import TEXTS
from oncall_tui.texts import text as t


def ui_lang(node: DOMNode) -> Language:
    """The running app's language; English when there is no app or it sets none."""
    try:
        lang = getattr(node.app, "lang", "en")
    except Exception:  # no active app: a widget built outside one
        return "en"
    return "zh" if lang == "zh" else "en"


def translate_bindings(node: DOMNode, descriptions: Mapping[str, str]) -> None:
    """Give ``node``'s own bindings their descriptions in the user's language.

    ``descriptions`` maps a binding's id (``"dialog.yes"``), or else its action
    (``"newline"``), to its catalog key; a
    ``KEY.help`` entry, when the catalog has one, becomes the tooltip. The class-level
    ``BINDINGS`` stay in English; the instance's map gets new lists (Textual's copy of the
    class map shares them), so other instances and the class are untouched.
    """
    lang = ui_lang(node)
    translated: dict[str, list[Binding]] = {}
    for key, bindings in node._bindings.key_to_bindings.items():
        translated[key] = [_translated(binding, descriptions, lang) for binding in bindings]
    node._bindings.key_to_bindings = translated


def _translated(binding: Binding, descriptions: Mapping[str, str], lang: Language) -> Binding:
    catalog_key = descriptions.get(binding.id or "") or descriptions.get(binding.action)
    if catalog_key is None:
        return binding
    tooltip = binding.tooltip
    if tooltip and f"{catalog_key}.help" in TEXTS:
        tooltip = t(f"{catalog_key}.help", lang)
    return replace(binding, description=t(catalog_key, lang), tooltip=tooltip)


def key_texts(bindings: Iterable[BindingType], prefix: str) -> dict[str, str]:
    """For :func:`translate_bindings`: a binding ``id="PREFIX.name"`` is described by the
    catalog's ``PREFIX.key.name``, and the Delete key (no id) by ``PREFIX.key.delete``."""
    texts = {"delete": f"{prefix}.key.delete"}
    for binding in bindings:
        if isinstance(binding, Binding) and binding.id and binding.id.startswith(f"{prefix}."):
            texts[binding.id] = f"{prefix}.key.{binding.id.removeprefix(f'{prefix}.')}"
    return texts
