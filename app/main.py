"""The FastAPI application factory."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware

from app.api import api_router
from app.core.errors import install_error_handlers
from app.core.health import router as health_router
from app.core.paths import STATIC_DIR
from app.core.settings import Settings, get_settings
from app.link_targets import register_link_targets
from app.pages import pages_router

logger = logging.getLogger(__name__)


def plotly_js_dir() -> Path:
    """The folder of the plotly package that holds plotly.min.js, served as-is (no CDN)."""
    import plotly

    return Path(plotly.__file__).parent / "package_data"


def create_app(settings: Settings | None = None) -> FastAPI:
    """Builds the app for `settings`; the database URL must already be resolved (see `statusboard serve`)."""
    settings = settings or get_settings()
    if settings.database_url is None:
        # Imported by a uvicorn worker without the CLI: start or join the embedded server ourselves.
        from app.core.database import resolve_database_url

        resolve_database_url(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield

    app = FastAPI(
        title="statusboard",
        summary="Which kernel backends of an LLM inference engine work, fail or win on which GPU.",
        version="1",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.settings = settings
    register_link_targets()
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.secret_key,
        session_cookie="statusboard_session",
        same_site="lax",
        https_only=settings.session_cookie_secure,
        max_age=14 * 24 * 3600,
    )
    install_error_handlers(app)
    app.mount("/static/plotly", StaticFiles(directory=plotly_js_dir()), name="plotly")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="statusboard API",
            swagger_js_url="/static/vendor/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url="/static/vendor/swagger-ui/swagger-ui.css",
            swagger_favicon_url="/static/vendor/swagger-ui/favicon-32x32.png",
        )

    app.include_router(health_router)
    app.include_router(api_router)
    app.include_router(pages_router)
    return app
