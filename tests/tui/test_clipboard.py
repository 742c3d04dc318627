"""A copy inside tmux reaches tmux's buffer too (tmux drops an application's OSC 52 by default):
a stand-in ``tmux`` program on PATH records what it was given."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.clipboard import copy_to_tmux, tmux_load_command
from oncall_tui.tui.screens.main import MainScreen
from tests.tui.harness import scripted_app, wait_until
from tests.tui.test_keys import seed_reply

SIZE = (100, 30)


def fake_tmux(bin_dir: Path, *, refuses_w: bool = False) -> Path:
    """A ``tmux`` that writes its arguments and its stdin under ``bin_dir``; with ``refuses_w``
    it fails on ``-w`` as tmux before 3.2 does."""
    bin_dir.mkdir(exist_ok=True)
    refuse = 'case " $* " in *" -w "*) echo "unknown flag -w" >&2; exit 1;; esac\n'
    script = bin_dir / "tmux"
    script.write_text(
        "#!/bin/sh\n"
        + (refuse if refuses_w else "")
        + f'echo "$*" >> "{bin_dir}/args"\ncat > "{bin_dir}/buffer"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir


@pytest.fixture
def in_tmux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = fake_tmux(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1234,0")
    return bin_dir


def test_inside_tmux_the_text_goes_to_its_buffer_and_clipboard(in_tmux: Path) -> None:
    assert copy_to_tmux("kubectl -n payments rollout undo deploy/api\n")
    assert (in_tmux / "args").read_text() == "load-buffer -w -\n"
    assert (in_tmux / "buffer").read_text() == "kubectl -n payments rollout undo deploy/api\n"


def test_a_tmux_without_w_gets_the_buffer_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = fake_tmux(tmp_path / "bin", refuses_w=True)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1234,0")
    assert copy_to_tmux("df -h /var")
    assert (bin_dir / "args").read_text() == "load-buffer -\n"
    assert (bin_dir / "buffer").read_text() == "df -h /var"


def test_outside_tmux_nothing_is_run(in_tmux: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX")
    assert tmux_load_command() is None
    assert not copy_to_tmux("df -h")
    assert not (in_tmux / "args").exists()


def test_tmux_set_but_not_found_is_no_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1234,0")
    assert tmux_load_command() is None
    assert not copy_to_tmux("df -h")


async def test_copying_a_message_in_the_app_fills_tmuxs_buffer(
    tmp_path: Path, in_tmux: Path
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.shown.open(seed_reply(app, "Roll back:\n\n```sh\nhelm rollback api 41\n```"))
        await wait_until(pilot, lambda: len(screen.query_one(ChatLog).messages) == 2)
        await pilot.press("alt+y")
        await wait_until(pilot, lambda: (in_tmux / "buffer").exists())
        await app.workers.wait_for_complete()
        assert (in_tmux / "buffer").read_text() == "helm rollback api 41"
        assert app.clipboard == "helm rollback api 41"  # and by OSC 52, as before
