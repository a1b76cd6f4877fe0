"""A loopback TCP proxy to the test database that can be cut and restored, to simulate an outage."""

from __future__ import annotations

import contextlib
import socket
import threading

from sqlalchemy.engine import make_url

from tests.live_server import free_port


class TcpProxy:
    """Forwards 127.0.0.1:port to a TCP or Unix-socket upstream until cut."""

    def __init__(self, upstream: tuple[str, int] | str):
        self.upstream = upstream
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()

    @classmethod
    def to_database(cls, database_url: str) -> TcpProxy:
        url = make_url(database_url)
        socket_dir = url.query.get("host")
        if socket_dir:
            port = url.query.get("port") or "5432"
            return cls(f"{socket_dir}/.s.PGSQL.{port}")
        return cls((url.host or "127.0.0.1", url.port or 5432))

    def database_url(self, database_url: str) -> str:
        url = make_url(database_url)
        url = url.set(host="127.0.0.1", port=self.port, query={})
        return url.render_as_string(hide_password=False)

    def __enter__(self) -> TcpProxy:
        self.restore()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cut()

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Closes the listener and every open connection: the database looks down."""
        with self._lock:
            if self._listener is not None:
                # shutdown wakes the thread blocked in accept(); close alone leaves it listening.
                with contextlib.suppress(OSError):
                    self._listener.shutdown(socket.SHUT_RDWR)
                self._listener.close()
                self._listener = None
            for connection in self._connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()
            self._connections.clear()

    def _connect_upstream(self) -> socket.socket:
        if isinstance(self.upstream, str):
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.upstream)
        else:
            upstream = socket.create_connection(self.upstream)
        return upstream

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = self._connect_upstream()
            except OSError:
                client.close()
                continue
            with self._lock:
                self._connections.extend([client, upstream])
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, target), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.close()
