"""A RESP connection for the tooling: pipelined batches, and each reply's
raw bytes when a check compares them (RESP2 and RESP3 replies)."""

import socket
import time

BATCH = 16  # requests per pipelined write, as redis-benchmark -P 16


class ServerError(Exception):
    """An error reply. Replies hold it as a value; `check` raises it."""


def encode(argv) -> bytes:
    out = [b"*%d\r\n" % len(argv)]
    for word in argv:
        if isinstance(word, str):
            word = word.encode("utf-8", "surrogateescape")
        elif not isinstance(word, bytes):
            word = str(word).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(word), word))
    return b"".join(out)


class Resp:
    """One connection to a server on loopback. Integers read as int, strings
    as bytes, errors as ServerError values, nulls as None."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.pos = 0

    def close(self) -> None:
        self.sock.close()

    def send(self, *commands) -> None:
        self.sock.sendall(b"".join(encode(argv) for argv in commands))

    def _fill(self) -> None:
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buf += chunk

    def _line(self) -> bytes:
        while True:
            end = self.buf.find(b"\r\n", self.pos)
            if end >= 0:
                line = self.buf[self.pos:end]
                self.pos = end + 2
                return line
            self._fill()

    def _exact(self, n: int) -> bytes:
        while len(self.buf) - self.pos < n + 2:
            self._fill()
        data = self.buf[self.pos:self.pos + n]
        self.pos += n + 2
        return data

    def _value(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            return ServerError(rest.decode("utf-8", "replace"))
        if kind == b":":
            return int(rest)
        if kind == b",":
            return rest
        if kind in (b"$", b"="):
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind in (b"*", b"~", b">"):
            n = int(rest)
            return None if n < 0 else [self._value() for _ in range(n)]
        if kind == b"%":
            return [self._value() for _ in range(2 * int(rest))]
        if kind == b"_":
            return None
        if kind == b"#":
            return rest == b"t"
        raise ConnectionError(f"unexpected reply line {line[:40]!r}")

    def read(self):
        """The next reply: (its bytes as the server sent them, its value)."""
        self.buf, self.pos = self.buf[self.pos:], 0
        value = self._value()
        return self.buf[:self.pos], value

    def reply(self):
        return self.read()[1]

    def call(self, *argv):
        """One command's reply (an error reply is a ServerError value)."""
        self.send(argv)
        return self.reply()

    def check(self, *argv):
        """One command's reply; an error reply raises."""
        reply = self.call(*argv)
        if isinstance(reply, ServerError):
            raise reply
        return reply

    def pipeline(self, calls, paced=False):
        """Every reply of `calls`, sent in batches of BATCH requests (paced:
        one at a time, each in a millisecond of its own, for calls whose
        work depends on the clock)."""
        replies = []
        if paced:
            for argv in calls:
                replies.append(self.call(*argv))
                time.sleep(0.002)
            return replies
        for start in range(0, len(calls), BATCH):
            batch = calls[start:start + BATCH]
            self.send(*batch)
            replies.extend(self.reply() for _ in batch)
        return replies
