"""The versioned JSON API: every domain's API router under `/api/v1`."""

from __future__ import annotations

from fastapi import APIRouter

from app.auth.api import router as auth_router
from app.benchmarks.api import router as benchmarks_router
from app.github_refs.api import router as github_router
from app.review.api import router as review_router
from app.status_pages.api import router as status_pages_router
from app.trends.api import router as trends_router

api_router = APIRouter(prefix="/api/v1")
api_router.include_router(auth_router)
api_router.include_router(status_pages_router)
api_router.include_router(github_router)
api_router.include_router(benchmarks_router)
api_router.include_router(review_router)
api_router.include_router(trends_router)
