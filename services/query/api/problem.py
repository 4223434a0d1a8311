"""Error answers of the API as RFC 9457 problem details (application/problem+json)."""

from fastapi.responses import JSONResponse

MEDIA_TYPE = "application/problem+json"


def problem_response(status: int, title: str, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        {"type": "about:blank", "title": title, "status": status, "detail": detail},
        status_code=status,
        headers=headers,
        media_type=MEDIA_TYPE,
    )
