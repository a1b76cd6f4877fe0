"""Token API: who am I, and token management for admins."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from app.auth.deps import Admin, OptionalPrincipal
from app.auth.models import ApiTokenPublic
from app.auth.service import create_token, list_tokens, revoke_token
from app.core.database import SessionDep
from app.core.errors import Unauthorized

router = APIRouter(prefix="/tokens", tags=["auth"])


class WhoAmI(BaseModel):
    name: str
    scopes: list[str]


class TokenCreate(BaseModel):
    name: str
    scopes: list[str]


class TokenCreated(ApiTokenPublic):
    token: str


@router.get("/me", response_model=WhoAmI, summary="The token the request authenticated with")
def whoami(principal: OptionalPrincipal) -> WhoAmI:
    if principal is None:
        raise Unauthorized("no API token sent", field="Authorization")
    return WhoAmI(name=principal.name, scopes=sorted(principal.scopes))


@router.get("", response_model=list[ApiTokenPublic], summary="List tokens (admin)")
def tokens(session: SessionDep, _: Admin) -> list[ApiTokenPublic]:
    return [
        ApiTokenPublic.model_validate(token, from_attributes=True) for token in list_tokens(session=session)
    ]


@router.post("", response_model=TokenCreated, status_code=201, summary="Create a token (admin); shown once")
def new_token(body: TokenCreate, session: SessionDep, _: Admin) -> TokenCreated:
    token, secret = create_token(session=session, name=body.name, scopes=body.scopes)
    session.commit()
    return TokenCreated(
        **ApiTokenPublic.model_validate(token, from_attributes=True).model_dump(), token=secret
    )


@router.delete("/{token_id}", response_model=ApiTokenPublic, summary="Revoke a token (admin)")
def delete_token(token_id: int, session: SessionDep, _: Admin) -> ApiTokenPublic:
    token = revoke_token(session=session, token_id=token_id)
    session.commit()
    return ApiTokenPublic.model_validate(token, from_attributes=True)
