"""What the layering of docs/ARCHITECTURE.md means at run time: heavy imports stay off the
start-up path.

The import graph itself (dependencies point one way, which layer may import which package) is
checked by import-linter: the contracts are ``[tool.importlinter]`` in pyproject.toml, run by
``lint-imports`` in ``.ci/run``. These tests check what a fresh interpreter actually loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_services_load_without_textual_in_a_fresh_interpreter() -> None:
    code = (
        "import sys, oncall_tui.services.configuration, oncall_tui.core.prompts, "
        "oncall_tui.store.repositories\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('textual', 'langchain', 'langgraph', 'langchain_ollama'))\n"
        "print(','.join(bad))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


LANGCHAIN = ("langchain", "langgraph", "langchain_ollama", "langchain_core")
STORAGE = ("sqlalchemy", "sqlmodel", "alembic", "psycopg")


def langchain_loaded_by(modules: str, path: Path | None = None) -> str:
    """The LangChain modules a fresh interpreter holds after importing ``modules`` (found on
    ``path`` too, when given)."""
    found = f"import sys; sys.path.insert(0, {str(path)!r})\n" if path is not None else ""
    return loaded_after(f"{found}import {modules}", LANGCHAIN)


def loaded_after(code: str, packages: tuple[str, ...]) -> str:
    """The modules of ``packages`` a fresh interpreter holds after running ``code``."""
    listing = (
        "import sys\n"
        f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {packages!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", f"{code}\n{listing}"], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def test_no_module_of_the_tui_imports_the_store() -> None:
    """The TUI imports its modules on its own thread (a pane's at the first send, a dialog's
    as it opens); the store is imported only in the services' parts, one thread at a time
    (``services.container.part``). The replies' module imported SQLAlchemy at the first send,
    racing the start-up listing's import of it: "cannot import name 'AdaptedConnection'"."""
    every_module = (
        "import importlib, pkgutil, oncall_tui.tui as tui\n"
        "for found in pkgutil.walk_packages(tui.__path__, 'oncall_tui.tui.'):\n"
        "    importlib.import_module(found.name)"
    )
    assert loaded_after(every_module, STORAGE) == ""


def test_the_tui_starts_without_importing_langchain() -> None:
    assert langchain_loaded_by("oncall_tui.tui.app") == ""


def test_the_engine_and_its_estimates_load_without_langchain() -> None:
    """A context gauge measures the tools' schemas (plain data), not the tools: the memory and
    chat services, the gateway and the estimates import the model stack only to run a turn."""
    modules = (
        "oncall_tui.services.memory, oncall_tui.services.chat, oncall_tui.llm.gateway, "
        "oncall_tui.llm.tokens, oncall_tui.llm.tool_specs"
    )
    assert langchain_loaded_by(modules) == ""
