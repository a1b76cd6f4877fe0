"""The status pages API: import, read, export, re-import in place, edits with reasons, history, rules."""

from sqlmodel import select

from app.audit.models import ChangeEvent
from app.status_pages.models import BackendEntry, StatusPage
from tests.status_pages.conftest import SEED_SLUG, find_entry

MARKDOWN = {"Content-Type": "text/markdown"}


def _import(client, headers, text, **params):
    return client.post(
        "/api/v1/pages/import", content=text.encode(), headers={**headers, **MARKDOWN}, params=params
    )


def test_import_answers_with_the_structured_page_and_lists_it(client, imported_seed):
    page = imported_seed["page"]
    assert imported_seed["created"] is True and page["slug"] == SEED_SLUG
    assert page["health_level"] == "degraded"
    assert [s["precision"] for s in page["sections"]] == ["FP8", "FP4"]
    cudnn = find_entry(page, "FP4", "Gemms", "FlashInfer CUDNN")
    assert cudnn["status"] == "in_review" and cudnn["is_fastest"]
    gemms = page["sections"][0]["rows"][0]
    assert gemms["refs"][0]["number"] == 25696 and gemms["refs"][0]["title"] == "Fix w8a8 block fp8 linear"
    listing = client.get("/api/v1/pages").json()
    assert [(p["slug"], p["health_level"], p["failing_count"]) for p in listing] == [
        (SEED_SLUG, "degraded", 1)
    ]
    assert listing[0]["last_change_kind"] == "rule.added" or listing[0]["last_change_kind"] == "page.imported"
    assert client.get(f"/api/v1/pages/{SEED_SLUG}").json()["sections"][1]["rows"][0]["component"] == "Gemms"


def test_export_reimports_to_the_same_page_without_changes_or_duplicates(
    client, auth_header, imported_seed, session
):
    exported = client.get(f"/api/v1/pages/{SEED_SLUG}/export.md")
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/markdown")
    again = _import(client, auth_header("edit"), exported.text)
    assert again.status_code == 200
    assert again.json()["created"] is False and again.json()["changes"] == 0
    assert again.json()["page"] == {**imported_seed["page"], "updated_at": again.json()["page"]["updated_at"]}
    assert len(session.exec(select(StatusPage)).all()) == 1


def test_reimport_of_a_changed_page_updates_in_place_with_one_event_per_difference(
    client, auth_header, imported_seed, seed_markdown, session
):
    entry_ids = {e.id for e in session.exec(select(BackendEntry)).all()}
    fmha = "- TRT-LLM Ragged Attention (WIP)<br>- CUDNN<br>- FlashAttention-2 | FlashInfer CUTLASS"
    changed = seed_markdown.replace(fmha, fmha.replace("(WIP)", "(failing)"), 1).replace(
        "  - PPLX<br>", "", 1
    )
    assert changed != seed_markdown
    answer = _import(client, auth_header("edit", name="bob"), changed).json()
    assert answer["created"] is False
    kinds = [
        (e.kind, e.context.get("backend"))
        for e in session.exec(select(ChangeEvent).where(ChangeEvent.actor == "bob").order_by(ChangeEvent.id))
    ]
    assert ("entry.status_changed", "TRT-LLM Ragged Attention") in kinds
    assert ("entry.removed", "PPLX") in kinds
    assert len(kinds) == answer["changes"] == 2
    status_event = session.exec(select(ChangeEvent).where(ChangeEvent.kind == "entry.status_changed")).one()
    assert (status_event.old_value, status_event.new_value) == ("wip", "failing")
    assert status_event.context["precision"] == "FP8" and status_event.context["slug"] == SEED_SLUG
    remaining = {e.id for e in session.exec(select(BackendEntry)).all()}
    assert remaining < entry_ids and len(entry_ids - remaining) == 1, "updated in place, never duplicated"


def test_bad_markdown_is_refused_with_line_and_reason_and_nothing_is_stored(client, auth_header, session):
    headers = auth_header("edit")
    wrong_cells = (
        "T\n\n**Overall Health**: ok\n\n## FP8\n\n| Component | Backends |\n|---|---|\n| A | - x | y |\n"
    )
    answer = _import(client, headers, wrong_cells)
    assert answer.status_code == 422
    assert answer.json()["error"]["details"] == {
        "line": 9,
        "reason": "row has 3 cells but the table header has 2",
    }
    assert _import(client, headers, "just prose\n").status_code == 422
    binary = client.post("/api/v1/pages/import", content=b"T\n\x00\x01", headers={**headers, **MARKDOWN})
    assert binary.status_code == 422 and "binary" in binary.json()["error"]["message"]
    too_big = client.post(
        "/api/v1/pages/import", content=b"x" * (2 * 1024 * 1024 + 1), headers={**headers, **MARKDOWN}
    )
    assert too_big.status_code == 413
    wrong_type = client.post("/api/v1/pages/import", json={"a": 1}, headers=headers)
    assert wrong_type.status_code == 415
    assert session.exec(select(StatusPage)).all() == []


def test_a_failure_in_a_later_section_leaves_nothing_half_imported(
    client, auth_header, seed_markdown, session
):
    broken = seed_markdown.replace("## FP4\n", "## FP4\n\n| Component | Oops |\n|---|---|\n| a | b |\n", 1)
    assert _import(client, auth_header("edit"), broken).status_code == 422
    assert session.exec(select(StatusPage)).all() == []


def test_unknown_alias_imports_with_a_warning_naming_ref_and_line(client, auth_header):
    text = (
        "T on H100\n\n**Overall Health**: ok\n\n## FP8\n\n"
        "| Component | Backends | Notes |\n|---|---|---|\n| A | - x | see nope#12 |\n"
    )
    answer = _import(client, auth_header("edit"), text, slug="alias-test")
    assert answer.status_code == 201
    [warning] = answer.json()["warnings"]
    assert warning["line"] == 9 and "nope#12" in warning["message"]
    assert answer.json()["page"]["slug"] == "alias-test"


def test_writes_need_an_edit_token(client, auth_header, seed_markdown):
    assert _import(client, {}, seed_markdown).status_code == 401
    assert _import(client, auth_header("read"), seed_markdown).status_code == 403


def test_patch_entry_changes_status_with_a_reason_and_records_history(client, auth_header, imported_seed):
    entry = find_entry(imported_seed["page"], "FP8", "Communications", "PPLX")
    headers = auth_header("edit", name="carol")
    missing_reason = client.patch(
        f"/api/v1/entries/{entry['id']}", json={"status": "failing"}, headers=headers
    )
    assert missing_reason.status_code == 422 and missing_reason.json()["error"]["field"] == "reason"
    unknown = client.patch(
        f"/api/v1/entries/{entry['id']}", json={"status": "kaput", "reason": "x"}, headers=headers
    )
    assert unknown.status_code == 422
    assert unknown.json()["error"]["details"]["allowed"] == [
        "working",
        "failing",
        "wip",
        "in_review",
        "needs_evaluation",
        "unsupported",
        "deprecated",
    ]
    answer = client.patch(
        f"/api/v1/entries/{entry['id']}",
        json={"status": "failing", "notes": "hangs at startup", "reason": "seen on B200 nightly"},
        headers=headers,
    )
    assert answer.status_code == 200 and answer.json()["status"] == "failing"
    history = client.get(f"/api/v1/pages/{SEED_SLUG}/history").json()
    latest = {event["field_name"]: event for event in history[:2]}
    assert latest["status"]["kind"] == "entry.status_changed" and latest["status"]["actor"] == "carol"
    assert (latest["status"]["old_value"], latest["status"]["new_value"]) == ("working", "failing")
    assert latest["status"]["reason"] == "seen on B200 nightly"
    exported = client.get(f"/api/v1/pages/{SEED_SLUG}/export.md").text
    assert "  - PPLX (failing)<br>" in exported and "PPLX: hangs at startup" in exported
    reimported = _import(client, headers, exported)
    assert reimported.json()["changes"] == 0, "the edit survives an export and re-import"


def test_add_and_remove_rows_entries_and_rules(client, auth_header, imported_seed):
    headers = auth_header("edit")
    row = client.post(
        f"/api/v1/pages/{SEED_SLUG}/rows",
        json={"precision": "FP8", "component": "Sampler", "reason": "new kernel"},
        headers=headers,
    )
    assert row.status_code == 201
    entry = client.post(
        f"/api/v1/rows/{row.json()['id']}/entries",
        json={"name": "FlashInfer Top-K", "status": "wip", "reason": "PR open"},
        headers=headers,
    )
    assert entry.status_code == 201 and entry.json()["status"] == "wip"
    assert (
        "| **Sampler** | - FlashInfer Top-K (WIP) |"
        in client.get(f"/api/v1/pages/{SEED_SLUG}/export.md").text
    )
    assert client.delete(f"/api/v1/entries/{entry.json()['id']}", headers=headers).status_code == 422
    assert (
        client.delete(
            f"/api/v1/entries/{entry.json()['id']}", params={"reason": "dup"}, headers=headers
        ).status_code
        == 204
    )
    assert (
        client.delete(
            f"/api/v1/rows/{row.json()['id']}", params={"reason": "dup"}, headers=headers
        ).status_code
        == 204
    )
    rule = client.post(
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
            "reason": "tested",
        },
        headers=headers,
    )
    assert rule.status_code == 201 and rule.json()["outcome"] == "fails"
    listed = client.get("/api/v1/compat", params={"backend": "PPLX"}).json()
    assert [(r["backend_a"], r["issue"]["number"] if r["issue"] else None) for r in listed] == [
        ("DeepGemm", 123)
    ]
    exported = client.get(f"/api/v1/pages/{SEED_SLUG}/export.md").text
    assert "## Compatibility" in exported and "| MOE | DeepGemm | Communications | PPLX |" in exported
    assert _import(client, headers, exported).json()["changes"] == 0
    bad = client.post(
        "/api/v1/compat", json={**rule.json(), "outcome": "maybe", "reason": "x"}, headers=headers
    )
    assert bad.status_code == 422
    kinds = [e["kind"] for e in client.get(f"/api/v1/pages/{SEED_SLUG}/history").json()]
    for kind in ("row.added", "entry.added", "entry.removed", "row.removed", "rule.added"):
        assert kind in kinds
    assert (
        client.delete(
            f"/api/v1/compat/{rule.json()['id']}", params={"reason": "fixed"}, headers=headers
        ).status_code
        == 204
    )


def test_health_can_be_changed_with_a_reason(client, auth_header, imported_seed):
    headers = auth_header("edit")
    answer = client.patch(
        f"/api/v1/pages/{SEED_SLUG}", json={"health_level": "broken", "reason": "outage"}, headers=headers
    )
    assert answer.json() == {"changed": ["health_level"]}
    assert client.get(f"/api/v1/pages/{SEED_SLUG}").json()["health_level"] == "broken"
    bad = client.patch(
        f"/api/v1/pages/{SEED_SLUG}", json={"health_level": "meh", "reason": "x"}, headers=headers
    )
    assert bad.status_code == 422
    exported = client.get(f"/api/v1/pages/{SEED_SLUG}/export.md").text
    assert "**Overall Health** (broken): Most paths work." in exported


def test_unknown_page_and_entry_are_404(client, auth_header):
    assert client.get("/api/v1/pages/nope").status_code == 404
    assert (
        client.patch(
            "/api/v1/entries/999999", json={"status": "wip", "reason": "x"}, headers=auth_header("edit")
        ).status_code
        == 404
    )
