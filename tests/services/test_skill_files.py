"""``add_skill_file``: the one upload of a SKILL.md file a user named, for the TUI and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from oncall_tui.core.skills import MAX_SKILL_BYTES
from oncall_tui.errors import OncallError
from oncall_tui.services.configuration import ConfigurationService
from tests.conftest import skill_text

pytestmark = pytest.mark.both_engines


def test_a_directory_means_the_skill_md_in_it_and_the_skill_is_stored(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    folder = tmp_path / "disk-full"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_text("disk-full", "Free disk space."), "utf-8")
    skill = configuration.add_skill_file("alice", str(folder))
    assert (skill.name, skill.filename) == ("disk-full", "SKILL.md")
    assert [s.name for s in configuration.list_skills("alice")] == ["disk-full"]
    assert configuration.list_skills("bob") == []


def test_a_home_relative_path_is_expanded(
    configuration: ConfigurationService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "SKILL.md").write_text(skill_text("home-skill"), "utf-8")
    assert configuration.add_skill_file("alice", "~/SKILL.md").name == "home-skill"


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
    with pytest.raises(OncallError) as caught:
        configuration.add_skill_file("alice", str(path))
    assert (caught.value.code, caught.value.reason) == ("SKILL_INVALID", reason)
    assert configuration.list_skills("alice") == []


def test_what_is_not_a_regular_file_is_refused(
    configuration: ConfigurationService, tmp_path: Path
) -> None:
    (tmp_path / "SKILL.md").mkdir()
    with pytest.raises(OncallError) as caught:
        configuration.add_skill_file("alice", str(tmp_path))
    assert caught.value.reason == "not_regular_file"
    assert configuration.list_skills("alice") == []
