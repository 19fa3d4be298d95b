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
KILL_AFTER_SECONDS = 5.0  # how long a worker told to terminate may take before it is killed


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers exit when this process dies, however it dies."""
    return ProcessPoolExecutor(workers, initializer=_watch_parent, initargs=(os.getpid(),))


def stop_now(pool: ProcessPoolExecutor) -> None:
    """End the pool at once, its running work too (an interrupted command wants no more of it); the standard
    ``shutdown`` would wait for the work already handed to the workers.

    A worker killed while sending its result leaves half a message in the result pipe, and the pool's manager
    thread would wait for the rest forever (and ``shutdown``, or the interpreter's exit, with it).  Once the
    workers are dead the only writer left is this process's own copy of the pipe's end: closing it turns
    that wait into end-of-file, which the pool takes as a broken worker, and it shuts down."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is None:  # not CPython's pool as known: stop the pending work, let the running work finish
        pool.shutdown(wait=True, cancel_futures=True)
        return
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(KILL_AFTER_SECONDS)
        if process.is_alive():
            process.kill()
            process.join()
    writer.close()
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
