from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from oncall_tui.cli import main
from oncall_tui.core.events import ChatEvent
from oncall_tui.llm.gateway import StaticGateway
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.store.engine import Database
from tests.fakes.chat_model import ScriptedChatModel

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


def make_settings(db_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {"db_path": db_path, "user": "alice"}
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def engine(db_path: Path) -> Callable[..., Services]:
    """Services wired to a scripted model: ``engine(model, window=8192)``."""
    built: list[Services] = []

    def build(model: ScriptedChatModel, window: int = 8192) -> Services:
        services = Services(make_settings(db_path), gateway=StaticGateway(model, window))
        built.append(services)
        return services

    yield build  # type: ignore[misc]
    for services in built:
        services.close()


async def collect(stream: AsyncIterator[ChatEvent]) -> list[ChatEvent]:
    return [event async for event in stream]
