"""Refusals in the reader's language: a form's or a query string's validation errors, a write limit's wait, a similar
follow's seed that is not held. The API keeps its English problem details; the pages say the same in words. No I/O."""

from typing import Any

from pydantic import ValidationError

from papertrail.runtime.wording import Translator
from services.query.web.labels import form_field, refusal, write_limit

# pydantic's error types → a refusal (labels.refusal; its ctx values fill the placeholders); others "not a valid value"
ERROR_KEYS = {
    "missing": "missing",
    "string_too_long": "too_long",
    "too_long": "too_many",
    "string_too_short": "missing",
    "literal_error": "choice",
    "enum": "choice",
    "int_parsing": "number",
    "float_parsing": "number",
    "greater_than_equal": "at_least",
    "less_than_equal": "at_most",
    "date_parsing": "date",
    "date_from_datetime_parsing": "date",
    "datetime_parsing": "date",
    "datetime_from_date_parsing": "date",
    "bool_parsing": "choice",
}
DATE_FIELDS = ("since", "until", "summarized_since")
SHOWN_INPUT = 40  # characters of a refused value quoted back


def field_label(name: str, t: Translator, labels: dict[str, str] | None = None) -> str:
    """A form field as the page labels it ("since" → "起始日期"; a page's own `labels` first), else its own name."""
    if labels and name in labels:
        return labels[name]
    return form_field(t, name, name)


def error_text(error: Any, t: Translator, labels: dict[str, str] | None = None) -> str:
    """One pydantic error as "起:不是有效日期(应写作 2026-05-01)"."""
    location = [str(part) for part in error.get("loc", ()) if not isinstance(part, int)]
    name = location[0] if location else ""
    if name in DATE_FIELDS and error.get("type") in ("value_error", *ERROR_KEYS):
        key = "date"  # our own validator's "must be a date …" and pydantic's parsing errors alike
    elif isinstance(error.get("input"), str) and not error["input"].strip():
        key = "missing"  # a blank field, whichever check found it
    else:
        key = ERROR_KEYS.get(error.get("type", ""), "value")
    values = {k: v for k, v in (error.get("ctx") or {}).items() if isinstance(v, int | float | str)}
    written = error.get("input") if isinstance(error.get("input"), str) else ""
    values.setdefault("value", written if len(written) <= SHOWN_INPUT else written[:SHOWN_INPUT] + "…")
    try:
        what = refusal(t, key, **values)
    except (KeyError, IndexError):  # a ctx without the placeholder the wording names
        what = t.gettext("“%(value)s” is not a valid value", value=values["value"])
    return t.gettext("%(field)s: %(what)s", field=field_label(name, t, labels), what=what) if name else what


def validation_text(error: ValidationError, t: Translator, labels: dict[str, str] | None = None) -> str:
    """Every error of a refused form, in the reader's language, one after the other."""
    return t.gettext("; ").join(error_text(e, t, labels) for e in error.errors())


def rejected_fields(error: ValidationError) -> set[str]:
    """The top-level fields a validation error names (to keep the rest of a form that was otherwise right)."""
    return {str(e["loc"][0]) for e in error.errors() if e.get("loc")}


def wait_text(seconds: int, t: Translator) -> str:
    """A wait as a reader reads it: "15 分钟" rather than "924 s"."""
    if seconds < 60:
        return t.gettext("%(count)s s", count=max(seconds, 1))
    if seconds < 2 * 3600:
        return t.gettext("%(count)s min", count=-(-seconds // 60))
    return t.gettext("%(count)s h", count=-(-seconds // 3600))


def write_limited_text(limit: str, retry_after: int, t: Translator) -> str:
    """A write refused by its limit: what was refused and how long until it is taken again."""
    what = write_limit(t, limit, limit)
    return t.gettext("Too many %(what)s for now: try again in %(wait)s.", what=what, wait=wait_text(retry_after, t))
