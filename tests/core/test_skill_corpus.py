"""Real public SKILL.md files and the shipped examples go through the real validator."""

from __future__ import annotations

from pathlib import Path

import pytest

from oncall_tui.core.skills import validate_skill_upload
from oncall_tui.errors import OncallError
from tests.conftest import CORPUS, EXAMPLES

CORPUS_FILES = sorted(p for p in CORPUS.glob("*.md") if p.name != "NOTICE.md")
ACCEPTED = [p for p in CORPUS_FILES if p.name != "claude-api.md"]


def test_corpus_is_present() -> None:
    assert len(CORPUS_FILES) == 13
    assert (CORPUS / "claude-api.md").exists()


@pytest.mark.parametrize("path", ACCEPTED, ids=lambda p: p.stem)
def test_real_skill_is_accepted_under_its_real_name(path: Path) -> None:
    document = validate_skill_upload("SKILL.md", path.read_bytes())
    assert document.name
    assert document.description
    assert document.content.startswith("---\n")


def test_oversized_real_skill_is_rejected_with_the_size_error() -> None:
    data = (CORPUS / "claude-api.md").read_bytes()
    assert len(data) > 65_536
    with pytest.raises(OncallError) as caught:
        validate_skill_upload("SKILL.md", data)
    assert caught.value.reason == "skill_too_large"


EXAMPLE_FILES = sorted(EXAMPLES.glob("*/SKILL.md"))


def test_there_are_at_least_four_examples_and_one_is_chinese() -> None:
    assert len(EXAMPLE_FILES) >= 4
    texts = [p.read_text(encoding="utf-8") for p in EXAMPLE_FILES]
    assert any(sum("\u4e00" <= ch <= "\u9fff" for ch in text) > 500 for text in texts)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.parent.name)
def test_example_skill_is_valid_and_named_after_its_folder(path: Path) -> None:
    document = validate_skill_upload(path.name, path.read_bytes())
    assert document.name == path.parent.name
