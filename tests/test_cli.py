"""The ``strategolab`` command: validate, convert, info and selfplay on small inputs; exit codes, messages,
help, and the promise never to overwrite an input."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ARCHIVE

import strategolab as sl
from strategolab.archive import write_gravon_zip
from strategolab.cli import OK, PROBLEMS, USAGE, build_parser, main
from strategolab.gravon import read_gravon
from strategolab.notation import read_games, write_games

ROOT = Path(__file__).resolve().parents[1]
RED_SETUP = "2348596523/67B8S47B26/2B54372326/BFB32X452B"
BLUE_SETUP = "32658X4523/67B4S87B26/2B54372326/BFB329452B"
SPY_LINE = "1. E4-E5 E7-E6 2. E3-E4 E6xE5 X>5 3. E4xE5 S>X"


def record(moves: str, result: str = "1-0", **headers: str) -> str:
    head = "".join(f'[{k} "{v}"]\n' for k, v in headers.items())
    return (f'{head}[Result "{result}"]\n[Ruleset "classic"]\n[RedSetup "{RED_SETUP}"]\n'
            f'[BlueSetup "{BLUE_SETUP}"]\n\n{moves} {result}\n')


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in this process: exit code, stdout, stderr."""
    try:
        code = main([*argv, "--no-progress"] if argv and argv[0] != "--help" else list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.sgn"
    path.write_text(record(SPY_LINE, Termination="resignation", Red="Ann", Blue="Bob") + "\n"
                    + record("1. E4-E5 E7-E6", "*"))
    return path


@pytest.fixture
def gravon_zip(tmp_path: Path, good: Path) -> Path:
    path = tmp_path / "month.zip"
    write_gravon_zip(read_games(good), path)
    return path


# -- help and usage ----------------------------------------------------------------------------------------


def test_help_describes_every_command_formats_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == OK
    for word in ("validate", "convert", "info", "selfplay", ".sgn", ".zip", "exit codes"):
        assert word in out
    for command in ("validate", "convert", "info", "selfplay"):
        code, out, _ = run(capsys, command, "--help")
        assert code == OK and "exit codes:" in out and "usage: strategolab " + command in out
        assert "3  an internal error: a bug in strategolab" in out and "130, 143  interrupted" in out
    for command in ("validate", "convert", "info"):
        help_text = build_parser().parse_args([command, "x", "-o", "y.sgn"] if command == "convert"
                                              else [command, "x"])
        assert help_text.jobs >= 1


def test_module_and_entry_point_run_the_same_main() -> None:
    out = subprocess.run([sys.executable, "-m", "strategolab", "--help"], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert out.returncode == 0 and "usage: strategolab" in out.stdout
    assert 'strategolab = "strategolab.cli:main"' in (ROOT / "pyproject.toml").read_text()


def test_bad_paths_are_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "validate", str(tmp_path / "missing.sgn"))
    assert code == USAGE and "missing.sgn: no such file or folder" in err
    (tmp_path / "notes.txt").write_text("hello")
    code, _, err = run(capsys, "info", str(tmp_path / "notes.txt"))
    assert code == USAGE and "expected a file ending in .sgn, .xml, .zip" in err
    code, _, err = run(capsys, "validate")
    assert code == USAGE and "required" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "info", str(empty))
    assert code == USAGE and f"no files ending in .sgn, .xml, .zip in {empty}" in err


# -- validate ----------------------------------------------------------------------------------------------


def test_validate_clean_files(capsys: pytest.CaptureFixture[str], good: Path, gravon_zip: Path) -> None:
    code, out, err = run(capsys, "validate", str(good), str(gravon_zip))
    assert code == OK, out
    assert out.strip() == "2 files, 4 games, 14 moves: no errors, 0 warnings"
    assert err == ""  # no progress bar when stderr is not a terminal


def test_validate_lists_every_error_with_its_place(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.sgn"
    bad.write_text(record(SPY_LINE.replace("S>X", "S<X")) + "\n" + record("1. E4-E5 E7-E6 2. C3-C4", "*")
                   + "\n" + record("1. E4-E5", "*"))
    code, out, _ = run(capsys, "validate", str(tmp_path))
    assert code == PROBLEMS
    lines = out.splitlines()
    assert lines[0] == (f"{bad}:6:44: found battle annotation S<X, but the engine says S>X: Red Spy takes Blue "
                        "Marshal on E5")
    assert lines[1].startswith(f"{bad}:13:19: illegal move C3-C4: the Bomb on C3 cannot move")
    assert lines[-1] == "1 file, 3 games, 8 moves: 2 errors, 0 warnings"


def test_validate_replays_gravon_games(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    field = "MBBBBBBCDD" "DDDDDDEEEE" "EFFFFGGGGH" "HHHIIIJJKL" + "AA__AA__AA" * 2
    field += "".join(chr(ord(c) + 12) for c in field[:40])
    games = {"classic-1.xml": '<move id="1" source="E4" target="E5"/><move id="2" source="A1" target="A2"/>',
             "ultimate lightning-2.xml": '<move id="1" source="E4" target="E5"/>',
             "classic-3.xml": '<move id="1" source="E4" target="E5"/>'}
    results = {"classic-1.xml": "", "ultimate lightning-2.xml": "", "classic-3.xml": '<result type="1" winner="1"/>'}
    folder = tmp_path / "gravon"
    folder.mkdir()
    for name, moves in games.items():
        kind = name.rsplit("-", 1)[0]
        (folder / name).write_text(f'<stratego><game type="{kind}"><field content="{field}"/>{moves}'
                                   f"{results[name]}</game></stratego>")
    (folder / "broken.xml").write_text("<stratego><game type='classic'>")
    code, out, _ = run(capsys, "validate", str(folder))
    assert code == PROBLEMS
    assert f"{folder / 'broken.xml'}:1:32: truncated XML" in out
    assert f"{folder / 'classic-1.xml'}: move 2 A1-A2 is illegal: the piece on A1 is Red's; it is Blue's turn" in out
    assert f"{folder / 'classic-3.xml'}: recorded as a flag capture, but the last move captured no Flag" in out
    assert f"{folder / 'ultimate lightning-2.xml'}" not in out  # Ultimate Lightning is replayed like the rest
    assert out.splitlines()[-1] == "4 files, 3 games, 4 moves: 3 errors, 0 warnings"
    code, out, _ = run(capsys, "validate", "-q", str(folder))
    assert "not checked" not in out


# -- convert -----------------------------------------------------------------------------------------------


def test_convert_both_ways_round_trips(capsys: pytest.CaptureFixture[str], tmp_path: Path, good: Path) -> None:
    out_zip = tmp_path / "out.zip"
    code, out, _ = run(capsys, "convert", str(good), "-o", str(out_zip))
    assert code == OK
    assert out.strip() == f"wrote 2 games to {out_zip} (Gravon XML); skipped 0 that it cannot hold; 0 errors"
    back = tmp_path / "back.sgn"
    code, out, _ = run(capsys, "convert", str(out_zip), "-o", str(back))
    assert code == OK, out
    games = list(read_games(back))
    originals = list(read_games(good))
    assert [g.mainline_moves() for g in games] == [g.mainline_moves() for g in originals]
    assert [g.result for g in games] == ["1-0", "*"]
    assert games[0].headers["Termination"] == "resignation" and games[0].headers["GravonResult"] == "3"
    assert games[0].headers["Source"] == "out.zip:classic-1.xml"
    assert stat.S_IMODE(back.stat().st_mode) & 0o044 == 0o644 & 0o044 & ~_umask()  # an ordinary file


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_convert_never_overwrites_an_input(capsys: pytest.CaptureFixture[str], tmp_path: Path, good: Path) -> None:
    before = good.read_text()
    code, _, err = run(capsys, "convert", str(good), "-o", str(good), "--force")
    assert code == USAGE and "is one of the inputs" in err
    code, _, err = run(capsys, "convert", str(tmp_path), "-o", str(good), "--force")
    assert code == USAGE and "is one of the inputs" in err
    assert good.read_text() == before
    other = tmp_path / "other.sgn"
    other.write_text("keep me")
    code, _, err = run(capsys, "convert", str(good), "-o", str(other))
    assert code == USAGE and "already exists (use --force" in err and other.read_text() == "keep me"
    code, _, _ = run(capsys, "convert", str(good), "-o", str(other), "--force")
    assert code == OK and len(list(read_games(other))) == 2
    code, _, err = run(capsys, "convert", str(good), "-o", str(tmp_path / "out.txt"))
    assert code == USAGE and "expected an output file ending in .sgn" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.sgn", "other.sgn"]  # no temporary files left


def test_convert_skips_what_gravon_cannot_hold(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               good: Path) -> None:
    pocket = tmp_path / "pocket.sgn"
    write_games([sl.Game(sl.State.random("pocket", seed=2), {"Red": "Mia", "Blue": "Kit"})], pocket)
    out_zip = tmp_path / "out.zip"
    code, out, _ = run(capsys, "convert", str(good), str(pocket), "-o", str(out_zip))
    assert code == PROBLEMS
    assert f"{pocket}: skipped: game 1: Gravon has no game type for the rule set 'pocket'" in out
    assert len(list(read_gravon(out_zip))) == 2
    code, _, err = run(capsys, "convert", str(good), "-o", str(tmp_path / "one.xml"))
    assert code == USAGE and "exactly one game" in err and not (tmp_path / "one.xml").exists()
    single = tmp_path / "single.sgn"
    single.write_text(record(SPY_LINE, Termination="resignation"))
    code, _, _ = run(capsys, "convert", str(single), "-o", str(tmp_path / "one.xml"))
    assert code == OK and next(read_gravon(tmp_path / "one.xml")).result_type == 3
    code, _, err = run(capsys, "convert", str(out_zip), "-o", str(tmp_path / "again.zip"))
    assert code == USAGE and "expected a file ending in .sgn" in err


# -- info --------------------------------------------------------------------------------------------------


def test_info_prints_the_summary_table(capsys: pytest.CaptureFixture[str], good: Path, gravon_zip: Path) -> None:
    code, out, _ = run(capsys, "info", str(good), str(gravon_zip))
    assert code == OK
    lines = out.splitlines()
    assert lines[0] == "2 files, 4 games, 14 moves"
    header = lines[2].split()
    assert header[:4] == ["variant", "games", "Red", "wins"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[3:6]}
    assert rows["classic"] == ["2", "1", "0", "0", "1", "3.5", "4", "5"]
    assert rows["gravon-classic"] == ["2", "1", "0", "0", "1", "3.5", "4", "5"]
    assert rows["all"][:1] == ["4"]
    assert "resignation" in out and "(not recorded)" in out


def test_info_parses_while_validate_replays(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    illegal = tmp_path / "illegal.sgn"
    illegal.write_text(record("1. E4-E6 E7-E6", "*"))  # a Lieutenant cannot run
    code, out, _ = run(capsys, "info", str(illegal))
    assert code == OK and out.splitlines()[0] == "1 file, 1 game, 2 moves"
    code, out, err = run(capsys, "validate", str(illegal))
    assert code == PROBLEMS and "illegal move E4-E6" in out + err
    broken = tmp_path / "broken.sgn"
    broken.write_text(record("1. E4-E5 ( *", "*"))
    code, out, err = run(capsys, "info", str(broken))
    assert code == PROBLEMS and "broken.sgn:" in out + err and "close the variation" in out + err


@pytest.mark.skipif(not ARCHIVE.is_dir(), reason=f"the shared Gravon archive is not at {ARCHIVE}")
def test_info_on_a_month_in_two_processes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", "-j", "2", str(ARCHIVE / "strados2014-0.zip"))
    assert code == OK
    assert out.splitlines()[0] == "1 file, 921 games, 298,102 moves"
    assert "gravon-classic        814" in out


# -- selfplay ----------------------------------------------------------------------------------------------


def test_selfplay_writes_readable_records(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("strategolab.players")
    out = tmp_path / "games.sgn"
    code, text, _ = run(capsys, "selfplay", "-o", str(out), "-n", "2", "--ruleset", "pocket", "--seed", "3")
    assert code == OK and text.startswith(f"wrote 2 games to {out}")
    games = list(read_games(out))
    assert len(games) == 2 and all(g.ruleset.name == "pocket" and g.result != "*" for g in games)
    code, _, err = run(capsys, "selfplay", "-o", str(out), "--ruleset", "chess", "--force")
    assert code == USAGE and "unknown ruleset 'chess'" in err


# -- damaged and hostile inputs (issue 12) ------------------------------------------------------------------

CLASSIC_FIELD = "MBBBBBBCDD" "DDDDDDEEEE" "EFFFFGGGGH" "HHHIIIJJKL" + "AA__AA__AA" * 2
CLASSIC_FIELD += "".join(chr(ord(c) + 12) for c in CLASSIC_FIELD[:40])


def gravon_member(kind: str = "classic", moves: str = '<move id="1" source="E4" target="E5"/>') -> str:
    return (f'<stratego><game type="{kind}"><field content="{CLASSIC_FIELD}"/>{moves}'
            f'<result type="3" winner="2"/></game></stratego>')


def zip_of(path: Path, members: dict[str, str]) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return path


def test_a_barrage_game_with_a_captain_is_one_error_and_the_run_goes_on(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, gravon_zip: Path) -> None:
    bad = zip_of(tmp_path / "bad.zip", {"barrage-1.xml": gravon_member("barrage"),
                                        "classic-2.xml": gravon_member()})
    code, out, err = run(capsys, "validate", str(bad), str(gravon_zip))
    assert code == PROBLEMS and "Traceback" not in err
    assert f"{bad}:barrage-1.xml:1:" in out and "is a Sergeant, which the barrage army does not have" in out
    assert out.splitlines()[-1] == "2 files, 3 games, 8 moves: 1 error, 0 warnings"
    target = tmp_path / "out.sgn"
    code, out, err = run(capsys, "convert", str(bad), str(gravon_zip), "-o", str(target))
    assert code == PROBLEMS and "Traceback" not in err
    assert out.splitlines()[-1].startswith(f"wrote 3 games to {target}") and len(list(read_games(target))) == 3


def test_member_names_with_line_breaks_and_escape_codes_reach_no_terminal_raw(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    names = "classic-1\r\nfake: 0 errors.xml", "classic-\x1b[2J\x1b]0;owned\x07.xml"
    source = zip_of(tmp_path / "m.zip", dict.fromkeys(names, gravon_member()))
    target = tmp_path / "out.sgn"
    code, out, err = run(capsys, "convert", str(source), "-o", str(target))
    assert code == OK, out + err
    headers = [g.headers["Source"] for g in read_games(target)]
    assert sorted(headers) == ["m.zip:classic-1\\r\\nfake: 0 errors.xml",
                               "m.zip:classic-\\x1b[2J\\x1b]0;owned\\x07.xml"]
    hostile = zip_of(tmp_path / "h.zip", {
        names[1]: gravon_member(moves=f'<move id="1" source="{"Z" * 3_900_000}" target="E5"/>'),
        names[0]: gravon_member(moves='<move id="1" source="A1" target="A2"/>')})  # illegal: a replay error
    code, out, err = run(capsys, "validate", str(hostile))
    assert code == PROBLEMS
    assert "\x1b" not in out + err and "\x07" not in out + err and "\r" not in out and len(out) < 1000, out[:300]
    assert "h.zip:classic-\\x1b[2J\\x1b]0;owned\\x07.xml:1:" in out and "(3,900,000 characters)" in out
    assert "h.zip:classic-1\\r\\nfake: 0 errors.xml: move 1 A1-A2 is illegal" in out


def test_an_internal_error_has_its_own_exit_code_and_says_so(capsys: pytest.CaptureFixture[str], good: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from strategolab import cli

    def broken(rows: object, files: int) -> str:
        raise KeyError("Captain")

    monkeypatch.setattr(cli, "summary_table", broken)
    code, _, err = run(capsys, "info", str(good))
    assert code == cli.INTERNAL == 3
    assert "internal error (a bug in strategolab, not a problem with the input" in err and "KeyError" in err


def test_an_output_that_cannot_be_written_is_named(tmp_path: Path, good: Path) -> None:
    big = tmp_path / "big.sgn"
    big.write_text("\n".join([good.read_text()] * 10))
    target = tmp_path / "out.sgn"
    script = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
              "resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000)); "
              "from strategolab.cli import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", script, "convert", str(big), "-o", str(target), "--no-progress"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == USAGE, done.stderr
    assert done.stderr.strip() == f"strategolab: error: {target}: File too large"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.sgn", "good.sgn"]  # no temporary file left


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux: from /proc)."""
    out = set()
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat_file.parent.name))
    return out


def _wait_for(condition: Callable[[], object], seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.mark.skipif(not ARCHIVE.is_dir() or not Path("/proc/self/stat").exists(),
                    reason=f"needs the shared Gravon archive at {ARCHIVE} (a long convert) and Linux's /proc")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_a_killed_convert_leaves_no_temporary_file_nor_workers(tmp_path: Path, how: str) -> None:
    target = tmp_path / "all.sgn"
    month = ARCHIVE / "strados2014-0.zip"  # about a thousand games: seconds of work for two workers
    # Ctrl-C as in a terminal, even if whatever started the test suite ignores SIGINT (a background job does,
    # and a child inherits that): then Python would never raise KeyboardInterrupt and the convert would finish.
    child = subprocess.Popen([sys.executable, "-m", "strategolab", "convert", str(month), "-o", str(target),
                              "-j", "2", "--no-progress"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(lambda: list(tmp_path.glob(".all.sgn.*.tmp")) and len(_children(child.pid)) >= 2)
        workers = _children(child.pid)
        child.send_signal(getattr(signal, how))
        code = child.wait(timeout=60)
    finally:
        child.kill()
    assert code == (-signal.SIGKILL if how == "SIGKILL" else 128 + getattr(signal, how))
    _wait_for(lambda: not any(Path(f"/proc/{w}").exists() for w in workers), 10)  # workers end with the parent
    if how != "SIGKILL":  # a process killed outright cannot clean up; the others must
        assert list(tmp_path.iterdir()) == []
        assert b"interrupted" in child.stderr.read()  # type: ignore[union-attr]
