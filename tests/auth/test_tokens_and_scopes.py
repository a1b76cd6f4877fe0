"""API tokens: hashed at rest, 401 without a valid one, 403 without the scope, revocable."""

from sqlmodel import select

from app.auth.models import ApiToken
from app.auth.service import authenticate, create_token, hash_token, parse_scopes, revoke_token


def test_tokens_are_stored_hashed_and_authenticate(session):
    token, secret = create_token(session=session, name="ci", scopes="upload")
    stored = session.exec(select(ApiToken).where(ApiToken.id == token.id)).one()
    assert stored.token_hash == hash_token(secret) and secret not in stored.token_hash
    principal = authenticate(session=session, secret=secret)
    assert principal is not None and principal.name == "ci" and principal.has_scope("upload")
    assert not principal.has_scope("edit") and principal.has_scope("read")


def test_admin_implies_every_scope(session):
    _, secret = create_token(session=session, name="root", scopes=["admin"])
    principal = authenticate(session=session, secret=secret)
    assert all(principal.has_scope(scope) for scope in ("read", "upload", "edit", "admin"))


def test_unknown_scope_is_refused_listing_the_allowed_ones():
    import pytest

    from app.core.errors import InvalidInput

    with pytest.raises(InvalidInput, match="allowed: read, upload, edit, admin"):
        parse_scopes("upload,superuser")


def test_revoked_token_stops_working(session):
    token, secret = create_token(session=session, name="old", scopes="read")
    revoke_token(session=session, token_id=token.id)
    assert authenticate(session=session, secret=secret) is None


def test_missing_token_is_401_with_a_message(client):
    response = client.get("/api/v1/tokens")
    assert response.status_code == 401
    assert response.json()["error"]["field"] == "Authorization"
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_invalid_token_is_401(client):
    response = client.get("/api/v1/tokens", headers={"Authorization": "Bearer sb_nope"})
    assert response.status_code == 401
    assert "invalid" in response.json()["error"]["message"]


def test_missing_scope_is_403_naming_it(client, auth_header):
    response = client.get("/api/v1/tokens", headers=auth_header("upload"))
    assert response.status_code == 403
    assert "'admin'" in response.json()["error"]["message"]


def test_admin_creates_a_token_shown_once_and_then_listed_without_secret(client, auth_header):
    headers = auth_header("admin")
    created = client.post("/api/v1/tokens", json={"name": "bench-ci", "scopes": ["upload"]}, headers=headers)
    assert created.status_code == 201
    secret = created.json()["token"]
    me = client.get("/api/v1/tokens/me", headers={"Authorization": f"Bearer {secret}"})
    assert me.json() == {"name": "bench-ci", "scopes": ["upload"]}
    listed = client.get("/api/v1/tokens", headers=headers).text
    assert secret not in listed and "bench-ci" in listed
