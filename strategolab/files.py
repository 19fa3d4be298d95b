"""Saving files so that nothing the user made is lost: write a temporary file beside the target, then
rename it over the target in one step, so a failure half-way never leaves a half-written file.

A symbolic link is written through (the file it points to gets the new content, the link stays), and so is a
file with several hard links (every name sees the new content).  :func:`user_folder` is where the notebooks
save what a user makes, never into the data the project ships.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

GAMES_ENV = "STRATEGOLAB_GAMES_DIR"
# What a failing write or close raises without a file name: a full disk or quota, a file over the size limit,
# a file system gone read-only or failing.
_WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})


@contextmanager
def atomic_output(path: str | os.PathLike[str], binary: bool = False) -> Iterator[IO[Any]]:
    """An open file (UTF-8 text with ``\\n`` line ends, or bytes) that replaces ``path`` when the ``with``
    block ends without an exception; on an exception the target is left as it was."""
    target = Path(os.path.realpath(path))  # through symbolic links: the linked file is the one to replace
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "this is a folder; expected the name of a file to write",
                                os.fspath(path) or ".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as e:  # named after the file the user asked for, not the temporary one
        raise type(e)(e.errno, f"{e.strerror} (cannot create a file in {target.parent})", os.fspath(path)) from e
    try:
        os.chmod(tmp, _mode(target))  # mkstemp makes the file private; a saved record is an ordinary file
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            yield f
        if _hard_linked(target):
            _copy_into(tmp, target)
        else:
            os.replace(tmp, target)
    except OSError as e:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        if e.filename is None and e.errno in _WRITE_ERRORS:  # a write that failed names no file: name it
            raise type(e)(e.errno, e.strerror, os.fspath(path)) from e
        raise
    except BaseException:  # also Ctrl-C and (in the command line) SIGTERM: no half-written file stays behind
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _hard_linked(target: Path) -> bool:
    try:
        return target.stat().st_nlink > 1
    except OSError:
        return False


def _copy_into(tmp: str, target: Path) -> None:
    """Give a hard-linked file the complete new content in place (a rename would cut it off from its other
    names); the content is written in full to the temporary file first, so only this copy can be interrupted."""
    with open(tmp, "rb") as src, open(target, "r+b") as dst:
        shutil.copyfileobj(src, dst)
        dst.truncate()
        dst.flush()
        os.fsync(dst.fileno())
    os.unlink(tmp)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file however they are spelled (relative, ``..``, links, hard links)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where they lead
        return os.path.realpath(a) == os.path.realpath(b)


def user_folder() -> Path:
    """Where the notebooks save the user's own records: ``$STRATEGOLAB_GAMES_DIR``, else ``~/strategolab-games``
    (made on the first save)."""
    return Path(os.environ.get(GAMES_ENV) or Path.home() / "strategolab-games").expanduser()


def _mode(target: Path) -> int:
    """The permissions the file gets: those of the file it replaces, else what the umask allows."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
