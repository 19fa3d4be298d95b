"""External programs as kit players, as python-chess runs chess engines: :class:`UccEngine` plays any program
that speaks the UCC 2012 Stratego competition protocol (:mod:`strategolab.ucc`).

The kit keeps the real game; the program gets only what the protocol gives it, computed from the player's
view (its own pieces, ``#`` for every enemy piece, the moves and the ranks battles showed).  A program that
crashes, does not answer within its time, answers nonsense, deploys an invalid setup or moves illegally
raises :class:`~strategolab.players.Forfeit`: it loses the game with the reason recorded, and its process is
ended.  Every process is ended in any case: at the end of each game, on :meth:`UccEngine.close` (also as a
context manager), when the engine is garbage-collected, and when Python exits.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import queue
import random
import shlex
import signal
import subprocess
import threading
import weakref
from collections.abc import Sequence

from strategolab.players import Forfeit
from strategolab.rules import PLAYER_NAMES, RED, Ruleset
from strategolab.setups import Setup
from strategolab.state import Move, Outcome, Termination
from strategolab.ucc import (
    COLOURS,
    UccError,
    check_ruleset,
    colour_line,
    parse_move,
    parse_setup,
    turn_lines,
)
from strategolab.views import View

DEFAULT_TIMEOUT = 2.0  # seconds a move may take: the manager's default (its -T switch)
DEFAULT_SETUP_TIMEOUT = 10.0  # the first answer also waits for the program to start
_EOF = None
_LIVE: weakref.WeakSet[_Process] = weakref.WeakSet()


class _Process:
    """One running program: lines in, lines out with a deadline, the tail of its stderr, and a sure end."""

    def __init__(self, argv: Sequence[str], cwd: str | None) -> None:
        try:
            self.popen = subprocess.Popen(
                list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                text=True, bufsize=1, start_new_session=True)  # its own process group: children end with it
        except OSError as e:
            raise Forfeit(f"its program could not be started ({' '.join(argv)}): {e.strerror or e}",
                          Termination.TIME_FORFEIT) from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=5)
        self._readers = [threading.Thread(target=target, daemon=True) for target in (self._read_stdout,
                                                                                     self._read_stderr)]
        for reader in self._readers:
            reader.start()
        _LIVE.add(self)

    def _read_stdout(self) -> None:
        """Queue the program's lines until its output ends (the reader closes the pipe)."""
        stream = self.popen.stdout
        assert stream is not None
        with contextlib.suppress(OSError, ValueError), stream:
            for line in stream:
                self.lines.put(line.rstrip("\n"))
        self.lines.put(_EOF)

    def _read_stderr(self) -> None:
        """Keep the last few lines the program writes to stderr (for the reason of a crash)."""
        stream = self.popen.stderr
        assert stream is not None
        with contextlib.suppress(OSError, ValueError), stream:
            for line in stream:
                if line.strip():
                    self.stderr.append(line.rstrip()[:200])

    def send(self, lines: Sequence[str]) -> None:
        """Write lines to the program; a program that is gone raises :class:`Forfeit`."""
        assert self.popen.stdin is not None
        try:
            self.popen.stdin.write("".join(line + "\n" for line in lines))
            self.popen.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._gone() from None

    def receive(self, timeout: float, what: str) -> str:
        """The program's next line within ``timeout`` seconds; otherwise it forfeits (and is ended)."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise Forfeit(f"it did not answer within {timeout:g} s ({what})", Termination.TIME_FORFEIT) from None
        if line is _EOF:
            raise self._gone()
        return line

    def _gone(self) -> Forfeit:
        """The forfeit of a program that ended or closed its output: its exit status and last error words."""
        try:
            code = self.popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        self._readers[1].join(timeout=1.0)  # the last words on stderr
        status = ("closed its output" if code is None else f"exited with status {code}" if code >= 0
                  else f"was killed by signal {-code}")
        said = f"; its last error output: {' / '.join(self.stderr)}" if self.stderr else ""
        return Forfeit(f"its program {status}{said}", Termination.TIME_FORFEIT)

    def quit(self, message: str = "QUIT") -> None:
        """Tell the program the game is over, give it a moment to exit, then end it."""
        if self.popen.poll() is None:
            try:
                self.send([message])
                assert self.popen.stdin is not None
                self.popen.stdin.close()
                self.popen.wait(timeout=0.5)
            except (Forfeit, OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        """End the program and everything it started (its process group), and reap it."""
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5.0)
        with contextlib.suppress(OSError, ValueError):  # its output pipes are closed by their readers
            if self.popen.stdin is not None:
                self.popen.stdin.close()
        _LIVE.discard(self)


@atexit.register
def _end_all() -> None:
    """No program outlives the kit."""
    for process in list(_LIVE):
        process.kill()


class UccEngine:
    """A kit player that runs a UCC 2012 protocol program, one process per game.

    ``command`` is the program and its arguments (a list, or a string split like a shell would); ``timeout``
    is how long each move may take, ``setup_timeout`` the first answer (the program starting up included).
    Use it as a context manager or call :meth:`close` to end a running program early.
    """

    def __init__(self, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                 setup_timeout: float = DEFAULT_SETUP_TIMEOUT, name: str | None = None,
                 cwd: str | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv or not all(isinstance(a, str) and a for a in argv):
            raise ValueError(f"an engine command is a program and its arguments, not {command!r}")
        if not timeout > 0 or not setup_timeout > 0:
            raise ValueError(f"timeouts must be positive seconds, not {timeout!r} and {setup_timeout!r}")
        self.argv = argv
        self.timeout = timeout
        self.setup_timeout = setup_timeout
        self.cwd = cwd
        self.name = name or f"ucc:{shlex.join(argv)}"
        self.side: int | None = None
        self.opponent = "opponent"
        self.transcript: list[str] = []  # this game's exchange: '>> ' lines sent, '<< ' lines received
        self._process: _Process | None = None
        self._told = 0  # plies of the game already reported to the program
        self._answers: dict[int, str] = {}  # ply -> the program's own words for its move

    def __repr__(self) -> str:
        return f"UccEngine({self.argv!r}, timeout={self.timeout!r})"

    def __enter__(self) -> UccEngine:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __del__(self) -> None:
        process = getattr(self, "_process", None)
        if process is not None:
            process.kill()

    @property
    def pid(self) -> int | None:
        """The running program's process id (``None`` between games)."""
        return self._process.popen.pid if self._process is not None else None

    # -- the game's frame ----------------------------------------------------------------------------------

    def start_game(self, side: int, opponent: str = "opponent") -> None:
        """Learn the colour for the next game (the protocol's first line names it) and the opponent's name."""
        if side not in (0, 1):
            raise ValueError(f"side must be 0 (Red) or 1 (Blue), not {side!r}")
        self.close()
        self.side = side
        self.opponent = opponent

    def end_game(self, outcome: Outcome | None = None) -> None:
        """The game is over: send ``QUIT`` (with the result, as the manager does) and end the program."""
        if self._process is not None:
            words = "" if outcome is None else f" {outcome}"
            self.transcript.append(f">> QUIT{words}")
            self._process.quit(f"QUIT{words}")
            self._process = None

    def close(self) -> None:
        """End the running program, if any."""
        self.end_game()

    # -- the player's interface ----------------------------------------------------------------------------

    def choose_setup(self, ruleset: Ruleset, rng: random.Random) -> Setup:
        """Start the program and take its setup (four rows); an invalid one forfeits the game."""
        if self.side is None:
            raise ValueError(f"{self.name} needs its colour before the setup: play it with play_match or "
                             "play_game, or call start_game(side) first")
        check_ruleset(ruleset)
        self.close()
        self.transcript = []
        self._told = 0
        self._answers = {}
        self._process = _Process(self.argv, self.cwd)
        self._send([colour_line(self.side, self.opponent)])
        rows = [self._receive(self.setup_timeout if i == 0 else self.timeout, "its setup") for i in range(4)]
        try:
            return parse_setup(rows, self.side, ruleset)
        except UccError as e:
            raise self._lose(f"its setup is invalid: {e}") from None

    def choose_move(self, view: View) -> Move:
        """Tell the program what happened since its last move and the board, and read its move."""
        if not isinstance(view, View):
            raise TypeError(f"an engine plays from a player's View (state.view(player)), not {type(view).__name__}")
        if self._process is None or view.player != self.side:
            raise ValueError(f"{self.name} is not playing {PLAYER_NAMES[view.player]} in a started game "
                             "(start_game and choose_setup come first)")
        if view.turn != view.player:
            raise ValueError(f"it is {PLAYER_NAMES[view.turn]}'s turn, this is {PLAYER_NAMES[view.player]}'s view")
        if not view.move_stack and view.player != RED:
            raise self._lose("the UCC protocol has Red move first, and this game begins with Blue")
        self._send(turn_lines(view, self._told, self._answers))
        self._told = len(view.move_stack)
        answer = self._receive(self.timeout, f"its move {len(view.move_stack) // 2 + 1}")
        if answer.strip() == "SURRENDER":
            raise self._lose("it resigned (SURRENDER)", Termination.RESIGNATION)
        try:
            move = parse_move(answer)
        except UccError as e:
            raise self._lose(f"it answered {answer!r}, which is no move: {e}") from None
        reason = view.illegal_reason(move)
        if reason:
            raise self._lose(f"it played {answer!r} ({move}), which the rules refuse: {reason}")
        self._answers[len(view.move_stack)] = answer
        return move

    # -- talking to the program ----------------------------------------------------------------------------

    def _send(self, lines: list[str]) -> None:
        assert self._process is not None
        self.transcript.extend(f">> {line}" for line in lines)
        try:
            self._process.send(lines)
        except Forfeit as e:
            self._process = None
            raise e from None

    def _receive(self, timeout: float, what: str) -> str:
        assert self._process is not None
        try:
            line = self._process.receive(timeout, what)
        except Forfeit as e:
            self._process = None
            raise e from None
        self.transcript.append(f"<< {line}")
        return line

    def _lose(self, reason: str, termination: Termination = Termination.ILLEGAL_MOVE) -> Forfeit:
        """End the program and make the forfeit it has earned."""
        if self._process is not None:
            self._process.quit(f"QUIT {COLOURS[self.side or 0]} ILLEGAL")
            self._process = None
        return Forfeit(reason, termination)


__all__ = ["DEFAULT_SETUP_TIMEOUT", "DEFAULT_TIMEOUT", "UccEngine"]
