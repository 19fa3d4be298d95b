"""Worker processes that end with the process that started them.

A pool's workers are separate processes: if the parent is killed outright (``kill -9``, the out-of-memory
killer) nothing tells them, and they would run on, reparented to init.  Each worker started here watches
its parent from a thread and exits as soon as the parent is gone (the portable way: on every system a
process whose parent died gets a new parent id).  Ctrl-C reaches every process of a terminal's group, so
workers ignore SIGINT and leave the stopping to the parent, which cancels the work and shuts them down.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

POLL_SECONDS = 0.5  # how soon a worker notices that its parent is gone


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers exit when this process dies, however it dies."""
    return ProcessPoolExecutor(workers, initializer=_watch_parent, initargs=(os.getpid(),))


def stop_now(pool: ProcessPoolExecutor) -> None:
    """End the pool at once, its running work too (an interrupted command wants no more of it); the standard
    ``shutdown`` would wait for the work already handed to the workers."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _watch_parent(parent: int) -> None:
    """Run in each worker as it starts: ignore Ctrl-C, and exit once ``parent`` is no longer the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ppid = os.getppid()  # the pool's process (a fork server's when the pool does not fork directly)
    threading.Thread(target=_poll, args=(ppid, parent), name="strategolab-parent-watch", daemon=True).start()


def _poll(ppid: int, parent: int) -> None:
    while os.getppid() == ppid and _alive(parent):
        time.sleep(POLL_SECONDS)
    os._exit(1)  # the parent is gone: nobody will read what this worker makes


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process with that id exists (not ours to signal)
        return True
    return True
