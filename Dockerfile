# syntax=docker/dockerfile:1
# One image for the five RepoRecall processes; docker-compose.yml picks the process with `command`:
#   python -m gateway | services.indexer | services.search | services.graph | services.memory
# Every dependency is a manylinux wheel pinned by hash in requirements.lock, so the build stage needs no compiler;
# it exists so that pip, the build tree and the wheel cache stay out of the runtime image.

ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore
RUN python -m venv /opt/reporecall
WORKDIR /src
# Dependencies first, in their own layer: a code change does not reinstall them.
COPY pyproject.toml requirements.lock ./
# Installed by hash: a re-published file is refused (the lock also carries the dev tools).
RUN /opt/reporecall/bin/pip install --require-hashes -r requirements.lock
COPY README.md ./
COPY kit ./kit
COPY protos ./protos
COPY services ./services
COPY gateway ./gateway
COPY cli ./cli
RUN /opt/reporecall/bin/pip install --no-deps --no-build-isolation . \
 && /opt/reporecall/bin/pip uninstall -y pip setuptools

FROM ${PYTHON_IMAGE} AS runtime
# git clones repositories registered by URL; ca-certificates lets it reach https remotes.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 reporecall \
 && useradd --system --uid 10001 --gid reporecall --home-dir /home/reporecall --create-home \
        --shell /usr/sbin/nologin reporecall \
 && mkdir -p /data /repos \
 && chown reporecall:reporecall /data
COPY --from=build /opt/reporecall /opt/reporecall
ENV PATH=/opt/reporecall/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    REPORECALL_DATA_DIR=/data \
    REPORECALL_LOG_FORMAT=json \
    REPORECALL_METRICS_HOST=0.0.0.0 \
    REPORECALL_METRICS_PORT=9100
USER reporecall:reporecall
WORKDIR /home/reporecall
VOLUME ["/data"]
# Checks this process's own REPORECALL_LISTEN through the standard gRPC health service.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["python", "-m", "kit.healthcheck"]
CMD ["python", "-m", "gateway"]
