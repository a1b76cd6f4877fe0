"""`statusboard import-md` and `export-md` on a database of their own."""

import re

import pytest

from app.core import migrations
from tests.core.test_cli import run_cli
from tests.status_pages.conftest import SEED_PATH, SEED_SLUG


@pytest.fixture(scope="module")
def cli_database(scratch_database):
    url = scratch_database("cli_pages")
    migrations.upgrade(url)
    return url


def test_import_then_reimport_then_export_round_trips(cli_database, tmp_path):
    env = {"DATABASE_URL": cli_database}
    first = run_cli("import-md", str(SEED_PATH), env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip().startswith(f"created {SEED_SLUG}")
    again = run_cli("import-md", str(SEED_PATH), env=env)
    assert again.stdout.strip() == f"updated {SEED_SLUG} (0 changes)"
    output = tmp_path / "out.md"
    exported = run_cli("export-md", SEED_SLUG, "-o", str(output), env=env)
    assert exported.returncode == 0, exported.stderr
    assert _normalised(output.read_text()) == _normalised(SEED_PATH.read_text())


def _normalised(text: str) -> list[str]:
    """Lines with whitespace collapsed, table separator rows (whose dash counts vary) left out."""
    lines = [" ".join(line.split()) for line in text.strip().split("\n")]
    return [line for line in lines if not re.match(r"^\|[-|\s:]+\|$", line)]


def test_bad_file_and_unknown_slug_exit_with_a_clear_message(cli_database, tmp_path):
    env = {"DATABASE_URL": cli_database}
    bad = tmp_path / "bad.md"
    bad.write_text("Title\n\n## FP8\n\n| Component | Backends |\n|---|---|\n| A | - x | extra |\n")
    result = run_cli("import-md", str(bad), env=env)
    assert result.returncode == 1 and "line 7: row has 3 cells" in result.stderr
    missing = run_cli("export-md", "no-such-page", env=env)
    assert missing.returncode == 1 and "no status page 'no-such-page'" in missing.stderr
