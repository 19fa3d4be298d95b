"""The opponent memory: what a game showed of the enemy's setup, the prior it gives the next game, its files
(which a bad one never breaks), and the proof that remembering never reads hidden identities."""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest
from conftest import make, permute_hidden, random_game

from strategolab import BLUE, CLASSIC, RED, Move, Setup, State, parse_square
from strategolab.ai import ComputerPlayer, RememberingPlayer, SetupMemory, shown_setup
from strategolab.ai.memory import NEW_SETUP, RECALL, mixture
from strategolab.board import geometry
from strategolab.cli import main
from strategolab.players import play_game
from strategolab.rules import UCC
from strategolab.setup_library import book, placement_weights


class FixedSetup(ComputerPlayer):
    """A program that deploys one setup every game (as many competition bots do)."""

    def __init__(self, setup: Setup, seed: int = 0) -> None:
        super().__init__("medium", seed=seed, name="fixed")
        self.setup = setup

    def choose_setup(self, ruleset, rng):  # type: ignore[no-untyped-def]
        return self.setup


def spy_index(setup: Setup) -> int:
    return next(i for i, k in enumerate(setup.pieces) if k.name == "Spy")


def test_a_game_shows_the_types_and_starting_squares_of_the_pieces_that_fought() -> None:
    state = make("A1:rF E4:r9 E6:rX A10:bF E7:b3 J7:b2", turn=RED)
    state.push(Move.parse("E6-E7"))  # the Marshal takes the Miner that started on E7
    state.push(Move.parse("J7-J6"))  # one step: shows nothing
    squares = geometry(CLASSIC).setup_squares[BLUE]
    shown = shown_setup(state.view(RED))
    assert {squares[i]: k.name for i, k in shown.items()} == {parse_square("E7"): "Miner"}
    state.push(Move.parse("E7-E8"))
    state.push(Move.parse("J6-J2"))  # a run of four squares: a Scout, which started on J7
    shown = shown_setup(state.view(RED))
    assert {squares[i]: k.name for i, k in shown.items()} == {parse_square("E7"): "Miner",
                                                              parse_square("J7"): "Scout"}
    assert shown_setup(state.view(BLUE)) == {}  # Red's Marshal started outside Red's setup rows here


@pytest.mark.parametrize("side", [RED, BLUE])
def test_indices_are_in_the_owner_reading_order_so_red_and_blue_games_agree(side: int) -> None:
    setup = Setup.random(CLASSIC, random.Random(3))
    placed = setup.placements(side)
    squares = geometry(CLASSIC).setup_squares[side]
    assert [placed[sq].name for sq in squares] == [k.name for k in setup.pieces]


def test_one_remembered_setup_moves_the_prior_of_the_squares_it_showed() -> None:
    rs = CLASSIC
    w = placement_weights(rs)
    spy = next(j for j, k in enumerate(rs.piece_types) if k.name == "Spy")
    front = 35  # a front-row square, where real players seldom put the Spy
    out = mixture(w, [{front: spy}], {})
    share = 1.0 / (1.0 + NEW_SETUP)
    total = sum(w[k][front] for k in range(len(w)))
    stat = w[spy][front] / total
    assert out[spy][front] == pytest.approx(w[spy][front] + share * total * (RECALL + (1 - RECALL) * stat - stat))
    assert out[spy][front] > 0.25 > 10 * w[spy][front]
    untouched = 3
    assert [row[untouched] for row in out] == pytest.approx([row[untouched] for row in w])


def test_what_this_game_shows_picks_the_remembered_setup_it_agrees_with() -> None:
    """A mirrored pair of remembered setups: once a piece this game showed agrees with one, the other's Spy
    square hardly counts."""
    rs = CLASSIC
    w = placement_weights(rs)
    kinds = {k.name: j for j, k in enumerate(rs.piece_types)}
    a = {33: kinds["Spy"], 32: kinds["Major"], 0: kinds["Flag"]}
    b = {36: kinds["Spy"], 37: kinds["Major"], 9: kinds["Flag"]}
    before = mixture(w, [a, b], {})
    assert before[kinds["Spy"]][33] == pytest.approx(before[kinds["Spy"]][36], rel=0.1)
    after = mixture(w, [a, b], {37: kinds["Major"]})
    assert after[kinds["Spy"]][36] > 0.6 > 0.05 > after[kinds["Spy"]][33]
    assert after[kinds["Flag"]][9] > 0.6


def test_the_memory_learns_a_fixed_setup_over_games(tmp_path: Path) -> None:
    rs = UCC
    fixed = Setup.random(rs, random.Random(7))
    memory = SetupMemory(tmp_path)
    learner = RememberingPlayer(memory, "medium", seed=1)
    for game in range(3):
        red, blue = (learner, FixedSetup(fixed)) if game % 2 == 0 else (FixedSetup(fixed), learner)
        play_game(red, blue, rs, seed=game, max_plies=300)
    files = list(tmp_path.glob("*/*.json"))
    assert len(files) == 3 and all(json.loads(f.read_text())["opponent"] == "fixed" for f in files)
    remembered = memory.games("fixed", rs)
    assert len(remembered) == 3
    for setup in remembered:  # only what the games showed, and all of it right
        assert setup and all(rs.piece_types[k].name == fixed.pieces[i].name for i, k in setup.items())
    # A fourth game: before any battle the learner already expects the fixed setup's pieces where they stand.
    learner.start_game(RED, "fixed")
    start = State.new(learner.choose_setup(rs, random.Random(0)), fixed, rs)
    view = start.view(RED)
    beliefs, plain = learner.beliefs(view), ComputerPlayer("medium", seed=1).beliefs(view)
    squares = geometry(rs).setup_squares[BLUE]
    seen = [i for i in range(len(squares)) if any(i in setup for setup in remembered)]
    assert len(seen) >= 12, len(seen)  # how many battles three short games have varies: 17 to 20 of 40

    def mean_truth(b: dict) -> float:  # the mean belief in the type that is really there
        return sum(b[squares[i]][fixed.pieces[i].name] for i in seen) / len(seen)

    ours, theirs = mean_truth(beliefs), mean_truth(plain)
    assert ours > 0.3 and ours > 2.5 * theirs, (ours, theirs)  # measured: 0.37 against 0.13
    learner.choose_move(view)
    assert "expects a setup like the 3 setups of fixed" in str(learner.last_reasoning)


def test_without_an_opponent_name_or_a_memory_it_plays_as_the_computer_does(tmp_path: Path) -> None:
    state = random_game(CLASSIC, 5, 30)
    while state.outcome() is not None:
        state.pop()
    view = state.view(state.turn)
    plain, remembering = ComputerPlayer("hard", seed=2), RememberingPlayer(tmp_path, "hard", seed=2)
    assert plain.choose_move(view) == remembering.choose_move(view)  # no start_game: no opponent to remember
    remembering.start_game(state.turn, "nobody yet")
    assert plain.choose_move(view) == remembering.choose_move(view)  # nothing remembered of this one
    assert plain.beliefs(view) == remembering.beliefs(view)


def test_bad_files_are_skipped_with_a_warning_and_left_alone(tmp_path: Path) -> None:
    rs = UCC
    memory = SetupMemory(tmp_path)
    kept = memory.record("bot", rs, "20260101-000000-good", {35: rs.piece_types[-2]})
    folder = kept.parent
    bad = {
        "a-text.json": "not json at all",
        "b-bomb.json": "[" * 60000,
        "c-huge.json": json.dumps({"x": "y" * 70000}),
        "d-format.json": json.dumps({"format": "something else", "version": 1}),
        "e-square.json": json.dumps({"format": "strategolab-setup-memory", "version": 1, "opponent": "bot",
                                     "ruleset": rs.name, "shown": {"99": "Spy"}}),
        "f-type.json": json.dumps({"format": "strategolab-setup-memory", "version": 1, "opponent": "bot",
                                   "ruleset": rs.name, "shown": {"3": "Dragon"}}),
        "g-bytes.json": b"\xff\xfe\x00garbage",
    }
    for name, text in bad.items():
        (folder / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    (folder / "h-other-ruleset.json").write_text(json.dumps(
        {"format": "strategolab-setup-memory", "version": 1, "opponent": "bot", "ruleset": "classic",
         "shown": {"3": "Spy"}}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = memory.games("bot", rs)
    assert games == [{35: len(rs.piece_types) - 2}]
    assert len(caught) == len(bad)
    assert all(str(folder) in str(c.message) for c in caught)
    assert sorted(p.name for p in folder.iterdir()) == sorted([kept.name, *bad, "h-other-ruleset.json"])


def test_opponent_names_that_are_paths_get_folders_of_their_own(tmp_path: Path) -> None:
    memory = SetupMemory(tmp_path)
    a = memory.path("/tmp/bots/peternlewis", "g")
    b = memory.path("/srv/other/peternlewis", "g")
    c = memory.path("../../etc/passwd", "g")
    assert a.parent != b.parent and a.parent.parent == tmp_path == c.parent.parent
    assert "peternlewis" in a.parent.name and "/" not in c.parent.name


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_remembering_never_reads_hidden_identities(tmp_path: Path, level: str) -> None:
    """Two games that differ only in identities the player has not seen lead to the same choice and the same
    memory, with a memory of past games in use."""
    rs = CLASSIC
    memories = SetupMemory(tmp_path / "a"), SetupMemory(tmp_path / "b")  # each game writes to its own
    for g in range(3):
        setup = Setup.random(rs, random.Random(100 + g))
        for memory in memories:
            memory.record("them", rs, f"2026010{g}-old", {i: setup.pieces[i] for i in range(0, 40, 3)})
    compared = 0
    for seed, plies in enumerate((20, 40, 80)):
        state = random_game(rs, seed, plies)
        while state.outcome() is not None:
            state.pop()
        me = state.turn
        twin = permute_hidden(state, me, random.Random(seed))
        if twin.board == state.board:
            continue
        first, second = (RememberingPlayer(memory, level, seed) for memory in memories)
        first.start_game(me, "them")
        second.start_game(me, "them")
        assert first.choose_move(state.view(me)) == second.choose_move(twin.view(me))
        assert first.beliefs(state.view(me)) == second.beliefs(twin.view(me))
        assert "setups of them it remembers" in str(first.last_reasoning)
        shown = [json.loads(p.memory.path("them", p.game).read_text())["shown"] for p in (first, second)]
        assert shown[0] == shown[1]
        compared += 1
    assert compared >= 2


def test_ucc_bot_memory_needs_a_computer_level_and_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    def run(*argv: str) -> tuple[int, str]:
        with pytest.raises(SystemExit) as e:
            main(["ucc-bot", *argv])
        return int(e.value.code or 0), capsys.readouterr().err

    code, err = run("--level", "random", "--memory", str(tmp_path))
    assert code == 2 and "--memory needs a computer level (easy, medium, hard), not 'random'" in err
    f = tmp_path / "file"
    f.write_text("x")
    code, err = run("--memory", str(f))
    assert code == 2 and f"--memory {f}: not a folder" in err


def test_a_memory_it_cannot_write_warns_and_the_game_goes_on(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the memory should be")
    learner = RememberingPlayer(blocker, "medium", seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state = play_game(learner, ComputerPlayer("easy", seed=2), UCC, seed=1, max_plies=120)
    assert len(state.move_stack) > 0
    texts = [str(c.message) for c in caught]
    assert len(texts) == 1 and "cannot keep this game in the memory" in texts[0], texts
    assert blocker.read_text() == "a file where the memory should be"


def test_hard_knows_the_setup_library_and_recognises_a_plan_from_what_a_game_shows() -> None:
    """Hard (Level.book) weighs each plan of the setup library and its mirror image against real players'
    statistics by the types the game has shown: in a recorded isf game against medium's twin-fortress it names
    the plan and expects the Flag where the plan has it; against a setup of the statistics' own the plans soon
    weigh nothing, and medium (no book) and a lesson position (no whole setup) use the statistics alone."""
    import gzip

    from strategolab.ai.beliefs import read_history
    from strategolab.ai.player import _book, _fresh_army
    from strategolab.notation import read_games
    from strategolab.rules import get_ruleset
    from strategolab.setup_library import library, mirrored, statistical_setup

    isf = get_ruleset("isf")
    names = [name for name, _ in book(isf)]
    assert len(names) == 2 * len(library(isf)) and "twin-fortress (mirrored)" in names
    assert dict(book(isf))["twin-fortress (mirrored)"] == mirrored(library(isf)["twin-fortress"])
    records = Path(__file__).parent.parent / "benchmarks" / "results" / "hard-a4db27f" / "ladder-isf_r1-50.sgn.gz"
    with gzip.open(records, "rt") as file:
        game = next(g for g in read_games(file) if g.headers["Round"] == "23")  # medium is Blue, in twin-fortress
    assert game.headers["Blue"] == "medium"
    plan = library(isf)["twin-fortress"]
    state = game.state()
    flag = next(s for s in state.squares(BLUE) if state.piece_at(s).type.is_flag)  # type: ignore[union-attr]
    blue = str(Setup.from_placements({s: state.piece_at(s).type for s in state.squares(BLUE)},  # type: ignore
                                     BLUE, isf))
    assert blue in (str(plan), str(mirrored(plan)))
    for move in list(game.mainline_moves())[:120]:  # hard (Red) to move at ply 120, battles fought
        state.push(move)
    assert state.turn == RED
    view = state.view(RED)
    assert _fresh_army(view, read_history(view))
    hard, medium = ComputerPlayer("hard", seed=1), ComputerPlayer("medium", seed=1)
    hard.choose_move(view)
    assert hard.last_reasoning is not None and "twin-fortress" in hard.last_reasoning.memory
    assert "twin-fortress" in str(hard.last_reasoning)
    name, odds = hard.last_reasoning.plan or ("", 0.0)
    assert name == ("twin-fortress" if blue == str(plan) else "twin-fortress (mirrored)") and odds >= 0.5
    from strategolab.controllers import explain  # the learner's words say it too, of "your" setup

    words = explain(hard.last_reasoning, "The computer")
    assert "It takes your setup for the ready-made 'twin-fortress'" in words and f"({odds:.0%}," in words
    assert hard.beliefs(view)[flag]["Flag"] > 0.9 > medium.beliefs(view)[flag]["Flag"]
    medium.choose_move(view)
    assert medium.last_reasoning is not None and medium.last_reasoning.memory == ""
    assert medium.last_reasoning.plan is None and "ready-made" not in explain(medium.last_reasoning, "The computer")
    # A setup drawn from the statistics: what a game shows leaves the plans nothing.
    other = State.new(statistical_setup(isf, 5), statistical_setup(isf, 6), isf)
    _, mix = _book(isf)
    index = {k.name: j for j, k in enumerate(isf.piece_types)}
    drawn = statistical_setup(isf, 6)
    shown = {i: index[k.name] for i, k in enumerate(drawn.pieces) if k is not None and i % 4 == 0}
    assert mix.posterior({})[0] == pytest.approx(0.9, abs=0.01)  # a tenth of the prior is the plans'
    assert mix.posterior(shown)[0] > 0.99
    assert _fresh_army(other.view(RED), read_history(other.view(RED)))
    hard.choose_move(other.view(RED))  # no plan named (nor one left over from the game before)
    assert hard.last_reasoning is not None and hard.last_reasoning.plan is None and not hard.last_reasoning.memory
    lesson = make("A1:rF E4:rX A10:bF E5:bB")
    assert not _fresh_army(lesson.view(RED), read_history(lesson.view(RED)))


def test_the_book_rules_out_a_plan_that_leaves_empty_a_square_the_enemy_used() -> None:
    """Barrage's plans fill 8 of the 40 squares of the zone, and where the enemy set its pieces is public: at
    the first move only the plans with pieces on exactly those squares keep their odds; a setup like a plan
    but with one piece moved to a square the plan leaves empty rules that plan out."""
    from strategolab.ai.beliefs import read_history
    from strategolab.ai.player import _book, book_odds
    from strategolab.rules import get_ruleset
    from strategolab.setup_library import statistical_setup

    barrage = get_ruleset("barrage")
    names, _ = _book(barrage)
    plans = dict(book(barrage))
    red = statistical_setup(barrage, 1)
    for j, name in enumerate(names, 1):
        blue = plans[name]
        view = State.new(red, blue, barrage).view(RED)
        odds = book_odds(view, read_history(view))[1]
        filled = {i for i, k in enumerate(blue.pieces) if k is not None}
        alike = [k for k, other in enumerate(names, 1)
                 if {i for i, p in enumerate(plans[other].pieces) if p is not None} == filled]
        assert odds[j] > 0 and sum(odds) == pytest.approx(1.0)
        assert all(odds[k] == 0 for k in range(1, len(odds)) if k not in alike), name
        moved = list(blue.pieces)  # one piece moved to a square the plan leaves empty
        i, e = min(filled), min(set(range(len(moved))) - filled)
        moved[e], moved[i] = moved[i], None
        view = State.new(red, Setup(barrage, tuple(moved)), barrage).view(RED)
        assert book_odds(view, read_history(view))[1][j] == 0, name
