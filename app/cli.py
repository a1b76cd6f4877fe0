"""The `statusboard` command line: serve, migrate, tokens, demo data; domains add their commands."""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from pydantic import ValidationError
from sqlmodel import Session

from app.core.settings import Settings, get_settings

app = typer.Typer(
    help="statusboard: which kernel backends work, fail or win on which GPU.", no_args_is_help=True
)
token_app = typer.Typer(help="Create, list and revoke API tokens.", no_args_is_help=True)
app.add_typer(token_app, name="token")


def fail(message: str, code: int = 1) -> None:
    """Prints an error to stderr and exits."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


def load_settings() -> Settings:
    """Reads settings, turning a bad value into one clear line naming the variable."""
    try:
        return get_settings()
    except ValidationError as exc:
        messages = []
        for item in exc.errors():
            text = str(item.get("msg", "")).removeprefix("Value error, ")
            name = (item.get("loc") or ("",))[0]
            messages.append(text if str(name).upper() in text or not name else f"{str(name).upper()}: {text}")
        fail("; ".join(messages) or str(exc))
    raise AssertionError("unreachable")


def database_url(settings: Settings) -> str:
    """Resolves the database (embedded or DATABASE_URL) and waits for it, with bounded backoff."""
    from app.core.database import DatabaseUnavailable, resolve_database_url, wait_for_database

    try:
        url = resolve_database_url(settings)
        wait_for_database(url, timeout_seconds=settings.database_startup_timeout_seconds)
    except DatabaseUnavailable as exc:
        fail(f"{exc}. Check DATABASE_URL, or unset it to use the embedded server.")
    except Exception as exc:  # noqa: BLE001 - the embedded server can fail in many ways; say which
        fail(f"could not start the embedded PostgreSQL in {settings.embedded_postgres_dir}: {exc}")
    return url


@contextmanager
def cli_session() -> Iterator[Session]:
    """A session on the configured database for one CLI command."""
    from app.core.database import get_engine

    settings = load_settings()
    with Session(get_engine(database_url(settings)), expire_on_commit=False) as session:
        yield session


@app.command()
def migrate(revision: str = typer.Option("head", help="Alembic revision to upgrade to.")) -> None:
    """Upgrade the database schema (Alembic `upgrade head`)."""
    from app.core import migrations

    settings = load_settings()
    migrations.upgrade(database_url(settings), revision)
    typer.echo(f"database at revision {revision}")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    workers: int = typer.Option(1, min=1, help="uvicorn worker processes."),
    reload: bool = typer.Option(False, help="Reload on code changes (development)."),
) -> None:
    """Serve the web app and API with uvicorn (starting the embedded PostgreSQL first when needed)."""
    import uvicorn

    settings = load_settings()
    url = database_url(settings)
    # Workers are separate processes: they find the database through the environment.
    os.environ["DATABASE_URL"] = url
    database = "embedded" if settings.uses_embedded_postgres else "DATABASE_URL"
    typer.echo(f"statusboard on http://{host}:{port} (database: {database})")
    # uvicorn re-raises SIGTERM after its graceful shutdown; exiting through SystemExit instead lets the
    # embedded PostgreSQL's exit hook stop the server cleanly.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        workers=None if reload else workers,
        reload=reload,
        proxy_headers=True,
        log_level="info",
    )


@app.command()
def demo() -> None:
    """Load the demo data (idempotent: loading twice changes nothing)."""
    from app.demo import load_demo_data

    with cli_session() as session:
        summaries = load_demo_data(session=session)
    for line in summaries:
        typer.echo(line)
    typer.echo("demo data loaded" if summaries else "no demo data to load")


@token_app.command("create")
def token_create(
    name: str = typer.Option(..., help="Who or what uses the token, e.g. ci."),
    scopes: str = typer.Option("read", help="Comma-separated: read, upload, edit, admin."),
) -> None:
    """Create an API token; the token is printed once, alone on the last line."""
    from app.auth.service import create_token
    from app.core.errors import DomainError

    with cli_session() as session:
        try:
            token, secret = create_token(session=session, name=name, scopes=scopes)
        except DomainError as exc:
            fail(exc.message)
        session.commit()
        typer.echo(
            f"created token {token.id} {token.name!r} with scopes {', '.join(token.scopes)}; "
            "it is shown once, store it now:",
            err=True,
        )
    typer.echo(secret)


@token_app.command("list")
def token_list() -> None:
    """List tokens (never their secrets)."""
    from app.auth.service import list_tokens

    with cli_session() as session:
        for token in list_tokens(session=session):
            state = "revoked" if token.revoked_at else "active"
            typer.echo(f"{token.id}\t{token.name}\t{','.join(token.scopes)}\t{token.token_prefix}…\t{state}")


@token_app.command("revoke")
def token_revoke(token_id: int = typer.Argument(..., help="Id from `statusboard token list`.")) -> None:
    """Revoke a token; it stops working at once."""
    from app.auth.service import revoke_token
    from app.core.errors import DomainError

    with cli_session() as session:
        try:
            revoke_token(session=session, token_id=token_id)
        except DomainError as exc:
            fail(exc.message)
        session.commit()
    typer.echo(f"token {token_id} revoked")


# Each domain's `cli.py` exposes `register(app)` to add its commands (import-md, upload, sync, review, …).
DOMAIN_CLIS: list[str] = [
    "app.status_pages.cli",
    "app.github_refs.cli",
    "app.benchmarks.cli",
    "app.trends.cli",
    "app.review.cli",
]


def _register_domain_commands() -> None:
    import importlib

    for module_name in DOMAIN_CLIS:
        importlib.import_module(module_name).register(app)


_register_domain_commands()


def main() -> None:
    """Console-script entry point."""
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "WARNING"), stream=sys.stderr)
    app()
