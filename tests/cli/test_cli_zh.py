"""``--lang zh``: the CLI's human output in Chinese, from the one catalog; JSON unchanged."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.cli import ARGPARSE_ZH
from oncall_tui.cli.output import cell_width, pad
from oncall_tui.texts import text
from tests.conftest import RunCli
from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply

MODEL = "qwen3:8b"
CLI_SOURCES = sorted((Path(__file__).resolve().parents[2] / "oncall_tui" / "cli").glob("*.py"))
PRINTERS = {"emit_line", "emit_text", "emit_table", "write"}
WORD = re.compile(r"[A-Za-z]{2,}")
ALLOWED_WORDS = {"oncall", "tui"}  # the program's name, prefixed to its messages


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=[FakeModel(MODEL, context_length=40960)]) as server:
        yield server


def test_the_untitled_session_name_is_in_the_catalog() -> None:
    assert text("session.untitled", "en") == "New session"
    assert text("session.untitled", "zh") == "新会话"


def _literal_words(node: ast.expr) -> list[str]:
    parts: list[ast.expr] = list(node.values) if isinstance(node, ast.JoinedStr) else [node]
    words: list[str] = []
    for part in parts:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            words += [w for w in WORD.findall(part.value) if w.lower() not in ALLOWED_WORDS]
    return words


def test_no_cli_module_prints_english_words_outside_the_catalog() -> None:
    """Every string literal handed to a printer (or a table's headers) holds no words: what
    people read comes from ``text(...)``."""
    found: list[str] = []
    for source in CLI_SOURCES:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name not in PRINTERS:
                continue
            for argument in node.args:
                items = argument.elts if isinstance(argument, ast.Tuple) else [argument]
                for item in items:
                    words = _literal_words(item)
                    if words:
                        found.append(f"{source.name}:{node.lineno}: {words}")
    assert found == []


def test_chinese_columns_stay_aligned_by_terminal_width() -> None:
    assert cell_width("消息数") == 6
    assert pad("标题", 6) == "标题  "
    assert pad("ID", 6) == "ID    "


def test_a_table_s_lines_end_where_their_text_does(cli: RunCli) -> None:
    """Padding the last column to the longest cell ended every line of ``search`` in spaces,
    up to a hundred of them, in a file or a pipe."""
    for title in ("db-3 disk full", "数据库主从切换，主库延迟超过三十秒，需要人工确认后再切换"):
        assert cli("sessions", "new", "--title", title).code == 0
    lines = cli("sessions", "list").out.splitlines()
    assert len(lines) == 3
    assert all(line == line.rstrip() for line in lines)
    assert lines[-1].endswith("db-3 disk full")


def test_prompts_and_skills_speak_chinese(cli: RunCli, tmp_path: Path) -> None:
    added = cli("--lang", "zh", "prompts", "add", "--label", "值班", "--content", "简洁回答")
    assert added.code == 0, added.err
    prompt_id = added.out.split("]")[0].lstrip("[")
    listed = cli("--lang", "zh", "prompts", "list")
    header = listed.out.splitlines()[0].split()
    assert header == ["ID", "标记", "名称", "字符数"]
    assert "默认" in listed.out
    assert "default" not in listed.out
    shown = cli("--lang", "zh", "config", "show")
    assert shown.out.splitlines()[0].startswith("提示词：[")
    assert shown.out.splitlines()[1] == "技能：（无）"
    deleted = cli("--lang", "zh", "prompts", "delete", prompt_id)
    assert deleted.out == f"已删除提示词 {prompt_id}。\n"
    assert cli("prompts", "list").out.splitlines()[0].split() == ["ID", "FLAGS", "LABEL", "CHARS"]


def test_sessions_speak_chinese_and_name_an_untitled_one(cli: RunCli) -> None:
    created = cli("--lang", "zh", "sessions", "new")
    assert created.out == "已创建会话 1：新会话\n"
    assert cli("sessions", "new").out == "Session 2 created: New session\n"
    listed = cli("--lang", "zh", "sessions", "list").out.splitlines()
    assert listed[0].split() == ["ID", "更新时间", "(UTC)", "消息数", "记忆", "标题"]
    assert all(line.rstrip().endswith("新会话") for line in listed[1:])
    shown = cli("--lang", "zh", "sessions", "show", "1").out
    assert shown.startswith("# 新会话（会话 1）\n")
    assert "上下文：" in shown
    assert "已摘要 0 条消息" in shown
    assert cli("--lang", "zh", "sessions", "rename", "1", "磁盘告警").out == (
        "会话 1 已重命名：磁盘告警\n"
    )
    assert cli("--lang", "zh", "sessions", "delete", "2").out == "已删除会话 2。\n"


def test_json_output_is_the_same_in_both_languages(cli: RunCli) -> None:
    cli("sessions", "new")
    english = cli("sessions", "list", "--json")
    chinese = cli("--lang", "zh", "sessions", "list", "--json")
    assert english.json_list() == chinese.json_list()
    assert "新会话" not in chinese.out


def test_config_paths_labels_in_chinese(cli: RunCli) -> None:
    result = cli("--lang", "zh", "config", "paths")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("配置文件")
    assert lines[1].startswith("数据库")
    assert "(" not in lines[0].split()[1]  # the source comes in Chinese brackets
    assert "（" in lines[0]
    assert "设置" in result.out
    assert "（从模型读取）" in result.out
    assert "num_ctx" in result.out  # setting names are identifiers, not translated


def test_chat_status_lines_in_chinese(cli: RunCli, ollama: FakeOllama) -> None:
    ollama.script(Reply("看一下 OOMKilled。"))
    result = cli("--lang", "zh", "--ollama-url", ollama.url, "--model", MODEL, "chat", "重启了")
    assert result.code == 0, result.err
    assert result.out.strip() == "看一下 OOMKilled。"
    assert "[会话 1]" in result.err
    assert "[session" not in result.err
    assert "[上下文已用" in result.err


def test_a_failed_reply_says_its_sentences_as_chinese_is_written(
    cli: RunCli, ollama: FakeOllama
) -> None:
    """The error, what was kept and the retry hint: each with its Chinese stop, and no space
    between them (they were joined with an English space)."""
    ollama.script(Reply("先看一下探针的日志。" * 4, chunk_size=4, drop_after=2))
    result = cli("--lang", "zh", "--ollama-url", ollama.url, "--model", MODEL, "chat", "重启了")
    assert result.code == 4, result.err
    assert "。已保留部分回复，标记为失败。你的消息已保存；重试会重新回答它。" in result.err
    assert "。 " not in result.err
    assert result.err.splitlines()[-1] == "[重新回答：oncall-tui chat --session 1 --retry]"


ARGPARSE_CASES = [
    (("sessions",), "缺少必需的参数：ACTION"),
    (("--bogus",), "无法识别的参数：--bogus"),
    (("prompts", "add", "--label", "x"), "以下参数必须给出其一：--content --file"),
    (("--l", "x", "doctor"), "选项 --l 有歧义，可能是：--lang, --log-level"),
    (
        ("--log-level", "loud", "doctor"),
        "参数 --log-level：无效的选项 'loud'（可选：'debug', 'info', 'warning', 'error'）",
    ),
    (("search", "--limit", "x", "q"), "参数 --limit：无效的 int 值：'x'"),
    (("chat", "--session"), "参数 --session：缺少它的值"),
    (
        ("prompts", "add", "--label", "x", "--content", "y", "--file", "z"),
        "参数 --file：不能与参数 --content 同时使用",
    ),
    (("sessions", "list", "--json=1"), "参数 --json：不接受值 '1'"),
]


@pytest.mark.parametrize(("args", "said"), ARGPARSE_CASES)
def test_argparse_s_own_messages_are_said_in_chinese(
    cli: RunCli, args: tuple[str, ...], said: str
) -> None:
    """argparse speaks English only: "参数无效：the following arguments are required: ACTION"."""
    result = cli("--lang", "zh", *args)
    assert result.code == 2
    assert result.err.splitlines()[-1] == f"oncall-tui: 参数无效：{said}"


def test_every_argparse_message_the_table_names_is_one_a_command_line_meets() -> None:
    """A pattern that argparse no longer writes (another Python) would leave English behind."""
    met = {
        pattern
        for pattern, chinese in ARGPARSE_ZH
        for _, said in ARGPARSE_CASES
        if re.fullmatch(re.sub(r"\\\{\d\\\}", ".+", re.escape(chinese)), said)
    }
    assert met == {pattern for pattern, _ in ARGPARSE_ZH}


def test_chat_refusals_in_chinese(cli: RunCli) -> None:
    result = cli("--lang", "zh", "chat", "--retry")
    assert result.code == 2
    assert "--retry 需要 --session ID" in result.err


def test_doctor_in_chinese(cli: RunCli, ollama: FakeOllama) -> None:
    healthy = cli("--lang", "zh", "--ollama-url", ollama.url, "--model", MODEL, "doctor")
    assert healthy.code == 0, healthy.out
    lines = healthy.out.splitlines()
    assert lines[0] == f"Ollama    {ollama.url}  可连接，版本 0.12.6"
    assert lines[1] == f"模型      {MODEL}  已拉取"
    assert lines[2] == "上下文    8,192 tokens（来自 训练长度 40,960，已封顶；--num-ctx 可设更大）"
    missing = cli("--lang", "zh", "--ollama-url", ollama.url, "--model", "phi4:14b", "doctor")
    assert missing.code == 4
    assert "未拉取：请运行 `ollama pull phi4:14b`" in missing.out


def test_search_speaks_chinese(cli: RunCli) -> None:
    cli("sessions", "new", "--title", "网关上游超时")
    found = cli("--lang", "zh", "search", "超时").out.splitlines()
    assert found[0].split()[:2] == ["会话", "时间"]
    assert "标题" in found[1]
    assert cli("--lang", "zh", "search", "nothing-like-this").out == "没有匹配的消息或标题。\n"
