# svc container image.
#
# The bases are build arguments so that the same file builds from a registry
# (the defaults) and from bases made locally from Debian's package mirror
# (`scripts/build-image --local-bases`, docs/operations.md). Both pairs share
# one interpreter, Debian 12's /usr/bin/python3.11: the virtual environment
# made in the build stage points at it and runs unchanged in the runtime stage.
ARG BUILD_BASE=debian:12-slim
ARG RUNTIME_BASE=gcr.io/distroless/python3-debian12

FROM ${BUILD_BASE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3.11 python3.11-venv \
 && rm -rf /var/lib/apt/lists/*
RUN /usr/bin/python3.11 -m venv /opt/svc
COPY requirements.txt /app/requirements.txt
# Wheels only: the runtime stage has no compiler and the build stage needs none.
# The optional secret `ca-certificates` is a CA bundle for pip (behind a TLS-inspecting
# proxy; scripts/build-image passes the host's); it is not kept in any layer.
RUN --mount=type=secret,id=ca-certificates \
    if [ -s /run/secrets/ca-certificates ]; then export PIP_CERT=/run/secrets/ca-certificates; fi \
 && /opt/svc/bin/pip install --no-cache-dir --only-binary=:all: -r /app/requirements.txt
COPY . /app
# The project is installed in place (editable): templates, static sources and
# the sample data live beside the code, in /app. pip and setuptools leave last:
# the runtime gets no package manager.
RUN --mount=type=secret,id=ca-certificates \
    if [ -s /run/secrets/ca-certificates ]; then export PIP_CERT=/run/secrets/ca-certificates; fi \
 && /opt/svc/bin/pip install --no-cache-dir --no-deps -e /app \
 && FRAMEWORK_ENV=PROD /opt/svc/bin/python /app/manage.py collectstatic --noinput --verbosity 0 \
 && /opt/svc/bin/python -m compileall -q /app \
 && /opt/svc/bin/python -m pip uninstall --quiet --yes pip setuptools

# Runtime: Python and its libraries only, no shell, no package manager.
FROM ${RUNTIME_BASE}
COPY --from=build /opt/svc /opt/svc
COPY --from=build /app /app
# Mount the data directory read-only at /data; without it svc stops with a one-line error.
ENV FRAMEWORK_ENV=PROD \
    FRAMEWORK_SITE_ADDR=0.0.0.0:8080 \
    SVC_DATA_DIR=/data \
    PATH=/opt/svc/bin \
    PYTHONDONTWRITEBYTECODE=1
USER 65534:65534
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["/opt/svc/bin/svc", "healthcheck"]
ENTRYPOINT ["/opt/svc/bin/svc"]
CMD ["serve"]
# What the image holds (OCI annotation keys). scripts/build-image passes the version from
# pyproject.toml, the commit (git rev-parse HEAD) and the repository; last, so that a new
# commit changes no layer above.
ARG VERSION=unknown
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="svc" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
