"""`statusboard review`: a week as Markdown or JSON from the command line, and clear errors."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session

from app.core import migrations
from tests.core.test_cli import run_cli
from tests.review.scenario import store_scenario


@pytest.fixture(scope="module")
def review_database(scratch_database, standalone_engine_factory) -> str:
    url = scratch_database("review_cli")
    migrations.upgrade(url)
    with Session(standalone_engine_factory(url)) as session:
        store_scenario(session)
        session.commit()
    return url


def test_review_prints_markdown_with_links_to_the_given_server(review_database):
    result = run_cli(
        "review",
        "--week",
        "2026-W47",
        "--base-url",
        "https://sb.example.org",
        env={"DATABASE_URL": review_database},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# Weekly health review · 2026-W47\n")
    assert "(https://sb.example.org/pages/dsr1-b200)" in result.stdout


def test_review_prints_json(review_database):
    result = run_cli(
        "review", "--week", "2026-W47", "--format", "json", env={"DATABASE_URL": review_database}
    )
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["week"] == "2026-W47"
    assert body["needs_attention"][0]["category"] == "new_failure"


def test_a_malformed_week_exits_2_with_the_expected_form(review_database):
    result = run_cli("review", "--week", "2026-W60", env={"DATABASE_URL": review_database})
    assert result.returncode == 2
    assert "YYYY-Www" in result.stderr and "Traceback" not in result.stderr
