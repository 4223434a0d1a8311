"""What the query service signs with its site secret (SITE_SECRET): HMAC-SHA256 with a purpose in every message, so
a value made for one use never passes for another, and nobody without the secret can make one. No I/O."""

import base64
import hashlib
import hmac
import secrets


def signature(secret: bytes, purpose: str, *parts: str) -> str:
    """The secret's signature of these parts for this purpose, URL-safe base64 without padding."""
    message = "\x1f".join((purpose, *parts)).encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def known_browser_cookie(secret: bytes, email: str) -> str:
    """The cookie a browser gets when it signs in to the account of `email` with its password: a fresh id and its
    signature, which only this site can make."""
    browser = secrets.token_urlsafe(16)
    return f"{browser}.{signature(secret, 'known-browser', email, browser)}"


def known_browser(secret: bytes, email: str, cookie: str | None) -> str | None:
    """The id of a browser that signed in to the account of `email` before (its cookie's, if signed for this
    account), else None."""
    browser, _, signed = (cookie or "").partition(".")
    if not browser or not hmac.compare_digest(
        signed.encode(), signature(secret, "known-browser", email, browser).encode()
    ):
        return None
    return browser
