"""The web pages: server-rendered (Jinja2), readable without JavaScript, Chinese by default with English."""

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from services.query.web import account, corrections, library, pages
from services.query.web.render import HERE, KATEX_DIR, templates


def mount_web(app: FastAPI) -> bool:
    """Add the pages and their static files to the query service's app; whether KaTeX is there to render
    formulas (without it the pages show formulas as their source, as they do without JavaScript)."""
    app.include_router(corrections.router)  # first: /papers/{id}/correct must not be read as a paper id
    app.include_router(library.router)
    app.include_router(pages.router)
    app.include_router(account.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    # the CSRF field every state-changing form carries (the name web accounts check); empty until they set one
    templates.env.globals.setdefault("csrf", "")
    templates.env.globals["math_rendering"] = (KATEX_DIR / "katex.min.js").is_file()
    return bool(templates.env.globals["math_rendering"])
