"""The skill library's keys as a new user meets them: it opens in the path field, typed text
stays there, space selects only in the list (and says so), tab and shift+tab switch between
the two, ctrl+t completes a path, and one Esc always goes back."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from oncall_tui.services.container import Services
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from oncall_tui.tui.widgets.key_bar import KeyBar
from tests.tui.conftest import AssetsHostApp, ScreenFactory, wait_until
from tests.tui.harness import keys_in_one_read
from tests.tui.test_skill_library import (
    OWNER,
    add_skill,
    error_message,
    move_to,
    opened,
    settled,
    skill_md,
    submit_path,
    write_skill,
)

SIZES = [(80, 24), (120, 40)]
HostFactory = Callable[[ScreenFactory], AssetsHostApp]


def path_input(screen: SkillLibraryScreen) -> Input:
    return screen.query_one("#skill-path", Input)


def table(screen: SkillLibraryScreen) -> DataTable[object]:
    return screen.query_one("#skill-table", DataTable)


def uses(screen: SkillLibraryScreen) -> list[str]:
    grid = table(screen)
    return [str(grid.get_cell_at(Coordinate(row, 0))) for row in range(grid.row_count)]


def footer_keys(screen: SkillLibraryScreen) -> dict[str, str]:
    """Key to description, for each key the footer shows whole on the screen."""
    return {key.key: key.description for key in screen.query_one(KeyBar).shown}


async def suggestion_shown(pilot: Pilot[None], field: Input) -> None:
    await pilot.app.workers.wait_for_complete()
    await wait_until(pilot, lambda: bool(field._suggestion))  # the inline completion


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_opens_in_the_path_field_and_typed_text_never_selects(
    size: tuple[int, int], assets_host: HostFactory, library_services: Services
) -> None:
    add_skill(library_services, "alpha")
    add_skill(library_services, "beta")
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        assert screen.focused is path_input(screen)
        await pilot.press(*"disk full v a ")
        await settled(pilot, screen)
        assert path_input(screen).value == "disk full v a "
        assert app.screen is screen
        assert library_services.configuration.get_configuration(OWNER).skill_ids == ()
        assert uses(screen) == ["[ ]", "[ ]"]
        assert screen.status == ""
        assert app.configuration_changes == []
        # The footer offers only what works here: no "select" while typing a path.
        await wait_until(pilot, lambda: "escape" in footer_keys(screen))
        assert "space" not in footer_keys(screen)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_space_selects_in_the_list_and_the_status_line_says_what_it_did(
    size: tuple[int, int], assets_host: HostFactory, library_services: Services
) -> None:
    add_skill(library_services, "alpha")
    beta = add_skill(library_services, "beta")
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        await pilot.press("tab")
        await move_to(pilot, screen, beta.id)
        await wait_until(pilot, lambda: footer_keys(screen).get("space") == "Select/unselect")

        await pilot.press("space")
        await settled(pilot, screen)
        assert library_services.configuration.get_configuration(OWNER).skill_ids == (beta.id,)
        assert screen.status == "Selected skill beta."
        assert str(screen.query_one("#skill-status", Static).render()) == screen.status

        await pilot.press("space")
        await settled(pilot, screen)
        assert library_services.configuration.get_configuration(OWNER).skill_ids == ()
        assert screen.status == "Unselected skill beta."
        assert uses(screen) == ["[ ]", "[ ]"]


async def test_tab_and_shift_tab_switch_between_the_path_field_and_the_list(
    tmp_path: Path, assets_host: HostFactory, library_services: Services
) -> None:
    add_skill(library_services, "alpha")
    write_skill(tmp_path / "runbooks", skill_md())
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        field, grid = path_input(screen), table(screen)
        for key, expected in [
            ("tab", grid),
            ("tab", field),
            ("shift+tab", grid),
            ("shift+tab", field),
        ]:
            await pilot.press(key)
            assert screen.focused is expected, key
        # With a completion on offer, tab still moves on and leaves the typed path as it is.
        field.value = str(tmp_path / "run")
        await suggestion_shown(pilot, field)
        await pilot.press("tab")
        assert screen.focused is grid
        assert field.value == str(tmp_path / "run")


async def test_a_path_typed_in_the_list_goes_on_in_the_path_field_and_is_added(
    tmp_path: Path, assets_host: HostFactory, library_services: Services
) -> None:
    """Tab to the list, space to select a skill, then the next path typed at once: it was
    dropped, every character of it. A character none of the list's keys takes goes to the
    path field with the focus, the keys behind it too, Enter included; space and v stay the
    list's."""
    add_skill(library_services, "alpha")
    folder = write_skill(tmp_path / "runbooks", skill_md())
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        field, grid = path_input(screen), table(screen)
        await pilot.press("tab", "space")
        await wait_until(pilot, lambda: uses(screen) == ["[x]"])
        path = str(folder)
        keys_in_one_read(app, *path[:5])
        await wait_until(pilot, lambda: screen.focused is field)
        await pilot.pause()  # the field's focus handled: what came with it was not selected
        keys_in_one_read(app, *path[5:], "enter")
        await wait_until(pilot, lambda: [s.name for s in screen.skills] == ["alpha", "disk-full"])
        assert screen.focused is field
        assert grid.row_count == 2


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_ctrl_t_completes_the_path_and_the_footer_names_it(
    size: tuple[int, int], tmp_path: Path, assets_host: HostFactory
) -> None:
    write_skill(tmp_path / "runbooks", skill_md())
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        await wait_until(pilot, lambda: footer_keys(screen).get("ctrl+t") == "Complete path")
        assert "ctrl+t completes" in str(path_input(screen).placeholder)
        field = path_input(screen)
        field.value = str(tmp_path / "run")
        await suggestion_shown(pilot, field)
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: field.value == f"{tmp_path}/runbooks/")
        await pilot.press("ctrl+t")  # no suggestion waited for: ctrl+t completes by itself
        await wait_until(pilot, lambda: field.value == f"{tmp_path}/runbooks/SKILL.md")
        assert screen.focused is field


async def open_in_state(
    pilot: Pilot[None], screen: SkillLibraryScreen, state: str, tmp_path: Path
) -> None:
    """Put the screen in one of the states a user presses Esc from."""
    if state == "list":
        table(screen).focus()
    else:
        path_input(screen).focus()
    await pilot.pause()
    if state == "typed path":
        await pilot.press(*"~/notes x")
    elif state == "completion on offer":
        write_skill(tmp_path / "runbooks", skill_md())
        path_input(screen).value = str(tmp_path / "run")
        await suggestion_shown(pilot, path_input(screen))
    elif state == "after an error":
        await submit_path(pilot, screen, str(tmp_path / "missing" / "SKILL.md"))
        await wait_until(pilot, lambda: error_message(screen) is not None)
        await settled(pilot, screen)


@pytest.mark.parametrize(
    "state", ["path field", "typed path", "completion on offer", "list", "after an error"]
)
async def test_one_escape_goes_back_from_any_focus(
    state: str, tmp_path: Path, assets_host: HostFactory, library_services: Services
) -> None:
    add_skill(library_services, "alpha")
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        await open_in_state(pilot, screen, state, tmp_path)
        assert app.screen is screen
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert len(app.screen_stack) == 1


async def test_escape_during_a_slow_step_goes_back_once_it_has_reported(
    assets_host: HostFactory, slow_configuration: threading.Event
) -> None:
    release = slow_configuration
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, SkillLibraryScreen) and app.screen.busy
        )
        screen = app.screen
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen  # the load is still under way: not cut off
        release.set()
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
