"""Pictures of the game with matplotlib: states, player views, setups, empty boards, heatmaps, the attack
table, single battles, and whole games as animated GIFs.

Only the object-oriented API is used (``Figure`` + ``FigureCanvasAgg``), never ``pyplot``: drawing changes
no global state, works headless, and a figure made here is not tracked by pyplot.  The package imports this
module lazily, so ``import strategolab`` never imports matplotlib.

The visual language follows the rules pages.  Red is a dark solid tile with white ranks, Blue a light tile
with a thick dark frame and dark ranks, so the armies differ in greyscale and for colour-blind readers, not
by hue alone.  Flags and Bombs/Mines have symbols (and their letter in a corner); an unknown enemy piece
shows ``?``; a dot marks a piece that has moved, a folded gold corner one revealed in battle; the last move
is an arrow from a dashed square, a battle a burst with a badge of both ranks (attacker left, the loser
struck out); legal targets are dots (empty squares) or rings (attacks) and the selection a double frame.

Speed: a board is a handful of artists, not hundreds.  Every piece is a list of :class:`Shape` (tile, rank
glyph outline, symbols, markers) and all pieces are one ``PathCollection``; text on the board is drawn as
glyph outlines (cached), which Agg fills far faster than it lays out ``Text``.  :meth:`BoardArtists.update`
recomputes the shapes of the squares that changed only and refreshes the collection in place.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path as FilePath
from typing import Any, NamedTuple

import numpy as np
from matplotlib import colormaps, patheffects
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Normalize, to_rgba
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import BoxStyle, Circle, FancyArrowPatch, Rectangle
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.ticker import FuncFormatter

from strategolab.board import STRIDE, Square, geometry, parse_square, square_name
from strategolab.rules import (
    BLUE,
    PLAYER_NAMES,
    RED,
    BattleResult,
    PieceType,
    Ruleset,
    explain_battle,
    get_ruleset,
    resolve_battle,
)
from strategolab.setups import Setup
from strategolab.state import Battle, Move, Position, State
from strategolab.views import View

__all__ = [
    "BoardArtists",
    "Drawing",
    "PieceSpec",
    "Scene",
    "Shape",
    "attack_table_figure",
    "battle_figure",
    "draw",
    "explain_battle",
    "frames",
    "game_gif",
    "heatmap",
    "png",
    "scene",
    "setups_figure",
    "svg",
    "update",
]

FONT = "DejaVu Sans"  # bundled with matplotlib: the same glyphs on every machine
SQUARE_INCHES = 0.5  # one square in a figure made here
DPI = 100
MARGIN = 0.75  # board units left of and below the board, for the coordinates
CAPTION = 1.0  # board units above the board for the caption (the status line and the last battle)

LAND = "#D9D4B8"
GRID = "#8C8670"
LAKE = "#7FAFD6"
LAKE_WAVE = "#F4F8FB"
WAVE_X = tuple(i / 16 for i in range(17))  # one square's width, in sixteenths
WAVE_Y = (0.22, 0.5, 0.78)
ZONE = ("#E8C8BE", "#C6D6E6")  # Red's and Blue's setup rows: a light tint of the army colour
INK = "#1A1A1A"
COORD_INK = "#333333"
GOLD = "#F2C14E"
NONE = (0.0, 0.0, 0.0, 0.0)
CAP_MIDDLE = 0.365  # half the height of a DejaVu Sans capital, in ems


class ArmyStyle(NamedTuple):
    """How one army's tiles look: the face, the frame, and the ink of ranks, symbols and dots."""

    face: str
    edge: str
    edge_width: float  # as a fraction of the tile's size in points
    ink: str


ARMIES = (
    ArmyStyle("#B3261E", "#4A0B07", 0.025, "#FFFFFF"),  # Red: dark solid tile, white ink
    ArmyStyle("#DCEAF8", "#0B3D91", 0.075, "#0B2545"),  # Blue: light tile, thick dark frame, dark ink
)
RESULT_STYLE = {  # attack-table cells: always a letter; the colour only repeats it
    BattleResult.ATTACKER_WINS: ("W", "#9CD3C0"),
    BattleResult.DEFENDER_WINS: ("L", "#F2B48C"),
    BattleResult.BOTH_DIE: ("=", "#D6D6D6"),
}


# -- what a square shows ----------------------------------------------------------------------------------


class PieceSpec(NamedTuple):
    """Everything drawn for one piece; equal specs draw the same pixels (so an update can skip them)."""

    owner: int
    label: str  # rank label in the chosen notation, "?" for an unknown enemy piece
    icon: str | None  # "flag", "bomb" (Bombs and Mines) or None
    moved: bool  # draw the has-moved dot
    revealed: bool  # draw the revealed-in-battle corner


class Scene(NamedTuple):
    """What a board drawing shows, read from a state, view, setup or rule set (no matplotlib involved)."""

    ruleset: Ruleset
    pieces: dict[Square, PieceSpec]
    last_move: Move | None
    battle: Battle | None
    caption: str
    player: int | None  # whose view or setup this is (None: everything is shown)


def piece_spec(kind: PieceType | None, owner: int, notation: str, *, moved: bool = False,
               revealed: bool = False) -> PieceSpec:
    """The spec of a piece (``kind=None``: an enemy piece of unknown type, drawn as ``?``)."""
    if kind is None:
        return PieceSpec(owner, "?", None, moved, revealed)
    icon = "flag" if kind.is_flag else None if kind.movable else "bomb"
    return PieceSpec(owner, kind.label(notation), icon, moved, revealed)


def _position_pieces(pos: Position, notation: str, viewer: int | None, moved_dots: bool) -> dict[Square, PieceSpec]:
    out = {}
    for sq in pos.squares():
        owner = pos.owner_at(sq)
        assert owner is not None
        piece = pos.piece_at(sq)  # None in a view: an enemy piece whose type the viewer does not know
        dot = moved_dots and pos.has_moved(sq) and (viewer is None or owner != viewer)
        out[sq] = piece_spec(piece.type if piece else None, owner, notation, moved=dot,
                             revealed=pos.is_revealed(sq))
    return out


def _state_caption(state: State) -> str:
    rs = state.ruleset
    parts = [rs.name, f"ply {state.ply}"]
    outcome = state.outcome()
    if outcome is not None:
        parts.append(f"game over: {outcome}")
    else:
        parts.append(f"{PLAYER_NAMES[state.turn]} to move")
        left = state.quiet_moves_left
        if left is not None and left <= rs.draw_warning:
            parts.append(f"⚠ {left} quiet moves to a draw")
    return " · ".join(parts)


def _setup_caption(setup: Setup, player: int, notation: str) -> str:
    rs = setup.ruleset
    placed = sum(1 for p in setup.pieces if p is not None)
    text = f"{PLAYER_NAMES[player]} setup · {rs.name} · {placed}/{rs.army_size} placed"
    if placed < rs.army_size:
        have = {kind: 0 for kind, _ in rs.army}
        for p in setup.pieces:
            if p is not None:
                have[p] = have.get(p, 0) + 1
        todo = [f"{kind.label(notation)} ×{n - have[kind]}" for kind, n in rs.army if n > have[kind]]
        text += "\nto place: " + " ".join(todo)
    return text


def scene(obj: object, *, notation: str | None = None, player: int | None = None, moved_dots: bool = True) -> Scene:
    """Read what to draw from a :class:`State`, :class:`View`, :class:`Setup` or :class:`Ruleset`.

    Anything else with a ``state`` attribute (a game-tree node, say) is drawn through that attribute.
    ``player`` is the side a :class:`Setup` is deployed for (default Red).
    """
    if isinstance(obj, Ruleset):
        caption = f"{obj.name}: {obj.width}×{obj.height} board, {obj.army_size} pieces a side"
        return Scene(obj, {}, None, None, caption, None)
    if isinstance(obj, Setup):
        rs = obj.ruleset
        who = RED if player is None else player
        nt = notation or rs.notation
        pieces = {sq: piece_spec(kind, who, nt) for sq, kind in obj.placements(who).items()}
        return Scene(rs, pieces, None, None, _setup_caption(obj, who, nt), who)
    if isinstance(obj, View):
        nt = notation or obj.ruleset.notation
        caption = (f"{PLAYER_NAMES[obj.player]}'s view · {obj.ruleset.name} · ply {obj.ply} · "
                   f"{PLAYER_NAMES[obj.turn]} to move")
        return Scene(obj.ruleset, _position_pieces(obj, nt, obj.player, moved_dots), obj.peek(), obj.last_battle(),
                     caption, obj.player)
    if isinstance(obj, State):
        nt = notation or obj.ruleset.notation
        n = len(obj.move_stack)
        last = obj.move_stack[-1] if n else None
        battle = obj.last_battle()
        return Scene(obj.ruleset, _position_pieces(obj, nt, None, moved_dots), last, battle,
                     _state_caption(obj), None)
    inner = getattr(obj, "state", None)
    if inner is not None and inner is not obj:
        return scene(inner, notation=notation, player=player, moved_dots=moved_dots)
    raise TypeError(f"cannot draw a {type(obj).__name__}: expected a State, View, Setup or Ruleset")


# -- shapes: outlines in board units (one square = 1), drawn many at a time ----------------------------------


class Shape(NamedTuple):
    """One outline drawn on a board: what it is (``role``), where (``path``, board units) and how."""

    role: str  # "tile", "label", "flag", "bomb", "moved", "revealed", "target", "battle", ...
    path: Path
    face: str | tuple[float, float, float, float]
    edge: str | tuple[float, float, float, float]
    width: float  # edge width in points (0: no edge)
    text: str = ""  # the characters, for glyph outlines
    dashed: bool = False


@functools.lru_cache(maxsize=1024)
def _glyph(text: str, bold: bool, baseline: bool = False) -> Path:
    """The outline of ``text`` at an em size of 1, centred on the origin (cached).

    Centred by its ink box, or (``baseline``) horizontally only, with the middle of a capital on the origin,
    so that lines of running text sit level whatever letters they hold.
    """
    prop = FontProperties(family=FONT, weight="bold" if bold else "normal")
    tp = TextPath((0, 0), text, size=1, prop=prop)
    # The control points' box, not Path.get_extents (which solves every Bezier segment, slowly): glyph
    # outlines bulge past their control points by a hair at most.
    lo, hi = tp.vertices.min(axis=0), tp.vertices.max(axis=0)
    dy = CAP_MIDDLE if baseline else (lo[1] + hi[1]) / 2
    return Path(tp.vertices - ((lo[0] + hi[0]) / 2, dy), tp.codes)


@functools.lru_cache(maxsize=64)
def _rounded_square(side: float) -> Path:
    """A rounded square of the given side, centred on the origin (cached)."""
    h = side / 2
    return BoxStyle.Round(pad=0, rounding_size=0.12 * side)(-h, -h, side, side, 1.0)


def _moved(path: Path, dx: float, dy: float, scale: float = 1.0) -> Path:
    return Path(path.vertices * scale + (dx, dy), path.codes)


def _polygon(points: Sequence[tuple[float, float]]) -> Path:
    return Path([*points, points[0]], closed=True)


def _rect(x0: float, y0: float, x1: float, y1: float) -> Path:
    return _polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])


def _star(cx: float, cy: float, outer: float, inner: float, points: int) -> Path:
    pts = []
    for i in range(2 * points):
        r = outer if i % 2 == 0 else inner
        a = math.pi / 2 + i * math.pi / points
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return _polygon(pts)


def text_shape(text: str, x: float, y: float, em: float, colour: str, *, bold: bool = True,
               role: str = "label", halo: str | None = None, halo_width: float = 0.0,
               baseline: bool = False) -> list[Shape]:
    """Text as filled glyph outlines centred on ``(x, y)``, ``em`` board units high; with a halo if asked.

    Agg fills a cached outline many times faster than it lays out and renders a ``Text`` artist.
    """
    path = _moved(_glyph(text, bold, baseline), x, y, em)
    out = []
    if halo is not None:
        out.append(Shape(role + "-halo", path, halo, halo, halo_width, text))
    out.append(Shape(role, path, colour, NONE, 0.0, text))
    return out


def piece_shapes(cx: float, cy: float, side: float, spec: PieceSpec, pt: float) -> list[Shape]:
    """The shapes of one piece tile centred on ``(cx, cy)``, ``side`` board units wide (tile first);
    ``pt`` is points per board unit (line widths scale with the tile)."""
    style = ARMIES[spec.owner]
    u = side * pt
    ink = style.ink
    out = [Shape("tile", _moved(_rounded_square(side), cx, cy), style.face, style.edge, style.edge_width * u)]
    if spec.icon is None:
        out += text_shape(spec.label, cx, cy, (0.5 if len(spec.label) == 1 else 0.42) * side, ink)
    else:
        # The symbol fills the tile; the letter (F, B, M) sits small in a corner so the piece is still named.
        out += text_shape(spec.label, cx + 0.3 * side, cy - 0.3 * side, 0.24 * side, ink)
        if spec.icon == "flag":
            out.append(Shape("flag", _moved(_glyph("⚑", False), cx - 0.05 * side, cy + 0.05 * side, 0.62 * side),
                             ink, NONE, 0.0, "⚑"))
        else:
            bx, by, r = cx - 0.06 * side, cy - 0.04 * side, 0.22 * side
            out.append(Shape("bomb", Path.circle((bx, by), r), ink, style.edge, 0.02 * u))
            fx, fy = bx + 0.7 * r, by + 0.7 * r
            out.append(Shape("fuse", Path([(fx, fy), (fx + 0.1 * side, fy + 0.12 * side)]), NONE, ink, 0.05 * u))
            out.append(Shape("spark", _star(fx + 0.12 * side, fy + 0.16 * side, 0.12 * side, 0.05 * side, 6),
                             GOLD, INK, 0.012 * u))
    if spec.moved:
        out.append(Shape("moved", Path.circle((cx - 0.3 * side, cy + 0.3 * side), 0.075 * side), ink, style.edge,
                         0.015 * u))
    if spec.revealed:
        h = side / 2
        corner = [(cx + 0.18 * h, cy + h), (cx + h, cy + h), (cx + h, cy + 0.18 * h)]
        out.append(Shape("revealed", _polygon(corner), GOLD, style.edge, 0.02 * u))
    return out


def _collection(ax: Axes, zorder: float, gid: str) -> PathCollection:
    """An empty collection of outlines in board units (filled in by :func:`_fill`)."""
    coll = PathCollection([], transform=ax.transData, zorder=zorder, gid=gid, capstyle="round", joinstyle="round")
    ax.add_collection(coll, autolim=False)
    return coll


def _fill(coll: PathCollection, shapes: Sequence[Shape]) -> None:
    """Show exactly ``shapes`` (in order: later ones on top) in a collection."""
    coll.set_paths([s.path for s in shapes])
    coll.set_facecolor([s.face for s in shapes] or NONE)
    coll.set_edgecolor([s.edge for s in shapes] or NONE)
    coll.set_linewidth([s.width for s in shapes] or 0.0)
    # Two antialiasing entries keep matplotlib off its one-path shortcut, whose size check solves every
    # Bezier segment of a glyph outline (tens of milliseconds for a caption).
    coll.set_antialiased([True, True])
    if any(s.dashed for s in shapes):
        coll.set_linestyle([(0, (3, 2)) if s.dashed else "solid" for s in shapes])
    else:
        coll.set_linestyle("solid")


# -- drawings --------------------------------------------------------------------------------------------


class Drawing:
    """A figure this module drew: shows itself in a notebook and saves as PNG or SVG."""

    def __init__(self, figure: Figure, ax: Axes) -> None:
        self.figure = figure
        self.ax = ax

    def rgba(self) -> np.ndarray:
        """The rendered pixels, an ``(height, width, 4)`` uint8 array (for tests and GIF frames)."""
        canvas = self.figure.canvas
        if isinstance(canvas, FigureCanvasAgg):
            canvas.draw()
            return np.asarray(canvas.buffer_rgba()).copy()
        # A figure of someone else's (a GUI or a bare canvas): render through Agg without replacing its canvas.
        buf = io.BytesIO()
        self.figure.savefig(buf, format="rgba", dpi=self.figure.dpi)
        w, h = (round(v) for v in self.figure.bbox.size)
        return np.frombuffer(buf.getvalue(), np.uint8).reshape(h, w, 4).copy()

    def png(self, dpi: float | None = None) -> bytes:
        """The figure as PNG bytes (at the figure's resolution unless ``dpi`` is given)."""
        buf = io.BytesIO()
        if dpi is None or dpi == self.figure.dpi:
            from PIL import Image  # matplotlib depends on Pillow

            # Straight from the Agg buffer: savefig's layout machinery costs more than the drawing here.
            Image.fromarray(self.rgba()).convert("RGB").save(buf, format="PNG", compress_level=3)
        else:
            self.figure.savefig(buf, format="png", dpi=dpi)
        return buf.getvalue()

    def svg(self) -> str:
        """The figure as an SVG document."""
        buf = io.StringIO()
        self.figure.savefig(buf, format="svg")
        return buf.getvalue()

    def save(self, path: str | FilePath, **kwargs: Any) -> FilePath:
        """Save to a file; the format follows the suffix (``.png``, ``.svg``, ``.pdf``)."""
        p = FilePath(path)
        self.figure.savefig(p, **kwargs)
        return p

    def _repr_png_(self) -> bytes:
        return self.png()


def _new_figure(width_units: float, height_units: float, extra_inches: float = 0.0) -> tuple[Figure, Axes]:
    """A figure whose axes fill it exactly, one board unit = :data:`SQUARE_INCHES` (plus room on the right)."""
    fig = Figure(figsize=(width_units * SQUARE_INCHES + extra_inches, height_units * SQUARE_INCHES), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig, _board_axes(fig, width_units, extra_inches)


def _board_axes(fig: Figure, width_units: float, extra_inches: float) -> Axes:
    w = width_units * SQUARE_INCHES
    return fig.add_axes((0, 0, w / (w + extra_inches), 1))


def _board_layout(rs: Ruleset, coords: bool, colorbar: bool, rows: int | None = None
                  ) -> tuple[float, float, float, float]:
    """Margin for the coordinates, the width and height in board units, and inches kept for a colour bar."""
    left = MARGIN if coords else 0.1
    return left, rs.width + left + 0.1, _shown_rows(rs, rows) + left + CAPTION, 1.4 if colorbar else 0.0


def _shown_rows(rs: Ruleset, rows: int | None) -> int:
    """How many rows a drawing shows: ``rows`` from the bottom of the picture (a setup zone), or all."""
    if rows is None:
        return rs.height
    if isinstance(rows, bool) or not isinstance(rows, int) or not 1 <= rows <= rs.height:
        raise ValueError(f"rows={rows!r}: expected how many rows to draw, 1 to {rs.height}")
    return rows


def _points_per_unit(ax: Axes, width_units: float, height_units: float) -> float:
    """Points per board unit in ``ax`` once the data limits fit it (fonts and lines scale with the board)."""
    dpi = _root_figure(ax).dpi
    return 72 * min(ax.bbox.width / dpi / width_units, ax.bbox.height / dpi / height_units)


def _root_figure(ax: Axes) -> Figure:
    """The figure an axes is drawn in (through any subfigures): the one that renders and saves."""
    fig = ax.figure
    while not isinstance(fig, Figure):
        fig = fig.figure  # a SubFigure's parent chain ends at the root Figure
    return fig


HeatValues = Mapping[Square | str, float] | Sequence[Sequence[float]] | np.ndarray


def _squares(values: HeatValues, ruleset: Ruleset) -> dict[Square, float]:
    """Heatmap values per square, from a mapping (squares or names) or a ``(height, width)`` array.

    In an array ``values[r][c]`` is row ``r + 1``, column ``c`` (``values[0][0]`` is A1), as the engine
    numbers squares; NaN means "no value".  Lakes never get a value.
    """
    if isinstance(values, Mapping):
        out = {parse_square(k) if isinstance(k, str) else k: float(v) for k, v in values.items()}
    else:
        arr = np.asarray(values, dtype=float)
        if arr.shape != (ruleset.height, ruleset.width):
            raise ValueError(f"heatmap array has shape {arr.shape}; a {ruleset.name} board needs "
                             f"({ruleset.height}, {ruleset.width}), row 1 first")
        out = {r * STRIDE + c: float(arr[r, c]) for r in range(ruleset.height) for c in range(ruleset.width)}
    geo = geometry(ruleset)
    off = [str(s) if not 0 <= s < 99 * STRIDE else square_name(s) for s in out if not geo.on_board(s)]
    if off:
        raise ValueError(f"heatmap squares off the {ruleset.name} board: {', '.join(off)}")
    return {s: v for s, v in out.items() if not math.isnan(v) and s not in geo.lakes}


def _formatter(fmt: str | Callable[[float], str] | None, values: Iterable[float]) -> Callable[[float], str]:
    """How heatmap squares are labelled: a format string, a function, or (``None``) chosen from the values:
    integers for counts, percentages for fractions, two significant digits otherwise."""
    if callable(fmt):
        return fmt
    if fmt is None:
        vs = list(values)
        if vs and all(float(v).is_integer() for v in vs):
            fmt = "{:.0f}"
        elif vs and all(0 <= v <= 1 for v in vs):
            fmt = "{:.0%}"
        else:
            fmt = "{:.2g}"
    return fmt.format


def _luminance(rgba: Sequence[float]) -> float:
    r, g, b = rgba[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b


class BoardArtists(Drawing):
    """A drawn board and what is on it, so :meth:`update` can redraw only what changed.

    ``layers`` maps a layer name to its ``PathCollection``: ``"pieces"`` (every piece), ``"under"`` (the
    battle burst and the last move's start square, below the pieces), ``"over"`` (targets, selection, battle
    badge), ``"heat"`` and ``"heat-labels"`` (heatmaps), ``"coords"``.  ``contents[name]`` lists
    ``(square, Shape)`` for each path of that layer, in order; ``shapes[sq]`` holds the shapes of the piece
    on ``sq`` and ``specs[sq]`` what it shows.  ``arrow`` is the last move's arrow, ``caption`` the text
    above the board (drawn as the ``"caption"`` layer).
    """

    # Options that persist from draw() to later update() calls (the rest describe one frame).
    PERSISTENT = ("notation", "flip", "zones", "coords", "player", "moved_dots", "last_move", "cmap", "fmt",
                  "vmin", "vmax", "colorbar", "colorbar_label", "rows")

    def __init__(self, figure: Figure, ax: Axes, options: dict[str, Any], owns_figure: bool) -> None:
        super().__init__(figure, ax)
        self.options = options
        self.owns_figure = owns_figure
        self.ruleset: Ruleset | None = None
        self.flip = False
        self.pt = 72 * SQUARE_INCHES
        self.layers: dict[str, PathCollection] = {}
        self.contents: dict[str, list[tuple[Square | None, Shape]]] = {}
        self.shapes: dict[Square, list[Shape]] = {}
        self.specs: dict[Square, PieceSpec] = {}
        self._boxes: dict[Square, tuple[float, float, float]] = {}
        self.arrow: FancyArrowPatch | None = None
        self.caption = ""
        self.colorbar: Colorbar | None = None
        self.mappable: ScalarMappable | None = None
        self._layout: tuple = ()
        self.shown_rows = 0  # rows drawn, from the bottom of the picture (all of them unless ``rows`` is given)

    # -- coordinates --

    def origin(self, sq: Square) -> tuple[int, int]:
        """Lower-left corner of a square in board units (Red's row 1 at the bottom unless flipped)."""
        assert self.ruleset is not None
        c, r = sq % STRIDE, sq // STRIDE
        if self.flip:
            return self.ruleset.width - 1 - c, self.ruleset.height - 1 - r
        return c, r

    def centre(self, sq: Square) -> tuple[float, float]:
        x, y = self.origin(sq)
        return x + 0.5, y + 0.5

    def square_at(self, x: float, y: float) -> Square | None:
        """The square under board coordinates ``(x, y)`` (the axes' data coordinates), or ``None``."""
        assert self.ruleset is not None
        w, h = self.ruleset.width, self.ruleset.height
        c, r = math.floor(x), math.floor(y)
        if not (0 <= c < w and 0 <= r < h):
            return None
        if self.flip:
            c, r = w - 1 - c, h - 1 - r
        return r * STRIDE + c

    # -- the static board --

    def _build(self, sc: Scene, heat: dict[Square, float] | None) -> None:
        """Draw the board itself (squares, zones, lakes, coordinates) and the empty layers."""
        o = self.options
        rs = sc.ruleset
        self.ruleset = rs
        self.flip = bool(o["flip"]) if o["flip"] is not None else sc.player == BLUE
        zones = o["zones"] if o["zones"] is not None else isinstance(o["_source"], Setup | Ruleset)
        w, h = rs.width, _shown_rows(rs, o["rows"])
        self.shown_rows = h
        left, width_units, height_units, extra = _board_layout(rs, o["coords"], heat is not None and o["colorbar"],
                                                               o["rows"])
        if self._layout and self.owns_figure:  # a new layout in our own figure: start it afresh
            self.figure.clear()
            self.figure.set_size_inches(width_units * SQUARE_INCHES + extra, height_units * SQUARE_INCHES)
            self.ax = _board_axes(self.figure, width_units, extra)
        elif self._layout:
            self.ax.clear()
        ax = self.ax
        ax.set_axis_off()
        ax.set_xlim(-left, w + 0.1)
        ax.set_ylim(-left, h + CAPTION)
        ax.set_aspect("equal")
        self.pt = pt = _points_per_unit(ax, width_units, height_units)
        self.shapes, self.specs, self._boxes, self.contents, self.layers = {}, {}, {}, {}, {}
        self.arrow = self.colorbar = self.mappable = None
        self.caption = ""
        ax.add_patch(Rectangle((0, 0), w, h, facecolor=LAND, edgecolor=GRID, linewidth=0.06 * pt, zorder=0,
                               gid="land"))
        if zones:
            for player, rows in enumerate(rs.setup_rows):
                lo, hi_row = min(rows), max(rows)
                y0 = (rs.height - hi_row) if self.flip else (lo - 1)
                depth = min(hi_row - lo + 1, h - y0)  # a zone cut by ``rows`` is drawn as far as it shows
                if depth <= 0:
                    continue
                gid = f"zone-{PLAYER_NAMES[player].lower()}"
                ax.add_patch(Rectangle((0, y0), w, depth, facecolor=ZONE[player], edgecolor="none",
                                       zorder=0.1, gid=gid))
                # The frame stays visible above a heatmap's colours: it says where the setups are.
                ax.add_patch(Rectangle((0.04, y0 + 0.04), w - 0.08, depth - 0.08, facecolor="none",
                                       edgecolor=ARMIES[player].edge, linewidth=0.05 * pt, linestyle=(0, (4, 3)),
                                       zorder=0.7 if heat is not None else 0.4, gid=gid + "-frame"))
        segments = [[(i, 0), (i, h)] for i in range(1, w)] + [[(0, j), (w, j)] for j in range(1, h)]
        ax.add_collection(LineCollection(segments, colors=GRID, linewidths=0.025 * pt, zorder=0.55, gid="grid"),
                          autolim=False)
        waves = []
        for sq in geometry(rs).lakes:
            x, y = self.origin(sq)
            if y >= h:
                continue
            ax.add_patch(Rectangle((x, y), 1, 1, facecolor=LAKE, edgecolor="none", zorder=0.6, gid="lake"))
            waves += [[(x + t, y + k + 0.05 * math.sin(2 * math.pi * 2 * t)) for t in WAVE_X] for k in WAVE_Y]
        # Water is striped with waves as well as coloured, so lakes read as lakes in greyscale too.
        ax.add_collection(LineCollection(waves, colors=LAKE_WAVE, linewidths=0.04 * pt, zorder=0.65, gid="waves",
                                         capstyle="butt"), autolim=False)
        if o["coords"]:
            coords: list[tuple[Square | None, Shape]] = []
            for c in range(w):
                cx = (w - 1 - c if self.flip else c) + 0.5
                coords += [(None, s) for s in text_shape(rs.columns[c], cx, -0.38, 0.3, COORD_INK, bold=False,
                                                          role="coord")]
            for r in range(rs.height):
                cy = (rs.height - 1 - r if self.flip else r) + 0.5
                if cy > h:
                    continue
                coords += [(None, s) for s in text_shape(str(r + 1), -0.38, cy, 0.3, COORD_INK, bold=False,
                                                          role="coord")]
            self._set_layer("coords", coords, zorder=1)
        for name, z in (("under", 2), ("pieces", 3), ("over", 6), ("caption", 6)):
            self._set_layer(name, [], zorder=z)
        if heat is not None:
            self._build_heat(heat)
        self._layout = self._layout_key(sc, heat)

    def _set_layer(self, name: str, contents: list[tuple[Square | None, Shape]], zorder: float | None = None) -> None:
        coll = self.layers.get(name)
        if coll is None:
            coll = self.layers[name] = _collection(self.ax, zorder if zorder is not None else 3, name)
        _fill(coll, [s for _, s in contents])
        self.contents[name] = contents

    def _build_heat(self, heat: dict[Square, float]) -> None:
        o = self.options
        vals = list(heat.values())
        vmin = o["vmin"] if o["vmin"] is not None else (min(vals) if vals else 0.0)
        vmax = o["vmax"] if o["vmax"] is not None else (max(vals) if vals else 1.0)
        self.mappable = ScalarMappable(Normalize(vmin, vmax if vmax > vmin else vmin + 1), colormaps[o["cmap"]])
        self._set_layer("heat", [], zorder=0.5)
        self._set_layer("heat-labels", [], zorder=4)
        if o["colorbar"]:
            if self.owns_figure:
                fw = self.figure.get_size_inches()[0]
                cax = self.figure.add_axes((1 - 1.15 / fw, 0.12, 0.22 / fw, 0.72))
                self.colorbar = self.figure.colorbar(self.mappable, cax=cax)
            else:
                self.colorbar = self.figure.colorbar(self.mappable, ax=self.ax, shrink=0.8)
            fmt = _formatter(o["fmt"], vals)
            self.colorbar.formatter = FuncFormatter(lambda v, _pos: fmt(v))
            self.colorbar.update_ticks()
            if o["colorbar_label"]:
                self.colorbar.set_label(o["colorbar_label"], fontfamily=FONT)

    def _layout_key(self, sc: Scene, heat: dict[Square, float] | None) -> tuple:
        o = self.options
        return (sc.ruleset, o["flip"], o["zones"], o["coords"], heat is not None, type(o["_source"]), sc.player,
                o["rows"])

    # -- one frame --

    def _piece_box(self, sq: Square, heat: dict[Square, float] | None) -> tuple[float, float, float]:
        """Centre and side of the tile on ``sq``: smaller and raised when a heatmap value shares the square."""
        x, y = self.origin(sq)
        if heat is not None and sq in heat:
            return x + 0.5, y + 0.6, 0.62
        return x + 0.5, y + 0.5, 0.84

    def _apply(self, sc: Scene, heat: dict[Square, float] | None, highlight: Iterable[Square | str],
               selected: Square | str | None, title: str | None) -> set[Square]:
        """Bring the board to ``sc``: new shapes for changed squares only, then overlays and caption."""
        changed = set()
        for sq in self.specs.keys() | sc.pieces.keys():
            new = sc.pieces.get(sq)
            box = self._piece_box(sq, heat)
            if self.specs.get(sq) == new and self._boxes.get(sq) == (box if new is not None else None):
                continue
            changed.add(sq)
            self.specs.pop(sq, None)
            self.shapes.pop(sq, None)
            self._boxes.pop(sq, None)
            if new is not None:
                self.specs[sq] = new
                self.shapes[sq] = piece_shapes(*box, new, self.pt)
                self._boxes[sq] = box
        if changed or "pieces" not in self.contents:
            self._set_layer("pieces", [(sq, s) for sq in sorted(self.shapes) for s in self.shapes[sq]])
        if heat is not None:
            self._apply_heat(heat)
        self._apply_overlays(sc, highlight, selected)
        text = sc.caption if title is None else title
        if sc.battle is not None and title is None and self.options["last_move"]:
            text += "\n" + str(sc.battle)
        if text != self.caption:
            self._set_layer("caption", [(None, s) for s in self._caption_shapes(text)])
            self.caption = text
        return changed

    def _caption_shapes(self, text: str) -> list[Shape]:
        """The caption above the board, one or two centred lines, shrunk to fit the figure's width."""
        h = self.shown_rows
        x0, x1 = self.ax.get_xlim()
        lines = [line for line in text.split("\n") if line][:2]
        out = []
        for i, line in enumerate(lines):
            v = _glyph(line, False, True).vertices
            em = min(0.3, (x1 - x0 - 0.3) / max(float(np.ptp(v[:, 0])), 1e-9))
            y = h + CAPTION / 2 + 0.2 * (len(lines) - 1) - 0.4 * i
            out += text_shape(line, (x0 + x1) / 2, y, em, INK, bold=False, role="caption", baseline=True)
        return out

    def _apply_heat(self, heat: dict[Square, float]) -> None:
        assert self.mappable is not None
        fmt = _formatter(self.options["fmt"], heat.values())
        cells: list[tuple[Square | None, Shape]] = []
        labels: list[tuple[Square | None, Shape]] = []
        for sq in sorted(heat):
            v = heat[sq]
            x, y = self.origin(sq)
            if y >= self.shown_rows:
                continue
            colour = self.mappable.to_rgba(v)
            cells.append((sq, Shape("heat", _rect(x, y, x + 1, y + 1), colour, NONE, 0.0, fmt(v))))
            ink = "white" if _luminance(colour) < 0.5 else INK
            if sq in self.specs:
                labels += [(sq, s) for s in text_shape(fmt(v), x + 0.5, y + 0.14, 0.22, ink, role="heat-label")]
            else:
                labels += [(sq, s) for s in text_shape(fmt(v), x + 0.5, y + 0.5, 0.28, ink, role="heat-label")]
        self._set_layer("heat", cells)
        self._set_layer("heat-labels", labels)

    def _apply_overlays(self, sc: Scene, highlight: Iterable[Square | str], selected: Square | str | None) -> None:
        under: list[tuple[Square | None, Shape]] = []
        over: list[tuple[Square | None, Shape]] = []
        if self.arrow is not None:
            self.arrow.remove()
            self.arrow = None
        if self.options["last_move"] and sc.last_move is not None:
            under += self._last_move(sc.last_move)
            if sc.battle is not None:
                burst, badge = self._battle(sc.battle, sc.last_move)
                under += burst
                over += badge
        for t in highlight:
            over += self._target(parse_square(t) if isinstance(t, str) else t)
        if selected is not None:
            over += self._selected(parse_square(selected) if isinstance(selected, str) else selected)
        self._set_layer("under", under)
        self._set_layer("over", over)

    def _last_move(self, move: Move) -> list[tuple[Square | None, Shape]]:
        """The arrow (an artist, above the pieces) and a dashed frame on the square the piece left."""
        pt = self.pt
        (x0, y0), (x1, y1) = self.centre(move.from_square), self.centre(move.to_square)
        occupied = move.to_square in self.specs
        arrow = FancyArrowPatch((x0, y0), (x1, y1), arrowstyle="-|>", mutation_scale=0.55 * pt, shrinkA=0,
                                shrinkB=(0.42 if occupied else 0.2) * pt, color=INK, linewidth=0.08 * pt,
                                zorder=5, gid="last-move")
        arrow.set_path_effects([patheffects.withStroke(linewidth=0.2 * pt, foreground="white")])
        self.ax.add_artist(arrow)
        self.arrow = arrow
        fx, fy = self.origin(move.from_square)
        frame = _rect(fx + 0.12, fy + 0.12, fx + 0.88, fy + 0.88)
        return [(move.from_square, Shape("last-from", frame, NONE, INK, 0.05 * pt, dashed=True))]

    def _battle(self, battle: Battle, move: Move) -> tuple[list[tuple[Square | None, Shape]],
                                                          list[tuple[Square | None, Shape]]]:
        """A burst behind the square, and a badge of both ranks (attacker left, the loser struck out)
        straddling the edge of the square away from the arrow."""
        pt = self.pt
        assert self.ruleset is not None
        sq = battle.square
        x, y = self.origin(sq)
        star = _star(x + 0.5, y + 0.5, 0.62, 0.4, 10)
        burst: list[tuple[Square | None, Shape]] = [(sq, Shape("battle", star, GOLD, INK, 0.03 * pt))]
        nt = self.options["notation"] or self.ruleset.notation
        below = self.origin(move.from_square)[1] > y or y == self.ruleset.height - 1
        by = y + 0.06 if below else y + 0.94
        dead = {
            BattleResult.ATTACKER_WINS: (False, True),
            BattleResult.DEFENDER_WINS: (True, False),
            BattleResult.BOTH_DIE: (True, True),
        }[battle.result]
        badge: list[Shape] = []
        s = 0.4
        for k, piece in enumerate((battle.attacker, battle.defender)):
            style = ARMIES[piece.owner]
            cx = x + 0.22 + 0.56 * k
            badge.append(Shape("battle-badge", _moved(_rounded_square(s), cx, by), style.face, INK, 0.04 * pt))
            label = piece.type.label(nt)
            em = (0.26 if len(label) == 1 else 0.21)
            if dead[k]:  # struck out under the rank, which keeps a rim of its tile's colour to stay legible
                line = Path([(cx - s / 2, by - s / 2), (cx + s / 2, by + s / 2)])
                badge.append(Shape("battle-loser-halo", line, NONE, "white", 0.11 * pt))
                badge.append(Shape("battle-loser", line, NONE, INK, 0.05 * pt))
                badge += text_shape(label, cx, by, em, style.ink, role="battle-rank", halo=style.face,
                                    halo_width=0.06 * pt)
            else:
                badge += text_shape(label, cx, by, em, style.ink, role="battle-rank")
        badge += text_shape("×", x + 0.5, by, 0.28, INK, role="battle-sign", halo="white", halo_width=0.06 * pt)
        return burst, [(sq, b) for b in badge]

    def _target(self, sq: Square) -> list[tuple[Square | None, Shape]]:
        pt = self.pt
        cx, cy = self.centre(sq)
        if sq in self.specs:  # an attack: a ring around the enemy tile, with a white halo
            ring = Path.circle((cx, cy), 0.5)
            return [(sq, Shape("target-halo", ring, NONE, "white", 0.16 * pt)),
                    (sq, Shape("target", ring, NONE, INK, 0.08 * pt))]
        return [(sq, Shape("target", Path.circle((cx, cy), 0.15), to_rgba(INK, 0.75), "white", 0.04 * pt))]

    def _selected(self, sq: Square) -> list[tuple[Square | None, Shape]]:
        pt = self.pt
        x, y = self.origin(sq)
        frame = _rect(x + 0.03, y + 0.03, x + 0.97, y + 0.97)
        return [(sq, Shape("selected", frame, NONE, INK, 0.16 * pt)),
                (sq, Shape("selected", frame, NONE, GOLD, 0.08 * pt))]

    # -- public --

    def update(self, obj: object, *, highlight: Iterable[Square | str] = (), selected: Square | str | None = None,
               heatmap: HeatValues | None = None, title: str | None = None, **options: Any) -> set[Square]:
        """Show ``obj`` on this board, recomputing only the squares whose piece changed; returns them.

        Options given to :func:`draw` (notation, flip, ...) persist unless passed again; ``highlight``,
        ``selected``, ``heatmap`` and ``title`` describe this frame only.  A change of layout (another
        rule set, a heatmap added or removed) redraws the whole board in the same figure.  The caller
        repaints the canvas (``figure.canvas.draw_idle()`` in a widget).
        """
        unknown = set(options) - set(self.PERSISTENT)
        if unknown:
            raise TypeError(f"unknown drawing options: {', '.join(sorted(unknown))}")
        self.options.update(options)
        self.options["_source"] = obj
        o = self.options
        sc = scene(obj, notation=o["notation"], player=o["player"], moved_dots=o["moved_dots"])
        heat = None if heatmap is None else _squares(heatmap, sc.ruleset)
        if self._layout_key(sc, heat) != self._layout or options:
            self._build(sc, heat)
        return self._apply(sc, heat, highlight, selected, title)

    def drawn(self, layer: str = "pieces", role: str | None = None) -> list[tuple[Square | None, Shape]]:
        """What a layer shows, as ``(square, shape)`` in drawing order, optionally of one role only."""
        return [(sq, s) for sq, s in self.contents.get(layer, []) if role is None or s.role == role]

    def labels(self) -> dict[str, str]:
        """The rank label drawn on each occupied square, by square name (what a reader sees)."""
        return {square_name(sq): s.text for sq, s in self.drawn("pieces", "label") if sq is not None}


def draw(obj: object, ax: Axes | None = None, *, notation: str | None = None, flip: bool | None = None,
         highlight: Iterable[Square | str] = (), selected: Square | str | None = None, last_move: bool = True,
         heatmap: HeatValues | None = None, fmt: str | Callable[[float], str] | None = None, cmap: str = "cividis",
         vmin: float | None = None, vmax: float | None = None, colorbar: bool = True,
         colorbar_label: str | None = None, zones: bool | None = None, coords: bool = True,
         player: int | None = None, moved_dots: bool = True, title: str | None = None,
         rows: int | None = None) -> BoardArtists:
    """Draw a :class:`State` (everything), a :class:`View` (unknown enemy pieces as ``?``), a :class:`Setup`
    (for ``player``, default Red) or a :class:`Ruleset` (the empty board).

    Draws on ``ax`` or on a new figure (never pyplot's).  ``notation`` ``"modern"``/``"old"`` (default: the
    rule set's); ``flip`` puts Blue at the bottom (default: for Blue's views and setups); ``highlight``
    marks target squares and ``selected`` the chosen piece; ``last_move`` shows the last move's arrow and
    battle; ``heatmap`` colours squares by value (see :func:`heatmap`); ``zones`` tints the setup rows
    (default: for setups and empty boards); ``moved_dots`` marks moved pieces (in a view: the enemy's);
    ``title`` replaces the caption (``""`` for none); ``rows`` draws only that many rows from the bottom
    of the picture (``len(ruleset.setup_rows[RED])``: Red's setup zone, for setup heatmaps).
    """
    options = {"notation": notation, "flip": flip, "zones": zones, "coords": coords, "player": player,
               "moved_dots": moved_dots, "last_move": last_move, "cmap": cmap, "fmt": fmt, "vmin": vmin,
               "vmax": vmax, "colorbar": colorbar, "colorbar_label": colorbar_label, "rows": rows, "_source": obj}
    if ax is None:
        rs = scene(obj, notation=notation, player=player).ruleset
        _, wu, hu, extra = _board_layout(rs, coords, heatmap is not None and colorbar, rows)
        fig, ax = _new_figure(wu, hu, extra)
        board = BoardArtists(fig, ax, options, owns_figure=True)
    else:
        board = BoardArtists(_root_figure(ax), ax, options, owns_figure=False)
    board.update(obj, highlight=highlight, selected=selected, heatmap=heatmap, title=title)
    return board


def update(artists: BoardArtists, obj: object, **kwargs: Any) -> set[Square]:
    """Update a drawn board in place to show ``obj`` (see :meth:`BoardArtists.update`)."""
    return artists.update(obj, **kwargs)


def png(obj: object, *, dpi: float | None = None, **kwargs: Any) -> bytes:
    """PNG bytes of ``draw(obj, **kwargs)``: what ``_repr_png_`` of states, views and setups returns."""
    return draw(obj, **kwargs).png(dpi)


def svg(obj: object, **kwargs: Any) -> str:
    """An SVG document of ``draw(obj, **kwargs)``."""
    return draw(obj, **kwargs).svg()


def heatmap(values: HeatValues, obj: object = None, ax: Axes | None = None, **kwargs: Any) -> BoardArtists:
    """A heatmap over the squares of a board: setup statistics, or "what could this piece be" probabilities.

    ``values`` maps squares (or names like ``"E4"``) to numbers, or is a ``(height, width)`` array with
    ``values[0][0]`` = A1 (row 1 first, as the engine numbers squares); NaN or missing squares stay plain.
    ``obj`` is what to draw under it: a rule set (default classic), or a state, view or setup, whose pieces
    are then drawn smaller above each value.  ``fmt`` (a format string or function) labels the squares, by
    default integers for counts and percentages for fractions; ``cmap`` (default ``cividis``, readable by
    colour-blind readers and in greyscale), ``vmin``/``vmax``, ``colorbar``, ``colorbar_label``, and the
    options of :func:`draw`.
    """
    return draw(get_ruleset(None) if obj is None else obj, ax, heatmap=values, **kwargs)


def setups_figure(setups: Sequence[Setup | str], captions: Sequence[str] | None = None, *,
                  ruleset: str | Ruleset | None = None, columns: int = 3, scale: float = 0.6) -> Drawing:
    """Several setups side by side as small boards, each only its setup zone (as its owner sees it, the back
    row at the bottom) with a caption: how a table of setup strings reads as pictures.

    ``setups`` are :class:`~strategolab.setups.Setup` values or setup strings of ``ruleset`` (default
    classic); ``scale`` is the size of a square relative to :func:`draw`'s.
    """
    if isinstance(setups, str | Setup):
        raise TypeError("setups_figure draws a list of setups; wrap a single one in a list")
    rs = get_ruleset(ruleset)
    boards = [s if isinstance(s, Setup) else Setup.parse(s, rs) for s in setups]
    if not boards:
        raise ValueError("setups_figure needs at least one setup to draw")
    if captions is not None and len(captions) != len(boards):
        raise ValueError(f"{len(captions)} captions for {len(boards)} setups: give one per setup")
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns={columns!r}: expected a whole number of 1 or more")
    columns = min(columns, len(boards))
    lines = len(boards[0].ruleset.setup_rows[RED])
    cell_w, cell_h = boards[0].ruleset.width + 0.4, lines + 0.3 + CAPTION
    across, down = columns, -(-len(boards) // columns)
    inch = SQUARE_INCHES * scale
    fig = Figure(figsize=(across * cell_w * inch, down * cell_h * inch), dpi=DPI)
    FigureCanvasAgg(fig)
    first: Axes | None = None
    for i, setup in enumerate(boards):
        col, row = i % across, i // across
        ax = fig.add_axes((col / across, 1 - (row + 1) / down, 1 / across, 1 / down))
        draw(setup, ax, rows=lines, coords=False, title=captions[i] if captions is not None else "")
        first = first or ax
    assert first is not None
    return Drawing(fig, first)


# -- battles and the attack table -----------------------------------------------------------------------------


def _shapes_artist(ax: Axes, shapes: Sequence[Shape], zorder: float, gid: str) -> PathCollection:
    coll = _collection(ax, zorder, gid)
    _fill(coll, shapes)
    return coll


def battle_figure(attacker: PieceType | str, defender: PieceType | str, ruleset: str | Ruleset | None = None, *,
                  notation: str | None = None, attacker_owner: int = RED, ax: Axes | None = None) -> Drawing:
    """One battle before and after, decided by the engine: the attacker (Red by default) strikes the defender.

    Piece types may be given by name, symbol or rank label of the rule set.
    """
    rs = get_ruleset(ruleset)
    a = attacker if isinstance(attacker, PieceType) else rs.piece_type(attacker)
    d = defender if isinstance(defender, PieceType) else rs.piece_type(defender)
    nt = notation or rs.notation
    result = resolve_battle(a, d)
    wu, hu = 9.0, 3.2
    if ax is None:
        _, ax = _new_figure(wu, hu)
    ax.set_axis_off()
    ax.set_xlim(0, wu)
    ax.set_ylim(0, hu)
    ax.set_aspect("equal")
    pt = _points_per_unit(ax, wu, hu)
    sa, sd = piece_spec(a, attacker_owner, nt), piece_spec(d, 1 - attacker_owner, nt)
    for x in (1.8, 2.8, 6.2):
        ax.add_patch(Rectangle((x, 0.55), 1, 1, facecolor=LAND, edgecolor=GRID, linewidth=0.03 * pt, zorder=0))
    shapes = piece_shapes(2.3, 1.05, 0.84, sa, pt) + piece_shapes(3.3, 1.05, 0.84, sd, pt)
    if result == BattleResult.ATTACKER_WINS:
        shapes += piece_shapes(6.7, 1.05, 0.84, sa._replace(revealed=True), pt)
    elif result == BattleResult.DEFENDER_WINS:
        shapes += piece_shapes(6.7, 1.05, 0.84, sd._replace(revealed=True), pt)
    _shapes_artist(ax, shapes, 3, "pieces")
    ax.add_patch(FancyArrowPatch((2.3, 1.5), (3.3, 1.5), arrowstyle="-|>", connectionstyle="arc3,rad=-0.6",
                                 mutation_scale=0.4 * pt, shrinkA=0, shrinkB=0, color=INK, linewidth=0.05 * pt,
                                 zorder=6, gid="attack"))
    ax.add_patch(FancyArrowPatch((4.3, 1.05), (5.7, 1.05), arrowstyle="simple", mutation_scale=0.6 * pt,
                                 color="#777777", zorder=1))
    words = {BattleResult.ATTACKER_WINS: "the attacker wins", BattleResult.DEFENDER_WINS: "the defender wins",
             BattleResult.BOTH_DIE: "both are removed"}[result]
    font: dict[str, Any] = {"fontfamily": FONT, "ha": "center", "va": "center"}
    ax.text(wu / 2, 2.75, f"{a.name} ({a.label(nt)}) attacks {d.name} ({d.label(nt)}): {words}",
            fontsize=0.3 * pt, fontweight="bold", color=INK, gid="caption", **font)
    ax.text(wu / 2, 2.35, explain_battle(a, d), fontsize=0.26 * pt, color="#333333", gid="reason", **font)
    if result == BattleResult.BOTH_DIE:
        ax.text(6.7, 1.05, "empty", fontsize=0.24 * pt, color="#555555", **font)
    for x, word in ((2.3, "attacker"), (3.3, "defender"), (6.7, "after")):
        ax.text(x, 0.3, word, fontsize=0.19 * pt, color="#555555", **font)
    return Drawing(_root_figure(ax), ax)


def attack_table_figure(ruleset: str | Ruleset | None = None, *, notation: str | None = None,
                        mark: tuple[PieceType | str, PieceType | str] | None = None,
                        ax: Axes | None = None) -> Drawing:
    """The attack-results table of a rule set, computed by the engine (:func:`strategolab.attack_table`).

    Rows are attackers, columns defenders; each cell reads W (attacker wins), L (attacker loses) or =
    (both removed), on a colour that repeats the letter.  Cells where a special power overrides rank (the
    Spy on the Marshal, the Miner on a Bomb) are framed.  ``mark=(attacker, defender)`` rings one cell.
    Each cell's text artist has the gid ``"cell:<attacker>:<defender>"``.
    """
    from strategolab.rules import attack_table

    rs = get_ruleset(ruleset)
    table = attack_table(rs)
    nt = notation or rs.notation
    rows, cols = table.attackers, table.defenders
    nr, nc = len(rows), len(cols)
    left, top = 3.2, 3.2
    # At least as wide as the caption and legend: a small army's table is centred with room to spare.
    wu, hu = max(nc + left + 0.2, 12.5), nr + top + 1.0
    pad = (wu - (nc + left + 0.2)) / 2
    if ax is None:
        _, ax = _new_figure(wu, hu)
    pt = _points_per_unit(ax, wu, hu)
    ax.set_axis_off()
    ax.set_xlim(-left - pad, nc + 0.2 + pad)
    ax.set_ylim(-1.0, nr + top)
    ax.set_aspect("equal")
    font: dict[str, Any] = {"fontfamily": FONT, "va": "center", "color": INK}
    marked = None
    if mark is not None:
        marked = tuple(p.name if isinstance(p, PieceType) else rs.piece_type(p).name for p in mark)
    for i, a in enumerate(rows):
        y = nr - 1 - i
        ax.text(-0.15, y + 0.5, f"{a.name} {a.label(nt)}", fontsize=0.3 * pt, ha="right", gid="row", **font)
        for j, d in enumerate(cols):
            letter, colour = RESULT_STYLE[table[a, d]]
            ax.add_patch(Rectangle((j, y), 1, 1, facecolor=colour, edgecolor="white", linewidth=0.04 * pt,
                                   zorder=1, gid="cell"))
            if d.name in a.beats_when_attacking:
                ax.add_patch(Rectangle((j + 0.06, y + 0.06), 0.88, 0.88, facecolor="none", edgecolor=INK,
                                       linewidth=0.07 * pt, zorder=2, gid="special"))
            ax.text(j + 0.5, y + 0.5, letter, fontsize=0.34 * pt, fontweight="bold", ha="center",
                    gid=f"cell:{a.name}:{d.name}", **font)
            if marked == (a.name, d.name):
                ax.add_patch(Circle((j + 0.5, y + 0.5), 0.48, facecolor="none", edgecolor=INK,
                                    linewidth=0.1 * pt, zorder=3, gid="mark"))
    for j, d in enumerate(cols):
        ax.text(j + 0.5, nr + 0.15, f"{d.label(nt)}  {d.name}", fontsize=0.3 * pt, ha="center", rotation=90,
                gid="col", fontfamily=FONT, va="bottom", color=INK)
    ax.text(-0.15, nr + 0.75, "defender →", fontsize=0.28 * pt, ha="right", fontweight="bold", **font)
    ax.text(-0.15, nr + 0.3, "attacker ↓", fontsize=0.28 * pt, ha="right", fontweight="bold", **font)
    mid = (nc + 0.2 - left) / 2
    ax.text(mid, -0.5, "W attacker wins   L attacker loses   = both removed   ▢ framed: a special power",
            fontsize=0.27 * pt, ha="center", gid="legend", **font)
    ax.text(mid, nr + top - 0.35, f"{rs.name}: who wins a battle (computed by the engine)", fontsize=0.34 * pt,
            fontweight="bold", ha="center", gid="caption", **font)
    return Drawing(_root_figure(ax), ax)


# -- whole games ------------------------------------------------------------------------------------------


def _positions(game: State | Iterable[Position], moves: Iterable[Move | str] | None,
               view: int | None) -> Iterator[Position]:
    """The positions of a game in order: a state's history from its start (or ``moves`` played from it),
    or the positions given; as ``view`` (a player) sees them when asked."""
    if isinstance(game, State):
        state = game.copy()
        if moves is None:  # the game's own history: replayed exactly as it was played
            played = state.move_stack[:]
            while state.move_stack:
                state.pop()
            play = state.push
        else:  # new moves: checked, so a mistyped move says why it is illegal
            played = [Move.parse(m) if isinstance(m, str) else m for m in moves]
            play = state.push_checked
        yield state.view(view) if view is not None else state.copy()
        for m in played:
            play(m)
            yield state.view(view) if view is not None else state.copy()
    else:
        if moves is not None:
            raise ValueError("moves can only be played from a State")
        for p in game:
            yield p.view(view) if view is not None and isinstance(p, State) else p


def frames(game: State | Iterable[Position], moves: Iterable[Move | str] | None = None, *,
           view: int | None = None, dpi: float = 80, **kwargs: Any) -> Iterator[np.ndarray]:
    """RGBA frames (``(h, w, 4)`` uint8 arrays) of a game, one per position, drawn by updating one board.

    ``game`` is a state (its history is replayed from its start, or ``moves`` are played from it) or any
    sequence of states and views; ``view`` draws every frame as that player saw it; other keywords go to
    :func:`draw`.
    """
    board: BoardArtists | None = None
    for pos in _positions(game, moves, view):
        if board is None:
            board = draw(pos, **kwargs)
            board.figure.set_dpi(dpi)
        else:
            board.update(pos)
        yield board.rgba()


def game_gif(game: State | Iterable[Position], path: str | FilePath, moves: Iterable[Move | str] | None = None, *,
             view: int | None = None, duration: int = 700, last_frame: int = 2500, dpi: float = 80,
             **kwargs: Any) -> FilePath:
    """Save a game as an animated GIF, one frame per position (``duration`` ms each, the last held for
    ``last_frame`` ms), to share a replay outside Jupyter; returns the path.  Arguments as for :func:`frames`."""
    from PIL import Image

    images = [Image.fromarray(f).convert("RGB") for f in frames(game, moves, view=view, dpi=dpi, **kwargs)]
    if not images:
        raise ValueError("a game with no positions has no frames")
    p = FilePath(path)
    durations = [duration] * (len(images) - 1) + [last_frame]
    images[0].save(p, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
    return p
