"""The worker pools of ``strategolab.processes``: an interrupted command stops its workers at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

# Run in a process of its own: were stop_now to hang, the pool's manager thread would hang the test run too.
TORN_SEND = textwrap.dedent("""
    import gc, multiprocessing.queues, os, struct, threading, time
    from strategolab.processes import stop_now, worker_pool

    def torn_send() -> None:
        # A worker killed while it sends a large result: the first bytes of the message are in the pipe,
        # the rest never comes.  Written by hand so that the moment is certain, not a race.
        queue = next(o for o in gc.get_objects() if isinstance(o, multiprocessing.queues.SimpleQueue))
        os.write(queue._writer.fileno(), struct.pack("!i", 100_000) + b"half a result")
        time.sleep(600)

    if __name__ == "__main__":
        pool = worker_pool(2)
        future = pool.submit(torn_send)
        while not future.running():
            time.sleep(0.01)
        time.sleep(1.0)  # the pool's manager thread now waits for the rest of the message
        start = time.monotonic()
        stopping = threading.Thread(target=stop_now, args=(pool,), daemon=True)
        stopping.start()
        stopping.join(30)
        print("stopped" if not stopping.is_alive() else "hung", f"{time.monotonic() - start:.1f}", flush=True)
        os._exit(0)
""")


def test_stop_now_ends_a_pool_whose_worker_died_halfway_through_sending_its_result(tmp_path: Path) -> None:
    script = tmp_path / "torn.py"
    script.write_text(TORN_SEND)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    verdict, seconds = run.stdout.split()
    assert verdict == "stopped", run.stderr
    assert float(seconds) < 10, seconds  # at once, not after a timeout
