"""The layering of docs/ARCHITECTURE.md: dependencies point one way, heavy imports stay off the
start-up path."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "oncall_tui"

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "core": (
        "textual",
        "sqlmodel",
        "sqlalchemy",
        "langchain",
        "langgraph",
        "langchain_ollama",
        "oncall_tui.store",
        "oncall_tui.llm",
        "oncall_tui.services",
        "oncall_tui.tui",
        "oncall_tui.cli",
    ),
    "store": (
        "textual",
        "langchain",
        "langgraph",
        "langchain_ollama",
        "oncall_tui.llm",
        "oncall_tui.services",
        "oncall_tui.tui",
        "oncall_tui.cli",
    ),
    "llm": (
        "textual",
        "sqlmodel",
        "sqlalchemy",
        "oncall_tui.store",
        "oncall_tui.services",
        "oncall_tui.tui",
        "oncall_tui.cli",
    ),
    "services": ("textual", "oncall_tui.tui", "oncall_tui.cli"),
    "cli": (
        "oncall_tui.store",
        "oncall_tui.llm",
        "sqlmodel",
        "sqlalchemy",
        "langchain",
        "langgraph",
        "langchain_ollama",
        "langchain_core",
    ),
    "tui": (
        "oncall_tui.store",
        "oncall_tui.llm",
        "oncall_tui.cli",
        "sqlmodel",
        "sqlalchemy",
        "langchain",
        "langgraph",
        "langchain_ollama",
        "langchain_core",
    ),
}


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """Ids of nodes under ``if TYPE_CHECKING:``: annotations only, never imported at run time."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            for child in node.body:
                hidden.update(id(n) for n in ast.walk(child))
    return hidden


def imported_modules(path: Path, *, include_type_checking: bool = True) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = set() if include_type_checking else _type_checking_blocks(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_point_one_way(layer: str) -> None:
    files = sorted((PACKAGE / layer).rglob("*.py")) or sorted(PACKAGE.glob(f"{layer}.py"))
    assert files, f"layer {layer} has no modules"
    violations = [
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in files
        for module in imported_modules(path, include_type_checking=layer != "tui")
        if any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN[layer])
    ]
    assert violations == []


def test_no_relative_imports_hide_a_dependency() -> None:
    relative = [
        str(p)
        for p in PACKAGE.rglob("*.py")
        if any(
            isinstance(n, ast.ImportFrom) and n.level > 0
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        )
    ]
    assert relative == []


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
