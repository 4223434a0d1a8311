# One image for all five services; pick one with the command:
#   docker run papertrail:local harvester   (or normalizer, summarizer, matcher, query; `migrate`, `users` …)

# KaTeX for the pages' formulas, from npm: the version and tarball checksum papertrail_tools/katex.py pins
# (tests/papertrail_tools/test_katex.py keeps the two equal); the image carries its dist/ and LICENSE.
FROM node:20-slim AS katex
ARG KATEX_VERSION=0.19.1
ARG KATEX_SHA256=24da5a599eb2fcede2e270b99a6ff48bca816beecc95feeb84e8cccbd1bb34fd
WORKDIR /katex
RUN npm pack "katex@${KATEX_VERSION}" --silent \
    && echo "${KATEX_SHA256}  katex-${KATEX_VERSION}.tgz" | sha256sum -c - \
    && tar -xzf "katex-${KATEX_VERSION}.tgz" package/dist package/LICENSE \
    && mv package/LICENSE package/dist/LICENSE

# Swagger UI for the API's /docs, the same way: papertrail_tools/swagger_ui.py pins the version and checksum.
FROM node:20-slim AS swagger-ui
ARG SWAGGER_UI_VERSION=5.35.0
ARG SWAGGER_UI_SHA256=1b8e891893404ea4c3558b6a87e2a3e494e7eedba41168c2ece5800a391a6ea6
WORKDIR /swagger-ui
RUN npm pack "swagger-ui-dist@${SWAGGER_UI_VERSION}" --silent \
    && echo "${SWAGGER_UI_SHA256}  swagger-ui-dist-${SWAGGER_UI_VERSION}.tgz" | sha256sum -c - \
    && tar -xzf "swagger-ui-dist-${SWAGGER_UI_VERSION}.tgz" package/swagger-ui-bundle.js package/swagger-ui.css \
        package/favicon-32x32.png package/LICENSE package/NOTICE

FROM python:3.11-slim

# PAPERTRAIL_ENV=production: the image refuses the public local Meilisearch key and, in the query API, a missing
# SITE_SECRET (compose and Kubernetes run this image; a source checkout runs as local).
ENV PAPERTRAIL_ENV=production \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv

# Pinned so the image resolves uv.lock exactly as the developers' uv does.
RUN pip install --no-cache-dir uv==0.13.8

WORKDIR /app

# Dependencies first, in their own layer: code edits then rebuild only the last layers.
# README.md is needed because pyproject.toml names it as the package readme.
COPY pyproject.toml uv.lock README.md ./
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --no-install-project

COPY papertrail/ papertrail/
# the operators' command, the image's entry point (`papertrail-ops query`, `… users create`, `… dlq` …); the
# developer tooling (papertrail_tools/: the local stack, demo, replay, smoke) stays out of the image
COPY papertrail_ops/ papertrail_ops/
COPY schemas/ schemas/
COPY services/ services/
COPY --from=katex /katex/package/dist/ services/query/web/static/katex/
COPY --from=swagger-ui /swagger-ui/package/ services/query/web/static/swagger-ui/
# `papertrail` in the image is the operators' command too (its developers' script needs the tooling, not here).
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev \
    && ln -sf papertrail-ops /app/.venv/bin/papertrail

# Code and venv stay root-owned: the service user can run them but not change them.
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin papertrail
USER papertrail

ENV PATH="/app/.venv/bin:$PATH"

# query 8000, harvester 8001, normalizer 8002, summarizer 8003, matcher 8004 (HTTP_PORT).
EXPOSE 8000 8001 8002 8003 8004

ENTRYPOINT ["papertrail-ops"]
