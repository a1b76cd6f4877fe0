"""UI sign-in puts the token's identity in a signed cookie; cookie-authenticated posts need CSRF."""

import re

from app.auth.deps import Editor
from app.core.database import SessionDep


def csrf_from(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def sign_in(client, secret: str) -> str:
    csrf = csrf_from(client.get("/signin").text)
    response = client.post(
        "/signin", data={"token": secret, "csrf_token": csrf, "next": "/"}, follow_redirects=False
    )
    assert response.status_code == 303
    return csrf_from(client.get("/").text)


def add_protected_route(app):
    @app.post("/api/v1/_test/edit")
    def protected(_: SessionDep, principal: Editor) -> dict:
        return {"actor": principal.name, "via": principal.via}


def test_sign_in_shows_who_is_signed_in(client, make_token):
    sign_in(client, make_token("edit", name="alice"))
    assert "Signed in as <strong>alice</strong>" in client.get("/").text


def test_sign_in_without_csrf_is_refused(client, make_token):
    client.get("/signin")
    response = client.post("/signin", data={"token": make_token("edit"), "csrf_token": "forged"})
    assert response.status_code == 403


def test_wrong_token_at_sign_in_is_401_with_a_message(client):
    csrf = csrf_from(client.get("/signin").text)
    response = client.post("/signin", data={"token": "sb_wrong", "csrf_token": csrf})
    assert response.status_code == 401
    assert "not valid" in response.text


def test_cookie_authenticated_write_needs_the_csrf_header(app, client, make_token):
    add_protected_route(app)
    csrf = sign_in(client, make_token("edit", name="bob"))
    assert client.post("/api/v1/_test/edit").status_code == 403
    ok = client.post("/api/v1/_test/edit", headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 200 and ok.json() == {"actor": "bob", "via": "session"}


def test_bearer_write_needs_no_csrf(app, client, auth_header):
    add_protected_route(app)
    response = client.post("/api/v1/_test/edit", headers=auth_header("edit", name="ci"))
    assert response.json() == {"actor": "ci", "via": "bearer"}


def test_sign_out_clears_the_session(client, make_token):
    csrf = sign_in(client, make_token("read", name="carol"))
    client.post("/signout", data={"csrf_token": csrf})
    assert "Signed in as" not in client.get("/").text


def test_sign_in_never_redirects_off_site(client, make_token):
    csrf = csrf_from(client.get("/signin").text)
    response = client.post(
        "/signin",
        data={"token": make_token("read"), "csrf_token": csrf, "next": "//evil.example/"},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/"


def test_closed_reads_need_a_token(database_url, session):
    from fastapi.testclient import TestClient

    from app.core.database import get_session
    from app.main import create_app
    from tests.conftest import make_settings

    app = create_app(make_settings(database_url, READS_OPEN=False))
    app.dependency_overrides[get_session] = lambda: (yield session)
    with TestClient(app) as client:
        assert client.get("/", headers={"Accept": "text/html"}).status_code == 401
