"""`statusboard import-md` and `statusboard export-md`."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Adds the status page commands to the CLI."""

    @app.command("import-md")
    def import_md(
        file: Path = typer.Argument(..., exists=True, dir_okay=False, help="The status page Markdown file."),
        slug: str | None = typer.Option(
            None, help="Slug of the page to create or update; derived when absent."
        ),
        actor: str = typer.Option("importer", help="Name recorded on the change events."),
    ) -> None:
        """Import (or re-import) a status page from its Markdown; prints the slug and the changes."""
        from app.cli import cli_session, fail, load_settings
        from app.core.errors import DomainError
        from app.status_pages.importing import read_markdown_upload, store_document
        from app.status_pages.service import slugify

        settings = load_settings()
        with cli_session() as session:
            try:
                document = read_markdown_upload(
                    file.read_bytes(),
                    max_bytes=settings.import_max_bytes,
                    default_repo=settings.github_default_repo,
                    aliases=settings.github_repo_aliases,
                )
                result = store_document(
                    session=session, document=document, slug=slugify(slug) if slug else None, actor=actor
                )
            except DomainError as exc:
                fail(exc.message)
            session.commit()
        for warning in result.warnings:
            typer.secho(f"warning: line {warning.line}: {warning.message}", err=True, fg=typer.colors.YELLOW)
        verb = "created" if result.created else "updated"
        typer.echo(f"{verb} {result.page.slug} ({result.changes} changes)")

    @app.command("export-md")
    def export_md(
        slug: str = typer.Argument(
            ..., help="Slug of the page (see `statusboard import-md` or /api/v1/pages)."
        ),
        output: Path | None = typer.Option(
            None, "--output", "-o", help="Write to this file instead of stdout."
        ),
    ) -> None:
        """Export a status page as Markdown in the team's format."""
        from app.cli import cli_session, fail
        from app.core.errors import DomainError
        from app.status_pages.importing import stored_document
        from app.status_pages.markdown_export import export_markdown
        from app.status_pages.service import get_page

        with cli_session() as session:
            try:
                page = get_page(session=session, slug=slug)
            except DomainError as exc:
                fail(exc.message)
            text = export_markdown(stored_document(session=session, page=page))
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.write_text(text)
            typer.echo(f"wrote {output}", err=True)
