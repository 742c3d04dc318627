"""Token estimates: LangChain's approximation, CJK topped up, tool schemas counted."""

from __future__ import annotations

import time

from langchain_core.messages.utils import count_tokens_approximately

from oncall_tui.llm.tokens import cjk_characters, estimate_text_tokens, estimate_tokens
from oncall_tui.llm.tools import build_tools

CHINESE = "服务器磁盘空间不足请检查日志目录" * 63  # 1,008 characters


def test_thousand_chinese_characters_estimate_at_least_900_tokens() -> None:
    text = CHINESE[:1000]
    assert cjk_characters(text) == 1000
    assert estimate_text_tokens(text) >= 900
    assert estimate_tokens("", [("user", text)]) >= 900


def test_japanese_and_korean_count_as_cjk() -> None:
    assert cjk_characters("ディスク容量") == 6
    assert cjk_characters("디스크 용량") == 5
    assert cjk_characters("plain ascii, café") == 0


def test_english_matches_langchain_approximation() -> None:
    messages = [("user", "The disk on db-1 is full."), ("assistant", "Run df -h first.")]
    expected = count_tokens_approximately([("system", "Be brief."), *messages])
    assert estimate_tokens("Be brief.", messages) == expected


def test_tool_schemas_are_counted() -> None:
    history = [("user", "what time is it?")]
    without = estimate_tokens("sys", history)
    with_time = estimate_tokens("sys", history, build_tools({}))
    with_skills = estimate_tokens("sys", history, build_tools({"a": "body"}))
    assert without < with_time < with_skills


def test_rebuilt_tools_estimate_the_same() -> None:
    first = estimate_tokens("sys", [], build_tools({"a": "x"}))
    second = estimate_tokens("sys", [], build_tools({"b": "a much longer skill body " * 50}))
    assert first == second  # the body is not in the schema; only the call result carries it


def test_estimate_is_monotonic_in_text_length() -> None:
    for alphabet in ("word ", "字"):
        counts = [estimate_tokens("s", [("user", alphabet * n)]) for n in range(0, 400, 7)]
        assert counts == sorted(counts)
        assert counts[-1] > counts[0]
        singles = [estimate_text_tokens(alphabet * n) for n in range(0, 400, 7)]
        assert singles == sorted(singles)


def test_system_prompt_and_every_message_count() -> None:
    base = estimate_tokens("s", [("user", "a")])
    assert estimate_tokens("s" * 400, [("user", "a")]) > base
    assert estimate_tokens("s", [("user", "a"), ("assistant", "b")]) > base


def test_a_hundred_message_estimate_is_fast() -> None:
    history = [
        ("user" if i % 2 == 0 else "assistant", f"message {i} 磁盘 " + "text " * 80)
        for i in range(100)
    ]
    tools = build_tools({"disk-full": "body"})
    estimate_tokens("system prompt " * 100, history, tools)
    started = time.perf_counter()
    for _ in range(20):
        estimate_tokens("system prompt " * 100, history, build_tools({"disk-full": "body"}))
    per_call = (time.perf_counter() - started) / 20
    assert per_call < 0.02
