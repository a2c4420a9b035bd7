"""Runs a command and stops it when the process that started the watchdog ends, however it ends.

    python watchdog.py COMMAND [ARG ...]     # stdin: a pipe whose write end the starting process keeps

The starting process keeps the write end of the watchdog's stdin open and never writes to it.
The kernel closes it when that process exits — normally, by SIGTERM, even by SIGKILL, when
``atexit`` does not run — and the watchdog then terminates the command (kills it 5 s later if it
is still running). SIGTERM and SIGINT to the watchdog are passed on the same way. The exit status
is the command's; 127 when it cannot be started.

The local LLM provider runs ``llama-server`` under it, so that no server outlives geungeo. The
file is a stand-alone script (standard library only): it starts without importing geungeo.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from types import FrameType

KILL_AFTER_S = 5.0


def main(argv: Sequence[str] | None = None) -> int:
    command = list(sys.argv[1:] if argv is None else argv)
    if not command:
        print("usage: watchdog.py COMMAND [ARG ...]", file=sys.stderr)
        return 2
    try:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    except OSError as exc:
        print(f"cannot run {command[0]}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        return 127

    def stop() -> None:
        if child.poll() is None:
            child.terminate()
            timer = threading.Timer(KILL_AFTER_S, child.kill)
            timer.daemon = True
            timer.start()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop()

    def wait_for_parent() -> None:
        try:  # unbuffered: a daemon thread blocked in a buffered read would abort the interpreter's shutdown
            while os.read(0, 4096):  # nothing is written: this returns at end of file
                pass
        except OSError:
            pass
        stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threading.Thread(target=wait_for_parent, daemon=True).start()
    return child.wait()


if __name__ == "__main__":
    raise SystemExit(main())
