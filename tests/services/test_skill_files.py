"""``add_skill_files``: the one upload of the SKILL.md files a user named (TUI and CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oncall_tui.core.skills import MAX_SKILL_BYTES
from oncall_tui.errors import OncallError
from oncall_tui.services import configuration as configuration_module
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.store.engine import Database
from tests.conftest import skill_text, sqlite_full

pytestmark = pytest.mark.both_engines


def test_a_directory_means_the_skill_md_in_it_and_the_skill_is_stored(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    folder = tmp_path / "disk-full"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_text("disk-full", "Free disk space."), "utf-8")
    skill = configuration.add_skill_files("alice", str(folder)).added[0]
    assert (skill.name, skill.filename) == ("disk-full", "SKILL.md")
    assert [s.name for s in configuration.list_skills("alice")] == ["disk-full"]
    assert configuration.list_skills("bob") == []


def test_a_home_relative_path_is_expanded(
    configuration: ConfigurationService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "SKILL.md").write_text(skill_text("home-skill"), "utf-8")
    assert configuration.add_skill_files("alice", "~/SKILL.md").added[0].name == "home-skill"


def refused(configuration: ConfigurationService, path: Path) -> OncallError:
    """What adding ``path`` raised; nothing was stored."""
    with pytest.raises(OncallError) as caught:
        configuration.add_skill_files("alice", str(path))
    assert configuration.list_skills("alice") == []
    return caught.value


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("SKILL.md", b"no front matter here\n", "skill_no_frontmatter"),
        ("SKILL.md", b"\xff\xfe not UTF-8", "skill_not_utf8"),
        ("SKILL.md", b"x" * (MAX_SKILL_BYTES + 1), "skill_too_large"),
        ("README.md", skill_text().encode(), "skill_filename"),
    ],
)
def test_a_file_that_breaks_a_rule_is_refused_and_nothing_is_stored(
    configuration: ConfigurationService, tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    error = refused(configuration, path)
    assert (error.code, error.reason) == ("SKILL_INVALID", reason)


def test_what_is_not_a_regular_file_is_refused(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    (tmp_path / "SKILL.md").mkdir()
    assert refused(configuration, tmp_path).reason == "not_regular_file"


def skill_folder(parent: Path, name: str, content: str | None = None) -> Path:
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(content or skill_text(name, f"Runbook {name}."), "utf-8")
    return folder


def test_a_folder_of_skill_folders_adds_each_and_says_which_it_refused(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    """The first-start guide names the bundled examples' folder: Enter on it adds them all,
    as the README's loop over its folders did; one refused does not stop the others."""
    runbooks = tmp_path / "runbooks"
    skill_folder(runbooks, "disk-full")
    skill_folder(runbooks, "broken", "no front matter\n")
    skill_folder(runbooks, "oom-kill")
    (runbooks / "notes").mkdir()  # a folder without a SKILL.md is passed over
    (runbooks / "README.md").write_text("not a skill", "utf-8")
    configuration.add_skill_files("alice", str(runbooks / "oom-kill"))  # stored already
    result = configuration.add_skill_files("alice", str(runbooks))
    assert [skill.name for skill in result.added] == ["disk-full"]
    assert [(folder, error.reason) for folder, error in result.refused] == [
        ("broken", "skill_no_frontmatter"),
        ("oom-kill", None),
    ]
    assert result.refused[1][1].code == "SKILL_DUPLICATE_NAME"
    assert sorted(s.name for s in configuration.list_skills("alice")) == ["disk-full", "oom-kill"]


def test_a_folder_with_a_skill_md_of_its_own_is_that_one_skill(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    folder = skill_folder(tmp_path, "disk-full")
    skill_folder(folder, "scripts")  # a folder inside it is not another skill to add
    result = configuration.add_skill_files("alice", str(folder))
    assert [skill.name for skill in result.added] == ["disk-full"]
    assert [s.name for s in configuration.list_skills("alice")] == ["disk-full"]


def test_a_folder_without_skills_says_the_skill_md_it_looked_for(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    """A folder of runbooks named ``*.md`` was refused as "cannot read '…/SKILL.md' (no such
    file)", as if a file had gone missing."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "disk-full.md").write_text("---\nname: disk-full\n---\n")
    error = refused(configuration, tmp_path)
    assert error.reason == "no_skill_in_folder"
    assert f"there is no SKILL.md in '{tmp_path}', nor in a folder of it" in error.message("en")


def test_a_skill_md_named_that_is_not_there_is_not_taken_for_its_folder(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    """``runbooks/SKILL.md`` named, and missing: said so, not every skill folder beside it."""
    skill_folder(tmp_path, "disk-full")
    with pytest.raises(OncallError) as caught:
        configuration.add_skill_files("alice", str(tmp_path / "SKILL.md"))
    assert caught.value.reason == "unreadable_file"
    assert configuration.list_skills("alice") == []
    missing = tmp_path / "SKILL.md"
    assert caught.value.message("en").endswith(f"cannot read '{missing}' (no such file)")
    # In the user's language, the file's problem too (it was English in a Chinese error).
    assert caught.value.message("zh").endswith("（文件不存在）")


@pytest.mark.parametrize(("folders", "left"), [(3, 0), (4, 1)])
def test_a_path_adds_at_most_max_folders_and_says_how_many_it_left(
    configuration: ConfigurationService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    folders: int,
    left: int,
) -> None:
    monkeypatch.setattr(configuration_module, "MAX_FOLDERS", 3)
    for index in range(folders):
        skill_folder(tmp_path, f"runbook-{index}")
    result = configuration.add_skill_files("alice", str(tmp_path))
    assert [skill.name for skill in result.added] == ["runbook-0", "runbook-1", "runbook-2"]
    assert result.left == left


@pytest.mark.sqlite_only
def test_a_database_that_fails_stops_a_folder_s_adds_and_is_raised(
    configuration: ConfigurationService, database: Database, tmp_path: Path
) -> None:
    """A full disk is not one folder's refusal among others: nothing more is tried."""
    for name in ("disk-full", "oom-kill"):
        skill_folder(tmp_path, name, skill_text(name, body="x" * 20_000))
    with sqlite_full(database), pytest.raises(OncallError) as caught:
        configuration.add_skill_files("alice", str(tmp_path))
    assert caught.value.code == "DATABASE_UNAVAILABLE"
    assert configuration.list_skills("alice") == []
