"""Engine, sessions and the database lifecycle shared by the web app, the CLI and the tests."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from functools import lru_cache
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session

from app.core.settings import Settings

logger = logging.getLogger(__name__)


class DatabaseUnavailable(RuntimeError):
    """The database could not be reached within the allowed time."""


def resolve_database_url(settings: Settings) -> str:
    """Returns DATABASE_URL, or starts the embedded server and exports its URL for child processes."""
    if settings.database_url:
        return settings.database_url
    from app.core.embedded_postgres import start_embedded_postgres

    url = start_embedded_postgres(settings.embedded_postgres_dir)
    # uvicorn workers and subprocesses inherit the URL instead of starting servers of their own.
    os.environ["DATABASE_URL"] = url
    settings.database_url = url
    return url


@lru_cache(maxsize=8)
def get_engine(url: str) -> Engine:
    """Returns the pooled engine for `url`; pre-ping lets the pool recover after the database returns."""
    connect_args: dict[str, object] = {"connect_timeout": 5}
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10, connect_args=connect_args)


def redact(url: str) -> str:
    """Returns `url` with its password hidden, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def wait_for_database(url: str, *, timeout_seconds: float) -> None:
    """Retries a connection with exponential backoff until it works or `timeout_seconds` pass."""
    engine = get_engine(url)
    deadline = time.monotonic() + timeout_seconds
    delay = 0.25
    while True:
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return
        except (OperationalError, DBAPIError) as exc:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                reason = str(exc.orig or exc).strip().splitlines()[0]
                raise DatabaseUnavailable(
                    f"cannot reach the database at {redact(url)} after {timeout_seconds:.0f}s: {reason}"
                ) from None
            logger.warning("database not reachable yet, retrying in %.1fs", min(delay, remaining))
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 5.0)


def database_is_up(session: Session) -> bool:
    """Answers whether a trivial query succeeds on `session`."""
    try:
        session.execute(text("SELECT 1"))
        return True
    except (OperationalError, DBAPIError):
        session.rollback()
        return False


def get_app_settings(request: Request) -> Settings:
    """Returns the settings the running app was created with."""
    return request.app.state.settings


SettingsDep = Annotated[Settings, Depends(get_app_settings)]


def get_session(settings: SettingsDep) -> Iterator[Session]:
    """Yields a session for one request; whatever was not committed is rolled back."""
    if not settings.database_url:
        raise DatabaseUnavailable("no database configured; start through `statusboard serve`")
    with Session(get_engine(settings.database_url), expire_on_commit=False) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
