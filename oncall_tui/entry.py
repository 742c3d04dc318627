"""The console script's entry point: as little as possible before Ctrl-C is handled.

``oncall-tui`` imports the whole CLI (SQLAlchemy, SQLModel, the services) before its ``main``
could catch anything; Ctrl-C pressed meanwhile would print a ``KeyboardInterrupt``
traceback. This module imports nothing of its own at load, so the import happens inside
:func:`main`, where Ctrl-C ends the program quietly with exit status 130 as it does later.
"""

from __future__ import annotations

import signal
import sys

EXIT_INTERRUPTED = 130
"""Ctrl-C, as shells report a process ended by SIGINT (the CLI's own constant, restated
here so that nothing needs importing first)."""


def main() -> int:
    """Run the CLI on ``sys.argv``; 130 if Ctrl-C comes at any point, start-up included.

    Once the CLI has returned, Ctrl-C is given back its default action: one pressed while the
    interpreter shuts down ends the process by the signal (a shell reports 130) rather than
    with a traceback from wherever shutdown stood."""
    sys.unraisablehook = _interrupt_again
    try:
        from oncall_tui.cli import main as cli_main

        status = cli_main(sys.argv[1:])
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return status


def _interrupt_again(unraisable: sys.UnraisableHookArgs) -> None:
    """Ctrl-C that came while Python ran code it cannot raise from (an import lock's cleanup,
    as an import ends; a finaliser) is delivered again from another thread, to arrive where
    :func:`main` ends the program quietly, rather than printed as "Exception ignored" with a
    traceback and lost.

    Not raised from here, nor from a thread this hook waits for (``threading.Timer.start``
    waits for its thread to run): it would arrive in this hook, and be lost the same way. This
    hook does not wait for the bare thread, which runs once it lets go of the interpreter lock;
    Python handles the signal at its next check, after the hook has returned."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        import _thread

        _thread.start_new_thread(signal.raise_signal, (signal.SIGINT,))
        return
    sys.__unraisablehook__(unraisable)
