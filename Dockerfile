# svc container image.
#
# Build stage: Debian 12's own Python 3.11, the very interpreter of the
# distroless runtime below, so the virtual environment's interpreter link
# (/usr/bin/python3.11) and its compiled wheels work unchanged there.
FROM debian:12-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3.11 python3.11-venv \
 && rm -rf /var/lib/apt/lists/*
RUN /usr/bin/python3.11 -m venv /opt/svc
COPY requirements.txt /app/requirements.txt
RUN /opt/svc/bin/pip install --no-cache-dir -r /app/requirements.txt
COPY . /app
# The project is installed in place (editable): templates, static sources and
# the sample data live beside the code, in /app.
RUN /opt/svc/bin/pip install --no-cache-dir --no-deps -e /app \
 && FRAMEWORK_ENV=PROD /opt/svc/bin/python /app/manage.py collectstatic --noinput --verbosity 0 \
 && /opt/svc/bin/python -m compileall -q /app

# Runtime: Python and its libraries only, no shell, no package manager.
FROM gcr.io/distroless/python3-debian12
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
