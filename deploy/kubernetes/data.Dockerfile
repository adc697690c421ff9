# A data release: one version of the data set as an image of its own, tagged with
# the release (never overwritten). The base's init container copies /release into
# the pod; the svc image underneath lends it its Python to copy with. Build it from the
# stamped data directory (.svc/ included: the ledger, the snapshot, the token key).
#
#   svc stamp /srv/svc/releases/2026-11-26 --activate-in 900   # covers the build, the push and the rollout
#   podman build -f deploy/kubernetes/data.Dockerfile -t registry.example.org/svc-data:2026-11-26 /srv/svc/releases/2026-11-26
ARG SVC_IMAGE=localhost/svc:latest
FROM ${SVC_IMAGE}
# Owned by the pod's user (65534): the init container, which runs as it, can read .svc/token-key (mode 0600).
COPY --chown=65534:65534 . /release
