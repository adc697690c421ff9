"""/healthz is answered in front of Django, without touching the catalogue."""

from healthz.wsgi import with_healthz


def call(app, path: str, method: str = "GET"):
    seen = {}

    def start_response(status, headers):
        seen["status"], seen["headers"] = status, dict(headers)

    body = b"".join(app({"PATH_INFO": path, "REQUEST_METHOD": method}, start_response))
    return seen["status"], seen["headers"], body


def django_must_not_run(environ, start_response):
    raise AssertionError("the request reached Django")


def test_healthz_never_reaches_the_application():
    status, headers, body = call(with_healthz(django_must_not_run), "/healthz")
    assert status == "200 OK" and body == b"" and headers["Content-Length"] == "0"


def test_other_paths_go_through():
    def app(environ, start_response):
        start_response("404 Not Found", [])
        return [b"nope"]

    assert call(with_healthz(app), "/healthz/extra")[0] == "404 Not Found"
    assert call(with_healthz(app), "/healthz", "POST")[0] == "404 Not Found"
