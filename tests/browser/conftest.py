"""Browser harness: Playwright driving Debian's Chromium against a live server on its own database.

The live server commits for real, so it gets a database of its own that is emptied after every test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlmodel import Session

from app.auth.service import create_token
from app.core import migrations
from app.core.database import get_engine
from app.main import create_app
from tests.conftest import make_settings
from tests.live_server import LiveServer

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_database_url(scratch_database: Callable[[str], str]) -> str:
    url = scratch_database("browser")
    migrations.upgrade(url)
    return url


@pytest.fixture(scope="session")
def live_engine(browser_database_url: str) -> Iterator[Engine]:
    engine = create_engine(browser_database_url)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def live_server(browser_database_url: str) -> Iterator[LiveServer]:
    settings = make_settings(browser_database_url)
    server = LiveServer(create_app(settings)).start()
    yield server
    server.stop()
    get_engine(browser_database_url).dispose()


@pytest.fixture
def live_session(live_engine: Engine, live_server: LiveServer) -> Iterator[Session]:
    """A committing session on the live server's database; every table is emptied after the test."""
    with Session(live_engine, expire_on_commit=False) as db_session:
        yield db_session
    with live_engine.begin() as connection:
        tables = (
            connection.execute(
                text(
                    "SELECT tablename FROM pg_tables "
                    "WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
                )
            )
            .scalars()
            .all()
        )
        if tables:
            quoted = ", ".join(f'"{name}"' for name in tables)
            connection.execute(text(f"TRUNCATE {quoted} RESTART IDENTITY CASCADE"))


@pytest.fixture
def live_token(live_session: Session) -> Callable[..., str]:
    """Creates a committed token on the live server and returns its secret."""

    def factory(*scopes: str, name: str = "browser-user") -> str:
        _, secret = create_token(session=live_session, name=name, scopes=list(scopes) or ["read"])
        live_session.commit()
        return secret

    return factory


@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.skip(f"Chromium not found at {CHROMIUM}; `make test` installs Debian's chromium where it can")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium, live_server: LiveServer, live_session: Session) -> Iterator[object]:
    """A fresh browser page whose relative URLs resolve against the live server."""
    context = chromium.new_context(base_url=live_server.url, viewport={"width": 1400, "height": 900})
    context.set_default_timeout(10_000)
    browser_page = context.new_page()
    console_errors: list[str] = []
    browser_page.on(
        "console", lambda message: message.type == "error" and console_errors.append(message.text)
    )
    browser_page.console_errors = console_errors
    yield browser_page
    context.close()


def sign_in(page, token: str) -> None:
    """Signs the browser in through the sign-in form."""
    page.goto("/signin")
    page.fill("#token", token)
    page.click("form.stack button[type=submit]")
    page.wait_for_selector(".who")
