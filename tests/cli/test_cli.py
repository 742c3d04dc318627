"""The headless CLI contract: names, JSON shapes, exit codes, catalog messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from oncall_tui import __version__
from tests.conftest import EXAMPLES, RunCli, skill_text

PROMPT_KEYS = {"id", "label", "content", "is_default", "created_at", "updated_at"}
SKILL_KEYS = {
    "id",
    "filename",
    "name",
    "description",
    "label",
    "content_preview",
    "size_bytes",
    "created_at",
    "updated_at",
}

pytestmark = pytest.mark.both_engines


def write_skill(tmp_path: Path, name: str, filename: str = "SKILL.md", body: str = "") -> Path:
    folder = tmp_path / "upload" / name
    folder.mkdir(parents=True)
    path = folder / filename
    path.write_text(skill_text(name, f"About {name}.", body), encoding="utf-8")
    return path


def test_version(cli: RunCli) -> None:
    result = cli("--version")
    assert (result.code, result.out.strip()) == (0, f"oncall-tui {__version__}")


def test_without_a_terminal_the_tui_does_not_start_and_says_what_to_run(
    cli: RunCli, db_path: Path
) -> None:
    """``ssh HOST oncall-tui`` without -t, a script, cron: no terminal for keys or drawing (the
    test's own stdin and stderr are none). The app drew escape codes into the pipe and waited
    for keys that never came."""
    result = cli()
    assert result.code == 2
    assert result.out == ""
    assert "the TUI needs a terminal" in result.err
    assert "ssh -t HOST oncall-tui" in result.err
    assert "oncall-tui chat" in result.err
    assert "\x1b" not in result.err  # nothing drawn
    assert not db_path.exists()  # nothing opened
    assert "TUI 需要终端" in cli("--lang", "zh").err


def test_prompts_add_list_edit_delete_round_trip(cli: RunCli, tmp_path: Path) -> None:
    added = cli("prompts", "add", "--label", " Terse ", "--content", " Be terse. ", "--json")
    assert added.code == 0
    prompt = added.json()
    assert isinstance(prompt, dict)
    assert set(prompt) >= PROMPT_KEYS
    assert (prompt["label"], prompt["content"], prompt["is_default"]) == (
        "Terse",
        "Be terse.",
        False,
    )
    listed = cli("prompts", "list", "--json").json()
    assert isinstance(listed, list)
    assert [p["is_default"] for p in listed] == [True, False]
    source = tmp_path / "prompt.txt"
    source.write_text("From a file.\n", encoding="utf-8")
    edited = cli("prompts", "edit", str(prompt["id"]), "--file", str(source), "--json").json()
    assert isinstance(edited, dict)
    assert edited["content"] == "From a file."
    assert edited["label"] == "Terse"
    shown = cli("prompts", "show", str(prompt["id"]))  # in full, as `skills show`
    assert (shown.code, shown.out) == (0, f"[{prompt['id']}] Terse\nFrom a file.\n")
    assert cli("prompts", "show", str(prompt["id"]), "--json").json() == edited
    missing = cli("prompts", "show", "999", "--json")
    assert (missing.code, missing.error()["code"]) == (2, "NOT_FOUND")
    assert cli("prompts", "delete", str(prompt["id"])).code == 0
    assert len(cli("prompts", "list", "--json").json_list()) == 1


def test_human_output_is_readable(cli: RunCli, tmp_path: Path) -> None:
    cli("skills", "add", str(write_skill(tmp_path, "pod-triage")))
    listing = cli("skills", "list")
    assert listing.code == 0
    assert "pod-triage" in listing.out
    assert "NAME" in listing.out
    assert "On-call assistant" in cli("prompts", "list").out
    assert "Prompt: [1] On-call assistant" in cli("config", "show").out


def test_skills_add_list_show_delete(cli: RunCli, tmp_path: Path) -> None:
    path = write_skill(tmp_path, "pod-triage", body="BODY-ONLY-IN-SHOW")
    added = cli("skills", "add", str(path), "--json")
    assert added.code == 0
    skill = added.json()
    assert isinstance(skill, dict)
    assert set(skill) >= SKILL_KEYS
    assert "content" not in skill
    assert skill["content_preview"] == "About pod-triage."
    listed = cli("skills", "list", "--json")
    assert "BODY-ONLY-IN-SHOW" not in listed.out
    assert [s["name"] for s in listed.json_list()] == ["pod-triage"]
    for ref in ("pod-triage", str(skill["id"])):
        shown = cli("skills", "show", ref, "--json").json()
        assert isinstance(shown, dict)
        assert "BODY-ONLY-IN-SHOW" in shown["content"]
    assert "BODY-ONLY-IN-SHOW" in cli("skills", "show", "pod-triage").out
    assert cli("skills", "delete", "pod-triage").code == 0
    assert cli("skills", "list", "--json").json() == []


def test_the_examples_folder_adds_every_example_skill(cli: RunCli) -> None:
    """The folder the first-start guide names: one command, each of its skills."""
    names = sorted(path.parent.name for path in EXAMPLES.glob("*/SKILL.md"))
    added = cli("skills", "add", str(EXAMPLES))
    assert added.code == 0, added.err
    assert [line.split()[1] for line in added.out.splitlines()[::2]] == names
    assert sorted(s["name"] for s in cli("skills", "list", "--json").json_list()) == names


def test_a_folder_of_skill_folders_says_each_refused_and_exits_2(
    cli: RunCli, tmp_path: Path
) -> None:
    runbooks = tmp_path / "upload"  # where write_skill puts its folders
    write_skill(tmp_path, "disk-full")
    assert cli("skills", "add", str(write_skill(tmp_path, "oom-kill"))).code == 0
    again = cli("skills", "add", str(runbooks))
    assert again.code == 2
    assert again.out.startswith("[2] disk-full (")
    assert again.err == (
        "oncall-tui: oom-kill: You already have a skill named 'oom-kill'. Delete it first to "
        "replace it.\n"
    )
    document = cli("skills", "add", str(runbooks), "--json")
    assert document.code == 2
    shown = document.json()
    assert isinstance(shown, dict)
    assert shown["added"] == []
    assert [(r["folder"], r["code"]) for r in shown["refused"]] == [
        ("disk-full", "SKILL_DUPLICATE_NAME"),
        ("oom-kill", "SKILL_DUPLICATE_NAME"),
    ]


@pytest.mark.parametrize("filename", ["skill.md", "README.md"])
def test_skill_file_must_be_named_skill_md(cli: RunCli, tmp_path: Path, filename: str) -> None:
    result = cli("skills", "add", str(write_skill(tmp_path, "x", filename)), "--json")
    assert result.code == 2
    assert result.out == ""
    assert result.error()["code"] == "SKILL_INVALID"
    assert cli("skills", "list", "--json").json() == []


def test_config_set_and_clear(cli: RunCli, tmp_path: Path) -> None:
    a = cli("skills", "add", str(write_skill(tmp_path, "a")), "--json").json()
    b = cli("skills", "add", str(write_skill(tmp_path, "b")), "--json").json()
    assert isinstance(a, dict)
    assert isinstance(b, dict)
    prompt = cli("prompts", "add", "--label", "P", "--content", "C", "--json").json()
    assert isinstance(prompt, dict)
    result = cli(
        "config",
        "set",
        "--prompt",
        str(prompt["id"]),
        "--skills",
        f"{b['id']},{a['id']},{b['id']}",
        "--json",
    )
    config = result.json()
    assert isinstance(config, dict)
    assert set(config) >= {"system_prompt_id", "skill_ids", "prompts", "skills"}
    assert config["system_prompt_id"] == prompt["id"]
    assert config["skill_ids"] == [b["id"], a["id"]]
    cleared = cli("config", "set", "--skills", "", "--json").json()
    assert isinstance(cleared, dict)
    assert cleared["skill_ids"] == []
    assert cleared["system_prompt_id"] == prompt["id"]
    assert cli("config", "show", "--json").json() == cleared


@pytest.mark.parametrize("command", ["sessions", "skills", "prompts", "memory", "config"])
def test_a_command_without_its_action_lists_its_actions(cli: RunCli, command: str) -> None:
    """``oncall-tui sessions`` printed the app's usage ("COMMAND ..."), which names no action."""
    result = cli(command)
    assert result.code == 2
    assert result.err.startswith(f"usage: oncall-tui {command} [-h] ACTION ...")
    assert "    list " in result.err or "    show " in result.err
    assert result.err.endswith("the following arguments are required: ACTION\n")


def test_an_action_missing_an_argument_shows_its_own_usage(cli: RunCli) -> None:
    result = cli("sessions", "show")
    assert result.code == 2
    assert result.err.splitlines() == [
        "usage: oncall-tui sessions show [-h] [--json] id",
        "oncall-tui: Invalid argument: the following arguments are required: id",
    ]


def test_other_users_ids_fail_the_whole_save(cli: RunCli, tmp_path: Path) -> None:
    alice_skill = cli("skills", "add", str(write_skill(tmp_path, "a")), "--json").json()
    assert isinstance(alice_skill, dict)
    bob_skill = cli("skills", "add", str(write_skill(tmp_path, "b")), "--json", user="bob").json()
    assert isinstance(bob_skill, dict)
    cli("config", "set", "--skills", str(bob_skill["id"]), user="bob")
    result = cli(
        "config", "set", "--skills", f"{bob_skill['id']},{alice_skill['id']}", "--json", user="bob"
    )
    assert result.code == 2
    assert result.error()["code"] == "VALIDATION_INVALID_ARGUMENT"
    config = cli("config", "show", "--json", user="bob").json()
    assert isinstance(config, dict)
    assert config["skill_ids"] == [bob_skill["id"]]
    for command in (("skills", "show"), ("skills", "delete")):
        denied = cli(*command, str(alice_skill["id"]), "--json", user="bob")
        assert (denied.code, denied.error()["code"]) == (2, "NOT_FOUND")
    assert cli("skills", "show", "a").code == 0  # still alice's


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("prompts", "add", "--label", "x" * 161, "--content", "c"), "PROMPT_INVALID"),
        (("prompts", "add", "--label", "l", "--content", "c" * 12_001), "PROMPT_INVALID"),
        (("prompts", "edit", "999", "--label", "x"), "NOT_FOUND"),
        (("prompts", "edit", "1"), "VALIDATION_INVALID_ARGUMENT"),
        (("prompts", "delete", "999"), "NOT_FOUND"),
        (("prompts", "delete", "1"), "PROMPT_DEFAULT_PROTECTED"),
        (("skills", "show", "nope"), "NOT_FOUND"),
        (("skills", "add", "/nonexistent/SKILL.md"), "VALIDATION_INVALID_ARGUMENT"),
        (("config", "set", "--skills", "1,x"), "VALIDATION_INVALID_ARGUMENT"),
        (("config", "set", "--prompt", "999"), "VALIDATION_INVALID_ARGUMENT"),
        (
            (
                "config",
                "set",
            ),
            "VALIDATION_INVALID_ARGUMENT",
        ),
        (("prompts", "edit", "notanumber"), "VALIDATION_INVALID_ARGUMENT"),
        (("prompts", "frobnicate"), "VALIDATION_INVALID_ARGUMENT"),
    ],
)
def test_user_errors_exit_2_with_a_json_catalog_error(
    cli: RunCli, args: tuple[str, ...], code: str
) -> None:
    cli("prompts", "list")  # the default prompt (id 1) exists
    result = cli(*args, "--json")
    assert result.code == 2
    assert result.out == ""
    error = result.error()
    assert error["code"] == code
    assert error["message"]
    assert "Traceback" not in result.err


def test_errors_without_json_are_one_plain_line(cli: RunCli) -> None:
    result = cli("skills", "show", "nope")
    assert result.code == 2
    assert result.err == "oncall-tui: No skill 'nope' found.\n"


def test_chinese_messages_with_lang_zh(cli: RunCli) -> None:
    result = cli("--lang", "zh", "skills", "show", "nope", "--json")
    assert result.error()["message"] == "未找到技能 'nope'。"


def test_chinese_messages_from_the_locale(cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert "未找到" in cli("skills", "show", "nope").err


def test_console_script_runs_in_a_subprocess_with_env_settings(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(tmp_path / "env.db"),
        "ONCALL_TUI_USER": "carol",
        "LANG": "C",
    }
    run = subprocess.run(
        [sys.executable, "-m", "oncall_tui", "config", "show", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["prompts"][0]["is_default"] is True
    assert (tmp_path / "env.db").exists()


def test_json_goes_before_the_command_as_well_as_after_it(cli: RunCli) -> None:
    """`oncall-tui --json sessions list` said "unrecognized arguments: --json", in JSON."""
    cli("sessions", "new", "--title", "api-7")
    after = cli("sessions", "list", "--json")
    before = cli("--json", "sessions", "list")
    assert (before.code, before.json_list()) == (0, after.json_list())
    assert cli("sessions", "list").out.startswith("ID")  # without it: the table
    tui = cli("--json")  # the TUI prints no document: said, not ignored
    assert (tui.code, tui.error()["reason"]) == (2, "json_needs_command")
    assert "--json is for the commands" in tui.error()["message"]
