"""Test databases on real PostgreSQL: DATABASE_URL's server when set, else an embedded server.

Each checkout gets its own database names (a hash of its path), so several checkouts can test at once
against one server without touching each other or any database they did not create.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import psycopg
from sqlalchemy.engine import URL, make_url

from app.core.paths import PROJECT_ROOT

CHECKOUT_TAG = hashlib.sha1(str(PROJECT_ROOT).encode()).hexdigest()[:8]


class TestServer:
    """A PostgreSQL server the tests may create and drop their own databases on."""

    def __init__(self, base_url: str, *, embedded: bool):
        self.base_url = make_url(base_url).set(drivername="postgresql+psycopg")
        self.embedded = embedded

    def url_for(self, database: str) -> str:
        return self.base_url.set(database=database).render_as_string(hide_password=False)

    def _connect(self) -> psycopg.Connection:
        url: URL = self.base_url
        params: dict[str, object] = {
            "dbname": "postgres",
            "user": url.username or "postgres",
            "autocommit": True,
        }
        params.update({key: value for key, value in url.query.items() if isinstance(value, str)})
        if url.host:
            params["host"] = url.host
        if url.port:
            params["port"] = url.port
        if url.password:
            params["password"] = url.password
        return psycopg.connect(**params)

    def create_database(self, suffix: str) -> str:
        """Drops and recreates this checkout's database `suffix`; returns its URL."""
        name = f"sbtest_{CHECKOUT_TAG}_{suffix}"
        with self._connect() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url_for(name)

    def drop_database(self, url: str) -> None:
        name = make_url(url).database
        with self._connect() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def test_server():
    """Yields the server to test on; an embedded one lives in a temporary folder and is deleted after."""
    configured = os.environ.get("DATABASE_URL", "").strip()
    if configured:
        yield TestServer(configured, embedded=False)
        return
    from app.core.embedded_postgres import start_embedded_postgres

    folder = Path(tempfile.mkdtemp(prefix="statusboard-test-pg-"))
    os.chmod(folder, 0o755)
    url = start_embedded_postgres(folder / "data", database="postgres", delete_on_exit=True)
    yield TestServer(url, embedded=True)
