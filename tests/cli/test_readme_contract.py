"""The JSON tables of the user documentation (docs/SCRIPTING.md, linked from the README) are the
CLI's contract: every document and event has exactly the keys they list, and every event type is
listed."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest

from oncall_tui.cli.chat_output import ChatOutput
from oncall_tui.core.events import (
    ChatEvent,
    CompactionFailed,
    CompactionStarted,
    ContextLimitReached,
    MemoryCompacted,
    ReplyDone,
    ReplyFailed,
    ReplyHeld,
    ThinkingStarted,
    TokenDelta,
    ToolFinished,
    ToolServerFailed,
    ToolServersStarting,
    ToolStarted,
    ToolsUnavailable,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.memory import ContextUsage
from tests.conftest import REPO, RunCli, skill_text
from tests.fakes.ollama_server import FakeOllama, Reply

README = "\n".join(
    (REPO / name).read_text(encoding="utf-8") for name in ("README.md", "docs/SCRIPTING.md")
)
"""The user documentation holding the tables: the README and the scripting reference."""


def table_after(marker: str) -> list[list[str]]:
    """The cells of the first table at or after ``marker``, header and rule left out."""
    lines = README[README.index(marker) :].splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows: list[list[str]] = []
    for line in lines[first + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def names(cell: str) -> set[str]:
    """The backquoted names of a cell, up to its first parenthesis (the remark after it)."""
    return set(re.findall(r"`(\w+)`", cell.split("(", 1)[0]))


def documented() -> dict[str, tuple[set[str], set[str]]]:
    """Document name to (its keys, the keys inside its one nested key, for ``deleted: …``)."""
    result: dict[str, tuple[set[str], set[str]]] = {}
    for name, _, keys in table_after("| document | printed by | keys |"):
        if ": " in keys:
            outer, inner = keys.split(": ", 1)
            result[name] = (names(outer), names(inner))
        else:
            result[name] = (names(keys), set())
    return result


def test_every_document_has_exactly_the_keys_the_readme_lists(
    cli: RunCli, ollama: FakeOllama, tmp_path: Path
) -> None:
    docs = documented()

    def run(*args: str) -> object:
        result = cli("--ollama-url", ollama.url, "--model", "qwen3:8b", *args, "--json")
        assert result.code == 0, result.err
        return result.json()

    def keys(name: str, document: object) -> None:
        assert isinstance(document, dict), name
        expected, nested = docs[name]
        assert set(document) == expected, name
        if nested:
            (inner,) = document.values()
            assert set(inner) == nested, name

    folder = tmp_path / "triage"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_text("pod-triage"), encoding="utf-8")
    keys("prompt", run("prompts", "add", "--label", "P", "--content", "C"))
    keys("skill", run("skills", "add", str(folder)))
    keys("skill shown", run("skills", "show", "pod-triage"))
    other = tmp_path / "runbooks" / "disk-full"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text(skill_text("disk-full"), encoding="utf-8")
    keys("skills added", run("skills", "add", str(other.parent)))
    keys("configuration", run("skills", "select", "pod-triage"))
    keys("session", run("sessions", "new"))
    ollama.script(Reply.tool_call("load_skill", {"skill_name": "pod-triage"}), "Done.")
    assert cli("--ollama-url", ollama.url, "--model", "qwen3:8b", "chat", "pods?").code == 0
    shown = run("sessions", "show", "2")
    keys("session shown", shown)
    assert isinstance(shown, dict)
    keys("message", shown["messages"][1])
    keys("tool call", shown["messages"][1]["tool_calls"][0])
    keys("memory", shown["memory"])
    keys("memory", run("memory", "show", "2"))
    keys("deletion", run("sessions", "delete", "1"))
    report = run("doctor")
    keys("doctor", report)
    assert isinstance(report, dict)
    keys("database", report["database"])
    paths = run("config", "paths")
    keys("config paths", paths)
    assert isinstance(paths, dict)
    for name in ("config_file", "db_file", "log_file"):
        keys("file", paths[name])
    for setting in paths["settings"].values():
        keys("setting", setting)
    failed = cli("skills", "show", "nope", "--json")
    keys("error", json.loads(failed.err))


USAGE = ContextUsage(100, 8192)
SAMPLES: list[ChatEvent] = [
    ToolsUnavailable("gemma:2b", "m"),
    ToolServersStarting(20.0),
    ToolServerFailed("logs", "TOOL_SERVER_FAILED", "m"),
    CompactionStarted(1, 60),
    MemoryCompacted(1, 60, "s"),
    CompactionFailed(1, "MEMORY_COMPACTION_FAILED", "m"),
    UserMessageStored(1, 2, "text"),
    ThinkingStarted(),
    TokenDelta("t"),
    ToolStarted("c1", "get_current_time", {}),
    ToolFinished("c1", "get_current_time", "UTC: …", 3),
    UsageReported(USAGE, 90, 10),
    ReplyDone(1, 3),
    ReplyHeld("DATABASE_UNAVAILABLE", "m", 1, "complete", True),
    ReplyFailed("STREAM_FAILED", "m", 1, 3),
    ContextLimitReached("CHAT_CONTEXT_LIMIT_REACHED", "m", USAGE),
]


def test_every_event_type_is_listed_with_exactly_its_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    listed = {cell.strip("`"): names(fields) for cell, fields in table_after("| event | fields |")}
    printed: dict[str, set[str]] = {}
    for sample in SAMPLES:
        document = sample.to_json()
        kind = document.pop("type")
        assert isinstance(kind, str)
        printed[kind] = set(document)
    ChatOutput(as_json=True, session_id=7, lang="en").interrupted()
    interrupted = json.loads(capsys.readouterr().out)
    kind = interrupted.pop("type")
    printed[kind] = set(interrupted)
    assert {type(s) for s in SAMPLES} == set(typing.get_args(ChatEvent))  # no event left out
    assert printed == listed
