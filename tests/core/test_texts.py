"""The UI catalog is complete: every key in both languages with the same fields, every key the
code asks for exists, and no user-facing literal string is left outside it in the clients."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

import pytest

from oncall_tui.errors import held_saved_note, joined
from oncall_tui.errors.catalog import CATALOG, REASONS
from oncall_tui.texts import TEXTS, counted, text

PACKAGE = Path(__file__).resolve().parents[2] / "oncall_tui"
TEXTS_FILE = PACKAGE / "texts" / "catalog.json"
ERRORS_FILE = PACKAGE / "errors" / "catalog.json"
CLIENTS = sorted([*(PACKAGE / "tui").rglob("*.py"), *(PACKAGE / "cli").rglob("*.py")])

SINKS = {
    # call name: which arguments people read (positions; names)
    "notify": ((0,), ("title",)),
    "say": ((0,), ()),
    "say_about": ((1,), ()),
    "show_warning": ((0,), ()),
    "_note": ((0,), ()),
    "Label": ((0,), ()),
    "Static": ((0,), ()),
    "PlainText": ((0,), ()),
    "Binding": ((2,), ("description", "tooltip")),
    "SystemCommand": ((0, 1), ()),
    "Option": ((0,), ()),
    "ConfirmDialog": ((0, 1), ("yes_label", "no_label")),
    "TextDialog": ((0, 1), ("placeholder",)),
    "TextViewerDialog": ((0,), ()),
    "emit_line": ((0,), ()),
    "emit_warning": ((0,), ()),
    "emit_table": ((0,), ()),
    "Input": ((), ("placeholder",)),
    "TextArea": ((), ("placeholder",)),
    "Text": ((0,), ()),
}


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_every_key_is_in_both_languages_with_the_same_fields(key: str) -> None:
    entry = TEXTS[key]
    assert set(entry) == {"en", "zh"}
    assert entry["en"].strip()
    assert entry["zh"].strip()
    assert fields(entry["en"]) == fields(entry["zh"]), key


@pytest.mark.parametrize("catalog", [TEXTS_FILE, ERRORS_FILE], ids=["texts", "errors"])
def test_no_key_is_written_twice_in_a_catalog_file(catalog: Path) -> None:
    """``json.loads`` keeps the last of two equal keys without a word: the first one's text
    would be lost to a translator's paste."""
    twice: list[str] = []
    entries = 0

    def note_twice(pairs: list[tuple[str, object]]) -> dict[str, object]:
        nonlocal entries
        keys = [key for key, _ in pairs]
        twice.extend(key for key in set(keys) if keys.count(key) > 1)
        entries += len(keys)
        return dict(pairs)

    json.loads(catalog.read_text(encoding="utf-8"), object_pairs_hook=note_twice)
    assert entries > 100
    assert twice == []


def test_the_error_catalog_is_in_both_languages_too() -> None:
    for catalog in (CATALOG, REASONS):
        for key, entry in catalog.items():
            assert set(entry) == {"en", "zh"}, key
            assert fields(entry["en"]) == fields(entry["zh"]), key


def test_chinese_is_chinese() -> None:
    """A zh text that is the English one again was never translated (names aside)."""
    untranslated = [
        key
        for key, entry in TEXTS.items()
        if entry["zh"] == entry["en"] and " " in _words(entry["en"]).strip()
    ]
    assert untranslated == []


def _words(template: str) -> str:
    """The template's own text: fields and what is not a letter or a space left out."""
    literal = "".join(text for text, _, _, _ in string.Formatter().parse(template))
    return "".join(c for c in literal if c.isalpha() or c == " ")


def _called_name(call: ast.Call) -> str:
    function = call.func
    if isinstance(function, ast.Attribute):
        return function.attr
    if isinstance(function, ast.Name):
        return function.id
    return ""


def _catalog_names(tree: ast.AST) -> set[str]:
    """What the module calls the catalog's ``text`` (``text``, or ``t`` when imported so)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "oncall_tui.texts"
        for alias in node.names
        if alias.name == "text"
    }


def _catalog_calls(tree: ast.AST) -> list[tuple[int, str, bool]]:
    """``text("key", …)`` calls: the key, and whether it is a prefix (an f-string)."""
    names = _catalog_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node) in names and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((node.lineno, first.value, False))
            elif isinstance(first, ast.JoinedStr) and first.values:
                head = first.values[0]
                if isinstance(head, ast.Constant) and isinstance(head.value, str):
                    found.append((node.lineno, head.value, True))
    return found


def test_every_key_the_code_asks_for_exists() -> None:
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, key, prefix in _catalog_calls(ast.parse(path.read_text("utf-8"))):
            exists = any(k.startswith(key) for k in TEXTS) if prefix else key in TEXTS
            if not exists:
                missing.append(f"{path.relative_to(PACKAGE)}:{line} {key}")
    assert missing == []


def _literal_words(node: ast.AST) -> list[str]:
    """String constants in an argument (f-strings included) that read as words for people:
    with a space or a capital letter. A lowercase token (a catalog key or its prefix, a
    column's key, a role) is how code names a text, not the text itself."""
    words = []
    for part in ast.walk(node):
        if isinstance(part, ast.Call) and _called_name(part) in ("text", "t"):
            return []  # from the catalog
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            value = part.value
            letters = [c for c in value if c.isalpha()]
            readable = " " in value.strip() or any(c.isupper() for c in value)
            if len(letters) >= 2 and readable:
                words.append(value)
    return words


def test_no_user_facing_literal_is_left_outside_the_catalog() -> None:
    """Class-level ``Binding`` descriptions are English by Textual's design; a module that
    translates them per instance (``translate_bindings``, or builds them from the catalog)
    is checked by the Chinese UI tests instead."""
    left = []
    for path in CLIENTS:
        source = path.read_text("utf-8")
        translated = "translate_bindings(" in source
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Call):
                continue
            if translated and _called_name(node) == "Binding":
                continue
            sink = SINKS.get(_called_name(node))
            if sink is None:
                continue
            positions, names = sink
            arguments = [node.args[i] for i in positions if i < len(node.args)]
            arguments += [k.value for k in node.keywords if k.arg in names]
            for argument in arguments:
                for literal in _literal_words(argument):
                    left.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {literal!r}")
    assert left == [], "\n".join(left)


def test_every_error_says_its_detail_from_the_catalog() -> None:
    """An ``OncallError`` whose detail is a literal was English in the Chinese UI ("参数无效：
    a message is at most 100000 characters"): its text is a reason of the catalog."""
    literal = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and _called_name(node) == "OncallError":
                for keyword in node.keywords:
                    if keyword.arg == "detail" and isinstance(
                        keyword.value, ast.Constant | ast.JoinedStr
                    ):
                        literal.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert literal == []


def test_text_fills_its_fields() -> None:
    assert text("search.count", "zh", count=3) == "找到 3 条，最新的在前。"


def test_sentences_are_joined_as_each_language_writes_them() -> None:
    """A message and the note after it: "重试。回答…", never "重试. 回答…"."""
    assert joined("en", "free some space and try again", "The answer is kept.") == (
        "free some space and try again. The answer is kept."
    )
    assert joined("zh", "请释放空间后重试", "回答已保留。") == "请释放空间后重试。回答已保留。"
    assert joined("en", "Start a new session.", "(f9 compacts)") == (
        "Start a new session. (f9 compacts)"
    )
    assert joined("zh", "请新建会话。", "（f9 压缩记忆）") == "请新建会话。（f9 压缩记忆）"
    assert joined("en", "Done!", "", "  ") == "Done!"
    assert joined("en", "Nothing was sent (limit 95%)", "Compact it.") == (
        "Nothing was sent (limit 95%). Compact it."  # a sentence ending in brackets ends too
    )
    assert joined("zh", "未发送（上限 95%）", "请压缩。") == "未发送（上限 95%）。请压缩。"


def test_the_held_replies_note_says_one_answer_or_how_many() -> None:
    assert held_saved_note(1, "en") == "The answer kept while the database was away is saved now."
    assert held_saved_note(2, "en") == "2 answers kept while the database was away are saved now."
    assert held_saved_note(2, "zh") == "数据库不可用期间保留的 2 条回答现已保存。"


def test_a_counted_text_says_one_thing_or_how_many() -> None:
    assert counted("code.lines", 1, "en") == "1 line"
    assert counted("code.lines", 12, "en") == "12 lines"
    ask = "Delete “db-3” and its {} This cannot be undone."
    assert counted("delete.ask", 1, "en", title="db-3") == ask.format("one message?")
    assert counted("delete.ask", 1234, "en", title="db-3") == ask.format("1,234 messages?")


@pytest.mark.parametrize("key", sorted(k for k in TEXTS if k.endswith("_one")))
def test_every_text_for_one_has_its_text_for_many(key: str) -> None:
    assert key.removesuffix("_one") in TEXTS
