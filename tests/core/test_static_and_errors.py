"""Static assets are local and pinned; errors are JSON that names the field, or a friendly page."""

import base64
import hashlib

from app.core.paths import STATIC_DIR
from app.core.templating import HTMX_FILE, HTMX_INTEGRITY


def test_vendored_htmx_matches_its_pinned_integrity_hash():
    digest = base64.b64encode(hashlib.sha384((STATIC_DIR / HTMX_FILE).read_bytes()).digest()).decode()
    assert f"sha384-{digest}" == HTMX_INTEGRITY


def test_pages_reference_htmx_with_integrity_and_no_cdn(client):
    html = client.get("/").text
    assert f'integrity="{HTMX_INTEGRITY}"' in html
    for cdn in ("unpkg.com", "cdn.jsdelivr", "cdnjs", "cdn.plot.ly"):
        assert cdn not in html
    assert client.get(f"/static/{HTMX_FILE}").status_code == 200


def test_plotly_js_is_served_from_the_plotly_package(client):
    response = client.get("/static/plotly/plotly.min.js")
    assert response.status_code == 200
    assert b"plotly" in response.content[:2000].lower()


def test_docs_page_uses_local_swagger_assets(client):
    html = client.get("/docs").text
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in html
    assert "cdn.jsdelivr" not in html
    assert client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
    assert client.get("/openapi.json").json()["info"]["title"] == "statusboard"


def test_unknown_api_path_is_a_json_404(client):
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_unknown_page_is_a_friendly_html_404(client):
    response = client.get("/no-such-page", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert "Not found" in response.text and "<html" in response.text


def test_request_validation_errors_name_the_field(client, auth_header):
    response = client.post("/api/v1/tokens", json={"name": "x"}, headers=auth_header("admin"))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["field"] == "scopes"
    assert "scopes" in error["message"]


def test_user_markdown_renders_inert():
    from app.core.markdown import render_markdown

    html = str(
        render_markdown("<script>alert(1)</script> **bold** [x](javascript:alert(1)) <img src=x onerror=y>")
    )
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;" in html, "raw HTML is shown as text"
    assert "<strong>bold</strong>" in html
