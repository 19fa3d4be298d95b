"""Saving files so that nothing the user made is lost: write a temporary file beside the target, then
rename it over the target in one step, so a failure half-way never leaves a half-written file."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

# What a failing write or close raises without a file name: a full disk or quota, a file over the size limit,
# a file system gone read-only or failing.
_WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})


@contextmanager
def atomic_output(path: str | os.PathLike[str], binary: bool = False) -> Iterator[IO[Any]]:
    """An open file (UTF-8 text with ``\\n`` line ends, or bytes) that replaces ``path`` when the ``with``
    block ends without an exception; on an exception the target is left as it was."""
    target = Path(path)
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
        os.replace(tmp, target)
    except OSError as e:
        os.unlink(tmp)
        if e.filename is None and e.errno in _WRITE_ERRORS:  # a write that failed names no file: name it
            raise type(e)(e.errno, e.strerror, os.fspath(path)) from e
        raise
    except BaseException:  # also Ctrl-C and (in the command line) SIGTERM: no half-written file stays behind
        os.unlink(tmp)
        raise


def _mode(target: Path) -> int:
    """The permissions the file gets: those of the file it replaces, else what the umask allows."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
