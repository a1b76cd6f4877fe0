"""FastAPI dependencies for who is acting: bearer tokens for the API, a signed session for the UI."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request

from app.auth.models import Scope
from app.auth.service import Principal, authenticate, principal_for_id
from app.core.database import SessionDep, SettingsDep
from app.core.errors import Forbidden, Unauthorized

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def _bearer_secret(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, credentials = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return credentials.strip() or None


async def _check_csrf(request: Request) -> None:
    """Cookie-authenticated writes must echo the session's CSRF token in a header or a form field."""
    expected = request.session.get("csrf_token")
    supplied = request.headers.get(CSRF_HEADER)
    if supplied is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        supplied = value if isinstance(value, str) else None
    if not expected or not supplied or not hmac.compare_digest(expected, supplied):
        raise Forbidden("missing or invalid CSRF token; reload the page and try again", field=CSRF_FIELD)


async def get_principal(request: Request, session: SessionDep) -> Principal | None:
    """Returns who is acting, or None for an anonymous request; a bad bearer token is a 401.

    The result is also left on `request.state.principal` for templates (sign-in state in the header).
    """
    request.state.principal = None
    principal = await _resolve_principal(request, session)
    request.state.principal = principal
    return principal


async def _resolve_principal(request: Request, session: SessionDep) -> Principal | None:
    secret = _bearer_secret(request)
    if secret is not None:
        principal = authenticate(session=session, secret=secret)
        if principal is None:
            raise Unauthorized("invalid or revoked API token", field="Authorization")
        return principal
    if request.headers.get("authorization"):
        raise Unauthorized("use `Authorization: Bearer <token>`", field="Authorization")
    token_id = request.session.get("token_id")
    if token_id is None:
        return None
    principal = principal_for_id(session=session, token_id=int(token_id))
    if principal is None:
        request.session.pop("token_id", None)
        return None
    if request.method in UNSAFE_METHODS:
        await _check_csrf(request)
    return principal


OptionalPrincipal = Annotated[Principal | None, Depends(get_principal)]


def require_scope(scope: Scope) -> Depends:
    """A dependency that answers 401 without a valid token and 403 without `scope`."""

    def dependency(principal: OptionalPrincipal) -> Principal:
        if principal is None:
            raise Unauthorized(
                f"this needs an API token with scope {scope.value!r}: send `Authorization: Bearer <token>`",
                field="Authorization",
            )
        if not principal.has_scope(scope):
            raise Forbidden(
                f"token {principal.name!r} lacks scope {scope.value!r} "
                f"(has: {', '.join(sorted(principal.scopes))})",
                field="scopes",
            )
        return principal

    return Depends(dependency)


def require_read(principal: OptionalPrincipal, settings: SettingsDep) -> Principal | None:
    """Reads are open unless READS_OPEN=false, in which case any valid token may read."""
    if principal is None and not settings.reads_open:
        raise Unauthorized("reads need an API token on this server", field="Authorization")
    return principal


Reader = Annotated[Principal | None, Depends(require_read)]
Uploader = Annotated[Principal, require_scope(Scope.upload)]
Editor = Annotated[Principal, require_scope(Scope.edit)]
Admin = Annotated[Principal, require_scope(Scope.admin)]
