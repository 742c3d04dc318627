"""Fixtures for the prompt editor, skill library and dialog tests.

A small host app pushes the screen under test on mount and records every
``ConfigurationChanged`` it receives, so tests can assert the screen told the app.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from oncall_tui.services.container import Services
from oncall_tui.services.views import ConfigurationView
from oncall_tui.settings import Settings
from oncall_tui.tui.messages import ConfigurationChanged
from tests.tui.harness import wait_until

__all__ = ["EXAMPLES_DIR", "AssetsHostApp", "ScreenFactory", "wait_until"]

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "skills-examples"

ScreenFactory = Callable[[Services], Screen[None]]


class AssetsHostApp(App[None]):
    """Hosts one asset screen over a plain base screen, as the real app would push it."""

    def __init__(self, services: Services, factory: ScreenFactory) -> None:
        super().__init__()
        self.services = services
        self._factory = factory
        self.configuration_changes: list[ConfigurationChanged] = []

    def compose(self) -> ComposeResult:
        yield Static("host screen", id="host")

    def on_mount(self) -> None:
        self.push_screen(self._factory(self.services))

    def on_configuration_changed(self, message: ConfigurationChanged) -> None:
        self.configuration_changes.append(message)


@pytest.fixture
def library_services(tmp_path: Path) -> Iterator[Services]:
    """Services over a real SQLite file in ``tmp_path``, as user ``alice``."""
    services = Services(Settings(db_path=tmp_path / "t.db", user="alice"))
    yield services
    services.close()


@pytest.fixture
def assets_host(library_services: Services) -> Callable[[ScreenFactory], AssetsHostApp]:
    def build(factory: ScreenFactory) -> AssetsHostApp:
        return AssetsHostApp(library_services, factory)

    return build


@pytest.fixture
def slow_configuration(
    library_services: Services, monkeypatch: pytest.MonkeyPatch
) -> Iterator[threading.Event]:
    """Reading the configuration waits until the event is set (at most 10 s): a flow that is
    still running when a key is pressed."""
    release = threading.Event()
    original = library_services.configuration.get_configuration

    def slow(owner: str) -> ConfigurationView:
        release.wait(10)
        return original(owner)

    monkeypatch.setattr(library_services.configuration, "get_configuration", slow)
    yield release
    release.set()
