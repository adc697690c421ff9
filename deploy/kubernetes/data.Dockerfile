# A data release: one version of the data set as an image of its own, tagged with
# the release (never overwritten). The base's init container copies /release into
# the pod; the svc image underneath lends it its Python to copy with.
#
#   podman build -f deploy/kubernetes/data.Dockerfile -t registry.example.org/svc-data:2026-11-26 /srv/svc/releases/2026-11-26
ARG SVC_IMAGE=localhost/svc:latest
FROM ${SVC_IMAGE}
COPY . /release
