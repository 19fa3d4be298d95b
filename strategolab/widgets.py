"""ipywidgets front ends for the play and replay notebooks: thin views over :mod:`strategolab.controllers`.

The board is a grid of native ``ipywidgets.Button`` s, one per square, so it is operable by keyboard for free
(Tab to a square, Enter or Space to press it) and a browser test can click a square by its CSS class
(``sl-square-C4``).  What a square looks like is said by CSS classes only (``sl-red``, ``sl-unknown``,
``sl-target``, ``sl-selected`` ...), styled once by a stylesheet in the colours of :mod:`strategolab.draw`, and
a refresh touches only the buttons whose text or classes changed.  Every control has a stable class too
(``sl-begin``, ``sl-next``, ``sl-log`` ...).  Questions are in-widget yes/no rows, never browser dialogs.

The widgets hold no game logic: each handler calls the controller and redraws from it.
"""

from __future__ import annotations

import html
import os
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import ipywidgets as w

from strategolab.board import Square, geometry, square
from strategolab.controllers import (
    LEVELS,
    MOVED,
    OVER,
    PLAY,
    PLAY_RULESETS,
    SETUP,
    Cell,
    Pending,
    PlayController,
    ReplayController,
    piece_icon,
    record_choices,
    reflow,
)
from strategolab.draw import ARMIES, GOLD, GRID, INK, LAKE, LAKE_WAVE, LAND, ZONE
from strategolab.errors import StrategolabError
from strategolab.rules import BLUE, PLAYER_NAMES, RED, PieceType, Ruleset

SQUARE_PX = 48

_RED, _BLUE = ARMIES
# Drawn over the tile's frame, as the drawer does: a dot for a piece that has moved, a gold corner for one
# revealed (in battle or by a Scout's run).
_DOT = "radial-gradient(circle at calc(100% - 7px) calc(100% - 7px), currentColor 3px, transparent 3.5px)"
_CORNER = f"linear-gradient(225deg, {GOLD} 0 10px, {INK} 10px 11px, transparent 11px)"
# Theme-aware text colours (JupyterLab's light and dark themes, Voilà's too), with fallbacks elsewhere.
_TEXT, _TEXT_SOFT = "var(--jp-ui-font-color1, #1a1a1a)", "var(--jp-ui-font-color2, #555)"
_LINE = "var(--jp-border-color2, #ddd)"
_FOCUS = "outline: 3px solid #000; outline-offset: -3px; box-shadow: inset 0 0 0 6px #fff; z-index: 3;"


def symbol_svg(icon: str, ink: str, size: int = 40) -> str:
    """The drawer's symbol of a Flag (⚑) or a Bomb (a ball with a burning fuse) as inline SVG, in ``ink``."""
    if icon == "flag":
        body = (f'<text x="20" y="30" text-anchor="middle" font-size="30" fill="{ink}" '
                'font-family="DejaVu Sans, Segoe UI Symbol, sans-serif">⚑</text>')
    elif icon == "bomb":
        body = (f'<circle cx="18" cy="23" r="10" fill="{ink}"/>'
                f'<path d="M25 16 L29 11" stroke="{ink}" stroke-width="2.5" stroke-linecap="round"/>'
                f'<path d="M31 4 L32.5 8 L36 8.5 L33 11 L34 14.5 L31 12.5 L28 14.5 L29 11 L26 8.5 L29.5 8 Z" '
                f'fill="{GOLD}" stroke="{INK}" stroke-width="0.6"/>')
    else:
        raise ValueError(f"no symbol {icon!r}: expected 'flag' or 'bomb'")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 40 40" '
            f'role="img" aria-hidden="true">{body}</svg>')


def _svg_url(icon: str, ink: str) -> str:
    return 'url("data:image/svg+xml,' + urllib.parse.quote(symbol_svg(icon, ink)) + '")'


def _symbol_css() -> str:
    """Bombs and Flags on the board: the symbol fills the tile, the letter sits small in a corner (as drawn)."""
    out = []
    for army, style in (("red", _RED), ("blue", _BLUE)):
        for icon in ("flag", "bomb"):
            out.append(f".sl-board .sl-square.sl-{army}.sl-icon-{icon} {{ background-image: "
                       f"{_svg_url(icon, style.ink)}; }}")
    return "\n".join(out)


CSS = f"""<style>
.sl-app {{ font-family: var(--jp-ui-font-family, sans-serif); color: {_TEXT}; }}
.sl-app .sl-title {{ font-size: 15px; font-weight: 600; }}
.sl-board {{ width: max-content; gap: 0; padding: 2px; }}
.sl-board .sl-coord {{ display: flex; align-items: center; justify-content: center; margin: 0; width: 100%;
  height: 100%; font-size: 12px; font-weight: 600; color: {_TEXT}; }}
.sl-board .sl-coord .widget-html-content {{ height: auto; line-height: 1; text-align: center;
  align-self: center; }}
.sl-board .jupyter-button.sl-square {{ width: {SQUARE_PX}px; height: {SQUARE_PX}px; margin: 0; padding: 0;
  border: 1px solid {GRID}; border-radius: 0; background-color: {LAND}; color: {INK}; font-size: 15px;
  font-weight: 700; line-height: 1.1; white-space: pre-line; position: relative; box-shadow: none;
  overflow: hidden; background-repeat: no-repeat; background-position: center; }}
.sl-board .jupyter-button.sl-square:hover {{ filter: brightness(1.06); }}
.sl-board .sl-square.sl-zone-red {{ background-color: {ZONE[RED]}; }}
.sl-board .sl-square.sl-zone-blue {{ background-color: {ZONE[BLUE]}; }}
.sl-board .sl-square.sl-lake {{ background: repeating-linear-gradient(160deg, {LAKE} 0 7px, {LAKE_WAVE} 7px 9px);
  cursor: default; opacity: 1; }}
.sl-board .sl-square.sl-red {{ background-color: {_RED.face}; color: {_RED.ink};
  box-shadow: inset 0 0 0 3px {LAND}, inset 0 0 0 5px {_RED.edge}; }}
.sl-board .sl-square.sl-blue {{ background-color: {_BLUE.face}; color: {_BLUE.ink};
  box-shadow: inset 0 0 0 3px {LAND}, inset 0 0 0 7px {_BLUE.edge}; }}
{_symbol_css()}
.sl-board .sl-square.sl-icon-flag, .sl-board .sl-square.sl-icon-bomb {{ font-size: 10px; text-align: right;
  padding: 26px 7px 0 0; background-size: 36px 36px; }}
.sl-board .sl-square.sl-unknown {{ font-size: 18px; }}
.sl-board .sl-square.sl-moved::before, .sl-board .sl-square.sl-revealed::before {{ content: "";
  position: absolute; inset: 3px; pointer-events: none; }}
.sl-board .sl-square.sl-moved::before {{ background: {_DOT}; }}
.sl-board .sl-square.sl-revealed::before {{ background: {_CORNER}; }}
.sl-board .sl-square.sl-moved.sl-revealed::before {{ background: {_DOT}, {_CORNER}; }}
.sl-board .sl-square.sl-last {{ border: 2px dashed {INK}; }}
.sl-board .sl-square.sl-battle {{ outline: 3px solid #E8590C; outline-offset: -3px; }}
.sl-board .sl-square.sl-movable {{ cursor: pointer; }}
.sl-board .sl-square.sl-selected {{ outline: 4px solid {GOLD}; outline-offset: -4px; z-index: 1;
  filter: brightness(1.15); }}
.sl-board .sl-square.sl-hint {{ outline: 4px dotted #7048E8; outline-offset: -4px; z-index: 1; }}
.sl-board .sl-square.sl-target {{ cursor: pointer; }}
.sl-board .sl-square.sl-target::after {{ content: ""; position: absolute; left: 50%; top: 50%; width: 14px;
  height: 14px; margin: -7px 0 0 -7px; border-radius: 50%; background: {GOLD}; box-shadow: 0 0 0 2px {INK}66; }}
.sl-board .sl-square.sl-target.sl-attack::after {{ width: 34px; height: 34px; margin: -17px 0 0 -17px;
  background: transparent; border: 4px solid {GOLD}; box-sizing: border-box; box-shadow: 0 0 0 1px {INK}; }}
.sl-board .sl-square.sl-belief {{ font-size: 11px; letter-spacing: -0.3px; }}
.sl-board .sl-square.sl-belief-1 {{ outline: 4px solid #2F9E44; outline-offset: -4px; }}
.sl-board .sl-square.sl-belief-2 {{ outline: 4px solid #F08C00; outline-offset: -4px; }}
.sl-board .sl-square.sl-belief-3 {{ outline: 4px solid #E03131; outline-offset: -4px; }}
.sl-board .jupyter-button.sl-square:focus-visible, .sl-board .jupyter-button.sl-square.sl-selected:focus-visible
  {{ {_FOCUS} }}
.sl-app .sl-panel {{ padding-left: 10px; gap: 2px; }}
.sl-app .sl-panel .jupyter-button {{ flex: 0 0 auto; }}
.sl-app .sl-panel .widget-html, .sl-app .sl-panel .widget-html-content {{ margin-top: 0; margin-bottom: 0; }}
.sl-app .sl-message .widget-html-content, .sl-app .sl-status .widget-html-content {{ line-height: 1.3;
  height: auto; min-height: 20px; }}
.sl-app .sl-msg-refused {{ color: #B3261E; font-weight: 600; background: #FFF5F5; padding: 1px 4px;
  border-radius: 3px; }}
.sl-app .sl-msg-error {{ color: #fff; background: #B3261E; padding: 2px 6px; border-radius: 3px; }}
.sl-app .sl-warning-text {{ color: #8A4B00; background: #FFF3BF; padding: 2px 6px; border-radius: 3px;
  font-weight: 600; }}
.sl-app .sl-log {{ overflow-y: auto; border: 1px solid {GRID}; padding: 2px 6px; font-size: 12px; }}
.sl-app .sl-log .widget-html-content {{ height: auto; line-height: 1.3; }}
.sl-app .sl-log-entry {{ padding: 1px 0; border-bottom: 1px solid {_LINE}; }}
.sl-app .sl-log-battle {{ font-weight: 600; }}
.sl-app .sl-log-latest {{ background: rgba(250, 176, 5, 0.25); }}
.sl-app .sl-confirm {{ background: #FFF3BF; color: #1a1a1a; padding: 4px; border-radius: 4px; }}
.sl-app .sl-moves select {{ font-family: var(--jp-code-font-family, monospace); font-size: 12px; }}
.sl-app .sl-comment-view {{ font-style: italic; }}
.sl-app .sl-legend, .sl-app .sl-ranks, .sl-app .sl-trays {{ font-size: 11px; color: {_TEXT_SOFT}; }}
.sl-app .sl-ranks .widget-html-content, .sl-app .sl-trays .widget-html-content,
  .sl-app .sl-legend .widget-html-content {{ height: auto; line-height: 1.35; }}
.sl-app .sl-chip {{ display: inline-flex; align-items: center; gap: 2px; margin-right: 6px; white-space: nowrap; }}
.sl-app .sl-chip b {{ color: {_TEXT}; }}
.sl-app .sl-chip svg {{ width: 16px; height: 16px; vertical-align: middle; border-radius: 3px; }}
.sl-app .sl-tile-red {{ background: {_RED.face}; color: {_RED.ink}; }}
.sl-app .sl-tile-blue {{ background: {_BLUE.face}; color: {_BLUE.ink}; }}
.sl-app .sl-tile {{ display: inline-block; min-width: 16px; padding: 0 2px; text-align: center; border-radius: 3px;
  font-weight: 700; font-size: 11px; line-height: 16px; }}
.sl-app .sl-reasoning {{ font-size: 11.5px; line-height: 1.35; margin: 4px 0; white-space: pre-wrap;
  color: {_TEXT}; }}
.sl-app .sl-reasoning-box {{ max-height: 150px; overflow-y: auto; }}
</style>"""


# -- keyboard ------------------------------------------------------------------------------------------------

GUARD_CLASS = "sl-keys"
# JupyterLab (Lumino's CommandRegistry) looks for a shortcut's selector from the focused element upwards and
# stops at an element carrying ``data-lm-suppress-shortcuts``: the notebook's command-mode keys (``d d``,
# ``a``, ``b``, ``m``, ``z``, the arrows) all match on the focused element itself, so the attribute goes on
# every element that takes focus inside a guarded widget, the moment it takes focus.  The same script gives
# a board (``.sl-board``) one stop in the Tab order and a cursor: arrow keys move it square by square (lakes
# and empty squares too), Enter/Space press the square, Escape presses the selected square (which cancels).
# It is installed once per page by a trusted HTML output (JupyterLab and Voilà run its script), so it needs
# no front-end extension.
KEYS_JS = """
(() => {
  if (window.strategolabKeys) return;
  window.strategolabKeys = true;
  const ATTR = 'data-lm-suppress-shortcuts';
  const MOVES = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  const squaresOf = board => [...board.querySelectorAll(':scope > .sl-square')];
  const columnsOf = board => Number((board.className.match(/sl-cols-(\\d+)/) || [0, 10])[1]);
  function rove(board) {  // exactly one square, the cursor, in the Tab order
    for (const s of squaresOf(board)) {
      const index = s === board.slCursor ? 0 : -1;
      if (s.tabIndex !== index) s.tabIndex = index;
    }
  }
  function cursor(board, square) {
    board.slCursor = square;
    rove(board);
    if (!board.slWatched) {
      // A screen reader hears a square's name and what stands on it (its tooltip), kept up to date; a
      // redrawn square gets its tabindex back from ipywidgets, so the cursor's is put back.
      for (const s of squaresOf(board)) s.setAttribute('aria-label', s.title);
      board.slWatched = new MutationObserver(records => {
        for (const r of records) if (r.attributeName === 'title') r.target.setAttribute('aria-label', r.target.title);
        if (board.slCursor.isConnected) rove(board);
      });
      board.slWatched.observe(board, {subtree: true, attributes: true, attributeFilter: ['tabindex', 'title']});
    }
  }
  document.addEventListener('focusin', event => {
    const el = event.target;
    if (!(el instanceof Element) || !el.closest('.sl-keys')) return;
    el.setAttribute(ATTR, 'true');
    const board = el.classList.contains('sl-square') && el.parentElement;
    if (board && board.classList.contains('sl-board')) cursor(board, el);
  }, true);
  window.addEventListener('keydown', event => {
    const el = event.target;
    if (!(el instanceof Element) || !el.classList.contains('sl-square') || event.altKey || event.ctrlKey ||
        event.metaKey) return;
    const board = el.parentElement;
    if (!board || !board.classList.contains('sl-board') || !board.closest('.sl-keys')) return;
    const squares = squaresOf(board), cols = columnsOf(board), i = squares.indexOf(el);
    const step = MOVES[event.key];
    if (step) {
      const col = i % cols + step[0], row = Math.floor(i / cols) + step[1];
      const next = squares[row * cols + col];
      if (col >= 0 && col < cols && row >= 0 && next) { cursor(board, next); next.focus(); }
    } else if (event.key === 'Escape') {
      const selected = board.querySelector(':scope > .sl-square.sl-selected');
      if (selected) selected.click();
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  }, true);
})();
"""


def guard_keys(*widgets: w.DOMWidget) -> None:
    """Keep JupyterLab's shortcuts (``d d`` deletes a cell) out of these widgets and everything inside them.

    The widgets get the class ``sl-keys``; the page needs :func:`keyboard_script` shown once (the apps here
    show it in their head).
    """
    for widget in widgets:
        widget.add_class(GUARD_CLASS)


def _script(js: str, css: str) -> w.Output:
    """An invisible output holding a trusted ``<script>`` (JupyterLab and Voilà run it when it is shown)."""
    out = w.Output(layout=w.Layout(display="none"))
    out.outputs = ({"output_type": "display_data", "metadata": {},
                    "data": {"text/html": f"<script>{js}</script>", "text/plain": ""}},)
    out.add_class(css)
    return out


def keyboard_script() -> w.Output:
    """An invisible output whose script installs the keyboard guard and the board cursor (once per page)."""
    return _script(KEYS_JS, "sl-keys-script")


def head() -> list[w.Widget]:
    """What every app starts with: its stylesheet and the keyboard script."""
    return [_html("sl-style", CSS), keyboard_script()]


def _classes(cell: Cell) -> tuple[str, ...]:
    """The CSS classes of one square: its name, its contents, and the overlays on it."""
    out = ["sl-square", f"sl-square-{cell.name}"]
    if cell.lake:
        return (*out, "sl-lake")
    if cell.owner is None:
        out.append("sl-empty")
        if cell.zone is not None:
            out.append(f"sl-zone-{PLAYER_NAMES[cell.zone].lower()}")
    else:
        out.append(f"sl-{PLAYER_NAMES[cell.owner].lower()}")
        if cell.piece is None:
            out.append("sl-unknown")
    if cell.icon and not cell.belief:
        out.append(f"sl-icon-{cell.icon}")
    for flag, name in ((cell.moved, "sl-moved"), (cell.revealed, "sl-revealed"), (cell.last, "sl-last"),
                       (cell.battle, "sl-battle"), (cell.movable, "sl-movable"), (cell.selected, "sl-selected"),
                       (cell.hinted, "sl-hint")):
        if flag:
            out.append(name)
    if cell.target:
        out.append("sl-target")
        if cell.owner is not None:
            out.append("sl-attack")
    if cell.belief_level:
        out += ["sl-belief", f"sl-belief-{cell.belief_level}"]
    return tuple(out)


def _button(text: str, css: str, *, style: str = "", tooltip: str = "", width: str | None = None,
            icon: str = "") -> w.Button:
    b = w.Button(description=text, button_style=style, tooltip=tooltip, icon=icon,
                 layout=w.Layout(width=width) if width else w.Layout(width="auto"))
    b.add_class(css)
    return b


def _html(css: str, value: str = "") -> w.HTML:
    h = w.HTML(value)
    h.add_class(css)
    return h


def _show(widget: w.DOMWidget, visible: bool) -> None:
    widget.layout.display = None if visible else "none"


def _message(text: str, kind: str) -> str:
    return f'<span class="sl-msg-{kind}">{html.escape(text)}</span>' if text else ""


class ConfirmRow(w.HBox):
    """The controller's pending question with Yes and No (hidden while nothing is pending)."""

    def __init__(self, answer: Callable[[bool], None]) -> None:
        self.question = _html("sl-confirm-text")
        self.yes = _button("Yes", "sl-confirm-yes", style="danger")
        self.no = _button("No", "sl-confirm-no")
        self.yes.on_click(lambda _: answer(True))
        self.no.on_click(lambda _: answer(False))
        super().__init__([self.question, self.yes, self.no])
        self.add_class("sl-confirm")

    def ask(self, pending: Pending | None) -> None:
        """Show ``pending``'s question, or hide the row."""
        _show(self, pending is not None)
        self.question.value = f"<b>{html.escape(pending.question)}</b>" if pending else ""


class BoardView(w.GridBox):
    """The board: one native button per square, with coordinates; the owner's side at the bottom."""

    def __init__(self, on_click: Callable[[Square], None]) -> None:
        super().__init__()
        self.add_class("sl-board")
        guard_keys(self)
        self._script = keyboard_script()  # a board works by keyboard in any app that shows it
        self._on_click = on_click
        self.buttons: dict[Square, w.Button] = {}
        self.home: Square | None = None  # the square the cursor starts on: the bottom left
        self._shown: dict[Square, tuple[str, str, tuple[str, ...]]] = {}
        self._key: tuple | None = None

    def show(self, cells: Sequence[Cell], ruleset: Ruleset, flip: bool = False, keep: str = "") -> None:
        """Show ``cells`` (from a controller); ``flip`` puts row 1 at the top (Blue's seat).

        ``keep`` names a class that pieces still showing it keep (the play widget keeps ``sl-movable`` while
        the computer thinks, so a move redraws two squares, not every piece that could move).
        """
        geo = geometry(ruleset)
        key = (geo.width, geo.height, geo.lakes, flip)
        if key != self._key:
            self._build(geo.width, geo.height, flip, ruleset.columns)
            self._key = key
        buttons, shown = self.buttons, self._shown
        for cell in cells:
            # A button keeps its old text when given an empty one, so an empty square shows a no-break space.
            look = (cell.text or "\u00a0", cell.hint, _classes(cell))
            old = shown.get(cell.square)
            if keep and old is not None and keep in old[2] and cell.owner is not None and keep not in look[2]:
                look = (*look[:2], (*look[2], keep))
            if old != look:
                b = buttons[cell.square]
                with b.hold_sync():
                    b.description, b.tooltip, b._dom_classes = look
                shown[cell.square] = look

    def _build(self, width: int, height: int, flip: bool, columns: str) -> None:
        """New buttons for a board of this size and orientation, in reading order.

        The board is one stop in the Tab order (the square at the bottom left until the cursor moves); lakes
        are buttons too, so the cursor can stand on them.
        """
        rows = range(height) if flip else range(height - 1, -1, -1)
        cols = list(range(width - 1, -1, -1) if flip else range(width))
        for old in self.children:  # the widgets of the previous board leave the browser too
            if old is not self._script:
                old.close()
        children: list[w.Widget] = []
        self.buttons, self._shown = {}, {}
        for r in rows:
            label = _html("sl-coord", str(r + 1))
            children.append(label)
            for c in cols:
                sq = square(c, r)
                b = w.Button(description="", layout=w.Layout(width=f"{SQUARE_PX}px", height=f"{SQUARE_PX}px"),
                             tabbable=r == rows[-1] and c == cols[0])
                if b.tabbable:
                    self.home = sq
                b.on_click(lambda _b, sq=sq: self._on_click(sq))
                self.buttons[sq] = b
                children.append(b)
        children.append(_html("sl-coord"))
        children += [_html("sl-coord", columns[c]) for c in cols]
        children.append(self._script)
        self._dom_classes = (*(c for c in self._dom_classes if not c.startswith("sl-cols-")), f"sl-cols-{width}")
        self.layout.grid_template_columns = f"22px repeat({width}, {SQUARE_PX}px)"
        self.layout.grid_template_rows = f"repeat({height}, {SQUARE_PX}px) 22px"
        self.children = children


# -- play ---------------------------------------------------------------------------------------------------

VISITORS = "saved-matches"  # served by Voilà, each visitor's matches go to a file of their own in this folder


def default_save_path() -> Path:
    """Where the play widget saves: ``my-match.sgn``; served by Voilà (every visitor has a kernel of their
    own), a file per visitor in :data:`VISITORS`, so no visitor's save overwrites another's."""
    kernel = os.environ.get("VOILA_KERNEL_ID", "")
    return Path(VISITORS) / f"match-{kernel.replace('-', '')[:12]}.sgn" if kernel else Path("my-match.sgn")


def _tile(kind: PieceType, owner: int, rs: Ruleset) -> str:
    """A small piece tile for the trays and the legend: the rank, or the drawer's symbol for Bombs and Flags."""
    army = PLAYER_NAMES[owner].lower()
    icon = piece_icon(kind)
    inside = symbol_svg(icon, ARMIES[owner].ink, 16) if icon else html.escape(kind.label(rs.notation))
    return f'<span class="sl-tile sl-tile-{army}" title="{html.escape(kind.name)}">{inside}</span>'


def ranks_legend(rs: Ruleset, owner: int = RED) -> str:
    """The ranks of a rule set as tiles with names: ``10 Marshal`` … ``S Spy``, Bomb and Flag as symbols."""
    kinds = sorted(rs.piece_types, key=lambda k: (not k.movable, k.is_flag, -k.strength))
    return "".join(f'<span class="sl-chip">{_tile(k, owner, rs)} {html.escape(k.name)}</span>' for k in kinds)


class PlayWidget(w.VBox):
    """Play a match against the computer: settings, deployment, the board, take back / hint / resign, the
    captured pieces, the log, save/restore/export, and the finished game in the replay widget."""

    def __init__(self, controller: PlayController | None = None, save_path: str | Path | None = None) -> None:
        super().__init__()
        self.add_class("sl-app")
        self.add_class("sl-play")
        guard_keys(self)  # every control inside: the dropdowns, the file name, the buttons, the board
        self.controller = c = controller or PlayController()
        if save_path is None:
            save_path = default_save_path()
            if save_path.parent.name == VISITORS:
                save_path.parent.mkdir(exist_ok=True)
        rulesets = list(PLAY_RULESETS) + ([c.ruleset.name] if c.ruleset.name not in PLAY_RULESETS else [])
        levels = list(LEVELS) + ([c.level] if c.level not in LEVELS else [])
        self.ruleset = w.Dropdown(options=rulesets, value=c.ruleset.name, description="Rules")
        self.level = w.Dropdown(options=levels, value=c.level, description="Computer")
        self.side = w.Dropdown(options=[("Red", RED), ("Blue", BLUE)], value=c.human, description="You play")
        self.first = w.Dropdown(options=[("you", "you"), ("the computer", "computer")], value=c.first,
                                description="First move")
        for widget, css in ((self.ruleset, "sl-ruleset"), (self.level, "sl-level"), (self.side, "sl-side"),
                            (self.first, "sl-first")):
            widget.add_class(css)
            widget.layout.width = "204px"
            widget.style.description_width = "72px"
            widget.observe(self._settings_changed, "value")
        self.settings = w.GridBox([self.ruleset, self.level, self.side, self.first],
                                  layout=w.Layout(grid_template_columns="repeat(2, 208px)"))
        self.settings.add_class("sl-settings")
        self.shuffle = _button("Shuffle", "sl-shuffle", tooltip="Deploy your pieces at random")
        self.setup_choice = w.Dropdown(options=[], description="Setup", style={"description_width": "initial"},
                                       tooltip="A ready-made setup", layout=w.Layout(width="196px"))
        self.setup_choice.add_class("sl-setup-choice")
        self.begin = _button("Begin the match", "sl-begin", style="success")
        self.shuffle.on_click(lambda _: self._act(c.shuffle))
        self.setup_choice.observe(self._setup_chosen, "value")
        self.begin.on_click(lambda _: self._begin())
        self.setup_row = w.HBox([self.shuffle, self.setup_choice, self.begin])
        self.bot = w.Text(placeholder="a UCC 2012 bot's command (empty: the computer)", description="External bot",
                          style={"description_width": "initial"})
        self.use_bot = w.Button(description="Play this bot")
        self.bot.add_class("sl-bot")
        self.use_bot.add_class("sl-use-bot")
        self.use_bot.on_click(lambda _: self._act(self._choose_bot))
        self.bot_row = w.HBox([self.bot, self.use_bot])
        self.bot_row.add_class("sl-bot-row")
        self.setup_row.add_class("sl-setup-row")

        self.take_back = _button("Take back", "sl-take-back", icon="undo",
                                 tooltip="Take back your last move and the computer's reply")
        self.hint = _button("Hint", "sl-hint-button", icon="lightbulb-o",
                            tooltip="What would the computer play in your place? (from your view only)")
        self.resign = _button("Resign", "sl-resign", icon="flag", tooltip="Give up this match")
        self.new_game = _button("New game", "sl-new-game")
        self.take_back.on_click(lambda _: self._act(c.take_back))
        self.hint.on_click(lambda _: self._act(c.hint))
        self.resign.on_click(lambda _: self._act(c.resign))
        self.new_game.on_click(lambda _: self._act(c.new_game))
        self.replay_button = _button("Replay this game", "sl-replay-game", style="info", icon="play",
                                     tooltip="Open the finished game in the replay widget, below")
        self.replay_button.on_click(lambda _: self._replay())
        self.actions = w.HBox([self.take_back, self.hint, self.resign, self.new_game, self.replay_button])
        self.actions.add_class("sl-actions")

        self.board = BoardView(self._square)
        self.status = _html("sl-status")
        self.message = _html("sl-message")
        self.warning = _html("sl-warning")
        self.beliefs = w.ToggleButton(description="What does the computer think?", value=c.show_beliefs,
                                      tooltip="Show on your pieces what the computer believes they are",
                                      layout=w.Layout(width="auto"))
        self.beliefs.add_class("sl-beliefs")
        self.beliefs.observe(self._beliefs_toggled, "value")
        self.legend = _html("sl-legend")
        self.trays = _html("sl-trays")
        self.ranks = _html("sl-ranks")
        self.ranks.layout.width = "500px"
        self.log_view = _html("sl-log")
        self.log_view.layout.height = "190px"

        self.path = w.Text(value=str(save_path), description="File", layout=w.Layout(width="190px"),
                           style={"description_width": "32px"})
        self.path.add_class("sl-path")
        self.save = _button("Save", "sl-save", tooltip="Write the match to the file (atomically)")
        self.restore = _button("Restore", "sl-restore", tooltip="Replace the match with the one saved in the file")
        self.export = _button("Export", "sl-export", tooltip="The game in the kit's notation, for the replay notebook")
        self.save.on_click(lambda _: self._act(lambda: c.save(self.path.value)))
        self.restore.on_click(lambda _: self._restore())
        self.export.on_click(lambda _: self._export())
        files = w.HBox([self.path, self.save, self.restore, self.export])
        files.add_class("sl-files")

        self.confirm_row = ConfirmRow(self._answer)
        self.record = w.Textarea(layout=w.Layout(width="100%", height="160px"))
        self.record.add_class("sl-export-text")
        self.replay_box = w.VBox()
        self.replay_box.add_class("sl-replay-box")

        panel = w.VBox([_html("sl-title", "Play against the computer"), self.status, self.message, self.warning,
                        self.settings, self.setup_row, self.bot_row, self.actions, self.confirm_row, self.beliefs,
                        self.legend, self.trays, _html("sl-log-title", "<b>Moves and battles</b> (newest first)"),
                        self.log_view, files], layout=w.Layout(width="420px", min_width="420px"))
        panel.add_class("sl-panel")
        board = w.VBox([self.board, self.ranks], layout=w.Layout(min_width="510px"))
        self.children = [*head(), w.HBox([board, panel]), self.record, self.replay_box]
        _show(self.record, False)
        self.refresh()

    # -- handlers -------------------------------------------------------------------------------------

    def _act(self, action: Callable[[], object]) -> None:
        """Run a controller action, show any error as a message, redraw; then let the computer answer."""
        try:
            action()
        except (StrategolabError, ValueError) as e:
            self.controller.say(str(e), "error")
        self.refresh()
        self._computer_moves()  # after a restore or an answer the computer may be to move

    def _settings_changed(self, _change: object) -> None:
        c = self.controller
        if c.phase != SETUP or self._refreshing:
            return
        self._act(lambda: c.configure(ruleset=self.ruleset.value, level=self.level.value, human=self.side.value,
                                      first=self.first.value))

    def _choose_bot(self) -> None:
        """Play against the external program in the text field (the computer level when it is empty)."""
        from strategolab.engines import UccEngine

        command = self.bot.value.strip()
        self.controller.use_opponent((lambda _level, _seed: UccEngine(command)) if command else None)

    def _setup_chosen(self, change: dict) -> None:
        if change["new"] and not self._refreshing:
            self._act(lambda: self.controller.use_setup(change["new"]))

    def _beliefs_toggled(self, change: dict) -> None:
        self.controller.show_beliefs = bool(change["new"])
        self.refresh()

    def _begin(self) -> None:
        self._act(self.controller.begin)
        if self.controller.phase != SETUP and self.board.home is not None:
            self.board.buttons[self.board.home].focus()  # the Begin button is gone: the keyboard goes on on the board

    def _square(self, sq: Square) -> None:
        """A click on a square: the controller decides; after the human's move the computer answers."""
        result = self.controller.click(sq)
        self.refresh()
        if result == MOVED:
            self._computer_moves()

    def _computer_moves(self) -> None:
        c = self.controller
        if c.computer_to_move:
            self.status.value = "<b>The computer is thinking…</b>"
            try:
                c.computer_reply()
            except (StrategolabError, ValueError) as e:
                c.say(str(e), "error")
            self.refresh()

    def _restore(self) -> None:
        self._act(lambda: self.controller.restore(self.path.value))

    def _answer(self, yes: bool) -> None:
        self._act(lambda: self.controller.confirm(yes))

    def _export(self) -> None:
        c = self.controller
        try:
            self.record.value = c.export()
        except ValueError as e:
            c.say(str(e), "error")
        else:
            c.say("The game in the kit's notation is below" + (
                "; the computer's setup stays sealed until the game is over." if c.phase == PLAY else
                ": the complete record, both setups, ready for the replay notebook."))
            _show(self.record, True)
            self._exported = (c.state, len(c.log), c.phase)
        self.refresh()

    def _replay(self) -> None:
        """The finished game in the replay widget, below the board, everything revealed."""
        c = self.controller
        if c.phase != OVER:
            return
        for old in self.replay_box.children:
            old.close()
        self.replay_box.children = [ReplayWidget(ReplayController(c.game()))]
        c.say("The finished game is open in the replay widget below.")
        self.refresh()

    # -- drawing ----------------------------------------------------------------------------------------

    _refreshing = False
    _exported: tuple[object, int, str] | None = None  # what the export on show was made of

    def refresh(self) -> None:
        """Redraw everything from the controller (only changed parts reach the browser)."""
        c = self.controller
        self._refreshing = True
        try:
            setup, playing = c.phase == SETUP, c.phase == PLAY
            for dd, value in ((self.ruleset, c.ruleset.name), (self.level, c.level), (self.side, c.human),
                              (self.first, c.first)):
                dd.value = value
                dd.disabled = not setup
            _show(self.settings, setup)
            _show(self.bot_row, setup)
            _show(self.setup_row, setup)
            _show(self.actions, not setup)
            if setup:
                names = [("Ready-made setup…", ""), *((n, n) for n in c.setup_names())]
                if list(self.setup_choice.options) != names:
                    self.setup_choice.options = names
                self.setup_choice.value = c.setup_name if c.setup_name in dict(names).values() else ""
            self.take_back.disabled = not c.can_take_back
            self.hint.disabled = self.resign.disabled = not c.human_to_move
            _show(self.replay_button, c.phase == OVER)
            for button in (self.take_back, self.hint, self.resign):  # after the end: New game and Replay
                _show(button, playing)
            # While the computer thinks (it answers at once) your pieces keep their look: fewer squares to redraw.
            self.board.show(c.cells(), c.ruleset, flip=c.human == BLUE, keep="sl-movable" * c.computer_to_move)
            self.status.value = f"<b>{html.escape(c.status())}</b>"
            self.message.value = _message(c.message, c.message_kind)
            warning = c.warning
            self.warning.value = f'<span class="sl-warning-text">{html.escape(warning)}</span>' if warning else ""
            self.beliefs.disabled = not playing or not hasattr(c.opponent, "beliefs")
            _show(self.beliefs, playing)
            self._show_beliefs(c.show_beliefs and playing)
            self._show_trays()
            self._show_log()
            self.confirm_row.ask(c.pending)
            self.save.disabled = self.export.disabled = c.state is None
            if self._exported != (c.state, len(c.log), c.phase):  # an export of an earlier position: away
                _show(self.record, False)
        finally:
            self._refreshing = False

    def _show_beliefs(self, on: bool) -> None:
        c = self.controller
        value = ""
        if on:
            hint = c.hinted.reason if c.hinted is not None else ""
            text = c.reasoning() + (f"\n\n{hint}" if hint else "")
            value = ("Outline on your pieces: <span style='color:#E03131'>red</span> the computer has (almost) "
                     "found it, <span style='color:#F08C00'>orange</span> it suspects, "
                     "<span style='color:#2F9E44'>green</span> it is far off; the second line is its guess "
                     "(✓: it knows). No outline: it has no real idea yet."
                     + (f'<div class="sl-reasoning-box"><div class="sl-reasoning">{html.escape(text)}</div></div>'
                        if text else ""))
        elif self.controller.hinted is not None:
            value = f'<div class="sl-reasoning-box"><div class="sl-reasoning">' \
                    f'{html.escape(self.controller.hinted.reason)}</div></div>'
        if self.legend.value != value:
            self.legend.value = value
        self.log_view.layout.height = "150px" if value else "190px"

    def _show_trays(self) -> None:
        c = self.controller
        rs = c.ruleset
        value = ""
        if c.state is not None:
            lost = c.captured()
            rows = []
            for side, who in ((c.human, "You lost"), (c.computer, "The computer lost")):
                tiles = "".join(_tile(rs.piece_type(name), side, rs) for name in lost[side]) or "nothing yet"
                rows.append(f'<div class="sl-tray sl-tray-{PLAYER_NAMES[side].lower()}"><b>{who}:</b> {tiles}</div>')
            value = "".join(rows)
        if self.trays.value != value:
            self.trays.value = value
        ranks = ranks_legend(rs, c.human)
        if self.ranks.value != ranks:
            self.ranks.value = ranks

    def _show_log(self) -> None:
        log = self.controller.log
        rows = []
        for i, entry in enumerate(reversed(log)):
            css = ["sl-log-entry", f"sl-log-{PLAYER_NAMES[entry.player].lower()}"]
            if entry.battle is not None:
                css.append("sl-log-battle")
            if i == 0:
                css.append("sl-log-latest")
            rows.append(f'<div class="{" ".join(css)}" data-ply="{entry.ply}">{html.escape(entry.text)}</div>')
        result = self.controller.result_text()
        head = f'<div class="sl-log-entry sl-log-result"><b>Result: {html.escape(result)}</b></div>' if result else ""
        value = head + ("".join(rows) or '<div class="sl-log-empty">No moves yet.</div>')
        if self.log_view.value != value:
            self.log_view.value = value


# -- replay -----------------------------------------------------------------------------------------------------

_MARKS = [("no mark", ""), ("! good", "!"), ("? mistake", "?"), ("!! brilliant", "!!"), ("?? blunder", "??"),
          ("!? interesting", "!?"), ("?! dubious", "?!")]
_ANY = ("any", "")
_SORT_LABELS = {"file": "file order", "shortest": "shortest first", "longest": "longest first",
                "player": "Red player A-Z", "result": "result"}

# The replay widget's own styles (the board's are in CSS): its side panel never clips its right edge, a
# result such as "1-0" never wraps, the game browser's filters line up.
REPLAY_CSS = """<style>
.sl-replay .sl-panel { box-sizing: border-box; padding-right: 8px; }
.sl-replay .sl-panel .widget-select, .sl-replay .sl-panel .widget-textarea,
.sl-replay .sl-browser .widget-select { width: calc(100% - 4px); box-sizing: border-box; }
.sl-replay .sl-panel select, .sl-replay .sl-panel textarea { box-sizing: border-box; width: 100%; }
.sl-replay .sl-nowrap { white-space: nowrap; }
.sl-replay .sl-info .widget-html-content, .sl-replay .sl-notes .widget-html-content { line-height: 1.4; }
.sl-replay .sl-notes { font-style: italic; }
.sl-replay .sl-browser { border: 1px solid #ddd; border-radius: 4px; padding: 4px; margin: 4px 0; }
.sl-replay .sl-browser select { font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.sl-replay .sl-comment textarea { font-size: 13px; line-height: 1.35; }
</style>"""

# The arrow keys step through the game wherever the focus is inside a replay widget (a step button, the board,
# the move list ...), except where they edit text or move a slider: ← → one move, Home/End the first and the
# last position.  It presses the step buttons, so a key does exactly what a click does; the keyboard guard
# (guard_keys) keeps JupyterLab's own use of these keys out of the widget.
REPLAY_KEYS_JS = """
(() => {
  if (window.strategolabReplayKeys) return;
  window.strategolabReplayKeys = true;
  const BUTTONS = {ArrowLeft: 'sl-prev', ArrowRight: 'sl-next', Home: 'sl-first', End: 'sl-last'};
  const EDITING = 'input, textarea, [contenteditable="true"], .widget-slider, .widget-dropdown, .widget-play';
  window.addEventListener('keydown', event => {
    const name = BUTTONS[event.key], el = event.target;
    if (!name || !(el instanceof Element) || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const app = el.closest('.sl-replay');
    if (!app || el.closest(EDITING)) return;
    const button = app.querySelector('button.' + name);
    if (button && !button.disabled) button.click();
    event.preventDefault();
    event.stopPropagation();
  }, true);
})();
"""


def replay_keys_script() -> w.Output:
    """An invisible output whose script lets the arrow keys step through a replay (installed once per page)."""
    return _script(REPLAY_KEYS_JS, "sl-replay-keys-script")


class ReplayWidget(w.VBox):
    """Replay a record move by move from either side's view, follow variations, comment and mark moves.

    ``folders`` names the folders whose records the *Records* list offers (``{"shipped": data/games,
    "yours": user_folder(), "Gravon archive": ...}``; a single folder is fine).  A file of many games opens a
    game browser: filter by variant, result, ending, length and player, sort, pick.
    """

    def __init__(self, controller: ReplayController | None = None,
                 folders: Mapping[str, str | Path] | str | Path | None = None, *,
                 folder: str | Path | None = None) -> None:
        super().__init__()
        self.add_class("sl-app")
        self.add_class("sl-replay")
        self.controller = c = controller or ReplayController()
        if folder is not None or isinstance(folders, str | Path):
            folders = {"records": folder if folder is not None else folders}  # type: ignore[dict-item]
        self.folders: dict[str, str | Path] = dict(folders or {})
        self.records = w.Dropdown(options=[], description="Records", layout=w.Layout(width="420px"))
        self.records.add_class("sl-records")
        self.records.observe(self._record_chosen, "value")
        self.path = w.Text(value=str(c.source or ""), placeholder="a .sgn record, a Gravon .zip or .xml",
                           description="File", layout=w.Layout(width="420px"))
        self.path.add_class("sl-path")
        self.open_button = _button("Open", "sl-open")
        self.open_button.on_click(lambda _: self._open())

        self.filters: dict[str, w.Widget] = {
            "variant": w.Dropdown(options=[_ANY], description="Variant"),
            "result": w.Dropdown(options=[_ANY], description="Result"),
            "ending": w.Dropdown(options=[_ANY], description="Ended by"),
            "min_moves": w.BoundedIntText(value=0, min=0, max=100_000, description="Moves ≥"),
            "max_moves": w.BoundedIntText(value=0, min=0, max=100_000, description="≤ (0: any)"),
            "player": w.Text(placeholder="part of a name", description="Player"),
            "sort": w.Dropdown(options=[(label, key) for key, label in _SORT_LABELS.items()], value="file",
                               description="Sort"),
        }
        for name, widget in self.filters.items():
            widget.add_class(f"sl-filter-{name.replace('_', '-')}")
            widget.layout.width = "250px" if isinstance(widget, w.Dropdown | w.Text) else "170px"
            widget.observe(lambda _change: self._show_games(), "value")
        self.game_count = _html("sl-game-count")
        self.game_choice = w.Select(options=[], rows=8, layout=w.Layout(width="100%"))
        self.game_choice.add_class("sl-game")
        self.game_choice.observe(self._game_chosen, "value")
        f = self.filters
        self.browser = w.VBox([_html("sl-browser-title", "<b>Games in this file</b> — filter, sort, pick one"),
                               w.HBox([f["variant"], f["result"], f["ending"]]),
                               w.HBox([f["min_moves"], f["max_moves"], f["player"], f["sort"]]),
                               self.game_count, self.game_choice])
        self.browser.add_class("sl-browser")

        self.first = _button("", "sl-first", tooltip="First position (Home)", width="44px", icon="fast-backward")
        self.prev = _button("", "sl-prev", tooltip="Previous move (←)", width="44px", icon="step-backward")
        self.next = _button("", "sl-next", tooltip="Next move (→)", width="44px", icon="step-forward")
        self.last = _button("", "sl-last", tooltip="Last position (End)", width="44px", icon="fast-forward")
        for b, action in ((self.first, c.first), (self.prev, c.prev), (self.next, c.next), (self.last, c.last)):
            b.on_click(lambda _b, action=action: self._step(action))
        self.slider = w.IntSlider(min=0, max=0, description="Move", continuous_update=True,
                                  layout=w.Layout(width="360px"))
        self.slider.add_class("sl-slider")
        self.slider.observe(self._slid, "value")
        self.autoplay = w.Play(min=0, max=0, interval=800, description="Autoplay")
        self.autoplay.add_class("sl-autoplay")
        w.jslink((self.autoplay, "value"), (self.slider, "value"))
        self.perspective = w.ToggleButtons(options=[("Red's view", "red"), ("Blue's view", "blue"),
                                                    ("Everything", "all")], value="all")
        self.perspective.add_class("sl-perspective")
        self.perspective.observe(self._perspective, "value")

        # One board per seat: switching to or from Blue's view shows the other one, updated in place, instead
        # of building a new board (which blanked the page for most of a second).
        self.boards = {False: BoardView(lambda _sq: None), True: BoardView(lambda _sq: None)}
        self.boards[True].add_class("sl-board-blue-seat")
        self.info = _html("sl-info")
        self.comment_view = _html("sl-notes")
        self.variations = w.VBox()
        self.variations.add_class("sl-variations")
        self.moves = w.Select(options=[("Start", 0)], rows=14, layout=w.Layout(width="100%"))
        self.moves.add_class("sl-moves")
        self.moves.observe(self._move_chosen, "value")
        self.comment = w.Textarea(placeholder="Your comment on the current move (kept when you step on)",
                                  layout=w.Layout(width="100%", height="130px"))
        self.comment.add_class("sl-comment")
        self.comment.observe(self._typed, "value")
        self.mark = w.Dropdown(options=_MARKS, value="", description="Mark", layout=w.Layout(width="200px"))
        self.mark.add_class("sl-mark")
        self.mark.observe(self._marked, "value")
        self.keep = _button("Keep annotation", "sl-annotate", style="info")
        self.keep.on_click(lambda _: self._annotate())
        self.save_path = w.Text(placeholder="default: a new file in your folder", description="Save to",
                                layout=w.Layout(width="420px"))
        self.save_path.add_class("sl-save-path")
        self.save = _button("Save record", "sl-save")
        self.save.on_click(lambda _: self._save())
        self.confirm_row = ConfirmRow(self._answer)
        self.message = _html("sl-message")
        panel = w.VBox([self.info, self.comment_view, self.variations,
                        _html("sl-moves-title", "<b>Moves</b>"), self.moves,
                        self.comment, w.HBox([self.mark, self.keep])], layout=w.Layout(width="440px"))
        panel.add_class("sl-panel")
        self.children = [
            *head(), _html("sl-style", REPLAY_CSS), replay_keys_script(), _html("sl-title", "Replay a game"),
            w.HBox([self.records, self.path, self.open_button]), self.browser,
            w.HBox([self.first, self.prev, self.next, self.last, self.autoplay, self.slider]), self.perspective,
            w.HBox([self.boards[False], self.boards[True], panel]), w.HBox([self.save_path, self.save]),
            self.confirm_row, self.message,
        ]
        guard_keys(self)  # every control inside: JupyterLab's shortcuts stay out, the arrow keys step
        self._line: tuple[int, int] = (0, 0)
        self._catalog: object = None
        self._refreshing = False
        self._show_records()
        self.refresh()

    @property
    def board(self) -> BoardView:
        """The board on show (the one for Blue's seat in Blue's view)."""
        return self.boards[self.controller.perspective == BLUE]

    # -- handlers -----------------------------------------------------------------------------------------

    def _act(self, action: Callable[[], object]) -> None:
        try:
            action()
        except (StrategolabError, ValueError, IndexError) as e:
            self.controller.say(str(e), "error")
        self.refresh()

    def _step(self, action: Callable[[], None]) -> None:
        if self.controller.line:
            self._act(action)

    def _record_chosen(self, change: dict) -> None:
        if change["new"] and not self._refreshing:
            self.path.value = change["new"]
            self._open()

    def _open(self) -> None:
        self._act(lambda: self.controller.open(self.path.value.strip()))

    def _save(self) -> None:
        self._act(lambda: self.controller.save(self.save_path.value.strip() or None))
        self._show_records()  # a new file in one of the folders

    def _answer(self, yes: bool) -> None:
        self._act(lambda: self.controller.confirm(yes))
        self._show_records()

    def _game_chosen(self, change: dict) -> None:
        if change["new"] is not None and not self._refreshing and change["new"] != self.controller.game_index:
            self._act(lambda: self.controller.choose_game(change["new"]))

    def _slid(self, change: dict) -> None:
        if not self._refreshing and self.controller.line:
            self._act(lambda: self.controller.goto(change["new"]))

    def _move_chosen(self, change: dict) -> None:
        if change["new"] is not None and not self._refreshing and self.controller.line:
            self._act(lambda: self.controller.goto(change["new"]))

    def _perspective(self, change: dict) -> None:
        self._act(lambda: self.controller.set_perspective(change["new"]))

    def _typed(self, change: dict) -> None:
        if not self._refreshing and self.controller.line:
            self.controller.edit(comment=change["new"])

    def _marked(self, change: dict) -> None:
        if not self._refreshing and self.controller.line and self.controller.node.move is not None:
            self.controller.edit(mark=change["new"])

    def _annotate(self) -> None:
        self._act(lambda: self.controller.annotate(self.comment.value, self.mark.value))

    def _follow(self, k: int) -> None:
        self._act(lambda: self.controller.follow(k))

    # -- drawing --------------------------------------------------------------------------------------------

    def _show_records(self) -> None:
        """The records of the folders (refreshed after a save, which may add a file)."""
        options = [("Choose a record…", ""), *record_choices(self.folders)]
        if list(self.records.options) != options:
            self._refreshing = True
            try:
                self.records.options = options
                self.records.value = ""
            finally:
                self._refreshing = False

    def refresh(self) -> None:
        """Redraw from the controller: board, position text, comment, variations, move list, fields."""
        c = self.controller
        self._refreshing = True
        try:
            self.message.value = _message(c.message, c.message_kind)
            self.confirm_row.ask(c.pending)
            has_game = bool(c.line)
            for widget in (self.first, self.prev, self.next, self.last, self.slider, self.autoplay, self.keep,
                           self.save, self.comment, self.mark):
                widget.disabled = not has_game
            if not has_game:
                _show(self.browser, False)
                _show(self.boards[True], False)
                self.info.value = "Open a record to replay it."
                return
            game = c.game
            flip = c.perspective == BLUE
            self.boards[flip].show(c.cells(), game.ruleset, flip=flip)  # updated before it is shown
            _show(self.boards[flip], True)
            _show(self.boards[not flip], False)
            self._show_line()
            self._show_browser()
            self.info.value = (f"<b>{html.escape(c.title())}</b>, {html.escape(game.ruleset.name)}, "
                               f'<span class="sl-nowrap">result {html.escape(game.result)}</span><br>'
                               f"{html.escape(c.describe())}")
            node = c.node
            self.comment_view.value = html.escape(c.notes())
            self._show_variations()
            if not c.has_draft:
                self.comment.value = reflow(node.comment)
                self.mark.value = c.mark() if c.mark() in dict(_MARKS).values() else ""
            self.mark.disabled = node.move is None
        finally:
            self._refreshing = False

    def _show_browser(self) -> None:
        """The game browser, for a file of more than one game: its filter choices are the file's own."""
        rows = self.controller.catalog()
        _show(self.browser, len(rows) > 1)
        if rows is self._catalog:
            return
        self._catalog = rows
        f = self.filters
        for name in ("variant", "result", "ending"):
            values = sorted({getattr(r, name) for r in rows} - {""})
            f[name].options = [_ANY, *((v, v) for v in values)]
            f[name].value = ""
        f["min_moves"].value = f["max_moves"].value = 0
        f["player"].value = ""
        self._show_games()

    def _show_games(self) -> None:
        """The games that pass the filters, in the chosen order."""
        c = self.controller
        if not c.line:
            return
        f = {name: widget.value for name, widget in self.filters.items()}
        f["max_moves"] = f["max_moves"] or None
        try:
            rows = c.find_games(**f)
        except ValueError as e:
            self.game_count.value = _message(str(e), "error")
            return
        refreshing, self._refreshing = self._refreshing, True
        try:
            self.game_choice.options = [(row.label, row.index) for row in rows]
            self.game_choice.value = c.game_index if any(r.index == c.game_index for r in rows) else None
        finally:
            self._refreshing = refreshing
        self.game_count.value = f"{len(rows):,} of {len(c.catalog()):,} games"  # last: the list is ready

    def _show_line(self) -> None:
        """The move list (rebuilt only when the line or its annotations change), slider and autoplay."""
        c = self.controller
        key = (id(c.game), c.revision)
        if key != self._line:
            self.moves.options = [("Start", 0)] + [
                (e.text + (" {…}" if e.comment else "") + (f" (+{e.alternatives})" if e.alternatives else ""),
                 e.index) for e in c.moves()]
            self._line = key
        self.moves.value = c.index
        self.slider.max = self.autoplay.max = c.length
        self.slider.value = c.index
        self.autoplay.value = c.index

    def _show_variations(self) -> None:
        c = self.controller
        choices = c.choices()
        buttons: list[w.Widget] = []
        if len(choices) > 1:
            buttons.append(_html("sl-variations-title", "<b>Next move — choose a line:</b>"))
            for k, text in enumerate(choices):
                b = _button(text + (" (main)" if k == 0 else ""), f"sl-variation-{k}")
                b.add_class("sl-variation")
                b.on_click(lambda _b, k=k: self._follow(k))
                buttons.append(b)
        if not all(n.is_mainline() for n in c.line[1:c.index + 1]):
            back = _button("Back to the main line", "sl-main-line")
            back.on_click(lambda _b: self._act(c.main_line))
            buttons.append(back)
        if [getattr(b, "description", None) for b in buttons] != [getattr(b, "description", None)
                                                                    for b in self.variations.children]:
            self.variations.children = buttons


__all__ = ["CSS", "GUARD_CLASS", "KEYS_JS", "REPLAY_CSS", "REPLAY_KEYS_JS", "VISITORS", "BoardView", "PlayWidget",
           "ReplayWidget", "default_save_path", "guard_keys", "head", "keyboard_script", "ranks_legend",
           "replay_keys_script", "symbol_svg"]
