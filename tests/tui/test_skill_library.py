from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static, TextArea

from oncall_tui.core.skills import MAX_SKILL_BYTES
from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services
from oncall_tui.services.skill_files import read_skill_file
from oncall_tui.services.views import SkillView
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from oncall_tui.tui.widgets.dialogs import ErrorText
from oncall_tui.tui.widgets.path_input import complete_path
from oncall_tui.tui.widgets.text_dialogs import TextViewerDialog
from tests.tui.conftest import EXAMPLES_DIR, AssetsHostApp, ScreenFactory, wait_until
from tests.tui.harness import notifications, question_read
from tests.tui.harness import settled as settled_screen

SIZE = (100, 32)
OWNER = "alice"

HostFactory = Callable[[ScreenFactory], AssetsHostApp]


def skill_md(name: str = "disk-full", description: str = "Free disk space safely.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# Steps\n1. df -h\n"


def write_skill(directory: Path, text: str, filename: str = "SKILL.md") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / filename
    path.write_text(text, encoding="utf-8")
    return path


def add_skill(services: Services, name: str, description: str = "Does a thing.") -> SkillView:
    data = skill_md(name, description).encode()
    return services.configuration.add_skill(OWNER, "SKILL.md", data)


async def opened(pilot: Pilot[None]) -> SkillLibraryScreen:
    app = pilot.app
    await wait_until(
        pilot,
        lambda: (
            isinstance(app.screen, SkillLibraryScreen) and app.screen.loaded and not app.screen.busy
        ),
    )
    screen = app.screen
    assert isinstance(screen, SkillLibraryScreen)
    return screen


async def settled(pilot: Pilot[None], screen: SkillLibraryScreen) -> None:
    await wait_until(pilot, lambda: not screen.busy)
    await pilot.pause()


def error_message(screen: SkillLibraryScreen) -> str | None:
    return screen.query_one("#skill-error", ErrorText).message


async def submit_path(pilot: Pilot[None], screen: SkillLibraryScreen, path: str) -> None:
    path_input = screen.query_one("#skill-path", Input)
    assert screen.focused is path_input  # the screen opens there
    path_input.value = path
    await pilot.press("enter")


async def move_to(pilot: Pilot[None], screen: SkillLibraryScreen, skill_id: int) -> None:
    table = screen.query_one("#skill-table", DataTable)
    table.focus()
    table.move_cursor(row=table.get_row_index(str(skill_id)))
    await pilot.pause()


async def viewed(pilot: Pilot[None], screen: SkillLibraryScreen, skill_id: int) -> TextArea:
    """The skill's viewer, opened from the list with v: its text."""
    await move_to(pilot, screen, skill_id)
    await pilot.press("v")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, TextViewerDialog))
    return pilot.app.screen.query_one(TextArea)


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (
            "skill.md",
            skill_md(),
            "SKILL.md rejected: the file must be named exactly SKILL.md (got 'skill.md')",
        ),
        (
            "SKILL.md",
            skill_md(name="Disk_Full"),
            "SKILL.md rejected: 'name' may contain only lowercase letters a-z, digits and "
            "hyphens (got 'Disk_Full')",
        ),
        (
            "SKILL.md",
            "# no frontmatter\n",
            "SKILL.md rejected: the file must start with a YAML frontmatter block between "
            "'---' lines",
        ),
    ],
    ids=["lowercase-file-name", "bad-skill-name", "no-frontmatter"],
)
async def test_upload_errors_show_the_exact_validation_message_and_store_nothing(
    filename: str,
    text: str,
    expected: str,
    tmp_path: Path,
    assets_host: HostFactory,
    library_services: Services,
) -> None:
    path = write_skill(tmp_path / "upload", text, filename)
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await submit_path(pilot, screen, str(path))
        await wait_until(pilot, lambda: error_message(screen) is not None)
        assert error_message(screen) == expected
        assert screen.query_one("#skill-path", Input).value == str(path)  # kept to fix
        assert library_services.configuration.list_skills(OWNER) == []
        assert app.configuration_changes == []


async def test_missing_file_is_reported_without_a_traceback(
    tmp_path: Path, assets_host: HostFactory
) -> None:
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await submit_path(pilot, screen, str(tmp_path / "nope" / "SKILL.md"))
        await wait_until(pilot, lambda: error_message(screen) is not None)
        assert error_message(screen) == (
            f"Invalid argument: cannot read '{tmp_path / 'nope' / 'SKILL.md'}' (no such file)"
        )


async def test_successful_upload_expands_home_and_lists_the_new_skill(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    assets_host: HostFactory,
    library_services: Services,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write_skill(tmp_path / "runbooks" / "disk", skill_md())
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await submit_path(pilot, screen, "~/runbooks/disk/SKILL.md")
        await wait_until(pilot, lambda: len(screen.skills) == 1)
        await settled(pilot, screen)
        assert error_message(screen) is None
        assert screen.query_one("#skill-path", Input).value == ""
        [stored] = library_services.configuration.list_skills(OWNER)
        assert (stored.name, stored.description) == ("disk-full", "Free disk space safely.")
        table = screen.query_one("#skill-table", DataTable)
        assert [str(cell) for cell in table.get_row(str(stored.id))][:3] == [
            "[ ]",
            "disk-full",
            "79 B",
        ]
        assert "disk-full: Free disk space safely." in str(
            screen.query_one("#skill-description", Static).render()
        )
        assert len(app.configuration_changes) == 1


async def test_a_folder_of_skill_folders_adds_each_and_says_each_refused(
    tmp_path: Path, assets_host: HostFactory, library_services: Services
) -> None:
    """Enter on a folder of skill folders (the bundled examples, which the first-start guide
    names) adds every skill in it: it said "cannot read '…/skills-examples/SKILL.md'". Those
    stored already are said once, by their names (their folders' names, where another, named
    no skill in the list); another refusal, with its folder."""
    runbooks = tmp_path / "runbooks"
    names = ["alert-triage", "k8s-pod-triage", "log-analysis"]
    for name in names:
        shutil.copytree(EXAMPLES_DIR / name, runbooks / name.replace("alert-", ""))
    write_skill(runbooks / "broken", "# no frontmatter\n")
    library_services.configuration.add_skill_files(OWNER, str(runbooks / "triage"))
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await submit_path(pilot, screen, str(runbooks))
        await wait_until(pilot, lambda: len(screen.skills) == len(names))
        await wait_until(pilot, lambda: error_message(screen) is not None)
        assert error_message(screen) == (
            "broken: SKILL.md rejected: the file must start with a YAML frontmatter block "
            "between '---' lines. Stored already, so not added: alert-triage (delete one first "
            "to replace it)."
        )
        assert screen.query_one("#skill-path", Input).value == str(runbooks)  # to see why
        stored = sorted(s.name for s in library_services.configuration.list_skills(OWNER))
        assert stored == names
        assert "Added 2 skills: k8s-pod-triage, log-analysis." in notifications(app)


async def test_a_folder_of_one_skill_folder_says_the_one_skill_added(
    tmp_path: Path, assets_host: HostFactory
) -> None:
    shutil.copytree(EXAMPLES_DIR / "log-analysis", tmp_path / "runbooks" / "log-analysis")
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await submit_path(pilot, screen, str(tmp_path / "runbooks"))
        await wait_until(pilot, lambda: len(screen.skills) == 1)
        await wait_until(pilot, lambda: bool(notifications(app)))
        assert notifications(app)[-1].startswith("Added skill log-analysis (")  # not "1 skills"
        assert error_message(screen) is None


async def test_a_directory_path_means_the_skill_md_inside_it(
    assets_host: HostFactory, library_services: Services
) -> None:
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await submit_path(pilot, screen, str(EXAMPLES_DIR / "log-analysis"))
        await wait_until(pilot, lambda: len(screen.skills) == 1)
        assert [s.name for s in library_services.configuration.list_skills(OWNER)] == [
            "log-analysis"
        ]


async def test_view_shows_the_full_content_read_only(
    assets_host: HostFactory, library_services: Services
) -> None:
    skill = add_skill(library_services, "disk-full")
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        viewer = await viewed(pilot, screen, skill.id)
        assert viewer.read_only
        assert viewer.text == skill_md("disk-full", "Does a thing.")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.press("enter")  # enter on a row views it too
        await wait_until(pilot, lambda: isinstance(app.screen, TextViewerDialog))


async def test_home_and_end_in_the_list_go_to_the_first_and_the_last_skill(
    assets_host: HostFactory, library_services: Services
) -> None:
    names = ["alpha", "beta", "gamma"]
    for name in names:
        add_skill(library_services, name)
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        table = screen.query_one("#skill-table", DataTable)
        await pilot.press("tab")
        assert screen.focused is table
        await pilot.press("end")
        at_the_end = screen.skills[table.cursor_row].name
        await pilot.press("home")
        assert (at_the_end, screen.skills[table.cursor_row].name) == ("gamma", "alpha")


async def test_the_viewer_goes_to_the_end_and_back_with_ctrl_end_and_ctrl_home(
    assets_host: HostFactory, library_services: Services
) -> None:
    long = skill_md("runbook", "A long one.") + "".join(f"step {n}\n" for n in range(200))
    skill = library_services.configuration.add_skill(OWNER, "SKILL.md", long.encode())
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        viewer = await viewed(pilot, screen, skill.id)
        await pilot.press("ctrl+end")
        await settled_screen(pilot)
        at_the_end = (viewer.cursor_location, viewer.scroll_y > 0)
        await pilot.press("ctrl+home")
        await settled_screen(pilot)
        assert at_the_end == (viewer.document.end, True)
        assert (viewer.cursor_location, viewer.scroll_y) == ((0, 0), 0)


async def test_delete_asks_first_and_removes_the_skill_and_its_selection(
    assets_host: HostFactory, library_services: Services
) -> None:
    keep = add_skill(library_services, "alpha")
    doomed = add_skill(library_services, "beta")
    library_services.configuration.save_configuration(OWNER, skill_ids=[keep.id, doomed.id])
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await move_to(pilot, screen, doomed.id)
        await pilot.press("ctrl+d")
        await question_read(pilot)
        await pilot.press("n")
        await settled(pilot, screen)
        assert len(library_services.configuration.list_skills(OWNER)) == 2

        await pilot.press("delete")
        await question_read(pilot)
        await pilot.press("y")
        await settled(pilot, screen)
        assert [s.name for s in library_services.configuration.list_skills(OWNER)] == ["alpha"]
        assert library_services.configuration.get_configuration(OWNER).skill_ids == (keep.id,)
        assert [s.name for s in screen.skills] == ["alpha"]
        assert screen.selected_ids == (keep.id,)
        assert len(app.configuration_changes) == 1
        assert screen.status == "Deleted skill beta."  # the line said the last selection still


async def test_space_toggles_use_and_the_selection_is_saved(
    assets_host: HostFactory, library_services: Services
) -> None:
    first = add_skill(library_services, "alpha")
    second = add_skill(library_services, "beta")
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await move_to(pilot, screen, second.id)
        await pilot.press("space")
        await settled(pilot, screen)
        await move_to(pilot, screen, first.id)
        await pilot.press("space")
        await settled(pilot, screen)
        assert library_services.configuration.get_configuration(OWNER).skill_ids == (
            second.id,
            first.id,
        )
        table = screen.query_one("#skill-table", DataTable)
        assert str(table.get_cell(str(first.id), "use")) == "[x]"
        assert "2 selected" in str(screen.query_one("#skills-title", Static).render())

        await move_to(pilot, screen, second.id)
        await pilot.press("space")
        await settled(pilot, screen)
        assert library_services.configuration.get_configuration(OWNER).skill_ids == (first.id,)
        assert str(table.get_cell(str(second.id), "use")) == "[ ]"
        assert len(app.configuration_changes) == 3


async def test_failed_selection_save_shows_the_error_and_reloads_the_real_selection(
    assets_host: HostFactory, library_services: Services
) -> None:
    gone = add_skill(library_services, "alpha")
    other = add_skill(library_services, "beta")
    library_services.configuration.save_configuration(OWNER, skill_ids=[gone.id])
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert list(screen.selected_ids) == [gone.id]
        library_services.configuration.delete_skill(OWNER, gone.id)  # behind the screen's back
        await move_to(pilot, screen, other.id)
        await pilot.press("space")
        await settled(pilot, screen)
        assert error_message(screen) == f"Invalid argument: skill ids {gone.id} do not exist"
        assert library_services.configuration.get_configuration(OWNER).skill_ids == ()
        assert screen.selected_ids == ()
        assert [s.name for s in screen.skills] == ["beta"]
        table = screen.query_one("#skill-table", DataTable)
        assert str(table.get_cell(str(other.id), "use")) == "[ ]"
        assert app.configuration_changes == []


def test_complete_path_keeps_what_was_typed_and_skips_hidden_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "skills").mkdir()
    (tmp_path / ".secret").mkdir()
    (tmp_path / "skills" / "SKILL.md").write_text("x")
    assert complete_path("~/sk") == "~/skills/"
    assert complete_path("~/skills/") == "~/skills/SKILL.md"
    assert complete_path("~/skills/SKILL.md") is None
    assert complete_path("~/") == "~/skills/"  # .secret is not offered: only one entry
    assert complete_path("~/.se") == "~/.secret/"
    assert complete_path(str(tmp_path / "missing" / "x")) is None


def test_complete_path_goes_as_far_as_every_entry_agrees(tmp_path: Path) -> None:
    """It picked the first of several ("skills-examples/" became "…/alert-triage/")."""
    for name in ("log-analysis", "logs", "alert-triage"):
        (tmp_path / name).mkdir()
    (tmp_path / "log-analysis" / "SKILL.md").write_text("x")
    assert complete_path(f"{tmp_path}/") is None  # three entries: nothing they agree on
    assert complete_path(f"{tmp_path}/l") == f"{tmp_path}/log"
    assert complete_path(f"{tmp_path}/log") is None
    assert complete_path(f"{tmp_path}/log-") == f"{tmp_path}/log-analysis/"
    assert complete_path(f"{tmp_path}/a") == f"{tmp_path}/alert-triage/"


def test_oversized_skill_file_reports_its_real_size(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"x" * (MAX_SKILL_BYTES * 3))
    with pytest.raises(OncallError, match=f"the file is {MAX_SKILL_BYTES * 3:,} bytes"):
        read_skill_file(str(path))
