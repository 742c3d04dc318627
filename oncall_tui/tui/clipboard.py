"""A copy goes where the user will paste it: the terminal's clipboard and, inside tmux, tmux's.

Textual copies by OSC 52, which reaches the terminal's clipboard over SSH too. tmux takes an
application's OSC 52 only with ``set-clipboard on``; its default (``external``) drops it, so
in tmux a copy said done pasted whatever was copied before (a command from another incident).
Inside tmux (``$TMUX``) the text is therefore also given to ``tmux load-buffer -w -``: tmux's
paste buffer (prefix ]) and, through tmux, the terminal's clipboard. The text is never logged.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess

log = logging.getLogger(__name__)

TMUX_SECONDS = 2.0
"""How long ``tmux load-buffer`` may take (it answers in milliseconds; a hung server does not
hold the copy up for longer)."""


def tmux_load_command() -> list[str] | None:
    """The command that puts text from stdin into tmux's buffer and clipboard; ``None`` outside
    tmux, or where its program is not found."""
    if not os.environ.get("TMUX"):
        return None
    tmux = shutil.which("tmux")
    return None if tmux is None else [tmux, "load-buffer", "-w", "-"]


def copy_to_tmux(text: str) -> bool:
    """Blocking: ``text`` into tmux's buffer; ``True`` once tmux took it. ``-w`` (also the
    terminal's clipboard) is tmux 3.2's; an older tmux that refuses it gets the buffer alone."""
    command = tmux_load_command()
    if command is None:
        return False
    for args in (command, [arg for arg in command if arg != "-w"]):
        try:
            done = subprocess.run(
                args,
                input=text.encode(),
                capture_output=True,
                timeout=TMUX_SECONDS,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            log.info("tmux did not take the copy: %s", type(error).__name__)
            return False
        if done.returncode == 0:
            return True
    log.info("tmux did not take the copy (exit status %s)", done.returncode)
    return False
