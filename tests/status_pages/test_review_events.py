"""The weekly review reads status pages only through their change events: imports, edits, rules."""

from app.core.models import utcnow
from tests.status_pages.conftest import SEED_SLUG, find_entry


def test_the_week_review_shows_the_imported_page_a_status_change_and_a_new_failure(
    client, auth_header, imported_seed
):
    headers = auth_header("edit", name="gina")
    entry = find_entry(imported_seed["page"], "FP8", "Communications", "PPLX")
    client.patch(
        f"/api/v1/entries/{entry['id']}", json={"status": "failing", "reason": "hangs"}, headers=headers
    )
    client.post(
        "/api/v1/compat",
        json={
            "page": SEED_SLUG,
            "component_a": "MOE",
            "backend_a": "DeepGemm",
            "component_b": "Communications",
            "backend_b": "PPLX",
            "outcome": "fails",
            "error_text": "boom",
            "issue": "#123",
            "reason": "seen",
        },
        headers=headers,
    )
    year, week, _ = utcnow().isocalendar()
    review = client.get(f"/api/v1/review/{year}-W{week:02d}").json()
    [page] = [page for page in review["pages"] if page["slug"] == SEED_SLUG]
    assert page["health_now"] == "degraded" and page["imported_at"] is not None
    changes = [change for group in page["components"] for change in group["changes"]]
    assert [(c["backend"], c["old_status"], c["new_status"], c["reason"]) for c in changes] == [
        ("PPLX", "working", "failing", "hangs")
    ]
    failures = {(f["backend_a"], f["backend_b"]): f for f in review["compatibility"]["new_failures"]}
    assert failures[("DeepGemm", "PPLX")]["error"] == "boom"
    assert failures[("DeepGemm", "PPLX")]["issue"] == "#123"
