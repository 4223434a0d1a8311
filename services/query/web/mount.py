"""The pages on the query service's app: their routers in order, static files, error pages and the API's Swagger UI."""

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from services.query.web import account, account_pages, corrections, deadlines, follow_here, library, pages
from services.query.web.render import (
    HERE,
    KATEX_DIR,
    SWAGGER_UI_DIR,
    FormNotFromThisSite,
    SignInRequired,
    error_page,
    templates,
    words_of,
)


def mount_web(app: FastAPI) -> bool:
    """Add the pages and their static files to the query service's app; whether KaTeX is there to render
    formulas (without it the pages show formulas as their source, as they do without JavaScript)."""
    app.include_router(corrections.router)  # first: /papers/{id}/correct must not be read as a paper id
    app.include_router(library.router)
    app.include_router(pages.router)
    app.include_router(deadlines.router)
    app.include_router(account.router)
    app.include_router(account_pages.router)
    app.include_router(follow_here.router)
    app.add_exception_handler(FormNotFromThisSite, form_not_from_this_site)  # type: ignore[arg-type]
    app.add_exception_handler(SignInRequired, sign_in_first)  # type: ignore[arg-type]
    app.add_route("/docs", api_docs, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    # the CSRF field every state-changing form carries (the name web accounts check); empty until they set one
    templates.env.globals.setdefault("csrf", "")
    templates.env.globals["math_rendering"] = (KATEX_DIR / "katex.min.js").is_file()
    return bool(templates.env.globals["math_rendering"])


async def form_not_from_this_site(request: Request, refused: FormNotFromThisSite) -> HTMLResponse:
    """403 for a POST without this browser's CSRF token: nothing was done; a reload gives the form a fresh one."""
    return error_page(
        request,
        403,
        words_of(request).gettext("The form expired or is not from this site: reload the page and try again."),
    )


async def sign_in_first(request: Request, _: SignInRequired) -> HTMLResponse:
    """401 with the sign-in form for a signed-in reader's page asked for without a session."""
    return account.login_required(request)


async def api_docs(request: Request) -> HTMLResponse:
    """The API's Swagger UI, from this site's own copy (`papertrail assets`), never a CDN."""
    context = {"title": request.app.title, "openapi_url": request.app.openapi_url,
               "installed": (SWAGGER_UI_DIR / "swagger-ui-bundle.js").is_file()}  # fmt: skip
    return templates.TemplateResponse(request, "api_docs.html", context)
