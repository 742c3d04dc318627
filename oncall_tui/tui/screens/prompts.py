"""The prompt editor: the user's system prompts, one edited at a time.

Every service call runs in a worker thread (the flows of :mod:`.assets`), so the screen stays
responsive over a slow disk. Edits are never dropped silently: anything
that would replace unsaved text (another prompt, a new one, leaving) asks first, and an app
that ends without asking (a signal, the terminal gone) keeps them as a draft
(``services/drafts.py``), put back in the editor when it next opens.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from oncall_tui.core.prompts import MAX_CONTENT_CHARS, MAX_LABEL_CHARS
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError, joined
from oncall_tui.services.drafts import PromptDraft
from oncall_tui.services.views import ConfigurationView, PromptView
from oncall_tui.texts import text as t
from oncall_tui.tui.messages import ConfigurationChanged, PromptDraftTaken
from oncall_tui.tui.panes.draft import DRAFT_SECONDS
from oncall_tui.tui.screens.assets import AssetScreen, delete_bindings
from oncall_tui.tui.service_calls import in_thread
from oncall_tui.tui.widgets.dialogs import ErrorText, UnsavedChangesDialog
from oncall_tui.tui.widgets.in_order import InOrderInput
from oncall_tui.tui.widgets.key_bar import KeyBar
from oncall_tui.tui.widgets.lang import key_texts, translate_bindings
from oncall_tui.tui.widgets.text_area import InOrderTextArea
from oncall_tui.tui.widgets.title_line import TitleLine

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.tui.app import OncallApp

ACTIVE_MARK = "●"


def counter_text(name: str, count: int, limit: int) -> str:
    """``label 12/160``: the count is of trimmed text, as validation counts it."""
    return f"{name} {count:,}/{limit:,}"


class PromptContent(InOrderTextArea):
    """The prompt's text; ctrl+a or alt+a selects all of it (a paste over the limit goes in
    one key), and its keys apply in order with the typing around them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+a,alt+a", "select_all", "Select all", show=False),
    ]

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, soft_wrap=True, tab_behavior="focus")
        translate_bindings(self, {"select_all": "composer.key.select_all"})


class PromptEditorScreen(AssetScreen):
    """List, create, edit, delete and activate the user's system prompts."""

    CSS_PATH = "prompts.tcss"
    AUTO_FOCUS = "#prompt-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="prompts.save"),
        Binding("ctrl+n", "new", "New", id="prompts.new"),
        Binding("ctrl+t", "activate", "Use as active", id="prompts.activate"),
        *delete_bindings("prompts"),
        Binding("escape", "back", "Back", id="prompts.back"),
    ]

    def __init__(self, services: Services) -> None:
        super().__init__(services)
        translate_bindings(self, key_texts(self.BINDINGS, "prompts"))
        self._prompts: dict[int, PromptView] = {}
        self._active_id: int | None = None
        self._editing_id: int | None = None
        """The prompt in the editor; ``None`` for a new, never-saved prompt."""
        self._baseline: tuple[str, str] = ("", "")
        """Label and content as last loaded or saved: the editor is dirty when it differs."""
        self._shown: tuple[str, str] = ("", "")
        """Label and content as the editor holds them, kept at each edit: read when the screen
        goes, after its widgets have."""
        self._ready = False

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        lang = self._lang
        yield Static(t("prompts.title", lang), id="prompts-title")
        with Horizontal(id="prompts-body"):
            with Vertical(id="prompts-sidebar"):
                yield OptionList(id="prompt-list")
                legend = f"{ACTIVE_MARK} {t('prompts.active', lang)}"
                yield Static(legend, id="prompts-legend", markup=False)
            with Vertical(id="prompt-editor"):
                yield TitleLine(id="editor-title")
                with Horizontal(classes="caption"):
                    yield Static(t("prompts.label", lang), classes="caption-name")
                    yield Static("", id="label-count", classes="counter")
                yield InOrderInput(
                    id="prompt-label", placeholder=t("prompts.label.placeholder", lang)
                )
                with Horizontal(classes="caption"):
                    yield Static(t("prompts.content", lang), classes="caption-name")
                    yield Static("", id="content-count", classes="counter")
                yield PromptContent(id="prompt-content")
                yield ErrorText(id="prompt-error")
        yield KeyBar()

    def on_mount(self) -> None:
        self._update_counters()
        self._start(self._initial_load)

    # -- state helpers ---------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """Whether the prompts have been read from the service at least once."""
        return self._ready

    @property
    def editing_id(self) -> int | None:
        """The id of the prompt in the editor, ``None`` for a new one."""
        return self._editing_id

    @property
    def is_dirty(self) -> bool:
        """Whether the editor holds edits that are not saved."""
        return self._editor_text() != self._baseline

    def _editor_text(self) -> tuple[str, str]:
        return (
            self.query_one("#prompt-label", Input).value,
            self.query_one("#prompt-content", TextArea).text,
        )

    def _load_into_editor(self, prompt: PromptView | None) -> None:
        """Replace the editor's text with ``prompt`` (or an empty new prompt)."""
        self._editing_id = None if prompt is None else prompt.id
        label, content = ("", "") if prompt is None else (prompt.label, prompt.content)
        self._baseline = (label, content)
        self.query_one("#prompt-label", Input).value = label
        self.query_one("#prompt-content", TextArea).load_text(content)
        self._shown = (label, content)
        self._show_error(None)
        self._sync_highlight()
        self._update_title()

    def _apply(self, view: ConfigurationView, focus_id: int | None = None) -> None:
        """The list follows the editor: ``focus_id`` plays no part here."""
        self._prompts = {prompt.id: prompt for prompt in view.prompts}
        self._active_id = view.system_prompt_id
        options = [Option(self._option_prompt(p), id=str(p.id)) for p in view.prompts]
        self.query_one("#prompt-list", OptionList).set_options(options)
        self._sync_highlight()
        self._update_title()

    def _option_prompt(self, prompt: PromptView) -> Text:
        marker = f"{ACTIVE_MARK} " if prompt.id == self._active_id else "  "
        text = Text.assemble(marker, terminal_safe(prompt.label))
        if prompt.is_default:
            text.append(t("prompts.default_mark", self._lang), style="dim")
        return text

    def _sync_highlight(self) -> None:
        """Point the list at the prompt in the editor (nothing for a new prompt)."""
        option_list = self.query_one("#prompt-list", OptionList)
        if self._editing_id is None or self._editing_id not in self._prompts:
            option_list.highlighted = None
        else:
            option_list.highlighted = option_list.get_option_index(str(self._editing_id))

    def _update_title(self) -> None:
        """What is edited, then "modified" first of its flags: a long label is cut before it."""
        lang = self._lang
        prompt = None if self._editing_id is None else self._prompts.get(self._editing_id)
        flags = [t("prompts.modified", lang)] if self.is_dirty else []
        title = self.query_one("#editor-title", TitleLine)
        if prompt is None:
            flags.append(t("prompts.not_saved", lang))
            title.show(t("prompts.new_prompt", lang), flags)
            return
        if prompt.is_default:
            flags.append(t("prompts.default", lang))
        if prompt.id == self._active_id:
            flags.append(t("prompts.active", lang))
        title.show(prompt.label, flags, lambda label: t("prompts.editing", lang, label=label))

    def _update_counters(self) -> None:
        label, content = self._editor_text()
        for widget_id, name, count, limit in (
            ("#label-count", "prompts.counter.label", len(label.strip()), MAX_LABEL_CHARS),
            ("#content-count", "prompts.counter.content", len(content.strip()), MAX_CONTENT_CHARS),
        ):
            counter = self.query_one(widget_id, Static)
            counter.update(counter_text(t(name, self._lang), count, limit))
            counter.set_class(count > limit, "-over")

    @on(Input.Changed, "#prompt-label")
    @on(TextArea.Changed, "#prompt-content")
    def _edited(self) -> None:
        self._shown = self._editor_text()
        self._update_counters()
        self._update_title()

    @on(OptionList.OptionHighlighted, "#prompt-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        current = event.option_list.highlighted_option
        if current is None or current.id != event.option_id:
            return  # a stale event from an earlier (programmatic) highlight change
        target = None if event.option_id is None else int(event.option_id)
        if target is None or target == self._editing_id or self.busy or not self._ready:
            return
        if self.is_dirty:
            self._start(lambda: self._switch_to(target))
        else:
            self._load_into_editor(self._prompts[target])

    @on(OptionList.OptionSelected, "#prompt-list")
    @on(Input.Submitted, "#prompt-label")
    def _to_content(self) -> None:
        self.query_one("#prompt-content", TextArea).focus()

    # -- actions ---------------------------------------------------------------------------

    def action_save(self) -> None:
        self._start(self._save_flow)

    def action_new(self) -> None:
        if self.busy or self.is_dirty:
            self._start(self._new_flow)  # asks about the edits first (or rings the bell)
        else:  # at once: the keys typed behind ctrl+n go to the new prompt's label
            self._new_prompt()

    def action_activate(self) -> None:
        self._start(self._activate_flow)

    def action_delete(self) -> None:
        self._start(self._delete_flow)

    # -- flows (each runs in one worker; only one at a time) --------------------------------

    def _flow_finished(self) -> None:
        if self._ready and self.app.screen is self:
            self._sync_highlight()  # undo list moves made while the flow ran

    async def _initial_load(self) -> None:
        view = await self._fetch()
        self._apply(view)
        self._load_into_editor(view.active_prompt)
        services = self._services
        kept = await in_thread(lambda: services.drafts.read_prompt())
        if kept is not None:  # the app ended on unsaved edits: they are back, unsaved
            of = None if kept.prompt_id is None else self._prompts.get(kept.prompt_id)
            self._load_into_editor(of)  # the prompt they were of; a new one if it has gone
            self.query_one("#prompt-label", Input).value = kept.label
            self.query_one("#prompt-content", TextArea).load_text(kept.content)
            self._shown = (kept.label, kept.content)
            await in_thread(lambda: services.drafts.keep_prompt(None))
            self._notify_done(t("prompts.draft_restored", self._lang), timeout=None)
            self.app.post_message(PromptDraftTaken())
        self._ready = True

    async def on_unmount(self) -> None:
        """Edits still unsaved as the screen goes are the app's end without a question (a
        signal, the terminal gone, ctrl+q while a save ran): they are kept as a draft (a
        disk that hangs is waited for no longer than the composer's draft is)."""
        if not self._ready or self._shown == self._baseline:
            return
        label, content = self._shown
        draft = PromptDraft(self._editing_id, label, content)
        keep = self._services.drafts.keep_prompt
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(in_thread(lambda: keep(draft)), DRAFT_SECONDS)

    async def _save(self) -> bool:
        """Save the editor; on a validation error show it inline and save nothing."""
        label, content = sent = self._editor_text()
        configuration = self._services.configuration
        try:
            if self._editing_id is None:
                saved = await self._call(configuration.create_prompt, label, content)
            else:
                saved = await self._call(
                    configuration.update_prompt, self._editing_id, label=label, content=content
                )
        except OncallError as error:
            self._show_error(error)
            return False
        # The service trims; keep the user's text and cursor, and treat what was sent as saved
        # (anything typed while the save ran stays "modified").
        self._editing_id = saved.id
        self._baseline = sent
        self._show_error(None)
        self.app.post_message(ConfigurationChanged())
        await self._reload()
        self._notify_done(t("prompts.saved", self._lang, label=saved.label))
        return True

    async def _resolve_unsaved(self) -> bool:
        """Whether the editor may be replaced: clean, saved now, or discarded on request."""
        if not self.is_dirty:
            return True
        choice = await self.app.push_screen_wait(
            UnsavedChangesDialog(t("prompts.unsaved", self._lang))
        )
        if choice == "save":
            return await self._save()
        if choice == "discard":
            self._baseline = self._shown = self._editor_text()  # let go: no draft keeps them
            return True
        return False

    async def _save_flow(self) -> None:
        await self._save()

    async def _switch_to(self, target: int) -> None:
        if await self._resolve_unsaved() and target in self._prompts:
            self._load_into_editor(self._prompts[target])
        else:
            self._sync_highlight()

    async def _new_flow(self) -> None:
        if await self._resolve_unsaved():
            self._new_prompt()

    def _new_prompt(self) -> None:
        self._load_into_editor(None)
        self.query_one("#prompt-label", Input).focus()

    def _leave(self) -> None:
        self._start(self._back_flow)  # asks about unsaved edits

    def quit_after_asking(self) -> bool:
        """With unsaved edits, ask first (save, discard, or stay), and quit unless the answer
        is to stay; not when a question is already open (the edits were named to the user)."""
        if not self.is_dirty or self.busy:
            return False
        self._start(self._quit_flow)
        return True

    async def _quit_flow(self) -> None:
        if await self._resolve_unsaved():
            cast("OncallApp", self.app).quit_now()

    async def _back_flow(self) -> None:
        if await self._resolve_unsaved():
            self.dismiss(None)

    async def _activate_flow(self) -> None:
        prompt_id = self._editing_id
        if prompt_id is None:
            self.notify(t("prompts.save_first", self._lang), timeout=4)
            return
        if prompt_id == self._active_id:
            self.notify(t("prompts.already_active", self._lang), timeout=3)
            return
        configuration = self._services.configuration
        saving = self._call(configuration.save_configuration, system_prompt_id=prompt_id)
        self._apply(await self._or_reload(saving))
        self.app.post_message(ConfigurationChanged())
        lang = self._lang
        note = t("prompts.active_unsaved_note", lang) if self.is_dirty else ""
        label = self._prompts[prompt_id].label
        self._notify_done(t("prompts.now_active", lang, label=label) + note, timeout=None)

    async def _delete_flow(self) -> None:
        prompt = None if self._editing_id is None else self._prompts.get(self._editing_id)
        if prompt is None:
            self.notify(t("prompts.nothing_to_delete", self._lang), timeout=4)
            return
        if prompt.is_default:
            self._show_error(OncallError("PROMPT_DEFAULT_PROTECTED"))
            return
        lang = self._lang
        details = [t("prompts.delete.question", lang, label=prompt.label)]
        if prompt.id == self._active_id:
            details.append(t("prompts.delete.active", lang))
        if self.is_dirty:
            details.append(t("prompts.delete.unsaved", lang))
        title, yes = t("prompts.delete.title", lang), t("prompts.key.delete", lang)
        if not await self._confirm_delete(title, joined(lang, *details), yes):
            return
        await self._call(self._services.configuration.delete_prompt, prompt.id)
        self.app.post_message(ConfigurationChanged())
        view = await self._fetch()  # a catalog error here, as above, is shown by the flow
        self._apply(view)
        self._load_into_editor(view.active_prompt)
        self._notify_done(t("prompts.deleted", lang, label=prompt.label))
