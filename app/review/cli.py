"""`statusboard review`: a week's review as Markdown or JSON on stdout."""

from __future__ import annotations

import json
from enum import StrEnum

import typer


class ReviewFormat(StrEnum):
    md = "md"
    json = "json"


def register(app: typer.Typer) -> None:
    """Adds the `review` command."""

    @app.command()
    def review(
        week: str | None = typer.Option(
            None, help="ISO week such as 2026-W47 (UTC); default: the current week, so far."
        ),
        output_format: ReviewFormat = typer.Option(
            ReviewFormat.md, "--format", help="md (Markdown) or json."
        ),
        base_url: str = typer.Option(
            "http://127.0.0.1:8000", help="Where statusboard is served; Markdown links point there."
        ),
    ) -> None:
        """Print the weekly health review of a week (Markdown for an issue or chat, or JSON)."""
        from pydantic import TypeAdapter

        from app.cli import cli_session, fail, load_settings
        from app.core.errors import DomainError
        from app.core.models import utcnow
        from app.review.markdown import render_review_markdown
        from app.review.schema import WeekReview
        from app.review.service import build_review
        from app.review.weeks import parse_reviewable_week, week_of

        now = utcnow()
        try:
            iso_week = parse_reviewable_week(week, now=now) if week else week_of(now)
        except DomainError as exc:
            fail(exc.message, code=2)
        settings = load_settings()
        with cli_session() as session:
            result = build_review(
                session=session, week=iso_week, now=now, stale_after_days=settings.stale_after_days
            )
        if output_format is ReviewFormat.json:
            payload = TypeAdapter(WeekReview).dump_python(result, mode="json")
            typer.echo(json.dumps(payload, indent=2))
        else:
            typer.echo(render_review_markdown(result, base_url=base_url), nl=False)
