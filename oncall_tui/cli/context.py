"""What a CLI command runs with: the settings and services opened lazily, once."""

from __future__ import annotations

from functools import cached_property

from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.settings import Settings
from oncall_tui.store.engine import Database


class CliContext:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def owner(self) -> str:
        return self.settings.user

    @cached_property
    def database(self) -> Database:
        return Database(self.settings.db_path)

    @cached_property
    def configuration(self) -> ConfigurationService:
        return ConfigurationService(self.database)

    def close(self) -> None:
        if "database" in self.__dict__:
            self.database.close()
