"""`statusboard sync`: refresh tracked PRs and issues from GitHub once, or forever as the compose worker."""

from __future__ import annotations

import logging
import signal
import threading

import typer

logger = logging.getLogger(__name__)


def register(app: typer.Typer) -> None:
    """Adds `sync` to the statusboard command line."""

    @app.command()
    def sync(
        loop: bool = typer.Option(False, "--loop", help="Sync every --interval seconds (the worker)."),
        interval: int | None = typer.Option(
            None, min=1, help="Seconds between runs with --loop; default GITHUB_SYNC_INTERVAL_SECONDS (600)."
        ),
    ) -> None:
        """Refresh tracked PRs and issues from GitHub (conditional requests; one sync at a time)."""
        from app.cli import database_url, fail, load_settings
        from app.github_refs.sync import sync_once

        settings = load_settings()
        database_url(settings)
        if not settings.github_token:
            typer.secho(
                "warning: GITHUB_TOKEN is not set; GitHub allows 60 unauthenticated requests an hour",
                err=True,
                fg=typer.colors.YELLOW,
            )
        if not loop:
            report = sync_once(settings=settings, trigger="cli")
            typer.echo(report.summary())
            for line in report.events:
                typer.echo(f"  {line}")
            for error in report.errors:
                typer.echo(f"  error: {error}", err=True)
            if report.status == "failed":
                fail(report.message or "the sync failed")
            return
        seconds = interval or settings.github_sync_interval_seconds
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        typer.echo(f"syncing with GitHub every {seconds}s; stop with Ctrl-C or SIGTERM")
        while not stop.is_set():
            try:
                typer.echo(sync_once(settings=settings, trigger="loop").summary())
            except Exception:  # noqa: BLE001 - the worker must outlive a bad run (database restart, …)
                logger.exception("sync run crashed; trying again at the next interval")
            stop.wait(seconds)
