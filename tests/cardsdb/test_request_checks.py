"""Requests refused before anything reads their body (cardsdb.request_checks): methods an endpoint never
allows, bodies past their bound or without a length, charsets that are no text encoding, files sent where
none is taken. Each answers in the API's error shape under /api/ and as the site's error page elsewhere."""

import io
import json
import socket
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cardsdb.models import Card, Collection
from simulate.models import Match
from tests.conftest import assert_error_shape
from tests.factories import make_card

pytestmark = pytest.mark.django_db

BOUNDARY = "BoUnDaRy"


class MultipartStream(io.RawIOBase):
    """A multipart body with one file part of `size` bytes, made as it is read, counting what was read."""

    def __init__(self, size: int, field: str = "image"):
        head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"a.png\"\r\n"
                "Content-Type: image/png\r\n\r\n").encode()
        tail = f"\r\n--{BOUNDARY}--\r\n".encode()
        self.parts: list[Any] = [head, size, tail]
        self.length = len(head) + size + len(tail)
        self.read_bytes = 0

    def readable(self):
        return True

    def read(self, n=-1):
        out = bytearray()
        while self.parts and (n < 0 or len(out) < n):
            part = self.parts[0]
            want = (n - len(out)) if n >= 0 else None
            if isinstance(part, int):
                take = part if want is None else min(part, want)
                out += b"x" * take
                if take == part:
                    self.parts.pop(0)
                else:
                    self.parts[0] = part - take
            else:
                take = part if want is None else part[:want]
                out += take
                if len(take) == len(part):
                    self.parts.pop(0)
                else:
                    self.parts[0] = part[len(take):]
        self.read_bytes += len(out)
        return bytes(out)


def upload(client, method: str, url: str, size: int, **extra):
    stream = MultipartStream(size)
    environ = {"REQUEST_METHOD": method, "PATH_INFO": url, "CONTENT_LENGTH": str(stream.length),
               "CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}", "wsgi.input": stream, **extra}
    return client.request(**environ), stream


# --- 405 before who asks is checked ---------------------------------------------------------------------

@pytest.mark.parametrize("method, url, allow", [
    ("POST", "/api/cards/", "GET, HEAD, OPTIONS"),
    ("PUT", "/api/cards/{card}/", "GET, HEAD, OPTIONS"),
    ("DELETE", "/api/cards/{card}/", "GET, HEAD, OPTIONS"),
    ("POST", "/api/bulk/", "GET, HEAD, OPTIONS"),
    ("PATCH", "/api/cards/{card}/image/", "PUT, DELETE, OPTIONS"),
    ("GET", "/api/simulate/realms/matches/", "POST, OPTIONS"),
])
@pytest.mark.parametrize("who", ["anon_client", "user_client", "staff_client"])
def test_a_method_an_endpoint_never_allows_is_405_for_everyone(request, who, method, url, allow):
    card = make_card("Read Only")
    client = request.getfixturevalue(who)
    response = client.generic(method, url.format(card=card.slug), "{}", content_type="application/json")
    body = assert_error_shape(response, 405, "method_not_allowed")
    assert body["message"] == f'Method "{method}" not allowed.'
    assert response["Allow"] == allow


def test_an_allowed_method_still_asks_who_you_are(anon_client, user_client):
    assert_error_shape(anon_client.post("/api/rarities/", {}, format="json"), 401, "not_authenticated")
    assert_error_shape(user_client.post("/api/rarities/", {}, format="json"), 403, "permission_denied")
    assert anon_client.options("/api/cards/").status_code == 200
    assert anon_client.head("/api/cards/").status_code == 200


# --- bounds on the body, before it is read --------------------------------------------------------------

@pytest.mark.parametrize("url", ["/matches/new/", "/studies/new/", "/accounts/signup/", "/accounts/login/", "/"])
def test_a_large_upload_to_a_page_is_413_before_a_byte_is_read(client, url):
    response, stream = upload(client, "POST", url, 50 * 1024 * 1024)
    assert response.status_code == 413
    assert "larger than 1,048,576 bytes" in response.content.decode()
    assert stream.read_bytes == 0


@pytest.mark.parametrize("method, url", [
    ("POST", "/api/simulate/realms/matches/"), ("POST", "/api/auth/token/"), ("POST", "/api/collections/"),
    ("PUT", "/api/cards/{card}/image/"),
])
def test_a_large_upload_to_the_api_is_413_before_a_byte_is_read(staff_client, method, url):
    card = make_card("Bounded")
    response, stream = upload(staff_client, method, url.format(card=card.slug), 50 * 1024 * 1024)
    assert "bytes" in assert_error_shape(response, 413, "too_large")["message"]
    assert stream.read_bytes == 0
    assert not Match.objects.exists() and not Card.objects.get().image


def test_card_art_takes_the_image_bound(staff_client, settings):
    card = make_card("Painted")
    settings.CARD_IMAGE_MAX_BYTES = 2 * 1024 * 1024
    response, stream = upload(staff_client, "PUT", f"/api/cards/{card.slug}/image/", 3 * 1024 * 1024 // 2)
    # Read, and refused as no image (its bytes are no PNG): the body was within the bound.
    assert "image" in assert_error_shape(response, 400, "invalid")["fields"]
    assert stream.read_bytes == stream.length


def test_the_admin_of_a_model_with_art_takes_the_image_bound_and_others_do_not(admin_client):
    card = make_card("Admin Art")
    size = 3 * 1024 * 1024 // 2
    response, stream = upload(admin_client, "POST", f"/admin/cardsdb/card/{card.pk}/change/", size)
    assert response.status_code != 413 and stream.read_bytes == stream.length
    response, stream = upload(admin_client, "POST", "/admin/cardsdb/rarity/add/", size)
    assert response.status_code == 413 and stream.read_bytes == 0


@pytest.mark.parametrize("url", ["/api/simulate/realms/matches/", "/matches/new/"])
def test_a_body_without_length_is_411(client, url):
    response = client.generic("POST", url, b"", content_type="application/json",
                              HTTP_TRANSFER_ENCODING="chunked", CONTENT_LENGTH="")
    assert response.status_code == 411
    if url.startswith("/api/"):
        assert_error_shape(response, 411, "length_required")


@pytest.mark.parametrize("length", ["abc", "-1", "1e3", "１"])
def test_a_content_length_that_is_no_number_is_400(anon_client, length):
    response = anon_client.generic("POST", "/api/simulate/realms/matches/", b"{}", content_type="application/json",
                                   CONTENT_LENGTH=length)
    assert_error_shape(response, 400, "bad_request")


# --- files only where files are taken -------------------------------------------------------------------

def small_file():
    return SimpleUploadedFile("a.png", b"\x89PNG" + b"x" * 1000, content_type="image/png")


@pytest.mark.parametrize("url", ["/matches/new/", "/accounts/signup/", "/studies/new/"])
def test_a_page_form_takes_no_file(client, url):
    response = client.post(url, {"game": "realms", "upload": small_file()})
    assert response.status_code == 400
    assert "This form takes no file" in response.content.decode()
    assert not Match.objects.exists()


def test_the_token_endpoint_takes_no_file(anon_client):
    response = anon_client.post("/api/auth/token/", {"username": "a", "password": "b", "f": small_file()},
                                format="multipart")
    assert "takes no file" in assert_error_shape(response, 400, "parse_error")["message"]


def test_forms_without_files_are_still_read(client, user):
    response = client.post("/accounts/login/", {"username": "alice", "password": "alice-password-1"})
    assert response.status_code == 302


# --- charsets -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("content_type", [
    "application/x-www-form-urlencoded; charset=zlib",
    "application/x-www-form-urlencoded; charset=bz2",
    "multipart/form-data; boundary=B; charset=rot13",
])
def test_pages_refuse_codecs_that_are_no_text_encoding(client, content_type):
    response = client.generic("POST", "/matches/new/", b"x\x9c\x03\x00\x00\x00\x00\x01", content_type=content_type)
    assert response.status_code == 415
    assert "UTF-8" in response.content.decode()
    assert not Match.objects.exists()


# --- through a real server ------------------------------------------------------------------------------

def raw_request(address: str, head: str, body: bytes = b"") -> bytes:
    """Send a request's head (and a body, if any) on a socket; the answer's head and body as first received."""
    host, port = address.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(head.encode() + body)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}") and b"</html>" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


@pytest.mark.django_db(transaction=True)
def test_a_real_server_answers_before_reading_the_body(live_server):
    # 300 MB announced, nothing sent: the answer comes without waiting for the body.
    head = ("POST /matches/new/ HTTP/1.1\r\nHost: localhost\r\nContent-Length: 314572800\r\n"
            f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nConnection: close\r\n\r\n")
    answer = raw_request(live_server.url, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    head = ("POST /api/simulate/realms/matches/ HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
            "Content-Type: application/json\r\nConnection: close\r\n\r\n")
    answer = raw_request(live_server.url, head, b"2\r\n{}\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 411"), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["code"] == "length_required"
    assert not Collection.objects.exists()


def test_csrf_checks_still_apply_to_pages(user):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "alice", "password": "alice-password-1"})
    assert response.status_code == 403
