"""Every rule of docs/ARCHITECTURE.md "Skill upload validation", at and one past each bound."""

from __future__ import annotations

import pytest

from oncall_tui.core.skills import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    MAX_SKILL_BYTES,
    validate_skill_upload,
)
from oncall_tui.errors import OncallError
from tests.conftest import skill_text


def rejected(filename: str, data: bytes) -> OncallError:
    with pytest.raises(OncallError) as caught:
        validate_skill_upload(filename, data)
    assert caught.value.code == "SKILL_INVALID"
    return caught.value


def test_valid_skill_yields_name_description_and_full_content() -> None:
    text = skill_text("log-analysis", "Find the first error.", "1. grep ERROR")
    document = validate_skill_upload("SKILL.md", text.encode())
    assert document.name == "log-analysis"
    assert document.description == "Find the first error."
    assert document.content == text
    assert document.size_bytes == len(text.encode())


@pytest.mark.parametrize(
    "filename",
    [
        "skill.md",
        "docs/SKILL.md",
        "../SKILL.md",
        "SKILL.MD",
        "SKILL.md.txt",
        "/tmp/SKILL.md",
        "..\\SKILL.md",
        "",
    ],
)
def test_file_name_must_be_exactly_skill_md(filename: str) -> None:
    error = rejected(filename, skill_text().encode())
    assert error.reason == "skill_filename"
    assert "SKILL.md" in error.message("en")


def test_empty_file_is_rejected() -> None:
    assert rejected("SKILL.md", b"").reason == "skill_empty"


def test_blank_file_is_rejected() -> None:
    assert rejected("SKILL.md", b" \n\t\r\n ").reason == "skill_blank"


def padded_to(size: int) -> bytes:
    base = skill_text().encode()
    return base + b"x" * (size - len(base))


def test_size_limit_accepts_exactly_64_kib() -> None:
    data = padded_to(MAX_SKILL_BYTES)
    assert len(data) == 65_536
    assert validate_skill_upload("SKILL.md", data).size_bytes == 65_536


def test_size_limit_rejects_one_byte_more() -> None:
    error = rejected("SKILL.md", padded_to(MAX_SKILL_BYTES + 1))
    assert error.reason == "skill_too_large"
    assert "65,537" in error.message("en")
    assert "the limit is 65,536 bytes" in error.message("en")


def test_non_utf8_is_rejected_with_the_byte_offset() -> None:
    data = skill_text().encode() + b"\xff\xfe bad"
    error = rejected("SKILL.md", data)
    assert error.reason == "skill_not_utf8"
    assert error.params["position"] == len(skill_text().encode())


def test_utf8_bom_is_accepted_and_dropped() -> None:
    document = validate_skill_upload("SKILL.md", b"\xef\xbb\xbf" + skill_text().encode())
    assert document.name == "demo-skill"
    assert not document.content.startswith("\ufeff")


def test_crlf_line_endings_are_accepted() -> None:
    data = skill_text("crlf-skill", "Windows line endings.").replace("\n", "\r\n").encode()
    document = validate_skill_upload("SKILL.md", data)
    assert document.name == "crlf-skill"
    assert document.description == "Windows line endings."
    assert "\r" not in document.content


@pytest.mark.parametrize(
    "text",
    [
        "# Just markdown\n",
        "name: x\ndescription: y\n",
        "x\n---\nname: x\ndescription: y\n---\n",
        "---\nname: never-closed\ndescription: y\n",
    ],
)
def test_missing_frontmatter_is_rejected(text: str) -> None:
    assert rejected("SKILL.md", text.encode()).reason == "skill_no_frontmatter"


@pytest.mark.parametrize("before", ["\n", "\n\n  \n", "   ", "\t\n "])
def test_blank_lines_and_spaces_before_the_frontmatter_are_accepted(before: str) -> None:
    """As in the seed, which strips the decoded text before matching."""
    document = validate_skill_upload(
        "SKILL.md", f"{before}---\nname: x\ndescription: y\n---\n".encode()
    )
    assert (document.name, document.description) == ("x", "y")


def test_a_yaml_error_after_leading_blank_lines_names_the_files_line() -> None:
    error = rejected("SKILL.md", b"\n\n---\nname: x\ndescription: [unclosed\n---\n")
    assert error.reason == "skill_frontmatter_yaml"
    assert "at line 5" in error.message("en")  # the unclosed list, counting the blank lines


def test_invalid_yaml_is_rejected() -> None:
    error = rejected("SKILL.md", b"---\nname: [unclosed\ndescription: x\n---\nbody\n")
    assert error.reason == "skill_frontmatter_yaml"


@pytest.mark.parametrize(
    ("yaml_text", "kind"),
    [("- a\n- b", "a list"), ("just text", "text"), ("", "empty"), ("42", "a number")],
)
def test_non_mapping_frontmatter_is_rejected(yaml_text: str, kind: str) -> None:
    error = rejected("SKILL.md", f"---\n{yaml_text}\n---\nbody\n".encode())
    assert error.reason == "skill_frontmatter_not_mapping"
    assert error.params["kind"] == kind


@pytest.mark.parametrize("field", ["name", "description"])
def test_missing_required_field_is_rejected(field: str) -> None:
    other = "description: d" if field == "name" else "name: n"
    error = rejected("SKILL.md", f"---\n{other}\n---\nbody\n".encode())
    assert error.reason == "skill_field_missing"
    assert error.params["field"] == field


@pytest.mark.parametrize(
    ("field_yaml", "field"),
    [
        ("name: 123", "name"),
        ("name: [a, b]", "name"),
        ("name: true", "name"),
        ("description: 42", "description"),
        ("description: {a: 1}", "description"),
        ("description:", "description"),
    ],
)
def test_non_string_fields_are_rejected(field_yaml: str, field: str) -> None:
    lines = {"name": "name: ok", "description": "description: ok"}
    lines[field] = field_yaml
    text = f"---\n{lines['name']}\n{lines['description']}\n---\nbody\n"
    error = rejected("SKILL.md", text.encode())
    assert error.reason == "skill_field_not_string"
    assert error.params["field"] == field


def test_name_of_64_chars_is_accepted() -> None:
    name = "a" * MAX_NAME_CHARS
    assert validate_skill_upload("SKILL.md", skill_text(name).encode()).name == name


def test_name_of_65_chars_is_rejected() -> None:
    error = rejected("SKILL.md", skill_text("a" * (MAX_NAME_CHARS + 1)).encode())
    assert error.reason == "skill_name_length"


def test_empty_name_is_rejected() -> None:
    error = rejected("SKILL.md", b"---\nname: ''\ndescription: d\n---\nbody\n")
    assert error.reason == "skill_name_length"


@pytest.mark.parametrize(
    "name", ["Log-analysis", "log_analysis", "log analysis", "logs.v2", "журнал", "日志"]
)
def test_name_charset_is_lowercase_digits_hyphen(name: str) -> None:
    assert rejected("SKILL.md", skill_text(f"'{name}'").encode()).reason == "skill_name_charset"


@pytest.mark.parametrize("name", ["-log", "log-", "-"])
def test_name_must_not_start_or_end_with_hyphen(name: str) -> None:
    error = rejected("SKILL.md", skill_text(f"'{name}'").encode())
    assert error.reason == "skill_name_hyphen_edge"


def test_name_must_not_contain_consecutive_hyphens() -> None:
    assert rejected("SKILL.md", skill_text("log--analysis").encode()).reason == (
        "skill_name_double_hyphen"
    )


@pytest.mark.parametrize("name", ["a", "k8s-pod-triage", "x1-2-3", "123"])
def test_good_names_are_accepted(name: str) -> None:
    assert validate_skill_upload("SKILL.md", skill_text(f"'{name}'").encode()).name == name


def test_description_of_1024_chars_is_accepted() -> None:
    description = "d" * MAX_DESCRIPTION_CHARS
    document = validate_skill_upload("SKILL.md", skill_text(description=description).encode())
    assert len(document.description) == 1024


def test_description_of_1025_chars_is_rejected() -> None:
    error = rejected("SKILL.md", skill_text(description="d" * 1025).encode())
    assert error.reason == "skill_description_length"
    assert error.params["length"] == 1025


def test_blank_description_is_rejected() -> None:
    error = rejected("SKILL.md", b"---\nname: ok\ndescription: '   '\n---\nbody\n")
    assert error.reason == "skill_description_empty"


def test_standard_optional_fields_are_kept_in_the_stored_markdown() -> None:
    text = (
        "---\nname: with-extras\ndescription: Has all the standard fields.\n"
        "license: Apache-2.0\ncompatibility: needs kubectl\n"
        "metadata:\n  version: '1.2'\nallowed-tools: Bash(kubectl get:*)\n---\n# Body\n"
    )
    document = validate_skill_upload("SKILL.md", text.encode())
    for field in ("license: Apache-2.0", "compatibility:", "metadata:", "allowed-tools:"):
        assert field in document.content


def test_every_failure_has_an_english_and_chinese_message_naming_the_rule() -> None:
    error = rejected("SKILL.md", skill_text("Bad_Name").encode())
    assert "'name'" in error.message("en")
    assert "'name'" in error.message("zh")
    assert "小写字母" in error.message("zh")
