"""`statusboard trends …`: open regressions, overdue series, and re-evaluating a series."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

trends_app = typer.Typer(help="Regressions, overdue series and baseline re-evaluation.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Adds the `trends` command group."""
    app.add_typer(trends_app, name="trends")


def _since(text: str | None) -> datetime | None:
    from app.cli import fail

    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        fail(f"--since expects a date like 2026-11-16, got {text!r}")
        raise
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@trends_app.command("regressions")
def regressions(
    since: str | None = typer.Option(None, help="Only runs at or after this date (ISO 8601)."),
) -> None:
    """List open regressions and level shifts (not acknowledged), newest first."""
    from app.cli import cli_session
    from app.trends.shifts import open_findings

    with cli_session() as session:
        found = open_findings(session=session, since=_since(since))
        if not found:
            typer.echo("no open regressions")
            return
        for finding in found:
            run = finding.run
            kind = "shift" if finding.kind == "change_point" else "regression"
            typer.echo(
                f"{kind}  run {run.id}  {run.run_time:%Y-%m-%d %H:%M}  {run.hardware} · {run.model}  "
                f"{finding.metric} {finding.value:.4g} vs {finding.baseline or 0:.4g} "
                f"({finding.delta_pct or 0:+.1f}%)  /trends?series={run.series_key}"
            )


@trends_app.command("overdue")
def overdue() -> None:
    """List series with no run for more than twice their median interval."""
    from app.cli import cli_session
    from app.trends.trend import SeriesFilters, list_series, series_cadences, series_name

    with cli_session() as session:
        every = list_series(session=session, filters=SeriesFilters(), limit=10_000)
        cadences = series_cadences(session=session, series_keys=[series.series_key for series in every])
        late = [series for series in every if cadences[series.series_key].overdue]
        if not late:
            typer.echo("no overdue series")
            return
        for series in late:
            rhythm = cadences[series.series_key]
            typer.echo(
                f"{series_name(series)}  last run {rhythm.last_run_time:%Y-%m-%d %H:%M}, "
                f"usually every {rhythm.median_interval}  ({series.series_key[:12]})"
            )


@trends_app.command("reevaluate")
def reevaluate(series_key: str = typer.Argument(..., help="The series to re-evaluate.")) -> None:
    """Recompute a series' stored evaluations (after late uploads or a threshold change); no events."""
    from app.cli import cli_session, load_settings
    from app.core.errors import NotFound
    from app.trends.service import get_series, reevaluate_series

    settings = load_settings()
    with cli_session() as session:
        try:
            get_series(session=session, series_key=series_key)
        except NotFound as error:
            from app.cli import fail

            fail(error.message)
        count = reevaluate_series(session=session, series_key=series_key, settings=settings)
        session.commit()
        typer.echo(f"re-evaluated {count} metric values of series {series_key[:12]}")
