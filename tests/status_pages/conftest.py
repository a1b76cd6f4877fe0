"""Fixtures for status page tests: the seed Markdown and an imported seed page."""

from pathlib import Path

import pytest

SEED_PATH = Path(__file__).parents[2] / "app/status_pages/demo_data/dsr1-vllm-b200.md"
SEED_SLUG = "deepseek-r1-vllm-b200-aggregated-serving"


@pytest.fixture(scope="session")
def seed_markdown() -> str:
    return SEED_PATH.read_text()


@pytest.fixture
def imported_seed(client, auth_header, seed_markdown):
    """Imports the seed page through the API and returns the answer's JSON."""
    response = client.post(
        "/api/v1/pages/import",
        content=seed_markdown.encode(),
        headers={**auth_header("edit", name="alice"), "Content-Type": "text/markdown"},
    )
    assert response.status_code == 201, response.text
    return response.json()


def find_entry(page: dict, precision: str, component: str, backend: str) -> dict:
    section = next(s for s in page["sections"] if s["precision"] == precision)
    row = next(r for r in section["rows"] if r["component"] == component)
    return next(e for e in row["entries"] if e["name"] == backend)
