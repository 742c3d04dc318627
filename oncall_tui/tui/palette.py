"""The command palette's commands (ctrl+p): the app's system commands (every action of the main
screen, then Textual's theme, screenshot and maximize), found by their names and also by what
the README calls them.

An engineer who read "alt+g asks Ollama again" types "ollama", not "Check the model server":
each action's catalog entry ``command.ID.also`` holds the README's words for it, and a query
that does not match an action's name is matched against those, in the user's language and in
English (the README's), and against its English name (a Chinese palette finds "theme"). The
palette shows the action's own name either way.
"""

from __future__ import annotations

from textual.command import Hit, Hits
from textual.system_commands import SystemCommandsProvider

from oncall_tui.texts import text
from oncall_tui.tui.commands import COMMANDS
from oncall_tui.tui.widgets.lang import ui_lang

TEXTUAL_COMMANDS = ("palette.theme", "palette.screenshot", "palette.maximize", "palette.minimize")
"""The catalog keys of the names :meth:`OncallApp.get_system_commands` gives Textual's own."""
ALSO_WEIGHT = 0.9
"""A match on the README's words ranks just below the same match on a name."""


class PaletteCommands(SystemCommandsProvider):
    """Textual's provider of the app's system commands, also matching the README's words."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        lang = ui_lang(self.screen)
        also = {command.title(lang): command.also_names(lang) for command in COMMANDS}
        for key in TEXTUAL_COMMANDS:  # Textual's own, found by their English names too
            also[text(key, lang)] = (text(key, "en"),)
        for name, help_text, callback, *_ in self.app.get_system_commands(self.screen):
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
                continue
            score = max((matcher.match(words) for words in also.get(name, ())), default=0)
            if score > 0:
                yield Hit(score * ALSO_WEIGHT, name, callback, text=name, help=help_text)
