"""Every action of the main screen, once: its keys, its footer label, its palette entry and the
line the keys help (F1) gives it.

Each action has a ctrl or alt key beside its F-key (F-keys need fn on many laptops, and some
terminals take them), and an id by which the settings file's ``[keys]`` table rebinds it
(Textual's keymap). Labels and descriptions come from the UI catalog, by the action's id.
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import KEY_NAME_REPLACEMENTS, Keys

from oncall_tui.errors import Language
from oncall_tui.texts import text
from oncall_tui.tui.widgets.lang import ui_lang


@dataclass(frozen=True, slots=True)
class Command:
    id: str
    """The binding id: what ``[keys]`` in the settings file rebinds, and the catalog key."""
    action: str
    """The Textual action, on the main screen (``app.`` for the app's own)."""
    keys: str
    """The default keys, comma-separated, the F-key first where there is one."""
    show: bool = False
    """Whether the footer shows it (at 80 columns only the first few fit)."""
    priority: bool = False
    palette: bool = True
    """Whether the command palette offers it (ctrl+q and ctrl+c are Textual's own there)."""

    def label(self, lang: Language) -> str:
        return text(f"command.{self.id}", lang)

    def title(self, lang: Language) -> str:
        """The name the command palette and the keys help give it (the footer's is short)."""
        return text(f"command.{self.id}.title", lang)

    def help(self, lang: Language) -> str:
        return text(f"command.{self.id}.help", lang)

    def also_names(self, lang: Language) -> tuple[str, ...]:
        """What else the command palette finds it by: the README's words for it (its key
        table's), in ``lang`` and in English, the README's language, and its English name."""
        names = {
            text(f"command.{self.id}.also", lang),
            text(f"command.{self.id}.also", "en"),
            self.title("en"),
        }
        return tuple(sorted(name for value in names for name in value.split(";") if name))

    def binding(self, lang: Language) -> Binding:
        return Binding(
            self.keys,
            self.action,
            self.label(lang),
            show=self.show,
            priority=self.priority,
            tooltip=self.help(lang),
            id=self.id,
        )


COMMANDS: tuple[Command, ...] = (
    # In the order the footer shows them: what must fit at 80 columns first.
    Command("quit", "app.quit", "ctrl+q", show=True, palette=False),  # the app's binding runs it
    Command("keys", "keys", "f1,alt+h", show=True),
    Command("toggle_panel", "toggle_panel", "ctrl+b,alt+b", show=True),
    Command("toggle_sessions", "toggle_sessions", "alt+1", show=True),
    Command("cancel_reply", "cancel_reply", "escape", show=True),
    # While a reply streams ctrl+c stops it, as in the CLI; otherwise it copies (a priority
    # binding whose action is not available passes the key on).
    Command("interrupt_reply", "interrupt_reply", "ctrl+c", priority=True, palette=False),
    Command("new_session", "new_session", "ctrl+n", show=True),
    Command("compact", "compact", "f9,alt+c", show=True),
    Command("prompts", "app.prompts", "f3,alt+p", show=True),
    Command("skills", "app.skills", "f4,alt+s", show=True),
    Command("models", "app.models", "f5,alt+m", show=True),
    Command("search", "search", "ctrl+f"),
    Command("rename_session", "rename_session", "f2,alt+r"),
    Command("delete_session", "delete_session", "f8,alt+x"),
    Command("show_summary", "show_summary", "f6,alt+v", priority=True),
    Command("cycle_mode", "cycle_mode", "f7,alt+o", priority=True),
    Command("export", "export", "ctrl+s,alt+e"),
    Command("copy_message", "copy_message", "alt+w"),
    Command("copy_code", "copy_code", "alt+y"),
    Command("filter_sessions", "find_session", "alt+l"),
    Command("load_earlier", "load_earlier", "ctrl+up,alt+up"),
    Command("retry", "retry", "ctrl+r"),
    Command("check_ollama", "check_ollama", "alt+g"),
)
COMMAND_IDS = frozenset(command.id for command in COMMANDS)


def keys_to_say(command_id: str, keymap: Mapping[str, str]) -> str:
    """An action's keys as a sentence names them (``f3 / alt+p``), as bound now; an action
    left without a key is found with the command palette's."""
    command = next(command for command in COMMANDS if command.id == command_id)
    return " / ".join(bound_keys(command, keymap)) or "ctrl+p"


def keymap_here(node: DOMNode) -> Mapping[str, str]:
    """The running app's ``[keys]`` (none outside an app)."""
    try:
        services = getattr(node.app, "services", None)
    except Exception:  # no active app: a widget built outside one
        services = None
    return {} if services is None else services.settings.keymap


def keys_here(node: DOMNode, command_id: str, *, first: bool = False) -> str:
    """:func:`keys_to_say` with the running app's ``[keys]`` (the default keys outside an app);
    ``first``: only the first (a short hint: ``ctrl+up``)."""
    said = keys_to_say(command_id, keymap_here(node))
    return said.split(" / ")[0] if first else said


def closing_keys(command_id: str, keymap: Mapping[str, str]) -> list[str]:
    """What closes the screen ``command_id`` opens over the chat (the keys help, the summary):
    Esc and the keys that open it, as bound. Any other key of the chat's closes it and acts
    (:class:`~.key_order.ClosedByKeysUnder`): its own keys closed it and opened it again, or
    were read as Esc and a letter."""
    command = next(command for command in COMMANDS if command.id == command_id)
    return ["escape", *bound_keys(command, keymap)]


def still_streaming(node: DOMNode) -> str:
    """What a send or a session change says while a reply streams: how to stop it."""
    keys = keys_here(node, "cancel_reply", first=True)
    return text("send.still_streaming", ui_lang(node), keys=keys)


def bound_keys(command: Command, keymap: Mapping[str, str]) -> list[str]:
    """The keys of ``command`` as bound now: the settings file's ``[keys]`` may rebind them, or
    give one of them to another action (:func:`checked_keymap`)."""
    return list(checked_keymap(keymap).keys[command.id])


def main_bindings(lang: Language) -> list[Binding]:
    return [command.binding(lang) for command in COMMANDS]


SCREEN_BINDING_PREFIXES = ("prompts.", "skills.", "dialog.", "summary.", "path.")
"""Ids of the other screens' bindings (``prompts.save``, ``dialog.yes``): rebindable too."""


APP_KEYS = {"ctrl+q": "quit", "ctrl+p": "command_palette"}
"""The app's own keys, which act before any screen's: ``[keys]`` cannot give them away."""


@dataclass(frozen=True, slots=True)
class CheckedKeymap:
    """The settings file's ``[keys]`` as it applies to the main screen's actions."""

    applied: dict[str, str]
    """What Textual's keymap is given: the rebindings of actions that exist, less the app's
    own keys."""
    keys: dict[str, tuple[str, ...]]
    """Every action's keys once the rebindings apply: a key rebound to one action is no longer
    another's (Textual drops the other's binding of it)."""
    unknown: list[str]
    """Ids no action has."""
    taken: list[tuple[str, str, str]]
    """``(key, id, previous id)``: a key the file gives to one action that another had."""
    kept: list[tuple[str, str]]
    """``(key, id)``: one of :data:`APP_KEYS` the file gives to an action; the app keeps it."""
    not_keys: list[tuple[str, str]]
    """``(as written, id)``: what the file gives an action that names no key (``f99``,
    ``ctlr+k``); an action given no key at all keeps its own."""
    edits: list[tuple[str, str]]
    """``(key, id)``: a key the text fields edit with (``ctrl+k`` deletes to the line's end),
    given to an action: in the composer it still edits (:func:`text_field_keys`)."""


def checked_keymap(keymap: Mapping[str, str]) -> CheckedKeymap:
    """The settings file's ``[keys]`` checked: the ids no action has, and each key a
    rebinding takes from another action (the later rebinding in the file wins), so that the
    keys help and the guide show the keys that act, and the user is told what moved."""
    keys = {command.id: tuple(bound_keys_of(command.keys)) for command in COMMANDS}
    applied: dict[str, str] = {}
    unknown: list[str] = []
    taken: list[tuple[str, str, str]] = []
    kept: list[tuple[str, str]] = []
    not_keys: list[tuple[str, str]] = []
    edits: list[tuple[str, str]] = []
    priority = {command.id for command in COMMANDS if command.priority}
    for binding_id, value in keymap.items():
        if binding_id not in COMMAND_IDS and not binding_id.startswith(SCREEN_BINDING_PREFIXES):
            unknown.append(binding_id)
            continue
        named = []
        if not bound_keys_of(value):  # "" or ",,": no key at all, said as one that names none
            not_keys.append((value, binding_id))
        for written in bound_keys_of(value):
            key = key_name(written)
            if key is None:
                not_keys.append((written, binding_id))
            else:
                named.append(key)
        if binding_id not in COMMAND_IDS:  # another screen's: its keys are its own
            if named:
                applied[binding_id] = ",".join(named)
            continue
        wanted = []
        for key in named:
            if APP_KEYS.get(key, binding_id) != binding_id:
                kept.append((key, binding_id))
            else:
                wanted.append(key)
        if not wanted:
            continue  # nothing of it applies: the action keeps its own keys
        for other, other_keys in keys.items():
            if other != binding_id and (lost := [k for k in other_keys if k in wanted]):
                keys[other] = tuple(k for k in other_keys if k not in wanted)
                taken.extend((key, binding_id, other) for key in lost)
                if other in applied:  # given by the file before: Textual is told it no more
                    left = [k for k in applied[other].split(",") if k not in wanted]
                    applied[other] = ",".join(left)
        keys[binding_id] = tuple(wanted)
        applied[binding_id] = ",".join(wanted)
        if binding_id not in priority:
            edits.extend((key, binding_id) for key in wanted if key in text_field_keys())
    for emptied in [action for action, value in applied.items() if not value]:
        # Every key the file gave it went on to another: it keeps its own, less those the
        # file gave to others (Textual drops a binding whose key the keymap gives away). Left
        # in the keymap, both had the key, and the first in the bindings acted on it.
        del applied[emptied]
        given = {key for action in applied for key in keys.get(action, ())}
        own = next(command.keys for command in COMMANDS if command.id == emptied)
        keys[emptied] = tuple(key for key in bound_keys_of(own) if key not in given)
    return CheckedKeymap(applied, keys, unknown, taken, kept, not_keys, edits)


@cache
def text_field_keys() -> frozenset[str]:
    """The keys the composer and the other text fields (Textual's ``TextArea`` and ``Input``)
    bind, which they answer before the screen does: ``ctrl+k``, ``ctrl+e``, ``home``, …"""
    from textual.widgets import Input, TextArea

    bindings = [*TextArea.BINDINGS, *Input.BINDINGS]
    keys = (binding.key if isinstance(binding, Binding) else binding[0] for binding in bindings)
    return frozenset(name.strip() for key in keys for name in key.split(","))


def bound_keys_of(value: str) -> list[str]:
    """The keys of a binding's comma-separated key string."""
    return [key.strip() for key in value.split(",") if key.strip()]


MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


@cache
def _named_keys() -> frozenset[str]:
    """The keys a terminal sends that have a name (``f1`` to ``f24``, ``up``, ``pageup``,
    ``enter``, ``space``, ``slash``, …), as Textual names them without their modifiers."""
    names = {key.value.rsplit("+", 1)[-1] for key in Keys}
    names.update(character_key(character) for character in string.punctuation)
    return frozenset(name for name in names if not name.startswith("<"))


def key_name(written: str) -> str | None:
    """A key of the settings file's ``[keys]`` as Textual names it, which a binding must match
    to the letter: ``Ctrl+K`` is ``ctrl+k``, ``F5`` is ``f5``, ``/`` is ``slash``; ``None``
    when it names no key (``f99``, ``ctlr+k``), which would leave its action without one."""
    *modifiers, name = written.split("+")
    lowered = [modifier.lower() for modifier in modifiers]
    if len(set(lowered)) != len(lowered) or not MODIFIERS.issuperset(lowered):
        return None
    if len(name) == 1 and name.isprintable():
        name = character_key(name.lower() if "ctrl" in lowered else name)
    elif name.lower() in _named_keys():
        name = name.lower()
    else:
        return None
    return "+".join([*lowered, name])


def character_key(character: str) -> str:
    """The name Textual gives the key of a printable character: a letter or digit is itself,
    ``/`` is ``slash``, ``!`` is ``exclamation_mark``, `` `` is ``space``."""
    if character.isalnum():
        return character
    name = unicodedata.name(character, character).lower().replace("-", "_").replace(" ", "_")
    return KEY_NAME_REPLACEMENTS.get(name, name)
