"""The UCC 2012 competition protocol: its lines as kit values, recorded exchanges with the real manager and
real bots replayed through the kit's bot, the kit against itself through a manager of the kit's own and over
real pipes, programs that crash, hang, print garbage or move illegally (each loses, with the reason, and no
process is left), and the proof that unseen identities never change what the external-engine player says."""

from __future__ import annotations

import gzip
import io
import os
import random
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import permute_hidden

from strategolab import BLUE, CLASSIC, RED, Move, Setup, State, Termination, parse_square, read_games, write_game
from strategolab.cli import main
from strategolab.engines import UccEngine
from strategolab.players import Forfeit, RandomPlayer, make_player, play_game, play_match
from strategolab.rules import UCC, get_ruleset
from strategolab.ucc import (
    OWN_MOVES,
    TOKENS,
    Report,
    UccBot,
    UccError,
    board_rows,
    check_ruleset,
    colour_line,
    format_move,
    parse_move,
    parse_setup,
    serve,
    setup_rows,
    transcript_lines,
    turn_lines,
)
from strategolab.views import View

DATA = Path(__file__).parent / "data" / "ucc"
TRANSCRIPTS = sorted(DATA.glob("*.txt"))
BOT = [sys.executable, "-m", "strategolab", "ucc-bot"]


def sq(name: str) -> int:
    return parse_square(name)


# -- the protocol's words ------------------------------------------------------------------------------------


def test_moves_read_and_write_in_the_managers_coordinates() -> None:
    # x is the column, y the kit's row minus one; UP goes towards Red's back row (y = 0).
    assert format_move(Move(sq("E4"), sq("E5"))) == "4 3 DOWN"
    assert format_move(Move(sq("A7"), sq("A4"))) == "0 6 UP 3"
    assert format_move(Move(sq("J1"), sq("I1"))) == "9 0 LEFT"
    assert parse_move("0 6 UP 3") == Move(sq("A7"), sq("A4"))
    assert parse_move("  3 6 RIGHT 1 ") == Move(sq("D7"), sq("E7"))
    state = State.random(UCC, 3)
    for move in state.generate_legal_moves():
        assert parse_move(format_move(move)) == move


@pytest.mark.parametrize(("line", "words"), [
    ("hello", "not a move"), ("4 6 SIDEWAYS", "SIDEWAYS"), ("4 x UP", "whole numbers"),
    ("0 0 UP", "leaves the board"), ("12 3 UP", "off the board"), ("4 6 UP 0", "at least 1"),
    ("4 6 UP 2 7", "not a move"), ("", "not a move"),
])
def test_a_bad_answer_is_refused_saying_why(line: str, words: str) -> None:
    with pytest.raises(UccError, match=words):
        parse_move(line)


def test_reports_carry_the_move_its_outcome_and_the_ranks() -> None:
    r = Report.parse("9 6 UP 3 BOTHDIE 9 9")
    assert r.move == Move(sq("J7"), sq("J4")) and r.outcome == "BOTHDIE" and (r.attacker, r.defender) == ("Scout",) * 2
    assert Report.parse("2 0 LEFT KILLS 8 B")[2:] == ("KILLS", "Miner", "Bomb")
    assert Report.parse("3 4 DOWN DIES s 1")[2:] == ("DIES", "Spy", "Marshal")
    # The manager copies the mover's answer: an explicit multiplier of 1 (peternlewis writes one) is a step.
    assert Report.parse("0 3 DOWN 1 OK").move == Move(sq("A4"), sq("A5"))
    assert Report.parse("1 0 LEFT VICTORY_FLAG").outcome == "VICTORY_FLAG"
    for bad, words in (("4 3 DOWN", "no move report"), ("4 3 DOWN KILLS 8 Q", "no rank"),
                       ("4 3 DOWN WINS", "no move report")):
        with pytest.raises(UccError, match=words):
            Report.parse(bad)


@pytest.mark.parametrize("side", [RED, BLUE])
def test_setups_go_both_ways_for_both_colours(side: int) -> None:
    setup = Setup.random(UCC, 4)
    rows = setup_rows(setup, side)
    assert len(rows) == 4 and all(len(r) == 10 for r in rows)
    assert parse_setup(rows, side) == setup
    # Red's first row is its back row (y = 0), Blue's last row is (y = 9): each as it stands on the board.
    back = setup.placements(side)[sq("A1") if side == RED else sq("A10")]
    assert rows[0 if side == RED else 3][0] == TOKENS[back.name]


@pytest.mark.parametrize(("rows", "words"), [
    (["FFFFFFFFFF"] * 4, "not a full army"), (["FB8sB479B8"] * 3, "4 rows"),
    (["FB8sB479B", "BB31555583", "6724898974", "967B669999"], "9 characters"),
    (["FB8sB479Bx", "BB31555583", "6724898974", "967B669999"], "character 10: 'x' is no piece"),
])
def test_a_bad_setup_is_refused_naming_the_place(rows: list[str], words: str) -> None:
    with pytest.raises(UccError, match=words):
        parse_setup(rows, RED)


def test_the_manual_example_setup_is_a_full_army() -> None:
    setup = parse_setup(["FB8sB479B8", "BB31555583", "6724898974", "967B669999"], RED)
    assert setup.is_valid() and setup.placements(RED)[sq("A1")].name == "Flag"


def test_the_board_shows_every_enemy_piece_as_hash_even_a_revealed_one() -> None:
    state = State.new(Setup.random(UCC, 1), Setup.random(UCC, 2), UCC)
    rows = board_rows(state.view(RED), RED)
    assert rows[4] == rows[5] == "..++..++.."
    assert all(set(r) == {"#"} for r in rows[6:])
    assert all("#" not in r and "." not in r for r in rows[:4])
    # After a battle the survivor is revealed to both players, but the board still hides it.
    state.push(Move(sq("A4"), sq("A5")))
    assert board_rows(state.view(BLUE), BLUE) == board_rows(state.view(BLUE), BLUE)
    assert board_rows(state, BLUE)[4][0] == "#"


def test_only_the_classic_board_and_army_travel_over_the_protocol() -> None:
    assert check_ruleset(UCC) is UCC and check_ruleset(CLASSIC) is CLASSIC
    for name, words in (("pocket", "board"), ("barrage", "army")):
        with pytest.raises(UccError, match=words):
            check_ruleset(get_ruleset(name))
    with pytest.raises(UccError, match="Red always"):
        check_ruleset(UCC.replace(name="blue-first", first_player=BLUE))


def test_the_ucc_rule_set_has_none_of_the_repetition_rules_and_can_be_named() -> None:
    assert (UCC.two_square_limit, UCC.chase_rule, UCC.draw_limit) == (None, None, None)
    assert get_ruleset("ucc") is UCC and UCC.army == CLASSIC.army
    assert (OWN_MOVES.two_square_limit, OWN_MOVES.chase_rule, OWN_MOVES.draw_limit) == (3, "square", None)


# -- recorded exchanges with the real manager ------------------------------------------------------------------


class Scripted:
    """Plays back one seat of a recorded exchange: its setup rows, then its moves, checking each is legal."""

    name = "scripted"

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.moves: dict[int, Move] = {}
        self.side = RED

    def start_game(self, side: int, opponent: str) -> None:
        self.side = side

    def choose_setup(self, ruleset: object, rng: random.Random) -> Setup:
        return parse_setup(self.answers[:4], self.side)

    def choose_move(self, view: View) -> Move:
        ply = len(view.move_stack)
        if ply not in self.moves:
            self.moves[ply] = move = parse_move(self.answers[4 + len(self.moves)])
            assert move in view.generate_legal_moves(), f"the kit refuses the recorded move {move} at ply {ply}"
        return self.moves[ply]


def replay(text: str) -> tuple[UccBot, list[tuple[str, str]]]:
    """Feed a transcript's manager lines to a kit bot playing the recorded answers; return what was said."""
    recorded = list(transcript_lines(text))
    bot = UccBot(Scripted([t for d, t in recorded if d == "<<"]))
    said: list[tuple[str, str]] = []
    for direction, line in recorded:
        if direction == ">>":
            said.append((">>", line))
            said.extend(("<<", answer) for answer in bot.feed(line))
    return bot, said


def same_exchange(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> bool:
    """Equal line by line, a move compared as a move (``0 3 DOWN 1`` and ``0 3 DOWN`` are one)."""
    def norm(lines: list[tuple[str, str]]) -> list[tuple[str, object]]:
        answers = 0
        out: list[tuple[str, object]] = []
        for d, t in lines:
            answers += d == "<<"
            out.append((d, parse_move(t) if d == "<<" and answers > 4 else t))
        return out
    return norm(a) == norm(b)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_recorded_exchanges_replay_through_the_kits_bot(path: Path) -> None:
    """Every board the manager printed matches the game the bot keeps, every battle it reported is one the
    kit decides the same way, and the bot answers exactly when and what the recorded bot did."""
    bot, said = replay(path.read_text())
    recorded = list(transcript_lines(path.read_text()))
    assert [d for d, _ in said] == [d for d, _ in recorded]
    assert same_exchange(said, recorded)
    assert bot.game is not None and len(bot.game.move_stack) > 50
    assert bot.finished == any(t.startswith("QUIT") for _, t in recorded)


def test_the_whole_recorded_game_ends_as_the_manager_says() -> None:
    text = (DATA / "kit-hard-blue-v-celsius.txt").read_text()
    bot, _ = replay(text)
    game = bot.game
    assert game is not None and bot.side == BLUE and bot.finished
    # Blue's last answer took the Flag (the manager then says QUIT, not the echo): 147 moves of Red, 146 of Blue.
    assert len(game.move_stack) == 293
    final = parse_move([t for d, t in transcript_lines(text) if d == "<<"][-1])
    view = game.view(BLUE)
    assert view.is_unknown(final.to_square) and not view.has_moved(final.to_square)  # a Flag never moves
    assert final in view.generate_legal_moves()


@pytest.mark.parametrize(("change", "words"), [
    (("..++..++..", "..++..++.#"), "board row y = 4 reads '..\\+\\+..\\+\\+.#'"),
    (("KILLS 8 B", "KILLS 7 B"), "is a Sergeant, but"),
    ((">> 0 6 UP OK", ">> 0 6 UP 2 OK"), "board row y = 4"),
    ((">> 0 6 UP OK", ">> 0 6 UP KILLS 9 9"), "reports a battle, but A6 is empty"),
    ((">> 0 6 UP OK", ">> 1 6 LEFT OK"), "A7 holds a BLUE piece"),
])
def test_a_transcript_that_contradicts_the_game_is_caught(change: tuple[str, str], words: str) -> None:
    text = (DATA / "celsius-red-v-kit-hard.txt").read_text()
    assert change[0] in text
    with pytest.raises(UccError, match=words):
        replay(text.replace(change[0], change[1], 1))


# -- the kit against itself through a manager of its own --------------------------------------------------------


def referee(red: object, blue: object, seed: int, max_plies: int, check: bool = True) -> tuple[State, list[UccBot]]:
    """A manager of the kit's own, in process: it keeps the real game and tells each bot what the real manager
    would; at every turn each bot's view of the game must be the real game's view."""
    bots = [UccBot(red, seed), UccBot(blue, seed + 1)]
    setups = [parse_setup(bots[side].feed(colour_line(side, "kit")), side) for side in (RED, BLUE)]
    state = State.new(setups[0], setups[1], UCC)
    told, answers = [0, 0], {}
    while state.outcome() is None and len(state.move_stack) < max_plies:
        side = state.turn
        view = state.view(side)
        out = [a for line in turn_lines(view, told[side], answers) for a in bots[side].feed(line)]
        told[side] = len(state.move_stack)
        mine = bots[side].game
        assert mine is not None
        if check:
            seen = mine.view(side)
            assert (seen.board, seen.move_stack, seen.battles) == (view.board, view.move_stack, view.battles)
            assert (seen.turn, seen.ply, seen.quiet) == (view.turn, view.ply, view.quiet)
        assert len(out) == 1
        move = parse_move(out[0])
        assert state.illegal_reason(move) is None
        answers[len(state.move_stack)] = out[0]
        state.push(move)
    return state, bots


@pytest.mark.parametrize(("red", "blue", "seed"), [("random", "easy", 1), ("medium", "random", 2)])
def test_the_kits_bots_keep_exactly_the_real_games_views(red: str, blue: str, seed: int) -> None:
    state, _ = referee(make_player(red, seed), make_player(blue, seed), seed, 250)
    assert len(state.move_stack) > 40 and state.battles


class Shuffler(RandomPlayer):
    """Moves one piece back and forth whenever its view allows (ucc allows it for ever); counts the asks."""

    def __init__(self) -> None:
        super().__init__(0, "shuffler")
        self.asked: list[int] = []

    def choose_move(self, view: View) -> Move:
        self.asked.append(len(view.move_stack))
        legal = view.generate_legal_moves()
        mine = view.move_stack[-2] if len(view.move_stack) >= 2 else None
        back = Move(mine.to_square, mine.from_square) if mine is not None else None
        return back if back in legal else legal[0]


def test_the_kits_own_moves_keep_the_classic_repetition_rules() -> None:
    shuffler = Shuffler()
    state, _ = referee(shuffler, RandomPlayer(5), 7, 120, check=False)
    start = state.copy()
    while start.move_stack:
        start.pop()
    strict = State.empty(OWN_MOVES)
    for s in start.squares():
        strict.set_piece(s, start.piece_at(s))
    for move in state.move_stack:
        if strict.turn == RED:
            assert strict.illegal_reason(move) is None, f"{move} breaks a classic repetition rule"
        strict.push(move)
    # The shuffler wanted a fourth back-and-forth again and again: each time the bot asked it once more.
    turns = len(set(shuffler.asked))
    assert turns == 60 and len(shuffler.asked) - turns >= 10


def test_a_move_asked_again_gets_what_is_left_of_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player with a time limit asked again for the same move (its first broke a repetition rule) is given
    what the first ask left of the limit, so the manager's clock is kept for the whole answer."""
    now = [0.0]

    class Timed(Shuffler):
        def __init__(self) -> None:
            super().__init__()
            self.time_limit = 2.0
            self.limits: list[float] = []

        def choose_move(self, view: View) -> Move:
            self.limits.append(self.time_limit)
            now[0] += 0.5
            return super().choose_move(view)

    monkeypatch.setattr("strategolab.ucc._clock", lambda: now[0])
    shuffler = Timed()
    referee(shuffler, RandomPlayer(5), 7, 120, check=False)
    again = len(shuffler.asked) - len(set(shuffler.asked))
    assert again >= 10 and shuffler.limits.count(1.5) == again
    assert shuffler.limits.count(2.0) == len(set(shuffler.asked)) and shuffler.time_limit == 2.0


# -- over real pipes -----------------------------------------------------------------------------------------------


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("side", [RED, BLUE])
def test_the_kits_bot_plays_the_kit_over_real_pipes(side: int) -> None:
    with UccEngine([*BOT, "--level", "easy"], name="kit-bot") as engine:
        players = (engine, RandomPlayer(4)) if side == RED else (RandomPlayer(4), engine)
        result = play_match(*players, "ucc", seed=3, max_plies=300)
        assert not result.forfeited and result.state is not None and len(result.state.move_stack) > 10
        assert engine.pid is None  # ended with the game
        assert engine.transcript[0] == ">> " + colour_line(side, "random")
        assert engine.transcript[-1].startswith(">> QUIT")


def bot_script(tmp_path: Path, behaviour: str) -> list[str]:
    """A small protocol program: it deploys a full army, writes its pid, then does ``behaviour`` on its turn."""
    rows = setup_rows(Setup.random(UCC, 9), RED)
    pidfile = tmp_path / "pid"
    script = tmp_path / "bot.py"
    script.write_text(textwrap.dedent(f"""\
        import os, subprocess, sys, time
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        def say(text):
            sys.stdout.write(text + "\\n"); sys.stdout.flush()
        sys.stdin.readline()
        BEHAVIOUR = {behaviour!r}
        for row in ({'["FFFFFFFFFF"] * 4' if behaviour == "bad setup" else repr(rows)}):
            say(row)
        line = sys.stdin.readline()
        for _ in range(10):
            sys.stdin.readline()
        if BEHAVIOUR == "crash":
            sys.stderr.write("Segmentation fault (pretend)\\n"); sys.stderr.flush(); sys.exit(3)
        if BEHAVIOUR == "hang":
            child = subprocess.Popen(["sleep", "60"])
            open({str(pidfile)!r} + ".child", "w").write(str(child.pid))
            time.sleep(60)
        say({{"garbage": "hello there", "illegal": "0 0 DOWN", "surrender": "SURRENDER"}}.get(BEHAVIOUR, "0 3 DOWN"))
        time.sleep(60)
        """))
    return [sys.executable, str(script)]


@pytest.mark.parametrize(("behaviour", "termination", "words"), [
    ("crash", Termination.TIME_FORFEIT, "exited with status 3; its last error output: Segmentation fault"),
    ("hang", Termination.TIME_FORFEIT, "did not answer within 0.5 s"),
    ("garbage", Termination.ILLEGAL_MOVE, "'hello there', which is no move"),
    ("illegal", Termination.ILLEGAL_MOVE, "'0 0 DOWN' \\(A1-A2\\), which the rules refuse"),
    ("bad setup", Termination.ILLEGAL_MOVE, "its setup is invalid"),
    ("surrender", Termination.RESIGNATION, "resigned"),
])
def test_a_failing_program_loses_with_the_reason_and_leaves_no_process(
        tmp_path: Path, behaviour: str, termination: Termination, words: str) -> None:
    engine = UccEngine(bot_script(tmp_path, behaviour), timeout=0.5, name="failing")
    result = play_match(engine, RandomPlayer(1), "ucc", seed=2)
    assert result.outcome is not None and result.outcome.winner == BLUE
    assert result.outcome.termination is termination
    assert result.reason.startswith("failing (Red) forfeits: ")
    assert re.search(words, result.reason), result.reason
    pid = int((tmp_path / "pid").read_text())
    assert gone(pid) and engine.pid is None
    if behaviour == "hang":  # what it started went with it (its process group)
        deadline = time.monotonic() + 5
        child = int((tmp_path / "pid.child").read_text())
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(child)
    game = result.record({"Event": "test"})
    if behaviour == "bad setup":
        assert game is None and result.state is None
    else:
        assert game is not None and game.headers["Termination"] == termination.value
        assert game.headers["Result"] == "0-1" and game.end().comment == result.reason
    with pytest.raises(Forfeit, match="forfeits"):
        play_game(UccEngine(bot_script(tmp_path, behaviour), timeout=0.5, name="failing"), RandomPlayer(1), "ucc")


class Quitter(RandomPlayer):
    """Gives up on its third move, and notes the hooks it is given."""

    def __init__(self) -> None:
        super().__init__(0, "quitter")
        self.hooks: list[object] = []

    def start_game(self, side: int, opponent: str) -> None:
        self.hooks.append(("start", side, opponent))

    def end_game(self, outcome: object) -> None:
        self.hooks.append(("end", outcome))

    def choose_move(self, view: View) -> Move:
        if len(view.move_stack) >= 4:
            raise Forfeit("it had enough", Termination.RESIGNATION)
        return super().choose_move(view)


def test_a_player_that_forfeits_loses_and_the_hooks_frame_the_game() -> None:
    quitter = Quitter()
    result = play_match(RandomPlayer(1), quitter, "classic", seed=4)
    assert result.outcome is not None and result.outcome.winner == RED
    assert result.reason == "quitter (Blue) forfeits: it had enough" and result.forfeited
    assert result.state is not None and len(result.state.move_stack) == 5
    assert result.headers() == {"Result": "1-0", "Termination": "resignation"}
    assert quitter.hooks == [("start", BLUE, "random"), ("end", result.outcome)]
    with pytest.raises(Forfeit, match="quitter \\(Blue\\) forfeits: it had enough"):
        play_game(RandomPlayer(1), Quitter(), "classic", seed=4)


def test_a_program_that_cannot_start_forfeits(tmp_path: Path) -> None:
    result = play_match(RandomPlayer(1), UccEngine([str(tmp_path / "no-such-bot")]), "ucc")
    assert result.outcome is not None and result.outcome.winner == RED and "could not be started" in result.reason


def test_closing_an_engine_mid_game_ends_its_program() -> None:
    engine = UccEngine([*BOT, "--level", "random"])
    engine.start_game(RED, "test")
    setup = engine.choose_setup(UCC, random.Random(1))
    state = State.new(setup, Setup.random(UCC, 2), UCC)
    move = engine.choose_move(state.view(RED))
    assert move in state.generate_legal_moves()
    pid = engine.pid
    assert pid is not None and not gone(pid)
    engine.close()
    assert gone(pid) and engine.pid is None


def test_an_engine_needs_its_colour_and_one_side() -> None:
    engine = UccEngine([*BOT])
    with pytest.raises(ValueError, match="colour"):
        engine.choose_setup(UCC, random.Random(1))
    with pytest.raises(ValueError, match="both sides"):
        play_match(engine, engine, "ucc")
    with pytest.raises(ValueError, match="command"):
        UccEngine("")


# -- the hidden-identity proof for the external-engine player ----------------------------------------------------


def test_unseen_identities_change_nothing_the_engine_says_or_plays() -> None:
    """Two games that differ only in identities Red never saw: the engine sends its program the very same
    lines and gets the very same moves back."""
    command = [*BOT, "--level", "medium", "--seed", "4"]
    with UccEngine(command) as engine:
        result = play_match(engine, RandomPlayer(3), "ucc", seed=5, max_plies=90)
        first = list(engine.transcript)
    state = result.state
    assert state is not None and not result.forfeited
    twin = permute_hidden(state, RED, random.Random(1))
    assert twin.board != state.board and twin.move_stack == state.move_stack
    replay = twin.copy()
    while replay.move_stack:
        replay.pop()
    with UccEngine(command) as engine:
        engine.start_game(RED, RandomPlayer(3).name)
        assert engine.choose_setup(UCC, random.Random(0)).placements(RED) == {
            s: p.type for s in replay.squares(RED) if (p := replay.piece_at(s)) is not None}
        for move in twin.move_stack:
            if replay.turn == RED:
                assert engine.choose_move(replay.view(RED)) == move
            replay.push(move)
        engine.end_game(result.outcome)
        assert engine.transcript == first


# -- the command line ---------------------------------------------------------------------------------------------


def test_selfplay_takes_an_external_program_and_records_a_forfeit(tmp_path: Path) -> None:
    out = tmp_path / "games.sgn"
    command = f"ucc:{sys.executable} -m strategolab ucc-bot --level easy"
    assert main(["selfplay", "-o", str(out), "--ruleset", "ucc", "--red", command, "--blue", "random",
                 "-n", "2", "--alternate", "--max-plies", "200", "--no-progress"]) == 0
    games = list(read_games(out))
    assert len(games) == 2 and games[0].headers["Red"] == command and games[1].headers["Blue"] == command
    failing = tmp_path / "fail.sgn"
    assert main(["selfplay", "-o", str(failing), "--ruleset", "ucc", "--red", "random", "--blue",
                 "ucc:" + " ".join(bot_script(tmp_path, "garbage")), "--no-progress"]) == 0
    (game,) = read_games(failing)
    assert game.headers["Termination"] == "illegal move" and game.result == "1-0"
    assert "which is no move" in game.end().comment


def test_ucc_bot_answers_the_manager_and_quits() -> None:
    proc = subprocess.Popen([*BOT, "--level", "hard"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("RED manager 10 10\n")
    proc.stdin.flush()
    rows = [proc.stdout.readline().strip() for _ in range(4)]
    setup = parse_setup(rows, RED)
    state = State.new(setup, Setup.random(UCC, 1), UCC)
    proc.stdin.write("\n".join(turn_lines(state.view(RED), 0)) + "\n")
    proc.stdin.flush()
    move = parse_move(proc.stdout.readline())
    assert move in state.generate_legal_moves()
    proc.stdin.write("QUIT\n")
    proc.stdin.flush()
    assert proc.wait(timeout=20) == 0


def test_ucc_bot_says_what_is_wrong_with_a_bad_line() -> None:
    done = subprocess.run([*BOT, "--level", "easy"], input="GREEN me 10 10\n", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1 and "RED|BLUE" in done.stderr
    done = subprocess.run([*BOT, "--level", "grandmaster"], input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown player 'grandmaster'" in done.stderr


def test_ucc_bot_gives_its_player_the_managers_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``--time-limit`` (default 2 s, the manager's -T) reaches the computer player, with or without a memory;
    0 means none; anything else is refused on the command line."""
    from strategolab.ai import ComputerPlayer, RememberingPlayer

    served: list[object] = []
    monkeypatch.setattr("strategolab.ucc.serve", lambda player, *rest: served.append(player) or 0)
    for argv, kind, limit in [([], ComputerPlayer, 2.0), (["--time-limit", "0.8"], ComputerPlayer, 0.8),
                              (["--time-limit", "0"], ComputerPlayer, None),
                              (["--memory", str(tmp_path), "--time-limit", "5"], RememberingPlayer, 5.0)]:
        assert main(["ucc-bot", "--level", "hard", *argv]) == 0
        player = served.pop()
        assert type(player) is kind and player.time_limit == limit and player.level.name == "hard"
    assert main(["ucc-bot", "--level", "random"]) == 0 and isinstance(served.pop(), RandomPlayer)
    for bad in ["-1", "soon", "nan", "inf"]:
        with pytest.raises(SystemExit) as e:
            main(["ucc-bot", "--time-limit", bad])
        assert e.value.code == 2
        assert f"--time-limit: expected a finite number of seconds, 0 or more, not {bad}" in capsys.readouterr().err


def test_serve_answers_on_a_stream_and_stops_at_quit() -> None:
    out = io.StringIO()
    assert serve(make_player("easy", 1), iter(["BLUE kit 10 10", "QUIT", "ignored"]), out) == 0
    assert len(out.getvalue().splitlines()) == 4


# -- the play controller and widget ------------------------------------------------------------------------------


def test_the_play_controller_plays_an_external_bot_and_records_its_forfeit(tmp_path: Path) -> None:
    from strategolab.controllers import PlayController

    c = PlayController("ucc", "easy", seed=1)
    c.use_opponent(lambda _level, _seed: UccEngine([*BOT, "--level", "random"], name="kit random bot"))
    assert c.opponent is not None and c.opponent.name == "kit random bot"
    c.begin()
    engine = c.opponent
    assert isinstance(engine, UccEngine) and engine.pid is not None
    c.click(sq("A4"))
    legal = c.targets
    c.click(legal[0])
    assert c.computer_reply() is not None and c.human_to_move
    assert not c.can_take_back  # the program keeps its own game: nothing can be taken back from it
    with pytest.raises(ValueError, match="cannot take moves back"):
        c.take_back()
    pid = engine.pid
    c.new_game(confirm=True)  # abandoning the match ends the program
    assert gone(pid) and c.opponent is not engine
    # A program that talks nonsense loses the match, with the reason in the record.
    c.use_opponent(lambda _level, _seed: UccEngine(bot_script(tmp_path, "garbage"), name="chatterbox"))
    c.configure(human=BLUE, first="computer")  # the protocol has Red move first
    c.begin()
    assert c.computer_reply() is None and c.phase == "over"
    assert c.outcome is not None and c.outcome.winner == BLUE and "you win (illegal move)" in c.result_text()
    assert "chatterbox forfeits: it answered 'hello there'" in c.game().end().comment
    c.new_game(confirm=True)
    c.use_opponent(None)
    assert c.opponent is not None and c.opponent.name == "computer (easy)"
    with pytest.raises(ValueError, match="command"):
        c.use_opponent(lambda _level, _seed: UccEngine(""))
    assert c.opponent.name == "computer (easy)"


def test_the_play_widget_takes_a_bot_command() -> None:
    pytest.importorskip("ipywidgets")
    from strategolab.widgets import PlayWidget

    widget = PlayWidget()
    widget.bot.value = f"{sys.executable} -m strategolab ucc-bot --level random"
    widget.use_bot.click()
    assert isinstance(widget.controller.opponent, UccEngine)
    widget.bot.value = ""
    widget.use_bot.click()
    assert not isinstance(widget.controller.opponent, UccEngine)


def test_the_tournament_benchmark_plays_an_external_bot_keeps_its_games_and_checks_the_targets(
        tmp_path: Path) -> None:
    # The kit's own bot under the name of the champion: the benchmark referees it through UccEngine, writes
    # every game, and prints the issue's target line for the pairing (whatever the games' result).
    script = Path(__file__).parent.parent / "benchmarks" / "tournament.py"
    out = tmp_path / "games.sgn"
    bot = f"{sys.executable} -m strategolab ucc-bot --level easy"
    run = subprocess.run([sys.executable, str(script), "--games", "2", "--processes", "1", "--level", "hard",
                          "--max-plies", "120", "--bot", f"peternlewis={bot}", "--bot", "absent=/nonexistent/bot",
                          "--records", str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "skipping bot absent: /nonexistent/bot is not there" in run.stderr
    assert re.search(r"^hard v peternlewis +\d+-\d+-\d+ ", run.stdout, re.M), run.stdout
    assert re.search(r"^(PASS|FAIL)  hard wins >= 80% of decided games against peternlewis", run.stdout, re.M)
    games = list(read_games(out))
    assert [g.headers["Round"] for g in games] == ["1", "2"]
    # The games were kept as they finished too (a run stopped early keeps them); that copy goes at the end.
    assert not (tmp_path / "games.sgn.partial").exists()
    assert re.search(r"^2/2 games, \d+ s; hard v peternlewis \d+-\d+-\d+$", run.stderr, re.M), run.stderr
    assert (games[0].headers["Red"], games[1].headers["Blue"]) == ("hard", "hard")
    assert all(len(g.mainline_moves()) == 120 or g.headers.get("Termination") for g in games)
    # benchmarks/losses.py reads those records battle by battle, for the player that played them all.
    losses = subprocess.run([sys.executable, str(script.parent / "losses.py"), str(out)], capture_output=True,
                            text=True, timeout=120)
    assert losses.returncode == 0, losses.stderr
    assert losses.stdout.startswith("hard: 2 games, "), losses.stdout
    assert re.search(r"^its Spy takes the enemy Marshal +\d+", losses.stdout, re.M), losses.stdout
    assert re.search(r"^pieces lost per game .*\n(\w+ +\d+\.\d\d .*\n)+\n", losses.stdout, re.M), losses.stdout
    assert re.search(r"^taken by, per game .*\n(\w+ +\d+\.\d\d +\d+\.\d\d +\d+\.\d\d +\d+%\n)+\n", losses.stdout,
                     re.M), losses.stdout
    assert re.search(r"^its Spy lost in the enemy's half +\d+", losses.stdout, re.M), losses.stdout
    # The bot played as many games, and is Red in the first one here: the default is still the kit's level.
    # (Gzipped, as the records kept in benchmarks/results are.)
    flipped = tmp_path / "flipped.sgn.gz"
    flipped.write_bytes(gzip.compress("\n".join(write_game(g) for g in reversed(games)).encode()))
    again = subprocess.run([sys.executable, str(script.parent / "losses.py"), str(flipped)], capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0 and again.stdout.startswith("hard: 2 games, "), again.stdout + again.stderr
    nobody = subprocess.run([sys.executable, str(script.parent / "losses.py"), str(out), "--player", "medium"],
                            capture_output=True, text=True, timeout=120)
    assert nobody.returncode != 0 and "'medium' played none of these games" in nobody.stderr
    broken = tmp_path / "broken.sgn"
    broken.write_text("these are not games\n", encoding="utf-8")
    bad = subprocess.run([sys.executable, str(script.parent / "losses.py"), str(broken)], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode != 0 and bad.stderr.startswith(f"{broken}: {broken}:1:1: "), bad.stderr
    # benchmarks/behaviour.py reads them too: how one player's hidden pieces behaved.
    behaviour = script.parent / "behaviour.py"
    seen = subprocess.run([sys.executable, str(behaviour), "--records", str(out), str(flipped), "--player",
                           "peternlewis"], capture_output=True, text=True, timeout=120)
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.startswith("4 games of peternlewis in 2 record file(s): its hidden pieces' steps\n")
    assert re.search(r"^close: .*\nknown piece +steps +win +tie +lose +tie/win +lose/win\n", seen.stdout, re.M)
    assert re.search(r"^flee / stay: \d+ ran, \d+ stayed$", seen.stdout, re.M), seen.stdout
    # The ratio of runs per stay has a line of its own when both kinds stayed; no run of a beaten type is no error.
    assert "runs per stay" not in seen.stdout or re.search(
        r"^  runs per stay: .*; ratio (\d+\.\d\d|- \(none that it beats ran\))$", seen.stdout, re.M), seen.stdout
    for args, error in (([str(out), "--player", "medium"], "'medium' played none of these games"),
                        ([str(broken), "--player", "hard"], f"{broken}: {broken}:1:1: "),
                        ([str(out)], "--records and --player go together")):
        refused = subprocess.run([sys.executable, str(behaviour), "--records", *args], capture_output=True,
                                 text=True, timeout=120)
        assert refused.returncode != 0 and error in refused.stderr, refused.stderr


def test_the_tournament_benchmark_plays_a_pairing_in_parts_that_are_the_whole_runs_games(tmp_path: Path) -> None:
    # --first-game K plays games K.. of a pairing with the seeds and colours they have in a whole run, so a
    # pairing too long for one sitting is played in parts that add up to it; --tally adds up their records.
    script = Path(__file__).parent.parent / "benchmarks" / "tournament.py"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=300)

    def games(name: str, *extra: str) -> list[str]:
        out = tmp_path / name
        done = run("--processes", "1", "--pairing", "easy:random", "--max-plies", "60", "--ruleset", "barrage",
                   "--records", str(out), *extra)
        assert done.returncode == 0, done.stderr
        return [write_game(g) for g in read_games(out)]

    whole = games("whole.sgn", "--games", "3")
    part = games("last.sgn", "--games", "2", "--first-game", "1")
    assert part == whole[1:]
    assert [g.headers["Round"] for g in read_games(tmp_path / "last.sgn")] == ["2", "3"]
    assert games("first.sgn", "--games", "1") == whole[:1]
    # --colour plays only the rounds in which the first-named player has that colour, as in the whole run.
    assert games("red.sgn", "--games", "3", "--colour", "red") == [whole[0], whole[2]]
    assert games("blue.sgn", "--games", "3", "--colour", "blue") == whole[1:2]
    # --rounds plays just the rounds named (the rounds where a change acts), each as in the whole run.
    assert games("some.sgn", "--rounds", "3,1") == [whole[0], whole[2]]
    assert games("range.sgn", "--rounds", "2-3", "--colour", "red") == [whole[2]]
    for bad, error in ((["--rounds", "2,x"], "'x' in '2,x' is not a round"),
                       (["--rounds", "0-2"], "rounds count from 1"),
                       (["--rounds", "3-2"], "rounds count from 1"),
                       (["--rounds", "2", "--first-game", "1"], "give it without --first-game")):
        refused = run("--pairing", "easy:random", *bad)
        assert refused.returncode != 0 and error in refused.stderr, refused.stderr

    def table(*names: str) -> list[str]:
        done = run("--tally", *(str(tmp_path / n) for n in names))
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    both, alone = table("last.sgn", "first.sgn"), table("whole.sgn")
    assert both[0] == "Tally of 3 games in 2 record file(s): barrage, seed 2026; easy v random rounds 1-3"
    assert both[1:] == alone[1:]
    assert re.search(r"^easy v random +\d+-\d+-\d+ +\d+-\d+-\d+ +\d+-\d+-\d+ ", both[2]), both
    assert "move times: not in the records" in both
    assert table("last.sgn")[0].endswith("easy v random rounds 2-3")
    # Records kept for the team are gzipped; the tally reads them as they are, and a broken one is an error.
    (tmp_path / "first.sgn.gz").write_bytes(gzip.compress((tmp_path / "first.sgn").read_bytes()))
    assert table("last.sgn", "first.sgn.gz")[1:] == alone[1:]
    (tmp_path / "cut.sgn.gz").write_bytes((tmp_path / "first.sgn.gz").read_bytes()[:-20])
    cut = run("--tally", str(tmp_path / "cut.sgn.gz"))
    assert cut.returncode != 0 and cut.stderr.startswith(f"--tally: {tmp_path / 'cut.sgn.gz'}: "), cut.stderr
    # A round in two files is an error that names both; so is a file the benchmark did not write.
    twice = run("--tally", str(tmp_path / "whole.sgn"), str(tmp_path / "last.sgn"))
    assert twice.returncode != 0
    assert f"round 2 of easy v random, seed 2026, is both in {tmp_path / 'whole.sgn'}, game 2 and in " \
           f"{tmp_path / 'last.sgn'}, game 1" in twice.stderr
    other = tmp_path / "other.sgn"
    other.write_text(whole[0].replace("tournament easy v random", "a friendly"), encoding="utf-8")
    foreign = run("--tally", str(other))
    assert foreign.returncode != 0 and f"{other}, game 1: not a game of this benchmark" in foreign.stderr
    # --replacing: a round played again (here with a shorter move limit, as a changed version would) takes the
    # place of that round's game in the --tally records; it must replace a round they hold, once.
    short = games("short.sgn", "--rounds", "2", "--max-plies", "4")
    assert short != whole[1:2]
    assert games("third.sgn", "--rounds", "3") == whole[2:]
    replaced = run("--tally", str(tmp_path / "whole.sgn"), "--replacing", str(tmp_path / "short.sgn"))
    assert replaced.returncode == 0, replaced.stderr
    lines = replaced.stdout.splitlines()
    assert lines[0] == ("Tally of 3 games in 1 record file(s) (1 of them from 1 --replacing file(s)): barrage, "
                        "seed 2026; easy v random rounds 1-3")
    assert lines[1:] == table("first.sgn", "short.sgn", "third.sgn")[1:]
    assert lines[2] != alone[2]  # round 2's game, cut at 4 plies, is a draw by the move limit
    for files, error in (
            (["--tally", str(tmp_path / "first.sgn"), "--replacing", str(tmp_path / "short.sgn")],
             f"--replacing: {tmp_path / 'short.sgn'}, game 1: round 2 of easy v random, seed 2026, is in none of "
             f"the --tally records, so it replaces nothing"),
            (["--tally", str(tmp_path / "whole.sgn"), "--replacing", str(tmp_path / "short.sgn"),
              str(tmp_path / "last.sgn")], "--replacing: round 2 of easy v random, seed 2026, is both in"),
            (["--replacing", str(tmp_path / "short.sgn")], "give it with --tally")):
        refused = run(*files)
        assert refused.returncode != 0 and error in refused.stderr, refused.stderr
