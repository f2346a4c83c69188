"""A server process of the tooling's own: its own folder, no persistence, a
spare port (ports.py, retried if another process takes it first), ready when
it answers as itself; optionally wrapped (callgrind) and pinned to a core."""

import atexit
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time

from . import ports
from .resp import Resp, ServerError

#: The ports handed out to this process's servers.
handed_out: set = set()


def free_port(count: int = 1) -> int:
    """A spare port (the first of `count` in a row), none handed out before."""
    port = ports.free_port(handed_out, count)
    handed_out.update(range(port, port + count))
    return port


class Server:
    """`binary` with `args` (a module to load, configs) on a spare port, or
    on `port`. `wrap` goes before the binary (valgrind and its options),
    `env` replaces the environment, `workdir` holds its folder, `pin` is a
    core for taskset. `conn` is a connection to it; `pid` the server's own
    process (under a wrapper too: valgrind runs the server in its process)."""

    def __init__(self, binary: str, args=(), name: str = "server", wrap=(), env=None, workdir=None,
                 pin=None, port=None, timeout: float = 30):
        self.name = name
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix=f"zkit-{name}-", dir=workdir))
        pinned = ["taskset", "-c", str(pin)] if pin is not None and shutil.which("taskset") else []
        for _ in range(1 if port else 5):
            self.port = port or free_port()
            argv = [*pinned, *wrap, binary, "--port", str(self.port), "--bind", "127.0.0.1",
                    "--dir", str(self.dir), "--save", "", "--appendonly", "no", "--logfile", "server.log",
                    *[str(a) for a in args]]
            self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                         start_new_session=True)
            deadline = time.time() + timeout
            while time.time() < deadline and self.proc.poll() is None:
                try:
                    conn = Resp(self.port)
                    info = conn.call("INFO", "server")
                    if isinstance(info, bytes) and f"process_id:{self.proc.pid}\r".encode() in info:
                        self.conn = conn
                        self.pid = self.proc.pid
                        # A script that fails half way leaves no server behind.
                        atexit.register(self._end)
                        return
                    conn.close()
                except OSError:
                    pass
                time.sleep(0.05)
            self._end()
        raise SystemExit(f"{name}: the server did not start: {self.log_tail()}")

    def log_tail(self, chars: int = 400) -> str:
        log = self.dir / "server.log"
        return log.read_text(errors="replace")[-chars:] if log.exists() else ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def connect(self) -> Resp:
        return Resp(self.port)

    def _end(self, timeout: float = 60) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def stop(self) -> None:
        """Shuts the server down (SHUTDOWN NOSAVE, so a wrapper writes what
        it writes on exit) and removes its folder."""
        try:
            self.conn.call("SHUTDOWN", "NOSAVE")
        except (OSError, ConnectionError, ServerError, AttributeError):
            pass
        self._end()
        shutil.rmtree(self.dir, ignore_errors=True)
