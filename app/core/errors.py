"""Domain errors: one exception per kind of failure, mapped once to a JSON answer or an HTML page."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core.database import DatabaseUnavailable

logger = logging.getLogger(__name__)


class DomainError(Exception):
    """A failure a user can act on; `field` names the input at fault when there is one."""

    status_code = 400
    code = "bad_request"

    def __init__(self, message: str, *, field: str | None = None, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        if self.details:
            body["details"] = self.details
        return body


class BadRequest(DomainError):
    status_code = 400
    code = "bad_request"


class Unauthorized(DomainError):
    status_code = 401
    code = "unauthorized"


class Forbidden(DomainError):
    status_code = 403
    code = "forbidden"


class NotFound(DomainError):
    status_code = 404
    code = "not_found"


class Conflict(DomainError):
    status_code = 409
    code = "conflict"


class PayloadTooLarge(DomainError):
    status_code = 413
    code = "payload_too_large"


class UnsupportedMediaType(DomainError):
    status_code = 415
    code = "unsupported_media_type"


class InvalidInput(DomainError):
    status_code = 422
    code = "validation_error"


class ServiceUnavailable(DomainError):
    status_code = 503
    code = "service_unavailable"


def wants_html(request: Request) -> bool:
    """Pages get HTML errors; the API and programmatic clients get JSON."""
    if request.url.path.startswith("/api/") or request.url.path == "/healthz":
        return False
    return "text/html" in request.headers.get("accept", "")


def _field_of(location: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(part) for part in location if part not in ("body", "query", "path", "header")]
    return ".".join(parts) or ".".join(str(part) for part in location)


def error_response(request: Request, error: DomainError) -> Response:
    """Renders `error` as JSON `{"error": {...}}` or as the friendly error page."""
    headers = {"WWW-Authenticate": "Bearer"} if error.status_code == 401 else None
    if wants_html(request):
        from app.core.templating import templates

        return templates.TemplateResponse(
            request,
            "errors/error.html",
            {"error": error, "status_code": error.status_code},
            status_code=error.status_code,
            headers=headers,
        )
    return JSONResponse({"error": error.to_dict()}, status_code=error.status_code, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    """Maps every domain error, validation error, HTTP error and database outage once."""

    @app.exception_handler(DomainError)
    async def _domain(request: Request, exc: DomainError) -> Response:
        return error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        problems = [
            {"field": _field_of(item.get("loc", ())), "message": item.get("msg", "invalid")}
            for item in exc.errors()
        ]
        first = problems[0] if problems else {"field": None, "message": "invalid input"}
        message = f"{first['field']}: {first['message']}" if first["field"] else first["message"]
        error = InvalidInput(message, field=first["field"] or None, details={"errors": problems})
        return error_response(request, error)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        error = DomainError(str(exc.detail))
        error.status_code = exc.status_code
        error.code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        if exc.status_code == 404 and exc.detail == "Not Found":
            error.message = f"nothing at {request.url.path}"
        return error_response(request, error)

    async def _database_down(request: Request, exc: Exception) -> Response:
        logger.warning("database unavailable during %s %s: %s", request.method, request.url.path, exc)
        return error_response(request, ServiceUnavailable("the database is unavailable; try again shortly"))

    app.add_exception_handler(OperationalError, _database_down)
    app.add_exception_handler(DatabaseUnavailable, _database_down)

    @app.exception_handler(DBAPIError)
    async def _dbapi(request: Request, exc: DBAPIError) -> Response:
        if exc.connection_invalidated:
            return await _database_down(request, exc)
        raise exc
