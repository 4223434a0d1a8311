"""The web pages: server-rendered (Jinja2), readable without JavaScript, Chinese by default with English."""

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from services.query.web import account, corrections, pages
from services.query.web.render import HERE


def mount_web(app: FastAPI) -> None:
    """Add the pages and their stylesheet to the query service's app."""
    app.include_router(corrections.router)  # first: /papers/{id}/correct must not be read as a paper id
    app.include_router(pages.router)
    app.include_router(account.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
