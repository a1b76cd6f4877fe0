"""`python -m app` runs the CLI."""

from app.cli import main

main()
