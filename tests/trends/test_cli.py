"""`statusboard trends …` commands."""

from __future__ import annotations

from tests.core.test_cli import run_cli


def test_trends_commands_answer_on_an_empty_database(database_url) -> None:
    result = run_cli("trends", "regressions", "--since", "2026-11-16", env={"DATABASE_URL": database_url})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "no open regressions"
    missing = run_cli("trends", "reevaluate", "deadbeef", env={"DATABASE_URL": database_url})
    assert missing.returncode == 1
    assert "series 'deadbeef' not found" in missing.stderr
