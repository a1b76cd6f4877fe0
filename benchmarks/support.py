"""Shared helpers for benchmarks: a migrated scratch database on the test server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from app.core import migrations
from tests.database import test_server


@contextmanager
def bench_database(suffix: str = "bench") -> Iterator[str]:
    """Yields the URL of a freshly migrated database, dropped afterwards."""
    with test_server() as server:
        url = server.create_database(suffix)
        try:
            migrations.upgrade(url)
            yield url
        finally:
            server.drop_database(url)
