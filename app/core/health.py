"""`GET /healthz`: is the service up, and can it reach its database?"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.core.database import SessionDep, database_is_up

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Liveness and database reachability")
def healthz(session: SessionDep) -> JSONResponse:
    if database_is_up(session):
        return JSONResponse({"status": "ok", "database": "ok"})
    return JSONResponse({"status": "error", "database": "unavailable"}, status_code=503)
