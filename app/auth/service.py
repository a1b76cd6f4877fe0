"""Creating, checking and revoking API tokens."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from sqlmodel import Session, select

from app.auth.models import ApiToken, Scope
from app.core.errors import InvalidInput, NotFound
from app.core.models import utcnow

TOKEN_PREFIX = "sb_"
# Writing last_used_at on every request would turn reads into writes; once a minute is enough to audit.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class Principal:
    """Who is acting: the token's name doubles as the actor recorded in change events."""

    token_id: int
    name: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    via: str = "bearer"

    def has_scope(self, scope: Scope | str) -> bool:
        """Admin implies every scope, and any token may read."""
        scope = Scope(scope)
        return Scope.admin in self.scopes or scope in self.scopes or scope is Scope.read


def hash_token(token: str) -> str:
    """Returns the SHA-256 hex digest under which a token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def parse_scopes(raw: Iterable[str] | str) -> list[str]:
    """Turns `upload,edit` or a list into a sorted list of known scopes; unknown names are an error."""
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    names = [item.strip().lower() for item in items if item and item.strip()]
    allowed = [scope.value for scope in Scope]
    unknown = [name for name in names if name not in allowed]
    if unknown:
        raise InvalidInput(f"unknown scope {unknown[0]!r}; allowed: {', '.join(allowed)}", field="scopes")
    if not names:
        raise InvalidInput(f"give at least one scope; allowed: {', '.join(allowed)}", field="scopes")
    return sorted(set(names), key=allowed.index)


def create_token(*, session: Session, name: str, scopes: Iterable[str] | str) -> tuple[ApiToken, str]:
    """Creates a token and returns the row and the secret, which is never stored and never shown again."""
    name = name.strip()
    if not name:
        raise InvalidInput("a token needs a name", field="name")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        name=name, token_prefix=secret[:10], token_hash=hash_token(secret), scopes=parse_scopes(scopes)
    )
    session.add(token)
    session.flush()
    return token, secret


def authenticate(*, session: Session, secret: str, via: str = "bearer") -> Principal | None:
    """Returns the principal for a valid, unrevoked token secret, else None."""
    if not secret or not secret.startswith(TOKEN_PREFIX):
        return None
    token = session.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(secret))).first()
    if token is None or token.revoked_at is not None:
        return None
    return _touch(session=session, token=token, via=via)


def principal_for_id(*, session: Session, token_id: int, via: str = "session") -> Principal | None:
    """Returns the principal of a signed-in browser session, if its token is still valid."""
    token = session.get(ApiToken, token_id)
    if token is None or token.revoked_at is not None:
        return None
    return _touch(session=session, token=token, via=via)


def _touch(*, session: Session, token: ApiToken, via: str) -> Principal:
    now = utcnow()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        token.last_used_at = now
        session.add(token)
        session.commit()
    return Principal(token_id=token.id, name=token.name, scopes=frozenset(token.scopes), via=via)


def list_tokens(*, session: Session) -> list[ApiToken]:
    """Lists every token, newest first."""
    return list(session.exec(select(ApiToken).order_by(ApiToken.id.desc())))


def revoke_token(*, session: Session, token_id: int) -> ApiToken:
    """Marks a token revoked; it stops working at once."""
    token = session.get(ApiToken, token_id)
    if token is None:
        raise NotFound(f"no token with id {token_id}", field="token_id")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.add(token)
    return token
