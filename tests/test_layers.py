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


def langchain_loaded_by(modules: str, path: Path | None = None) -> str:
    """The LangChain modules a fresh interpreter holds after importing ``modules`` (found on
    ``path`` too, when given)."""
    code = (
        (f"import sys; sys.path.insert(0, {str(path)!r})\n" if path is not None else "")
        + f"import sys, {modules}\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{LANGCHAIN!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


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
