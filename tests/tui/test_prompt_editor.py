from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static, TextArea

from oncall_tui.core.prompts import DEFAULT_PROMPT_LABEL, MAX_CONTENT_CHARS, MAX_LABEL_CHARS
from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.widgets.dialogs import ConfirmDialog, ErrorText, UnsavedChangesDialog
from tests.tui.conftest import AssetsHostApp, ScreenFactory, wait_until
from tests.tui.harness import keys_at_the_text_ends, question_read, screen_rows

SIZE = (100, 32)
OWNER = "alice"

HostFactory = Callable[[ScreenFactory], AssetsHostApp]


def editor_host(assets_host: HostFactory) -> AssetsHostApp:
    return assets_host(PromptEditorScreen)


async def opened(pilot: Pilot[None]) -> PromptEditorScreen:
    app = pilot.app
    await wait_until(
        pilot,
        lambda: isinstance(app.screen, PromptEditorScreen) and app.screen.loaded,
    )
    screen = app.screen
    assert isinstance(screen, PromptEditorScreen)
    return screen


async def new_prompt(pilot: Pilot[None]) -> PromptEditorScreen:
    """The editor opened, then ctrl+n: a new prompt, its label focused."""
    screen = await opened(pilot)
    await pilot.press("ctrl+n")
    await settled(pilot, screen)
    return screen


async def settled(pilot: Pilot[None], screen: PromptEditorScreen) -> None:
    await wait_until(pilot, lambda: not screen.busy)
    await pilot.pause()


def editing(screen: PromptEditorScreen) -> int | None:
    """The prompt in the editor (a function, so mypy does not narrow it across awaits)."""
    return screen.editing_id


def label_input(screen: PromptEditorScreen) -> Input:
    return screen.query_one("#prompt-label", Input)


def content_area(screen: PromptEditorScreen) -> TextArea:
    return screen.query_one("#prompt-content", TextArea)


def error_message(screen: PromptEditorScreen) -> str | None:
    return screen.query_one("#prompt-error", ErrorText).message


def rendered(screen: PromptEditorScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_opens_on_the_active_default_prompt(assets_host: HostFactory) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert label_input(screen).value == DEFAULT_PROMPT_LABEL
        option_list = screen.query_one("#prompt-list", OptionList)
        assert option_list.option_count == 1
        assert "●" in str(option_list.get_option_at_index(0).prompt)
        assert "(default)" in str(option_list.get_option_at_index(0).prompt)
        assert "default · active" in rendered(screen, "#editor-title")


async def test_new_prompt_is_created_then_edited_and_both_saves_persist(
    assets_host: HostFactory, library_services: Services
) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await new_prompt(pilot)
        assert editing(screen) is None
        assert screen.focused is label_input(screen)
        await pilot.press(*"Disk full", "tab")
        await pilot.press(*"Check df -h.")
        assert "modified" in rendered(screen, "#editor-title")
        await pilot.press("ctrl+s")
        await settled(pilot, screen)

        prompts = library_services.configuration.list_prompts(OWNER)
        assert [(p.label, p.content) for p in prompts][1:] == [("Disk full", "Check df -h.")]
        assert screen.editing_id == prompts[1].id
        assert not screen.is_dirty
        assert len(app.configuration_changes) == 1

        await pilot.press("end", *" Then du.")
        label_input(screen).value = "Disk full runbook"
        await pilot.press("ctrl+s")
        await settled(pilot, screen)
        saved = library_services.configuration.get_prompt(OWNER, prompts[1].id)
        assert (saved.label, saved.content) == ("Disk full runbook", "Check df -h. Then du.")
        assert len(app.configuration_changes) == 2
        option_list = screen.query_one("#prompt-list", OptionList)
        assert "Disk full runbook" in str(option_list.get_option_at_index(1).prompt)


async def test_over_limit_label_and_content_are_refused_inline_and_limits_accepted(
    assets_host: HostFactory, library_services: Services
) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await new_prompt(pilot)
        label_input(screen).value = "L" * (MAX_LABEL_CHARS + 1)
        content_area(screen).insert("ok")
        await pilot.press("ctrl+s")
        await settled(pilot, screen)
        expected = OncallError(
            "PROMPT_INVALID", "prompt_label_length", limit=160, length=161
        ).message("en")
        assert error_message(screen) == expected
        assert len(library_services.configuration.list_prompts(OWNER)) == 1

        label_input(screen).value = "L" * MAX_LABEL_CHARS
        content_area(screen).load_text("c" * (MAX_CONTENT_CHARS + 1))
        await pilot.press("ctrl+s")
        await settled(pilot, screen)
        expected = OncallError(
            "PROMPT_INVALID", "prompt_content_length", limit=12000, length=12001
        ).message("en")
        assert error_message(screen) == expected
        assert len(library_services.configuration.list_prompts(OWNER)) == 1
        assert app.configuration_changes == []

        content_area(screen).load_text("c" * MAX_CONTENT_CHARS)
        await pilot.press("ctrl+s")
        await settled(pilot, screen)
        assert error_message(screen) is None
        prompts = library_services.configuration.list_prompts(OWNER)
        assert (len(prompts[1].label), len(prompts[1].content)) == (160, 12000)


LONG_LABEL = "Payments checkout incident INC-4211 runbook prompt for the EU region"


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_long_label_is_cut_in_the_title_before_modified_is(
    assets_host: HostFactory, library_services: Services, size: tuple[int, int]
) -> None:
    """The title line was cut at the pane's edge: with a long label, or at 60 columns with
    any, "modified" was out of sight and unsaved edits looked saved. The label is cut first
    (it is whole in the field below); "modified" comes first of the flags."""
    made = library_services.configuration.create_prompt(OWNER, LONG_LABEL, "Check the EU pods.")
    app = editor_host(assets_host)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        screen.query_one("#prompt-list", OptionList).highlighted = 1
        await wait_until(pilot, lambda: editing(screen) == made.id)
        content_area(screen).focus()
        await pilot.press("end", *" Then the DB.")
        await wait_until(pilot, lambda: screen.is_dirty)

        def title_row() -> str:
            (row,) = [line for line in screen_rows(app) if "Editing: " in line]
            return row

        await wait_until(pilot, lambda: "modified" in title_row())  # drawn since the edit
        row = title_row()
        assert "Editing: Payments" in row
        assert "… · modified" in row  # the label cut, the flag whole
        assert label_input(screen).value == LONG_LABEL


async def test_character_counters_follow_typing_and_flag_the_limit(
    assets_host: HostFactory,
) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await new_prompt(pilot)
        assert rendered(screen, "#label-count") == "label 0/160"
        await pilot.press(*"abc")
        await pilot.pause()
        assert rendered(screen, "#label-count") == "label 3/160"
        content_area(screen).insert("x" * 5321)
        await pilot.pause()
        assert rendered(screen, "#content-count") == "content 5,321/12,000"
        assert not screen.query_one("#content-count").has_class("-over")
        content_area(screen).insert("x" * (12001 - 5321))
        await pilot.pause()
        assert rendered(screen, "#content-count") == "content 12,001/12,000"
        assert screen.query_one("#content-count").has_class("-over")


async def test_lines_pasted_into_the_label_are_kept_on_one_line_and_said_too_long(
    assets_host: HostFactory,
) -> None:
    """ctrl+n puts the cursor in the label; a prompt pasted there kept its first line only,
    the rest dropped unsaid. Every line is kept, joined by a space (blank ones left out), and
    one too long for a label is said so, as for typing."""
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await new_prompt(pilot)
        label = label_input(screen)
        assert app.focused is label
        app.post_message(events.Paste("line A\r\nline B\n\nline C\n"))
        await wait_until(pilot, lambda: label.value == "line A line B line C")
        long_log = "\n".join(f"02:{n:02} ERROR upstream timeout pool=db-primary" for n in range(5))
        app.post_message(events.Paste("\n" + long_log))
        await wait_until(pilot, lambda: "02:04" in label.value)
        assert label.value.count("02:") == 5
        counted = f"label {len(label.value)}/160"
        await wait_until(pilot, lambda: rendered(screen, "#label-count") == counted)
        assert screen.query_one("#label-count").has_class("-over")


async def test_ctrl_home_and_ctrl_end_go_to_the_ends_of_the_content(
    assets_host: HostFactory,
) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        content_area(screen).focus()
        await pilot.pause()
        typed, to_the_end, to_the_start = await keys_at_the_text_ends(pilot, content_area(screen))
    assert typed == "Afirst line\nsecond\nthird lineZ"
    assert to_the_end == "first line\nsecond\nthird lineZ"
    assert to_the_start == typed


async def test_choosing_a_prompt_as_active_is_saved(
    assets_host: HostFactory, library_services: Services
) -> None:
    second = library_services.configuration.create_prompt(OWNER, "Database", "Think SQL.")
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("down")
        await wait_until(pilot, lambda: screen.editing_id == second.id)
        assert label_input(screen).value == "Database"
        await pilot.press("ctrl+t")
        await settled(pilot, screen)
        configuration = library_services.configuration.get_configuration(OWNER)
        assert configuration.system_prompt_id == second.id
        assert len(app.configuration_changes) == 1
        option_list = screen.query_one("#prompt-list", OptionList)
        assert str(option_list.get_option_at_index(1).prompt).startswith("●")
        assert not str(option_list.get_option_at_index(0).prompt).startswith("●")


async def test_delete_asks_first_and_cancel_keeps_the_prompt(
    assets_host: HostFactory, library_services: Services
) -> None:
    second = library_services.configuration.create_prompt(OWNER, "Database", "Think SQL.")
    library_services.configuration.save_configuration(OWNER, system_prompt_id=second.id)
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert screen.editing_id == second.id
        await pilot.press("ctrl+d")
        await question_read(pilot)
        await pilot.press("enter")  # the focus starts on "No"
        await settled(pilot, screen)
        assert len(library_services.configuration.list_prompts(OWNER)) == 2

        await pilot.press("ctrl+d")
        await question_read(pilot)
        await pilot.press("y")
        await settled(pilot, screen)
        prompts = library_services.configuration.list_prompts(OWNER)
        assert [p.label for p in prompts] == [DEFAULT_PROMPT_LABEL]
        assert library_services.configuration.get_configuration(OWNER).system_prompt_id == (
            prompts[0].id
        )
        assert screen.editing_id == prompts[0].id
        assert label_input(screen).value == DEFAULT_PROMPT_LABEL
        assert len(app.configuration_changes) == 1


async def test_default_prompt_delete_is_refused_with_the_catalog_message(
    assets_host: HostFactory, library_services: Services
) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("ctrl+d")
        await settled(pilot, screen)
        assert not isinstance(app.screen, ConfirmDialog)
        assert error_message(screen) == ("The default prompt cannot be deleted; edit it instead.")
        assert len(library_services.configuration.list_prompts(OWNER)) == 1


async def test_leaving_with_unsaved_edits_asks_cancel_keeps_and_discard_drops(
    assets_host: HostFactory, library_services: Services
) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        content_area(screen).focus()
        await pilot.press("end", *" Be brief.")
        edited = content_area(screen).text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, UnsavedChangesDialog))
        await pilot.press("escape")  # cancel: keep editing
        await settled(pilot, screen)
        assert app.screen is screen
        assert content_area(screen).text == edited

        await pilot.press("escape")
        await question_read(pilot)
        await pilot.press("d")
        await wait_until(
            pilot, lambda: not isinstance(app.screen, (PromptEditorScreen, UnsavedChangesDialog))
        )
        stored = library_services.configuration.list_prompts(OWNER)[0]
        assert not stored.content.endswith("Be brief.")
        assert app.configuration_changes == []


async def test_leaving_with_save_chosen_saves_then_leaves(
    assets_host: HostFactory, library_services: Services
) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        label_input(screen).value = "On-call, terse"
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, UnsavedChangesDialog))
        await pilot.press("s")  # before the question could be read: the bell, nothing saved
        assert isinstance(app.screen, UnsavedChangesDialog)
        assert library_services.configuration.list_prompts(OWNER)[0].label != "On-call, terse"
        await question_read(pilot)
        await pilot.press("s")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])  # back on the host
        assert len(app.configuration_changes) == 1
        assert library_services.configuration.list_prompts(OWNER)[0].label == "On-call, terse"


async def test_switching_prompts_with_unsaved_edits_asks_first(
    assets_host: HostFactory, library_services: Services
) -> None:
    second = library_services.configuration.create_prompt(OWNER, "Database", "Think SQL.")
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        default_id = screen.editing_id
        label_input(screen).value = "Renamed default"
        screen.query_one("#prompt-list", OptionList).focus()
        await pilot.press("down")
        await wait_until(pilot, lambda: isinstance(app.screen, UnsavedChangesDialog))
        await pilot.press("c")  # cancel: stay on the edited prompt, list follows
        await settled(pilot, screen)
        assert screen.editing_id == default_id
        assert label_input(screen).value == "Renamed default"
        assert screen.query_one("#prompt-list", OptionList).highlighted == 0

        await pilot.press("down")
        await question_read(pilot)
        await pilot.press("s")
        await settled(pilot, screen)
        assert screen.editing_id == second.id
        assert label_input(screen).value == "Database"
        assert library_services.configuration.list_prompts(OWNER)[0].label == "Renamed default"


@pytest.mark.parametrize("focus", ["#prompt-list", "#prompt-label", "#prompt-content"])
async def test_one_escape_goes_back_from_any_focus(focus: str, assets_host: HostFactory) -> None:
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await settled(pilot, screen)
        screen.query_one(focus).focus()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert len(app.screen_stack) == 1


async def test_escape_during_a_slow_load_goes_back_once_it_has_reported(
    assets_host: HostFactory, slow_configuration: threading.Event
) -> None:
    release = slow_configuration
    app = editor_host(assets_host)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, PromptEditorScreen) and app.screen.busy
        )
        screen = app.screen
        await pilot.press("escape")  # pressed while the prompts are still being read
        await pilot.pause()
        assert app.screen is screen
        release.set()
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
