"""Shared fixtures: a migrated PostgreSQL database, a rolled-back session per test, an app client."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine
from sqlmodel import Session

from app.auth.service import create_token
from app.core import migrations
from app.core.database import get_session
from app.core.settings import Settings, get_settings
from app.main import create_app
from tests.database import TestServer, test_server

TEST_SECRET_KEY = "test-secret-key-that-is-long-enough"

# The suite never reads a developer's .env or GitHub: every setting a test depends on is explicit.
os.environ.setdefault("ENVIRONMENT", "test")
os.environ.setdefault("SECRET_KEY", TEST_SECRET_KEY)
os.environ["GITHUB_API_URL"] = "http://127.0.0.1:9/unreachable-in-tests"
os.environ.pop("GITHUB_TOKEN", None)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[TestServer]:
    with test_server() as server:
        yield server


@pytest.fixture(scope="session")
def database_url(pg_server: TestServer) -> Iterator[str]:
    """A database of this checkout's, migrated to head once for the whole run."""
    url = pg_server.create_database("main")
    migrations.upgrade(url)
    yield url
    pg_server.drop_database(url)


@pytest.fixture(scope="session")
def engine(database_url: str) -> Iterator[Engine]:
    engine = create_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    """A session inside a transaction rolled back after the test; commits become savepoints."""
    connection = engine.connect()
    transaction = connection.begin()
    db_session = Session(bind=connection, join_transaction_mode="create_savepoint", expire_on_commit=False)
    try:
        yield db_session
    finally:
        db_session.close()
        if transaction.is_active:
            transaction.rollback()
        connection.close()


def make_settings(database_url: str, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "ENVIRONMENT": "test",
        "SECRET_KEY": TEST_SECRET_KEY,
        "DATABASE_URL": database_url,
        "GITHUB_API_URL": "http://127.0.0.1:9/unreachable-in-tests",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


@pytest.fixture
def app(settings: Settings, session: Session):
    application = create_app(settings)

    def override_session() -> Iterator[Session]:
        yield session

    application.dependency_overrides[get_session] = override_session
    application.dependency_overrides[get_settings] = lambda: settings
    return application


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def make_token(session: Session) -> Callable[..., str]:
    """Creates a token with the given scopes and returns its secret."""

    def factory(*scopes: str, name: str = "tester") -> str:
        _, secret = create_token(session=session, name=name, scopes=list(scopes) or ["read"])
        session.flush()
        return secret

    return factory


@pytest.fixture
def auth_header(make_token: Callable[..., str]) -> Callable[..., dict[str, str]]:
    """Returns an Authorization header for a fresh token with the given scopes."""

    def factory(*scopes: str, name: str = "tester") -> dict[str, str]:
        return {"Authorization": f"Bearer {make_token(*scopes, name=name)}"}

    return factory


@pytest.fixture(scope="session")
def scratch_database(pg_server: TestServer) -> Callable[[str], str]:
    """Creates an empty database of this checkout's named by suffix (dropped and recreated each call)."""
    created: list[str] = []

    def factory(suffix: str) -> str:
        url = pg_server.create_database(suffix)
        created.append(url)
        return url

    yield factory
    for url in created:
        pg_server.drop_database(url)


@pytest.fixture(scope="session")
def standalone_engine_factory() -> Iterator[Callable[[str], Engine]]:
    engines: list[Engine] = []

    def factory(url: str) -> Engine:
        engine = create_engine(url)
        engines.append(engine)
        return engine

    yield factory
    for engine in engines:
        engine.dispose()
