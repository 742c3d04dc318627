from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from oncall_tui.cli import main
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.store.engine import Database

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "skills-examples"
CORPUS = Path(__file__).resolve().parent / "data" / "skills-real"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "oncall.db"


@pytest.fixture
def database(db_path: Path) -> Database:
    db = Database(db_path)
    yield db  # type: ignore[misc]
    db.close()


@pytest.fixture
def configuration(database: Database) -> ConfigurationService:
    return ConfigurationService(database)


def skill_text(name: str = "demo-skill", description: str = "Does a demo.", body: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# Steps\n{body}\n"


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)

    def error(self) -> dict[str, str]:
        payload = json.loads(self.err)
        assert isinstance(payload, dict)
        error = payload["error"]
        assert isinstance(error, dict)
        return error


RunCli = Callable[..., CliResult]


@pytest.fixture
def cli(
    db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> RunCli:
    """Run the real entry point in-process against the test database as user ``alice``."""
    for variable in ("LANG", "LC_ALL", "LC_MESSAGES", "ONCALL_TUI_DB", "ONCALL_TUI_USER"):
        monkeypatch.delenv(variable, raising=False)

    def run(*args: str, user: str = "alice") -> CliResult:
        capsys.readouterr()
        try:
            code = main(["--db", str(db_path), "--user", user, *args])
        except SystemExit as exit_:  # argparse usage errors and --version
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run
