"""A loopback port nothing listens on, from the ports nothing else on the
machine hands out (the same rule as the integration tests' free_port in
tests/integration/common/mod.rs): outside the kernel's ephemeral range, where
a port bind(0) hands out can become, before our server binds it, the local
end of any outgoing connection (another CI stage's clients, a replica's
link), and from 30000 up, above the base ports the server's own test suite
runs on beside us in CI (scripts/suites/server-suite.sh). Every script of the tree
takes its ports here (shell scripts through scripts/lib.sh's free_port); run
as a script, it prints one, or with a count the first of that many in a row."""

import random
import socket
import sys
from pathlib import Path

ABOVE_SERVER_SUITE = 30000


def spare_bands():
    try:
        low, high = (int(n) for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    bands = []
    if low > ABOVE_SERVER_SUITE:
        bands.append(range(ABOVE_SERVER_SUITE, low))
    if high < 65535:
        bands.append(range(max(high + 1, ABOVE_SERVER_SUITE), 65536))
    return bands


def free_port(handed_out=frozenset(), count=1):
    """A port nothing listens on now and not in `handed_out`; with `count`,
    the first of that many in a row, none listened on."""
    ports = [port for band in spare_bands() for port in band if port + count - 1 in band]
    if not ports:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]
    while True:
        port = random.choice(ports)
        if any(port + i in handed_out or not _bindable(port + i) for i in range(count)):
            continue
        return port


def _bindable(port):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


if __name__ == "__main__":
    print(free_port(count=int(sys.argv[1]) if len(sys.argv) > 1 else 1))
