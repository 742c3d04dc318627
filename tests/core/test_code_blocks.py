"""The code blocks of a message, as copied one at a time."""

from __future__ import annotations

from oncall_tui.core.code_blocks import code_blocks


def test_fenced_blocks_are_found_in_order_with_their_language() -> None:
    text = "Run:\n\n```bash\nkubectl get pods\n```\n\nthen\n\n~~~sql\nSELECT 1;\n~~~\n"
    blocks = code_blocks(text)
    assert [(b.language, b.code) for b in blocks] == [
        ("bash", "kubectl get pods"),
        ("sql", "SELECT 1;"),
    ]


def test_an_indented_block_counts_and_inline_code_does_not() -> None:
    blocks = code_blocks("Use `ls` here:\n\n    df -h\n    du -sh /var\n")
    assert [b.code for b in blocks] == ["df -h\ndu -sh /var"]
    assert blocks[0].line_count == 2
    assert blocks[0].first_line == "df -h"


def test_a_fence_cut_off_by_an_interrupted_reply_runs_to_the_end() -> None:
    assert [b.code for b in code_blocks("```\ntail -f /var/log/syslog\n")] == [
        "tail -f /var/log/syslog"
    ]


def test_a_longer_fence_keeps_a_shorter_one_inside_it() -> None:
    blocks = code_blocks("````md\n```\ninner\n```\n````")
    assert [b.code for b in blocks] == ["```\ninner\n```"]


def test_no_blocks_in_prose() -> None:
    assert code_blocks("The disk is full; clear /var/log.") == []
