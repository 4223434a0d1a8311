"""The web pages: server-rendered (Jinja2), readable without JavaScript, Chinese by default with English."""

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from services.query.web import account, pages
from services.query.web.render import HERE


def mount_web(app: FastAPI) -> None:
    """Add the pages and their stylesheet to the query service's app."""
    app.include_router(pages.router)
    app.include_router(account.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
