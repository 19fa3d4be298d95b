"""The drawer draws what the engine says, on the right squares, and never a hidden rank.

Most tests read the drawing back: every piece, marker and overlay is a :class:`strategolab.draw.Shape` in a
named layer of the board (``board.drawn(layer, role)``), so a test can ask which rank glyph stands on which
square, and check the glyph outline itself against matplotlib's outline of the expected text.  A few
reference images catch what reading artists cannot (colours, sizes, overlaps): they are compared pixel by
pixel with a tolerance.  After an intended change of the pictures, regenerate them and look at them:

    STRATEGOLAB_UPDATE_REFERENCES=1 python -m pytest tests/test_draw.py -k reference

which rewrites ``tests/reference/*.png`` (then view the files before committing them).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

mpl = pytest.importorskip("matplotlib")
np = pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")

import matplotlib.style  # noqa: E402

import strategolab as sl  # noqa: E402
from strategolab import BLUE, RED, Piece, State, draw  # noqa: E402
from strategolab.board import parse_square, square_name  # noqa: E402
from strategolab.rules import BattleResult  # noqa: E402

REFERENCE = Path(__file__).parent / "reference"
UPDATE = os.environ.get("STRATEGOLAB_UPDATE_REFERENCES") == "1"


def pieces(spec: str, ruleset: str = "classic") -> State:
    """A position from ``"E4:rMarshal B10:bFlag'!"`` (``'`` moved, ``!`` revealed), Red to move."""
    rs = sl.get_ruleset(ruleset)
    state = State.empty(rs)
    for token in spec.split():
        name, _, code = token.partition(":")
        kind = code.rstrip("'!")
        state.set_piece(name, Piece(RED if kind[0] == "r" else BLUE, rs.piece_type(kind[1:])),
                        moved="'" in code, revealed="!" in code)
    return state


LESSON = ("A1:rBomb B1:rFlag C1:rBomb B2:rScout D3:rMiner' F3:rSpy! J4:rSergeant'! E4:rMarshal "
          "A10:bBomb B10:bFlag I10:bBomb J9:bMiner D8:bCaptain E7:bGeneral' H7:bScout F5:bColonel'")


@pytest.fixture
def game() -> State:
    """Red's Marshal steps up, Blue's Colonel attacks it and loses; Red to move."""
    state = pieces(LESSON)
    state.push_checked("E4-E5")
    battle = state.push_checked("F5-E5")
    assert battle is not None and battle.result == BattleResult.DEFENDER_WINS
    return state


def centre(shape: draw.Shape) -> tuple[float, float]:
    lo, hi = shape.path.vertices.min(axis=0), shape.path.vertices.max(axis=0)
    return (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2


def where(board: draw.BoardArtists, layer: str, role: str) -> dict[str, str]:
    """Square name -> text (or role) of each shape of a role, located by where its outline actually is."""
    out = {}
    for _, shape in board.drawn(layer, role):
        sq = board.square_at(*centre(shape))
        assert sq is not None, f"a {role} shape is off the board"
        out[square_name(sq)] = shape.text or role
    return out


def normalised(vertices: np.ndarray) -> np.ndarray:
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    return (vertices - lo) / (hi - lo).max()


def assert_glyphs(shape: draw.Shape, text: str, bold: bool = True) -> None:
    """The outline drawn is matplotlib's own outline of ``text`` (any size, anywhere)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    expected = TextPath((0, 0), text, size=1, prop=FontProperties(family="DejaVu Sans",
                                                                  weight="bold" if bold else "normal"))
    assert shape.path.vertices.shape == expected.vertices.shape, f"drawn outline is not {text!r}"
    assert np.allclose(normalised(shape.path.vertices), normalised(expected.vertices), atol=1e-6)


# -- import hygiene -------------------------------------------------------------------------------------------


def test_importing_the_package_or_the_drawer_never_imports_pyplot() -> None:
    code = ("import sys, strategolab as sl\n"
            "assert 'matplotlib' not in sys.modules, 'import strategolab imported matplotlib'\n"
            "from strategolab import draw\n"
            "draw.png(sl.State.random(seed=1)); draw.attack_table_figure().png()\n"
            "assert 'matplotlib.pyplot' not in sys.modules, 'the drawer imported pyplot'\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


# -- what stands where ---------------------------------------------------------------------------------------


def test_every_piece_shows_its_rank_on_its_own_square(game: State) -> None:
    board = draw.draw(game)
    expected = {square_name(sq): game.piece_at(sq).type.label("modern") for sq in game.squares()}
    assert where(board, "pieces", "label") == expected
    assert board.labels() == expected
    assert len(board.drawn("pieces", "tile")) == len(expected)
    for sq, shape in board.drawn("pieces", "label"):
        assert_glyphs(shape, expected[square_name(sq)])


def test_tiles_tell_the_armies_apart_without_colour(game: State) -> None:
    board = draw.draw(game)
    red, blue = draw.ARMIES
    for sq, tile in board.drawn("pieces", "tile"):
        style = draw.ARMIES[game.owner_at(sq)]
        assert (tile.face, tile.edge) == (style.face, style.edge)
    # In greyscale: Red is a dark tile with light ink, Blue a light tile with dark ink and a heavier frame.
    grey = {k: draw._luminance(mpl.colors.to_rgba(c)) for k, c in
            (("rf", red.face), ("ri", red.ink), ("bf", blue.face), ("bi", blue.ink))}
    assert grey["rf"] < 0.4 < grey["bf"] and grey["ri"] > 0.8 and grey["bi"] < 0.2
    assert blue.edge_width > 2 * red.edge_width


def test_symbols_for_flag_and_bombs(game: State) -> None:
    board = draw.draw(game)
    assert set(where(board, "pieces", "flag")) == {"B1", "B10"}
    assert set(where(board, "pieces", "bomb")) == {"A1", "C1", "A10", "I10"}
    flag = board.drawn("pieces", "flag")[0][1]
    assert_glyphs(flag, "⚑", bold=False)


def test_a_flipped_board_puts_each_piece_on_the_mirrored_square(game: State) -> None:
    plain, flipped = draw.draw(game), draw.draw(game, flip=True)
    assert where(flipped, "pieces", "label") == where(plain, "pieces", "label")
    a1, j10 = parse_square("A1"), parse_square("J10")
    assert plain.origin(a1) == (0, 0) and flipped.origin(j10) == (0, 0) and flipped.origin(a1) == (9, 9)


def test_notation_old_and_modern() -> None:
    state = pieces("E4:rMarshal E7:bScout A1:rGeneral", "original-1961")
    assert draw.draw(state).labels() == {"E4": "1", "E7": "9", "A1": "2"}  # the rule set's own numbering
    assert draw.draw(state, notation="modern").labels() == {"E4": "10", "E7": "2", "A1": "9"}


def test_coordinates_follow_the_board() -> None:
    board = draw.draw(sl.POCKET)
    texts = [shape.text for _, shape in board.drawn("coords", "coord")]
    assert texts == list("ABCDEF") + [str(r) for r in range(1, 7)]
    assert not board.drawn("pieces")
    classic = draw.draw(sl.CLASSIC)
    assert [s.text for _, s in classic.drawn("coords", "coord")][-1] == "10"
    assert len([a for a in classic.ax.patches if a.get_gid() == "lake"]) == 8
    assert not [a for a in board.ax.patches if a.get_gid() == "lake"]


# -- views: nothing hidden is ever drawn ----------------------------------------------------------------------


def test_a_view_shows_unknown_enemy_pieces_as_question_marks(game: State) -> None:
    view = game.view(RED)
    board = draw.draw(view)
    labels = where(board, "pieces", "label")
    for sq in game.squares(BLUE):
        name = square_name(sq)
        if game.is_revealed(sq):
            assert labels[name] == game.piece_at(sq).type.label("modern")
        else:
            assert labels[name] == "?", f"{name} is hidden from Red but drawn as {labels[name]!r}"
    for sq in game.squares(RED):
        assert labels[square_name(sq)] == game.piece_at(sq).type.label("modern")
    # No symbol gives a hidden piece away either.
    assert set(where(board, "pieces", "flag")) == {"B1"}
    assert set(where(board, "pieces", "bomb")) == {"A1", "C1"}


def test_a_view_draws_the_same_pixels_whatever_the_hidden_pieces_are() -> None:
    """Two games that differ only in Blue's hidden identities look identical from Red's side."""
    one = pieces(LESSON)
    other = pieces(LESSON.replace("J9:bMiner", "J9:bCaptain").replace("D8:bCaptain", "D8:bMiner")
                   .replace("H7:bScout", "H7:bGeneral").replace("E7:bGeneral'", "E7:bScout'"))
    for state in (one, other):
        state.push_checked("E4-E5")
        state.push_checked("F5-E5")
        state.push_checked("B2-B9")  # a Scout run: Red's Scout is revealed to Blue
    assert draw.draw(one).labels() != draw.draw(other).labels()
    assert np.array_equal(draw.draw(one.view(RED)).rgba(), draw.draw(other.view(RED)).rgba())
    assert not np.array_equal(draw.draw(one.view(BLUE)).rgba(), draw.draw(other.view(BLUE)).rgba())


# -- markers ----------------------------------------------------------------------------------------------


def test_moved_and_revealed_markers_stand_where_the_state_says(game: State) -> None:
    board = draw.draw(game)
    moved = {square_name(s) for s in game.squares() if game.has_moved(s)}
    revealed = {square_name(s) for s in game.squares() if game.is_revealed(s)}
    assert moved == {"D3", "J4", "E7", "E5"} and revealed == {"F3", "J4", "E5"}
    assert set(where(board, "pieces", "moved")) == moved
    assert set(where(board, "pieces", "revealed")) == revealed


def test_blue_sees_every_red_piece_as_unknown_at_the_start() -> None:
    state = sl.State.random(seed=5)
    board = draw.draw(state.view(BLUE))
    labels = where(board, "pieces", "label")
    assert {labels[square_name(sq)] for sq in state.squares(RED)} == {"?"}
    assert len(labels) == 2 * sl.CLASSIC.army_size


def test_a_view_dots_only_the_enemy_pieces_that_moved(game: State) -> None:
    assert set(where(draw.draw(game.view(RED)), "pieces", "moved")) == {"E7"}
    assert set(where(draw.draw(game.view(BLUE)), "pieces", "moved")) == {"D3", "J4", "E5"}
    assert not draw.draw(game, moved_dots=False).drawn("pieces", "moved")


def test_last_move_arrow_and_battle_badge(game: State) -> None:
    board = draw.draw(game)
    assert board.arrow is not None
    start, end = board.arrow._posA_posB
    assert board.square_at(*start) == parse_square("F5") and board.square_at(*end) == parse_square("E5")
    assert where(board, "under", "last-from") == {"F5": "last-from"}
    assert where(board, "under", "battle") == {"E5": "battle"}
    ranks = [shape.text for _, shape in board.drawn("over", "battle-rank")]
    assert ranks == ["8", "10"]  # attacker first: Blue's Colonel struck Red's Marshal
    assert len(board.drawn("over", "battle-loser")) == 1  # the Colonel lost
    assert "Blue Colonel loses to Red Marshal on E5" in board.caption
    quiet = draw.draw(game, last_move=False)
    assert quiet.arrow is None and not quiet.drawn("under") and not quiet.drawn("over")


def test_both_die_strikes_out_both_ranks() -> None:
    state = pieces("E4:rMajor E5:bMajor A1:rFlag J10:bFlag")
    state.push_checked("E4-E5")
    board = draw.draw(state)
    assert len(board.drawn("over", "battle-loser")) == 2
    assert where(board, "under", "battle") == {"E5": "battle"} and "E5" not in board.labels()


def test_highlighted_targets_and_selection(game: State) -> None:
    scout = parse_square("B2")
    targets = game.legal_targets(scout)
    board = draw.draw(game, selected="B2", highlight=targets)
    assert set(where(board, "over", "target")) == {square_name(t) for t in targets}
    assert "B10" in where(board, "over", "target")  # the Flag, an attack: a ring, not a dot
    rings = [sq for sq, s in board.drawn("over", "target") if s.face == draw.NONE]
    assert rings == [parse_square("B10")]
    assert set(where(board, "over", "selected")) == {"B2"}


# -- updating in place ------------------------------------------------------------------------------------


def test_update_redraws_only_the_squares_a_move_changed(game: State) -> None:
    board = draw.draw(game)
    figure, collection = board.figure, board.layers["pieces"]
    after = game.copy()
    after.push_checked("B2-B8")
    changed = board.update(after)
    assert changed == {parse_square("B2"), parse_square("B8")}
    assert board.figure is figure and board.layers["pieces"] is collection  # the same artists, updated
    fresh = draw.draw(after)
    assert board.labels() == fresh.labels() and board.caption == fresh.caption
    assert np.array_equal(board.rgba(), fresh.rgba())
    assert board.update(after) == set()


def test_update_to_another_rule_set_rebuilds_the_board(game: State) -> None:
    board = draw.draw(game)
    board.update(sl.State.random("pocket", seed=2))
    assert board.ruleset is sl.POCKET
    assert [s.text for _, s in board.drawn("coords", "coord")][:6] == list("ABCDEF")
    with pytest.raises(TypeError, match="unknown drawing options"):
        board.update(game, colour="red")


def test_a_board_can_be_drawn_on_a_given_axes() -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4))
    left, right = fig.subplots(1, 2)
    a = draw.draw(sl.State.random(seed=3), ax=left)
    b = draw.draw(sl.State.random(seed=3).view(BLUE), ax=right)
    assert a.figure is fig and b.figure is fig and a.ax is left and b.ax is right
    assert b.flip and set(b.labels().values()) >= {"?"}
    assert draw.Drawing(fig, left).png().startswith(b"\x89PNG")


# -- setups, heatmaps, tables, games ------------------------------------------------------------------------


def test_a_setup_is_drawn_in_its_owners_rows() -> None:
    setup = sl.Setup.random("classic", 7)
    for player in (RED, BLUE):
        board = draw.draw(setup, player=player)
        expected = {square_name(sq): k.label("modern") for sq, k in setup.placements(player).items()}
        assert where(board, "pieces", "label") == expected
        assert board.flip == (player == BLUE)
        assert {a.get_gid() for a in board.ax.patches} >= {"zone-red", "zone-blue"}
    partial = sl.Setup(setup.ruleset, (None, *setup.pieces[1:]))
    missing = setup.pieces[0]
    assert f"to place: {missing.label('modern')} ×1" in draw.draw(partial).caption


def test_heatmap_values_labels_and_orientation() -> None:
    values = np.full((6, 6), np.nan)
    values[0, 0] = 0.25  # A1
    values[5, 2] = 0.75  # C6
    board = draw.heatmap(values, sl.POCKET)
    assert where(board, "heat-labels", "heat-label") == {"A1": "25%", "C6": "75%"}
    cells = {square_name(sq): s.face for sq, s in board.drawn("heat", "heat")}
    assert draw._luminance(cells["A1"]) < draw._luminance(cells["C6"])  # cividis: darker is lower
    assert board.colorbar is not None
    assert board.colorbar.formatter(0.5, 0) == "50%"  # the colour bar speaks the labels' language
    counts = draw.heatmap({"E4": 3, "E5": 12}, colorbar=False)
    assert where(counts, "heat-labels", "heat-label") == {"E4": "3", "E5": "12"} and counts.colorbar is None
    with pytest.raises(ValueError, match="shape"):
        draw.heatmap(np.zeros((10, 10)), sl.POCKET)
    with pytest.raises(ValueError, match="off the pocket board"):
        draw.heatmap({"J10": 1.0}, sl.POCKET)


def test_a_setup_heatmap_draws_the_setup_zone_only() -> None:
    values = {f"{c}{r}": 0.1 for c in "ABCDEFGHIJ" for r in (1, 2, 3, 4)}
    full = draw.heatmap(values, colorbar=False)
    zone = draw.heatmap(values, colorbar=False, rows=4)
    assert zone.shown_rows == 4 and full.shown_rows == 10
    assert zone.rgba().shape[0] < 0.5 * full.rgba().shape[0]  # six empty enemy rows fewer
    assert where(zone, "heat-labels", "heat-label") == where(full, "heat-labels", "heat-label")
    frames = [p for p in zone.ax.patches if p.get_gid() == "zone-red-frame"]
    assert len(frames) == 1 and frames[0].get_zorder() > 0.5  # drawn above the heat, where it shows
    assert not [p for p in zone.ax.patches if p.get_gid() in ("zone-blue", "lake")]
    assert {s.text for _, s in zone.drawn("coords")} >= {"1", "4"} and "5" not in {s.text for _, s in
                                                                                  zone.drawn("coords")}
    with pytest.raises(ValueError, match="rows=11"):
        draw.heatmap(values, rows=11)


def test_setups_figure_draws_small_boards_with_captions() -> None:
    setups = [sl.Setup.random("classic", seed) for seed in range(4)]
    fig = draw.setups_figure([str(s) for s in setups], [f"setup {i}" for i in range(4)], columns=2)
    axes = fig.figure.axes
    assert len(axes) == 4 and fig.rgba().shape[1] > fig.rgba().shape[0]
    assert fig.figure.get_size_inches()[0] == pytest.approx(2 * 10.4 * draw.SQUARE_INCHES * 0.6)
    with pytest.raises(ValueError, match="one per setup"):
        draw.setups_figure(setups, ["only one"])
    with pytest.raises(TypeError, match="list of setups"):
        draw.setups_figure(setups[0])  # type: ignore[arg-type]


def test_heatmap_over_a_view_keeps_pieces_and_values_apart() -> None:
    view = sl.State.random(seed=4).view(RED)
    probs = {sq: 0.1 for sq in view.unknown_squares()}
    board = draw.heatmap(probs, view, fmt="{:.0%}")
    assert set(where(board, "heat-labels", "heat-label")) == {square_name(s) for s in view.unknown_squares()}
    assert set(where(board, "pieces", "label").values()) >= {"?"}


def test_attack_table_figure_is_the_engines_table() -> None:
    for name in ("classic", "pocket", "original-1961"):
        table = sl.attack_table(name)
        fig = draw.attack_table_figure(name)
        cells = {t.get_gid(): t.get_text() for t in fig.ax.texts if (t.get_gid() or "").startswith("cell:")}
        letter = {BattleResult.ATTACKER_WINS: "W", BattleResult.DEFENDER_WINS: "L", BattleResult.BOTH_DIE: "="}
        assert cells == {f"cell:{a.name}:{d.name}": letter[r] for a, d, r in table}
    specials = [p for p in draw.attack_table_figure("classic").ax.patches if p.get_gid() == "special"]
    assert len(specials) == 2  # the Spy on the Marshal, the Miner on a Bomb


def test_battle_figure_reports_the_engines_verdict() -> None:
    texts = {t.get_gid(): t.get_text() for t in draw.battle_figure("Spy", "Marshal").ax.texts if t.get_gid()}
    assert texts["caption"] == "Spy (S) attacks Marshal (10): the attacker wins"
    texts = {t.get_gid(): t.get_text() for t in draw.battle_figure("Marshal", "Spy").ax.texts if t.get_gid()}
    assert texts["caption"].endswith("the attacker wins")
    texts = {t.get_gid(): t.get_text() for t in draw.battle_figure("Sapper", "Mine", "pocket").ax.texts
             if t.get_gid()}
    assert texts["caption"] == "Sapper (2) attacks Mine (M): the attacker wins"


def test_game_gif_has_one_frame_per_position(tmp_path: Path, game: State) -> None:
    path = draw.game_gif(game, tmp_path / "game.gif", view=RED, duration=100)
    with Image.open(path) as gif:
        assert gif.n_frames == len(game.move_stack) + 1
    frames = list(draw.frames(pieces(LESSON), ["E4-E5", "F5-E5"], dpi=40))
    assert len(frames) == 3 and frames[0].shape == frames[2].shape and not np.array_equal(frames[0], frames[2])


def test_png_and_svg_of_every_drawable_object(game: State) -> None:
    for obj in (game, game.view(RED), game.view(BLUE), sl.Setup.random("pocket", 1), sl.POCKET):
        data = draw.png(obj)
        assert data.startswith(b"\x89PNG")
        with Image.open(io.BytesIO(data)) as im:
            assert im.size[0] > 200
    assert draw.svg(game).lstrip().startswith("<?xml")
    assert draw.draw(game)._repr_png_().startswith(b"\x89PNG")
    with pytest.raises(TypeError, match="cannot draw"):
        draw.draw(42)


@pytest.mark.parametrize("make", [lambda: sl.State.random(seed=2), lambda: sl.State.random(seed=2).view(BLUE),
                                  lambda: sl.Setup.random("pocket", 2)], ids=["state", "view", "setup"])
def test_engine_objects_draw_themselves_in_a_notebook(make: object) -> None:
    obj = make()  # type: ignore[operator]
    if not hasattr(obj, "_repr_png_"):
        pytest.skip(f"{type(obj).__name__}._repr_png_ is not wired to strategolab.draw yet")
    assert obj._repr_png_() == draw.png(obj)


# -- reference images ------------------------------------------------------------------------------------------


def _reference_images() -> dict[str, bytes]:
    state = pieces(LESSON)
    state.push_checked("E4-E5")
    state.push_checked("F5-E5")
    heat = np.arange(36, dtype=float).reshape(6, 6) / 35
    return {
        "classic_state": draw.png(state, selected="B2", highlight=state.legal_targets(parse_square("B2")), dpi=60),
        "classic_red_view": draw.png(state.view(RED), dpi=60),
        # No colour bar: its tick labels are matplotlib's text, which changes between versions (the rest of
        # the drawing is outlines and renders the same on matplotlib 3.8 to 3.11).
        "pocket_heatmap": draw.png(sl.POCKET, heatmap=heat, colorbar=False, title="pocket heatmap", dpi=60),
    }


@pytest.mark.parametrize("name", ["classic_state", "classic_red_view", "pocket_heatmap"])
def test_reference_image(name: str, tmp_path: Path) -> None:
    with matplotlib.style.context("default"):  # a user's matplotlibrc must not change the picture
        data = _reference_images()[name]
    path = REFERENCE / f"{name}.png"
    if UPDATE:
        REFERENCE.mkdir(exist_ok=True)
        path.write_bytes(data)
        pytest.skip(f"rewrote {path}: look at it before committing")
    if not path.exists():
        pytest.fail(f"{path} is missing; create it with STRATEGOLAB_UPDATE_REFERENCES=1")
    actual = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.int16)
    expected = np.asarray(Image.open(path).convert("RGB"), dtype=np.int16)
    (tmp_path / f"{name}.png").write_bytes(data)
    assert actual.shape == expected.shape, f"size changed: {actual.shape} vs {expected.shape}"
    diff = np.abs(actual - expected).max(axis=2)
    # The board renders identically across machines and matplotlib versions; the slack is for rounding only.
    # (Restyling the lakes' waves alone moves the mean by 1.1 and 0.4% of the pixels by more than 64.)
    assert diff.mean() < 0.3 and (diff > 64).mean() < 0.0005, (
        f"{name} differs from {path} (mean {diff.mean():.2f}, {100 * (diff > 64).mean():.2f}% of pixels "
        f"changed); the new picture is in {tmp_path}")
