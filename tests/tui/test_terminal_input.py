"""Every key and line the engineer types or pastes is kept, in the order and place typed.

The terminal's byte stream matters here, so most tests run the app in a real pseudo-terminal
and write keys to it in one write, as a fast typist over SSH, a terminal pasting without
bracketed paste, or tmux send-keys deliver them. The filter that reads those bytes is also
tested on its own, at its bounds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual._xterm_parser import XTermParser

from oncall_tui.services.container import Services
from oncall_tui.tui.terminal_input import (
    ALT_ENTER,
    LONG_READ,
    PASTE_END,
    PASTE_GAP,
    PASTE_START,
    InputFilter,
)
from tests.conftest import make_settings
from tests.fakes.ollama_server import FakeOllama
from tests.terminal import Terminal, wait_for

# -- the filter -------------------------------------------------------------------------------


def test_one_line_break_in_a_read_is_typing() -> None:
    assert InputFilter()("A\rB", now=0.0) == "A\rB"


@pytest.mark.parametrize("breaks", ["\r", "\n", "\r\n"])
def test_two_line_breaks_in_a_read_are_a_paste(breaks: str) -> None:
    read = f"line-1 first{breaks}line-2 second{breaks}line 3"
    expected = f"{PASTE_START}line-1 first\nline-2 second\nline 3{PASTE_END}"
    assert InputFilter()(read, now=0.0) == expected


@pytest.mark.parametrize(("length", "paste"), [(LONG_READ - 1, False), (LONG_READ, True)])
def test_a_long_read_without_line_breaks_is_a_paste(length: int, paste: bool) -> None:
    """One line pasted without brackets (minified JSON): as keys, each one wrapped the whole
    line again in the composer, and 61 kB held the app for minutes."""
    read = ('{"pod": "api-7", "msg": "timeout"} ' * 10)[:length]
    expected = f"{PASTE_START}{read}{PASTE_END}" if paste else read
    assert InputFilter()(read, now=0.0) == expected
    typed = read + "\r"  # a question and its Enter, in one read after a stall: typing
    assert InputFilter()(typed, now=0.0) == typed


@pytest.mark.parametrize("key", ["\x15", "\x7f", "\x08"], ids=["ctrl+u", "backspace", "ctrl+h"])
def test_a_read_holding_a_control_key_is_typing(key: str) -> None:
    """Found in tmux: ctrl+u and a long title typed in one read (a rename over a stalled
    link) were taken for a paste, and the title began with a literal ctrl+u."""
    long = key + "INC-4211 checkout-api 502s after the 02:10 deploy of 4.2.1 in eu-west-1"
    assert InputFilter()(long, now=0.0) == long
    lines = f"one{key}\rtwo\rthree"
    assert InputFilter()(lines, now=0.0) == lines


def test_a_crlf_pair_is_one_line_break() -> None:
    assert InputFilter()("one\r\ntwo", now=0.0) == "one\r\ntwo"


def test_reads_right_after_a_paste_continue_it_and_later_ones_are_typing() -> None:
    rewrite = InputFilter()
    rewrite("a\rb\rc", now=10.0)
    assert rewrite("d\re", now=10.0 + PASTE_GAP / 2) == f"{PASTE_START}d\ne{PASTE_END}"
    assert rewrite("f\rg", now=10.0 + PASTE_GAP / 2 + PASTE_GAP) == "f\rg"


def test_escape_then_carriage_return_is_alt_enter() -> None:
    assert InputFilter()("bash\x1b\rkubectl", now=0.0) == f"bash{ALT_ENTER}kubectl"


@pytest.mark.parametrize(("read", "key"), [("\x1bp", "p"), ("\x1b9", "9"), ("x\x1bsy", "s")])
def test_escape_then_a_letter_or_digit_is_that_alt_key_without_a_character(
    read: str, key: str
) -> None:
    rewritten = InputFilter()(read, now=0.0)
    assert f"\x1b[{ord(key)};3u" in rewritten
    assert rewritten.replace(f"\x1b[{ord(key)};3u", "") == read.replace(f"\x1b{key}", "")


def test_escape_sequences_that_are_not_alt_keys_pass_as_they_are() -> None:
    for read in ("\x1bOP", "\x1b[1;5A", "\x1bP", "\x1b\x1b[A"):  # f1, ctrl+up, alt+P, esc up
        assert InputFilter()(read, now=0.0) == read


def test_a_bracketed_paste_and_escape_sequences_pass_as_they_are() -> None:
    bracketed = f"{PASTE_START}a\rb\rc{PASTE_END}"
    assert InputFilter()(bracketed, now=0.0) == bracketed
    arrows = "\x1b[A\r\x1b[B\r"  # keys, not text: never a paste
    assert InputFilter()(arrows, now=0.0) == arrows


def test_a_bracketed_paste_over_several_reads_passes_as_it_is() -> None:
    """A long paste comes in reads of 4 kB: those in its middle, with line breaks and no
    marker, are still its text, not an unbracketed paste of their own."""
    rewrite = InputFilter()
    reads = [f"{PASTE_START}a\rb", "c\rd\re\r", "f\tg\r", f"h{PASTE_END}"]
    assert [rewrite(read, now=0.0) for read in reads] == reads


COLOURED_LOG = (
    "NAME\tREADY\tSTATUS\r"
    "\x1b[31mapi-7f9\t0/1\tCrashLoopBackOff\x1b[0m\r"
    "\x1b]8;;https://grafana.example/d/api\x1b\\dashboard\x1b]8;;\x1b\\\r"
    "\x1b(B\x1b[mdb-0\t1/1\tRunning\x07\x08\r"
)
"""``kubectl get pods`` with colours, a terminal link, a bell and a backspace, as a file
holds it (a terminal's own copy would have no codes)."""
COLOURED_LOG_TEXT = (
    "NAME\tREADY\tSTATUS\rapi-7f9\t0/1\tCrashLoopBackOff\rdashboard\rdb-0\t1/1\tRunning\r"
)


def parsed(reads: list[str]) -> list[tuple[str, str]]:
    """What Textual's parser makes of the reads once filtered: (event, its text or key)."""
    rewrite, parser = InputFilter(), XTermParser(False)
    events = [event for read in reads for event in parser.feed(rewrite(read, now=0.0))]
    return [
        (type(e).__name__, str(getattr(e, "text", None) or getattr(e, "key", ""))) for e in events
    ]


def test_escape_codes_in_a_bracketed_paste_are_dropped_and_it_stays_one_paste() -> None:
    """Textual's parser read an ESC in a paste as the start of a key and sent the rest of the
    paste as keys: tabs moved the focus, line breaks sent the message line by line."""
    bracketed = f"{PASTE_START}{COLOURED_LOG}{PASTE_END}"
    assert parsed([bracketed]) == [("Paste", COLOURED_LOG_TEXT)]
    assert parsed([bracketed + "?"]) == [("Paste", COLOURED_LOG_TEXT), ("Key", "question_mark")]


def test_a_code_or_the_end_marker_cut_between_two_reads_is_read_whole() -> None:
    """A long paste comes in 4 kB reads, which end anywhere: in a colour's code, in a link's,
    in the paste's end marker. Every place after the start marker is tried."""
    bracketed = f"{PASTE_START}{COLOURED_LOG}{PASTE_END}"
    for at in range(len(PASTE_START) + 1, len(bracketed)):
        reads = [bracketed[:at], bracketed[at:] + "\x1bp"]
        assert parsed(reads) == [("Paste", COLOURED_LOG_TEXT), ("Key", "alt+p")], at


def test_an_esc_that_starts_no_code_is_dropped_without_holding_the_paste() -> None:
    rewrite = InputFilter()
    assert rewrite(f"{PASTE_START}a\x1b", now=0.0) == f"{PASTE_START}a"  # may start a code
    assert rewrite("\rb", now=0.0) == "\rb"  # it did not: the ESC alone is dropped
    unfinished = "\x1b[" + "1;" * 200  # no code runs this long
    assert rewrite(unfinished + PASTE_END, now=0.0) == unfinished[1:] + PASTE_END


def test_keys_around_a_bracketed_paste_are_keys() -> None:
    rewrite = InputFilter()
    alt_p = f"\x1b[{ord('p')};3u"
    assert rewrite(f"\x1bp{PASTE_START}a\rb", now=0.0) == f"{alt_p}{PASTE_START}a\rb"
    assert rewrite(f"c{PASTE_END}\x1bp", now=0.0) == f"c{PASTE_END}{alt_p}"
    assert rewrite("x\ry\rz", now=10.0) == f"{PASTE_START}x\ny\nz{PASTE_END}"  # unbracketed


# -- the app in a pseudo-terminal ---------------------------------------------------------------


@pytest.fixture
def terminal(tmp_path: Path, ollama: FakeOllama) -> Iterator[Terminal]:
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(tmp_path / "oncall.db"),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": ollama.url,
        "ONCALL_TUI_MODEL": "qwen3:8b",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    app = Terminal(env)
    app.wait_to_show("Enter sends")
    app.wait_to_show("Ollama 0.")  # up: a send is not refused for want of it
    yield app
    app.quit()


def sent(tmp_path: Path) -> list[str]:
    """The user messages stored, oldest first."""
    services = Services(make_settings(tmp_path / "oncall.db"))
    try:
        return [
            message.content
            for session in services.sessions.list_sessions("alice")
            for message in services.sessions.messages("alice", session.id)
            if message.role == "user"
        ]
    finally:
        services.close()


def replies(tmp_path: Path) -> int:
    services = Services(make_settings(tmp_path / "oncall.db"))
    try:
        return sum(
            message.role == "assistant" and message.status != "streaming"
            for session in services.sessions.list_sessions("alice")
            for message in services.sessions.messages("alice", session.id)
        )
    finally:
        services.close()


def send_and_wait(terminal: Terminal, tmp_path: Path, count: int) -> list[str]:
    """Enter, then the stored messages once the ``count``-th reply has ended."""
    terminal.write("\r")
    wait_for(lambda: replies(tmp_path) == count, what=f"reply {count} stored")
    return sent(tmp_path)


def test_keys_in_the_same_read_as_enter_stay_in_the_composer(
    terminal: Terminal, tmp_path: Path
) -> None:
    terminal.write("alpha\rbravo-kept")
    wait_for(lambda: sent(tmp_path) == ["alpha"], what="alpha sent")
    wait_for(lambda: replies(tmp_path) == 1, what="its reply")
    terminal.wait_to_show("bravo-kept")
    assert send_and_wait(terminal, tmp_path, 2) == ["alpha", "bravo-kept"]


def test_an_unbracketed_paste_goes_into_the_composer_whole_and_is_not_sent(
    terminal: Terminal, tmp_path: Path
) -> None:
    terminal.write("line-1 first\rline-2 second\rline 3")
    terminal.wait_to_show("line 3")
    first, second, third = (terminal.row_of(t) for t in ("line-1 first", "line-2 second", "line 3"))
    assert (second, third) == (first + 1, first + 2)  # one line each, as pasted
    assert sent(tmp_path) == []
    assert send_and_wait(terminal, tmp_path, 1) == ["line-1 first\nline-2 second\nline 3"]


def test_a_thirty_line_log_pasted_without_brackets_is_one_message(
    terminal: Terminal, tmp_path: Path
) -> None:
    log = [f"03:{n:02d}:00Z ERROR upstream timed out pod-{n}" for n in range(30)]
    terminal.write("\r".join(log) + "\r")
    terminal.wait_to_show("pod-29")
    assert sent(tmp_path) == []
    terminal.write("what failed?")
    terminal.wait_to_show("what failed?")
    assert send_and_wait(terminal, tmp_path, 1) == ["\n".join(log) + "\nwhat failed?"]


def test_a_long_line_pasted_without_brackets_is_one_message(
    terminal: Terminal, tmp_path: Path
) -> None:
    """One-line JSON pasted by a terminal that does not bracket it (tmux's paste-buffer
    without -p): it came as keys, each wrapping the whole line again, and at 61 kB the app
    stood still for minutes. 17 kB here (as keys, several seconds of CPU), so that it fits the
    window and is sent."""
    records = ", ".join(f'{{"pod": "api-{n}", "msg": "upstream timeout"}}' for n in range(400))
    line = f"[{records}]"
    assert len(line) > 16_000
    terminal.write(line)
    terminal.wait_to_show('"api-399",', timeout=20)
    assert sent(tmp_path) == []
    assert send_and_wait(terminal, tmp_path, 1) == [line]


def test_a_long_bracketed_paste_keeps_every_line_break(terminal: Terminal, tmp_path: Path) -> None:
    """200 lines (9 kB: three reads of the terminal), pasted by a terminal that brackets its
    pastes, as tmux does: one message, every line whole. Each read in the middle of the paste
    had been taken for an unbracketed paste of its own, and lines ran together."""
    log = [f"2026-11-30T02:5{n % 10}:00Z ERROR timeout req={n:05d}" for n in range(200)]
    terminal.write(PASTE_START + "\r".join(log) + PASTE_END)
    terminal.wait_to_show("req=00199")
    terminal.write("?")
    terminal.wait_to_show("req=00199?")
    assert send_and_wait(terminal, tmp_path, 1) == ["\n".join(log) + "?"]


def test_alt_enter_and_ctrl_j_break_the_line_where_typed(
    terminal: Terminal, tmp_path: Path
) -> None:
    """Each in a read of its own, as typed (two line breaks in one read would be a paste)."""
    terminal.write("bash\x1b\rkubectl")  # alt+enter, as a terminal sends it
    terminal.wait_to_show("kubectl")
    terminal.write("\nhelm")  # ctrl+j
    terminal.wait_to_show("helm")
    assert terminal.row_of("kubectl") == terminal.row_of("bash") + 1
    assert terminal.row_of("helm") == terminal.row_of("kubectl") + 1
    assert sent(tmp_path) == []
    assert send_and_wait(terminal, tmp_path, 1) == ["bash\nkubectl\nhelm"]


def test_an_alt_key_runs_its_action_and_types_nothing(terminal: Terminal) -> None:
    terminal.write("half typed")
    terminal.wait_to_show("half typed")
    terminal.write("\x1bh")  # alt+h, as a terminal sends it: the keys help
    terminal.wait_to_show("What it does")
    terminal.write("\x1b")
    wait_for(lambda: not terminal.shows("What it does"), what="the keys help closed")
    terminal.wait_to_show("half typed")  # the composer drawn again
    assert not terminal.shows("half typedh")
