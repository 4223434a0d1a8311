"""Rendering pages: the Jinja2 environment, the language, session and CSRF cookies, and the signed-in user.

Every form carries a CSRF token bound to this browser's session: the site secret's signature (SITE_SECRET,
readers/accounts/keys.py) of the session's own secret id (its HttpOnly cookie), or, signed out, of a pre-session id
(the HttpOnly `pt_csrf` cookie, rotated at sign-in and sign-out). Every POST of the pages is refused without it
(`FormNotFromThisSite`): a cookie planted with the same value in the form does not pass, nor does a token issued for
another session, nor one made for a planted cookie by anyone without the secret."""

import secrets
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from papertrail.domain.follows.kinds import FOLLOW_KINDS
from papertrail.runtime.wording import Translator, pick_language
from services.query.accounts.keys import signature
from services.query.catalogue.reads.paper_lookup import NotAPaperId
from services.query.catalogue.reads.papers import held_paper
from services.query.catalogue.repositories import CatalogueRecords
from services.query.http.deps import SESSION_COOKIE, resources_of, session_user
from services.query.web import follow_offers, labels
from services.query.web import format as fmt

HERE = Path(__file__).parent
KATEX_DIR = HERE / "static" / "katex"  # put there by `papertrail assets` (make install) or the image's build
SWAGGER_UI_DIR = HERE / "static" / "swagger-ui"  # /docs' Swagger UI, put there the same ways
LANG_COOKIE = "lang"
CSRF_COOKIE = "pt_csrf"
CSRF_FIELD = "csrf"
YEAR = 365 * 24 * 3600

templates = Jinja2Templates(directory=HERE / "templates")
templates.env.add_extension("jinja2.ext.i18n")
# gettext's functions come with each page's context, in its reader's language (wording.Translator fills placeholders
# and returns plain text that autoescape escapes, as {% trans %} then does too)
templates.env.newstyle_gettext = True  # type: ignore[attr-defined]
templates.env.globals["fmt"] = fmt
templates.env.globals["labels"] = labels
templates.env.globals["offers"] = follow_offers
# the follows page's forms, one a kind in the registry's order (each a macro of _follow_kinds.html)
templates.env.globals["follow_kind_names"] = list(FOLLOW_KINDS)
templates.env.trim_blocks = True
templates.env.lstrip_blocks = True


def language(request: Request) -> str:
    return pick_language(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE))


def words_of(request: Request) -> Translator:
    """The wording in the reader's language (`?lang=`, else the language cookie)."""
    return Translator(language(request))


async def reader_words(request: Request) -> Translator:
    """`words_of` as a page's dependency (`Words`)."""
    return words_of(request)


Words = Annotated[Translator, Depends(reader_words)]


async def signed_in_user(request: Request) -> dict[str, Any] | None:
    """The user of the session cookie, or None."""
    return await session_user(request)


class SignInRequired(Exception):
    """A signed-in reader's page asked for without a session: answered with the sign-in page (401), which comes back
    to the page after signing in."""


async def require_reader(request: Request) -> dict[str, Any]:
    """The signed-in reader, for the pages only a signed-in reader has; SignInRequired without one."""
    user = await signed_in_user(request)
    if user is None:
        raise SignInRequired(request.url.path)
    return user


Reader = Annotated[dict[str, Any], Depends(require_reader)]


class FormNotFromThisSite(Exception):
    """A page's POST without the CSRF token of this browser's cookie: answered 403, nothing done."""


def csrf_token(request: Request) -> str:
    """The CSRF token of this browser's forms, bound to its session (or pre-session, set on the response by
    `render` when the browser has none yet)."""
    if not hasattr(request.state, "pre_session"):
        request.state.pre_session = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
    return _bound_token(request, request.cookies.get(SESSION_COOKIE) or request.state.pre_session)


def _bound_token(request: Request, binding: str) -> str:
    """The token for a session (or pre-session) id: the site secret's signature of it, so nobody without the secret
    can make one even for a cookie they planted, and the token does not give the id away."""
    return signature(resources_of(request).site_secret, "csrf", binding)


def set_csrf_cookie(request: Request, response: Response, pre_session: str) -> None:
    secure = resources_of(request).settings.secure_cookies
    response.set_cookie(CSRF_COOKIE, pre_session, max_age=YEAR, httponly=True, samesite="lax", secure=secure)


async def check_csrf(request: Request) -> None:
    """The dependency of every POST of the pages: FormNotFromThisSite unless the form's CSRF token is the one bound
    to this request's session cookie, or signed out to its pre-session cookie (compared in constant time)."""
    binding = request.cookies.get(SESSION_COOKIE) or request.cookies.get(CSRF_COOKIE, "")
    if request.headers.get("content-type", "").startswith("multipart/form-data"):  # a file upload, or FormData
        sent = (await request.form()).get(CSRF_FIELD, "")  # parsed once: the route reads the same form
        sent = sent if isinstance(sent, str) else ""
    else:
        fields = parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
        sent = next((value for name, value in reversed(fields) if name == CSRF_FIELD), "")
    if not binding or not secrets.compare_digest(sent.encode(), _bound_token(request, binding).encode()):
        raise FormNotFromThisSite


def start_session(request: Request, response: Response, session: str, max_age: int) -> None:
    """Set a new session's cookie (its forms' CSRF token is bound to it), and a new pre-session id (both rotate at
    sign-in)."""
    secure = resources_of(request).settings.secure_cookies
    response.set_cookie(SESSION_COOKIE, session, max_age=max_age, httponly=True, samesite="lax", secure=secure)
    set_csrf_cookie(request, response, secrets.token_urlsafe(32))


def end_session(request: Request, response: Response) -> None:
    """Drop the session's cookie and start a new pre-session (the signed-out forms' tokens are bound to it)."""
    secure = resources_of(request).settings.secure_cookies
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax", secure=secure)
    set_csrf_cookie(request, response, secrets.token_urlsafe(32))


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """Render a page in the visitor's language; a ?lang= choice is remembered in a cookie."""
    lang = language(request)
    t = Translator(lang)
    zone = resources_of(request).settings.display_timezone
    response = templates.TemplateResponse(
        request,
        template,
        {
            **gettext_functions(t),
            "lang": lang,
            "other_lang_url": lang_url(request, "en" if lang == "zh" else "zh"),
            "zone": zone,
            "zone_label": fmt.zone_label(zone, t),
            "when": lambda value, pattern="%Y-%m-%d %H:%M": fmt.local_time(value, zone, pattern),
            "user": context.pop("user", None),
            "csrf": csrf_token(request),
            "signup_open": resources_of(request).settings.signup == "open",
            "password_min": resources_of(request).settings.password_min_length,
            "mail_configured": bool(resources_of(request).settings.smtp_host),
            "confirmation_without_mail": resources_of(request).settings.email_confirmation_without_smtp,
            "ok": status_code < 400,
            **context,
        },
        status_code=status_code,
    )
    if request.cookies.get(CSRF_COOKIE) != request.state.pre_session:
        set_csrf_cookie(request, response, request.state.pre_session)
    if request.query_params.get("lang") == lang:
        response.set_cookie(LANG_COOKIE, lang, max_age=YEAR, samesite="lax")
    return response


def gettext_functions(t: Translator) -> dict[str, Any]:
    """A page's gettext functions (`_`, `gettext`, `pgettext`, `ngettext`, `npgettext`; `{% trans %}` calls them
    too), and `t`, the translator the format helpers take."""
    return {
        "t": t,
        "_": t.gettext,
        "gettext": t.gettext,
        "pgettext": t.pgettext,
        "ngettext": t.ngettext,
        "npgettext": t.npgettext,
    }


def error_page(request: Request, status_code: int, message: str, user: dict[str, Any] | None = None) -> HTMLResponse:
    return render(request, "error.html", status_code=status_code, message=message, user=user)


async def held_paper_or_error_page(
    request: Request, catalogue: CatalogueRecords, paper_id: str, user: dict[str, Any] | None
) -> dict[str, Any] | HTMLResponse:
    """The paper holding the id (as the API finds it), or the error page: 404 for an id no paper holds, 422 for text
    that is no paper id."""
    t = words_of(request)
    try:
        paper = await held_paper(catalogue, paper_id)
    except NotAPaperId:
        return error_page(
            request,
            422,
            t.gettext(
                "Not a paper id: %(id)s. Use an arXiv id (2401.12345), a DOI "
                "(10.18653/v1/2024.acl-long.1) or an ACL Anthology id (2024.acl-long.1).",
                id=paper_id,
            ),
            user,
        )
    if paper is None:
        return error_page(request, 404, t.gettext("No such paper: %(id)s", id=paper_id), user)
    return paper


def moved_permanently(request: Request, url: str) -> RedirectResponse:
    """A page asked for under another of its addresses (a paper under an id other than its canonical one): 301 to
    the one address, with the query string kept."""
    return RedirectResponse(f"{url}?{request.url.query}" if request.url.query else url, status_code=301)


def see_other(url: str) -> RedirectResponse:
    """After a form POST, go to a page with GET (so reloading does not post again)."""
    return RedirectResponse(url, status_code=303)


def lang_url(request: Request, lang: str) -> str:
    """The current page in another language (a POST's page goes to its own GET address)."""
    pairs = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"] + [("lang", lang)]
    return f"{request.url.path}?{urlencode(pairs)}"
