"""The Textual application and the one factory that builds it from settings."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import constants, on
from textual.app import SystemCommand
from textual.binding import Binding, BindingsMap
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.screen import Screen
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import TextArea

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError, joined
from oncall_tui.settings import Settings
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.clipboard import copy_to_tmux, tmux_load_command
from oncall_tui.tui.commands import COMMANDS, checked_keymap, keys_to_say
from oncall_tui.tui.exit_deadline import Defect, ExitDeadline, HandBack
from oncall_tui.tui.key_order import KeyOrderApp
from oncall_tui.tui.messages import CannotGoOn, ConfigurationChanged, PromptDraftTaken
from oncall_tui.tui.palette import PaletteCommands
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.warmup import warm_up_rendering
from oncall_tui.tui.widgets.composer import Composer

if TYPE_CHECKING:
    from oncall_tui.llm.gateway import ModelGateway
    from oncall_tui.services.container import Services
    from oncall_tui.tui.terminal_input import TerminalGone


QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""``kill`` and a dropped SSH connection (or a closed terminal) quit the app as ctrl+q does."""
KEEP_SECONDS = 5.0
"""How long past the exit deadline a partial reply still being stored may take (the wait of
``ChatPane.on_unmount`` for it)."""


class OncallApp(KeyOrderApp):
    """oncall-tui: sessions, streaming chat, prompts, skills and the context gauge."""

    TITLE = "oncall-tui"
    CSS_PATH = "app.tcss"
    COMMANDS = {PaletteCommands}
    """The palette finds an action by its name or by the README's words for it."""

    def __init__(
        self,
        services: Services,
        typeahead: str = "",
        restore_terminal: Callable[[], None] | None = None,
        ends_process: bool = False,
    ) -> None:
        super().__init__()
        self.services = services
        self.ends_process = ends_process
        """The app is the program (``run_tui``): quitting arms :attr:`deadline`. An app run
        inside another program (a test's Pilot) never ends that program."""
        self.lang = services.settings.lang
        self.unkept = HandBack(t("cli.tui.unkept", self.lang))
        """The composer's text at the end, when the draft did not keep it for the next start:
        printed back after the terminal is restored (the chat pane sets it as it goes)."""
        self.deadline = ExitDeadline(
            [services.end_tool_servers_now, restore_terminal or (lambda: None), self.unkept.print],
            keep_seconds=KEEP_SECONDS,
        )
        """Ends the process if quitting takes too long (see :mod:`.exit_deadline`)."""
        self.typeahead = typeahead
        """Text for the composer when the app opens (what was typed while it started)."""
        # Textual's own bindings, in the user's language. ctrl+q is shown where the main
        # screen lists it, first: a priority binding takes the place of the screen's binding of
        # the same key in the footer.
        self._bindings = BindingsMap(
            [
                Binding("ctrl+q", "quit", t("command.quit", self.lang), priority=True),
                Binding("ctrl+c", "help_quit", show=False, system=True),
                Binding(
                    self.COMMAND_PALETTE_BINDING,
                    "command_palette",
                    t("palette.open", self.lang),
                    show=False,
                    key_display=self.COMMAND_PALETTE_DISPLAY,
                    priority=True,
                    tooltip=t("palette.open.help", self.lang),
                ),
            ]
        )
        self.failure: OncallError | None = None
        """What ended the app, when it could not go on (a database it cannot open)."""
        self.defect = Defect()
        self.defect.capture(self.error_console)  # an error not expected: said, not dumped
        self.unsent = ""
        """What the composer held when the app could not go on: the CLI prints it back."""
        self._model_stack_loading = False
        """The model stack's warm-up has started (the composer was edited)."""

    def on_cannot_go_on(self, message: CannotGoOn) -> None:
        """End the app; the CLI reports the error as it reports its own, and exits 2. What was
        typed meanwhile is handed back with it (:attr:`unsent`): nothing typed is lost."""
        self.failure = message.error
        with contextlib.suppress(NoMatches):
            self.unsent = self.main.query_one(Composer).text
        self.exit(return_code=2)

    def get_driver_class(self) -> type[Driver]:
        """On a POSIX terminal, Textual's driver with alt+enter and unbracketed pastes read as
        meant (see :mod:`.terminal_input`); elsewhere, and when ``TEXTUAL_DRIVER`` names one,
        Textual's choice."""
        if sys.platform == "win32" or constants.DRIVER is not None:
            return super().get_driver_class()
        from oncall_tui.tui.terminal_input import InputDriver

        return InputDriver

    def on_mount(self) -> None:
        self._apply_preferences()
        self.call_after_refresh(self._warm_up, warm_up_rendering)
        loop = asyncio.get_running_loop()
        for number in QUIT_SIGNALS:  # as ctrl+q: a streaming reply is kept, marked interrupted
            if self.ends_process:
                signal.signal(number, partial(self._quit_signal, loop))
            else:  # an app in a test's process: its handlers go with its loop
                loop.add_signal_handler(number, self.quit_now)

    def _quit_signal(self, loop: asyncio.AbstractEventLoop, number: int, frame: object) -> None:
        """SIGTERM, SIGHUP, in Python's handler: it runs on the main thread between two steps
        of whatever runs there, where the loop's own handler waits for the loop. The exit
        deadline is armed here (from a thread: the handler may have come in the middle of
        arming it), so the process ends within it though the loop never comes back (a timer
        of Textual's with a negative delay spun it once, and only SIGKILL ended the app);
        the app is asked to quit on its loop, as by ctrl+q."""
        threading.Thread(target=self.arm_deadline, daemon=True).start()
        loop.call_soon_threadsafe(self.quit_now)

    def quit_now(self) -> None:
        """ctrl+q, SIGTERM, SIGHUP, the terminal gone: the app exits (a streaming reply is
        stored, marked interrupted, as it winds down) and the exit deadline is armed, so the
        process ends within it whatever still runs. On the app's loop."""
        self.arm_deadline()
        self.exit()

    def arm_deadline(self) -> None:
        """From now, the process ends within the exit deadline whatever the loop does (where
        the app ends the process; from any thread but a signal handler's)."""
        if self.ends_process:
            chat = [worker for worker in self.workers if worker.group == "chat"]
            pending = [worker for worker in chat if not worker.is_finished]
            self.deadline.arm(lambda: any(not worker.is_finished for worker in pending))

    def action_command_palette(self) -> None:
        """ctrl+p: Textual's command palette, its placeholder in the app's language."""
        from textual.command import CommandPalette

        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            placeholder = t("palette.placeholder", self.lang)
            self.push_screen(CommandPalette(placeholder=placeholder, id="--command-palette"))

    def search_themes(self) -> None:
        """The palette's Theme: Textual's list of themes, its placeholder in the app's
        language."""
        from textual.command import CommandPalette
        from textual.theme import ThemeProvider

        placeholder = t("palette.theme_placeholder", self.lang)
        self.push_screen(CommandPalette(providers=[ThemeProvider], placeholder=placeholder))

    def action_help_quit(self) -> None:
        """ctrl+c with no reply to stop: how to quit, in the app's language and with the key
        as bound (Textual's own note is English)."""
        keys = keys_to_say("quit", self.services.settings.keymap)
        self.notify(t("quit.how", self.lang, keys=keys), title=t("quit.how.title", self.lang))

    async def action_quit(self) -> None:
        """ctrl+q: at once, unless an asset screen holds unsaved edits (the prompt editor): it
        asks first. (A signal or a closed terminal asks nothing: the composer's text is kept,
        as always.)"""
        from oncall_tui.tui.screens.assets import AssetScreen

        if not any(
            isinstance(screen, AssetScreen) and screen.quit_after_asking()
            for screen in self.screen_stack
        ):
            self.quit_now()

    def on_terminal_gone(self, _: TerminalGone) -> None:
        """The terminal has gone (hung up: ``tmux kill-session``, SSH dropped) without a
        SIGHUP reaching us: quit as on SIGHUP."""
        self.quit_now()

    def _apply_preferences(self) -> None:
        """The settings file's theme and key bindings; what is wrong in them (or in the file)
        is said on the status line, and the rest applies."""
        settings = self.services.settings
        problems = [
            problem.message(self.lang)
            for problem in (settings.config_problem, settings.config_slips)
            if problem is not None
        ]
        keymap = checked_keymap(settings.keymap)
        help_keys = keys_to_say("keys", settings.keymap)
        if keymap.unknown:
            ids = ", ".join(keymap.unknown)
            problems.append(t("keys.unknown_ids", self.lang, ids=ids, keys=help_keys))
        for key, binding_id, previous in keymap.taken:
            said = {"key": key, "id": binding_id, "other": previous, "keys": help_keys}
            problems.append(t("keys.taken", self.lang, **said))
        for key, binding_id in keymap.kept:
            problems.append(t("keys.kept", self.lang, key=key, id=binding_id))
        for key, binding_id in keymap.not_keys:
            problems.append(t("keys.not_a_key", self.lang, key=key, id=binding_id))
        for key, binding_id in keymap.edits:
            problems.append(t("keys.edits_text", self.lang, key=key, id=binding_id))
        self.set_keymap(keymap.applied)
        if settings.theme is not None:
            if settings.theme in self.available_themes:
                self.theme = settings.theme
            else:
                problems.append(t("theme.unknown", self.lang, theme=settings.theme))
        self.theme_changed_signal.subscribe(self, self._theme_chosen)
        if problems:
            self.call_after_refresh(self.main.show_warning, joined(self.lang, *problems))

    def _theme_chosen(self, theme: Theme) -> None:
        """Keep the theme picked (ctrl+p, Theme) in the settings file, off the UI's loop."""
        if theme.name != self.services.settings.theme:
            self.main.save_preference("theme", theme.name)

    def _warm_up(self, work: Callable[[], None]) -> None:
        """In a thread, a costly first use (see :mod:`.warmup`); then everything alive lives as
        long as the app, and is frozen: the garbage collector's full passes leave it out."""

        def warm_up() -> None:
            work()
            self.call_from_thread(gc.freeze)

        self.run_worker(warm_up, thread=True, group="warm-up", exit_on_error=False)

    @on(TextArea.Changed, "Composer")
    def _typing_began(self) -> None:
        """The first edit of the composer loads the model stack (``Services.warm_up``: about a
        second of CPU and 40 MiB) while the message is typed, so the first send waits for
        little, and an app that is only read, or left open in a pane, never holds it."""
        if not self._model_stack_loading:
            self._model_stack_loading = True
            self._warm_up(self.services.warm_up)

    def copy_to_clipboard(self, text: str) -> None:
        """The terminal's clipboard (OSC 52), and inside tmux tmux's too (see
        :mod:`.clipboard`), in a thread: tmux is another process."""
        super().copy_to_clipboard(text)
        if tmux_load_command() is not None:
            self.run_worker(
                partial(copy_to_tmux, text), thread=True, group="clipboard", exit_on_error=False
            )

    def on_unmount(self) -> None:
        self.services.close()

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(self.services, typeahead=self.typeahead)

    @property
    def main(self) -> MainScreen:
        screen = self.screen_stack[0]
        if not isinstance(screen, MainScreen):  # the default screen, never popped
            raise RuntimeError(f"the bottom screen is {type(screen).__name__}, not MainScreen")
        return screen

    # -- screens ------------------------------------------------------------------------------

    def action_prompts(self) -> None:
        from oncall_tui.tui.screens.prompts import PromptEditorScreen

        self.push_screen(PromptEditorScreen(self.services))

    def action_skills(self) -> None:
        from oncall_tui.tui.screens.skills import SkillLibraryScreen

        self.push_screen(SkillLibraryScreen(self.services))

    def action_models(self) -> None:
        from oncall_tui.core.model_names import same_model
        from oncall_tui.tui.screens.models import ModelPicker

        def picked(model: str | None) -> None:
            if model and not same_model(model, self.services.settings.model):
                try:
                    self.services.use_model(model)  # kept in the settings file
                except OncallError as error:  # a file it must not overwrite: nothing changed
                    self.main.show_error(error)
                    return
                self.notify(
                    terminal_safe(t("models.chatting", self.lang, model=model)), markup=False
                )
                self.main.chat.follow_model(model)
                self.main.server_check.check()
                self.main.refresh_context()

        self.push_screen(ModelPicker(self.services), picked)

    def on_configuration_changed(self, _: ConfigurationChanged) -> None:
        self.main.refresh_context()

    def on_prompt_draft_taken(self, _: PromptDraftTaken) -> None:
        self.main.chat.draft.prompt_taken()

    # -- command palette ----------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Every action of the main screen (see :mod:`.commands`), then Textual's theme,
        screenshot and maximize, in the user's language."""
        lang = self.lang
        for command in COMMANDS:
            if command.palette:
                yield SystemCommand(
                    command.title(lang), command.help(lang), partial(self._run, command.action)
                )
        yield SystemCommand(
            t("palette.theme", lang), t("palette.theme.help", lang), self.action_change_theme
        )
        yield SystemCommand(
            t("palette.screenshot", lang),
            t("palette.screenshot.help", lang),
            lambda: self.set_timer(0.1, self.save_screen),
        )
        pane = screen.focused
        if isinstance(pane, Composer):  # the chat, whose reply a maximized composer hid
            pane = next(iter(screen.query(ChatLog)), None)
        if screen.maximized is not None:
            yield SystemCommand(
                t("palette.minimize", lang),
                t("palette.minimize.help", lang),
                screen.action_minimize,
            )
        elif pane is not None and pane.allow_maximize and pane.focusable:  # (not an empty chat)
            yield SystemCommand(
                t("palette.maximize", lang),
                t("palette.maximize.help", lang),
                partial(self._maximize, screen, pane),
            )

    @staticmethod
    def _maximize(screen: Screen[object], pane: Widget) -> None:
        screen.maximize(pane)
        pane.focus()

    def save_screen(self) -> None:
        """The palette's Screenshot: the screen as SVG where an export is offered (the
        directory the app was started in), private (0600) as an export is, since it shows
        the incident; said where, or why not, in the app's language. Textual's own went to
        ``~/Downloads``, which a server seldom has: "Failed to save screenshot", in English."""
        from oncall_tui.private_files import write_privately
        from oncall_tui.tui.chat_log.times import local_now
        from oncall_tui.tui.panes.sessions import here

        svg = self.export_screenshot().encode("utf-8")
        target = here() / f"oncall-tui-screen-{local_now():%Y-%m-%d-%H%M%S}.svg"
        title, lang = t("palette.screenshot", self.lang), self.lang

        def save() -> None:
            try:
                write_privately(target, svg, prefix=".oncall-tui-screen-")
            except OSError as exc:
                why = exc.strerror or type(exc).__name__
                said = t("screenshot.failed", lang, directory=str(target.parent), reason=why)
                self.call_from_thread(
                    self.notify, terminal_safe(said), title=title, severity="error", markup=False
                )
            else:
                said = t("screenshot.saved", lang, path=str(target))
                self.call_from_thread(self.notify, terminal_safe(said), title=title, markup=False)

        self.run_worker(save, thread=True, group="screenshot", exit_on_error=False)

    def _run(self, action: str) -> None:
        """Run a main-screen action (``app.`` ones on the app) chosen in the palette."""
        self.call_later(self.run_action, action, self.main)


def build_app(
    settings: Settings,
    gateway: ModelGateway | None = None,
    *,
    typeahead: str = "",
    restore_terminal: Callable[[], None] | None = None,
    ends_process: bool = False,
) -> OncallApp:
    """The one factory: settings in, a ready app out. Tests pass a scripted ``gateway``."""
    from oncall_tui.services.container import Services

    services = Services(settings, gateway=gateway)
    return OncallApp(
        services, typeahead=typeahead, restore_terminal=restore_terminal, ends_process=ends_process
    )
