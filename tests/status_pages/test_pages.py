"""Status page HTML: filters in the URL and through htmx, fixed query count, inert notes, edits, grid."""

from contextlib import contextmanager

from sqlalchemy import event, func, select
from sqlmodel import Session

from app.audit.models import ChangeEvent
from app.status_pages import demo
from tests.status_pages.conftest import SEED_SLUG, find_entry

PAGE = f"/pages/{SEED_SLUG}"


def test_home_lists_pages_with_health_badge_and_last_change(client, imported_seed):
    html = client.get("/").text
    assert f'href="/pages/{SEED_SLUG}"' in html
    assert '<span class="badge degraded">degraded</span>' in html
    assert "1 failing" in html and "page.imported" in html or "rule.added" in html


def test_page_shows_health_tabs_legend_chips_and_linked_sources(client, imported_seed):
    html = client.get(PAGE).text
    assert "Most paths work." in html and 'class="health-banner degraded"' in html
    assert 'class="tab active" aria-current="true">FP8 - Compatible</a>' in html
    assert "FP4</a>" in html and "Status (legend" in html
    assert 'class="chip status-failing' in html, "the failing FP8 MoE backend is shown"
    assert 'href="https://github.com/vllm-project/vllm/blob/main/vllm/platforms/cuda.py#L269-L291"' in html
    assert 'data-copy="VLLM_USE_DEEP_GEMM=1 VLLM_USE_DEEP_GEMM_E8M0=1"' in html
    assert "#25696" in html and "Fix w8a8 block fp8 linear" in html


def test_status_filter_in_the_url_keeps_only_matching_entries(client, imported_seed):
    html = client.get(PAGE, params=[("status", "failing")]).text
    matrix = html.split('<div id="matrix">')[1]
    assert matrix.count('<div class="entry') == 1 and "FlashInfer CUTLASS" in matrix
    assert '<input type="checkbox" name="status" value="failing" checked>' in html


def test_boosted_requests_get_the_whole_page(client, imported_seed):
    answer = client.get(PAGE, headers={"HX-Request": "true", "HX-Boosted": "true"})
    assert "<html" in answer.text and 'id="matrix"' in answer.text


def test_htmx_filter_request_returns_only_the_table_block(client, imported_seed):
    answer = client.get(
        PAGE,
        params=[("precision", "FP4"), ("status", "in_review")],
        headers={"HX-Request": "true", "HX-Target": "matrix"},
    )
    assert answer.status_code == 200
    assert answer.text.lstrip().startswith('<div id="matrix">') and "<html" not in answer.text
    assert "FlashInfer CUDNN" in answer.text and "DeepGemm" not in answer.text
    assert 'class="tab active" aria-current="true">FP4</a>' in answer.text


def test_text_component_and_backend_filters_combine(client, imported_seed):
    html = client.get(PAGE, params={"precision": "all", "component": "MOE", "q": "deepgemm"}).text
    matrix = html.split('<div id="matrix">')[1]
    assert matrix.count('data-component="MOE"') == 1, "FP4's MOE has no DeepGemm"
    html = client.get(PAGE, params=[("precision", "all"), ("backend", "CUTLASS MLA")]).text
    assert html.split('<div id="matrix">')[1].count('<div class="entry') == 2


@contextmanager
def count_queries(session: Session):
    statements: list[str] = []

    def record(conn, cursor, statement, *args):
        statements.append(statement)

    connection = session.connection()
    event.listen(connection, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(connection, "before_cursor_execute", record)


def test_page_view_issues_a_fixed_number_of_queries_whatever_the_size(
    client, auth_header, imported_seed, session
):
    # Small, but with every kind of thing that needs a query: refs on rows, entries, rules and a recipe.
    small = (
        "Small on H100\n\n**Overall Health**: ok, see #5\n\n## FP8\n\n"
        "| Component | Backends | Notes | PRs |\n"
        "|---|---|---|---|\n| A | - x | x: see #7 | [#6](https://github.com/vllm-project/vllm/pull/6) t |\n\n"
        "## Compatibility\n\n| Component A | Backend A | Component B | Backend B | Result | Issue |\n"
        "|---|---|---|---|---|---|\n| A | x | B | y | fails | #8 |\n\n"
        "## Example Usage\n\n```bash\nvllm serve\n```\n"
    )
    headers = {**auth_header("edit"), "Content-Type": "text/markdown"}
    assert (
        client.post(
            "/api/v1/pages/import", content=small, headers=headers, params={"slug": "small"}
        ).status_code
        == 201
    )
    with count_queries(session) as big_queries:
        assert client.get(PAGE, params={"precision": "all"}).status_code == 200
    with count_queries(session) as small_queries:
        assert client.get("/pages/small", params={"precision": "all"}).status_code == 200
    assert len(big_queries) == len(small_queries) <= 12


def test_notes_with_html_or_script_are_rendered_inert(client, auth_header, imported_seed):
    entry = find_entry(imported_seed["page"], "FP8", "Gemms", "DeepGemm")
    evil = '<script>alert(1)</script> <img src=x onerror="alert(2)"> [x](javascript:alert(3))'
    answer = client.patch(f"/api/v1/entries/{entry['id']}", json={"notes": evil, "reason": "xss test"},
                          headers=auth_header("edit"))  # fmt: skip
    assert answer.status_code == 200
    html = client.get(PAGE).text
    assert "<script>alert(1)</script>" not in html and "<img" not in html
    assert 'href="javascript:' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_inline_edit_through_htmx_updates_the_matrix_and_the_history(client, auth_header, imported_seed):
    entry = find_entry(imported_seed["page"], "FP8", "Communications", "PPLX")
    headers = auth_header("edit", name="dana")
    assert client.get(f"{PAGE}/entries/{entry['id']}/edit").status_code == 401
    editor = client.get(
        f"{PAGE}/entries/{entry['id']}/edit", headers={**headers, "HX-Request": "true", "HX-Target": "editor"}
    )
    assert editor.text.lstrip().startswith('<section class="editor"') and 'name="reason"' in editor.text
    form = {"status": "failing", "reason": "", "notes": "", "invocation": "", "back": "precision=FP8"}
    refused = client.post(
        f"{PAGE}/entries/{entry['id']}", data=form, headers={**headers, "HX-Request": "true"}
    )
    assert refused.headers["HX-Retarget"] == "#editor" and "a reason is required" in refused.text
    form["reason"] = "PPLX kernels hang on B200"
    answer = client.post(
        f"{PAGE}/entries/{entry['id']}", data=form, headers={**headers, "HX-Request": "true"}
    )
    assert answer.status_code == 200 and answer.text.lstrip().startswith('<div id="matrix">')
    assert 'id="editor" hx-swap-oob="true"' in answer.text
    history = client.get(f"{PAGE}/entries/{entry['id']}/history").text
    assert "entry.status_changed" in history and "dana" in history and "PPLX kernels hang on B200" in history
    plain = client.post(f"{PAGE}/entries/{entry['id']}", data={**form, "status": "working"}, headers=headers,
                        follow_redirects=False)  # fmt: skip
    assert plain.status_code == 303 and plain.headers["location"] == f"{PAGE}?precision=FP8"


def test_pivot_and_history_pages_render(client, imported_seed):
    pivot = client.get(f"{PAGE}/pivot", params={"precision": "FP4"}).text
    assert "FlashInfer CUDNN" in pivot and "in review" in pivot
    assert "page.imported" in client.get(f"{PAGE}/history").text


def test_page_grid_shows_rules_read_from_the_notes(client, imported_seed):
    grid = client.get(f"{PAGE}/compat", params={"a": "MOE", "b": "Communications"}).text
    cell = grid.split('data-a="FlashInfer TRTLLM" data-b="FlashInfer All2Allv (MNNVL)"')[1].split("</td>")[0]
    assert "fails" in cell and "Can only use AG-RS or Naive" in cell
    works = grid.split('data-a="FlashInfer TRTLLM" data-b="Naive All2All"')[1].split("</td>")[0]
    assert "works" in works
    untested = grid.split('data-a="DeepGemm" data-b="PPLX"')[1].split("</td>")[0]
    assert "untested" in untested, "page backends without a rule are shown as untested"


def test_demo_data_loads_twice_without_changes_and_the_grid_shows_the_cutedsl_failure(client, session):
    demo.load(session=session)
    events = session.exec(select(func.count()).select_from(ChangeEvent)).one()
    summary = demo.load(session=session)
    assert session.exec(select(func.count()).select_from(ChangeEvent)).one() == events
    assert "0 changes" in summary and "0 compatibility rules added" in summary
    grid = client.get("/compat", params={"a": "MOE", "b": "Communications"}).text
    cell = grid.split('data-a="flashinfer_cutedsl" data-b="deepep_low_latency"')[1].split("</td>")[0]
    assert "fails" in cell and "invalid resource handle" in cell and "#37931" in cell
    home = client.get("/").text
    assert "SM120" in home and "Nemotron" in home
