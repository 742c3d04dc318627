"""The CLI is quick for scripts: each command loads only what it needs.

Measured by what a fresh interpreter has imported once the command has run (deterministic,
unlike a timing): ``--version`` and ``--help`` load neither the database layer nor the model
stack; the commands that need no model load no LangChain, though ``memory show`` and
``sessions show`` compute a context gauge that includes the tools' schemas. Those six run in one
interpreter, one after another: imports only accumulate, so none is missed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from oncall_tui.services.container import Services
from tests.conftest import make_settings, skill_text

LANGCHAIN = frozenset({"langchain", "langchain_core", "langgraph", "langchain_ollama", "ollama"})
"""The model stack: needed only by a command that talks to a model."""
DATABASE = frozenset({"sqlalchemy", "sqlmodel"})
HTTP = frozenset({"httpx"})

MARK = "imported-modules:"

SCRIPT = f"""
import json, sys
from oncall_tui.cli import main
for args in json.loads(sys.argv[1]):
    try:
        code = main(args)
    except SystemExit as exit:
        code = exit.code
    modules = sorted({{m.split(".")[0] for m in sys.modules}})
    print({MARK!r} + json.dumps([code or 0, modules]), flush=True)
"""


def imports_after_each(*commands: list[str]) -> list[tuple[int, set[str]]]:
    """Run ``oncall-tui ARGS`` for each of ``commands`` in turn in one fresh interpreter; after
    each, its exit status and the top-level packages the interpreter holds. What a command
    imports stays imported, so a command that loads a package shows it from then on."""
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(commands)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith(MARK)]
    return [
        (code, set(modules))
        for code, modules in map(json.loads, (line.removeprefix(MARK) for line in lines))
    ]


def top_level_imports(*args: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after running ``oncall-tui ARGS``."""
    [(_, modules)] = imports_after_each(list(args))
    return modules


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_load_no_database_layer_and_no_model_stack(flag: str) -> None:
    assert top_level_imports(flag) & (LANGCHAIN | DATABASE | HTTP) == set()


@pytest.fixture
def database(tmp_path: Path) -> tuple[Path, int]:
    """A database where alice has a selected skill and a session with messages (so the gauge
    counts both built-in tools' schemas); the session's id."""
    path = tmp_path / "oncall.db"
    services = Services(make_settings(path))
    try:
        configuration = services.configuration
        skill = configuration.add_skill("alice", "SKILL.md", skill_text("pod-triage").encode())
        configuration.save_configuration("alice", skill_ids=[skill.id])
        session_id = services.sessions.create("alice", "api-7").id
    finally:
        services.close()
    return path, session_id


COMMANDS = [
    ["prompts", "list"],
    ["skills", "list"],
    ["config", "show"],
    ["sessions", "list"],
    ["sessions", "show", "{session}"],
    ["memory", "show", "{session}"],
]


def test_commands_that_need_no_model_load_no_langchain(
    database: tuple[Path, int], closed_url: str
) -> None:
    """The six commands run one after another in one interpreter: the model stack is absent
    after the last, so none of them loaded it."""
    path, session_id = database
    # --num-ctx: the window is known without asking a server (nothing listens there anyway)
    options = ["--db", str(path), "--user", "alice", "--ollama-url", closed_url]
    options += ["--num-ctx", "8192"]
    commands = [
        [*options, *(arg.format(session=session_id) for arg in command), "--json"]
        for command in COMMANDS
    ]
    after = imports_after_each(*commands)
    assert [code for code, _ in after] == [0] * len(COMMANDS)  # each command did run
    assert "sqlmodel" in after[0][1]  # the first read the database
    assert after[-1][1] & LANGCHAIN == set()
