"""The versioned JSON API: every domain's API router under `/api/v1`."""

from __future__ import annotations

from fastapi import APIRouter

from app.auth.api import router as auth_router
from app.benchmarks.api import router as benchmarks_router
from app.trends.api import router as trends_router

api_router = APIRouter(prefix="/api/v1")
api_router.include_router(auth_router)
api_router.include_router(benchmarks_router)
api_router.include_router(trends_router)
