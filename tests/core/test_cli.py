"""The CLI: tokens printed alone on the last line, and clear exits for a bad or unreachable database."""

import os
import subprocess
import sys

from app.core.paths import PROJECT_ROOT


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    full_env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL",)}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=PROJECT_ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_token_create_prints_the_token_alone_on_the_last_line(database_url):
    result = run_cli(
        "token", "create", "--name", "ci", "--scopes", "upload", env={"DATABASE_URL": database_url}
    )
    assert result.returncode == 0, result.stderr
    last_line = result.stdout.strip().splitlines()[-1]
    assert last_line.startswith("sb_") and " " not in last_line


def test_malformed_database_url_exits_naming_the_variable():
    result = run_cli("migrate", env={"DATABASE_URL": "postgresql+psycopg://user@host:notaport/db"})
    assert result.returncode == 1
    assert "DATABASE_URL" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_database_is_retried_then_exits_with_a_clear_message():
    result = run_cli(
        "migrate",
        env={
            "DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:9/none",
            "DATABASE_STARTUP_TIMEOUT_SECONDS": "1",
        },
    )
    assert result.returncode == 1
    assert "cannot reach the database" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_lists_the_commands():
    result = run_cli("--help", env={})
    for command in ("serve", "migrate", "token", "demo"):
        assert command in result.stdout
