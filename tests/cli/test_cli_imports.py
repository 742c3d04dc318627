"""The CLI is quick for scripts: each command loads only what it needs.

Measured by what a fresh interpreter has imported once the command has run (deterministic,
unlike a timing): ``--version`` and ``--help`` load neither the database layer nor the model
stack; the commands that need no model load no LangChain, though ``memory show`` and
``sessions show`` compute a context gauge that includes the tools' schemas.
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
try:
    main(json.loads(sys.argv[1]))
except SystemExit:
    pass
print({MARK!r} + json.dumps(sorted({{m.split(".")[0] for m in sys.modules}})))
"""


def top_level_imports(*args: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after running ``oncall-tui ARGS``."""
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(list(args))],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    line = next(line for line in result.stdout.splitlines() if line.startswith(MARK))
    return set(json.loads(line.removeprefix(MARK)))


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


@pytest.mark.parametrize(
    "command",
    [
        ["prompts", "list"],
        ["skills", "list"],
        ["config", "show"],
        ["sessions", "list"],
        ["sessions", "show", "{session}"],
        ["memory", "show", "{session}"],
    ],
    ids=" ".join,
)
def test_commands_that_need_no_model_load_no_langchain(
    database: tuple[Path, int], closed_url: str, command: list[str]
) -> None:
    path, session_id = database
    args = [arg.format(session=session_id) for arg in command]
    # --num-ctx: the window is known without asking a server (nothing listens there anyway)
    options = [
        "--db",
        str(path),
        "--user",
        "alice",
        "--ollama-url",
        closed_url,
        "--num-ctx",
        "8192",
    ]
    modules = top_level_imports(*options, *args, "--json")
    assert "sqlmodel" in modules  # the command did run: it read the database
    assert modules & LANGCHAIN == set()
