"""Every domain's HTML routes; they share one dependency that resolves the signed-in user."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from app.auth.deps import get_principal
from app.auth.pages import router as auth_pages
from app.benchmarks.pages import router as benchmarks_pages
from app.github_refs.pages import router as github_pages
from app.home.pages import router as home_pages
from app.review.pages import router as review_pages
from app.status_pages.pages import router as status_pages
from app.trends.pages import router as trends_pages

pages_router = APIRouter(dependencies=[Depends(get_principal)], include_in_schema=False)
pages_router.include_router(home_pages)
pages_router.include_router(auth_pages)
pages_router.include_router(status_pages)
pages_router.include_router(benchmarks_pages)
pages_router.include_router(github_pages)
pages_router.include_router(review_pages)
pages_router.include_router(trends_pages)
