"""Every action of the main screen, once: its keys, its footer label, its palette entry and the
line the keys help (F1) gives it.

Each action has a ctrl or alt key beside its F-key (F-keys need fn on many laptops, and some
terminals take them), and an id by which the settings file's ``[keys]`` table rebinds it
(Textual's keymap). Labels and descriptions come from the UI catalog, by the action's id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual.binding import Binding

from oncall_tui.errors import Language
from oncall_tui.texts import text


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
        table's), in ``lang`` and in English, the README's language."""
        names = {text(f"command.{self.id}.also", lang), text(f"command.{self.id}.also", "en")}
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


def bound_keys(command: Command, keymap: Mapping[str, str]) -> list[str]:
    """The keys of ``command`` as bound now: the settings file's ``[keys]`` may rebind them."""
    return [key.strip() for key in keymap.get(command.id, command.keys).split(",")]


def main_bindings(lang: Language) -> list[Binding]:
    return [command.binding(lang) for command in COMMANDS]


SCREEN_BINDING_PREFIXES = ("prompts.", "skills.", "dialog.", "summary.", "path.")
"""Ids of the other screens' bindings (``prompts.save``, ``dialog.yes``): rebindable too."""


def checked_keymap(keymap: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The settings file's ``[keys]`` split into what applies and the ids no action has."""
    known, unknown = {}, []
    for binding_id, keys in keymap.items():
        if binding_id in COMMAND_IDS or binding_id.startswith(SCREEN_BINDING_PREFIXES):
            known[binding_id] = keys
        else:
            unknown.append(binding_id)
    return known, unknown
