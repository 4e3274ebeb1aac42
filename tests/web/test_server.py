"""`perfcast serve` over real HTTP: it binds loopback, serves the page and the API, and refuses
malformed, oversized and path-walking requests with their status and one line (CTest web_server_http)."""
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
from serve import Server  # noqa: E402

BINARY = os.environ["PERFCAST_BINARY"]
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


def request(url, body=None, method=None):
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)


def one_line_error(status, body, expected_status, words):
    check(status == expected_status, f"status {status}, expected {expected_status}: {body[:200]}")
    check("\n" not in body.strip(), f"one line: {body[:200]!r}")
    try:
        error = json.loads(body)["error"]
        check(words in error, f"{words!r} in {error!r}")
    except (ValueError, KeyError):
        check(False, f"a JSON error body: {body[:200]!r}")


def raw(port, data, with_body=False):
    """Sends bytes as they are and returns the status line's code (and the reply's body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        reply = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
            head, _, body = reply.partition(b"\r\n\r\n")
            length = next((int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")), None)
            if length is not None and len(body) >= length:
                break
        status = int(reply.split(b" ")[1]) if reply else 0
        return (status, reply.partition(b"\r\n\r\n")[2].decode()) if with_body else status


with Server(BINARY) as server:
    check(server.host == "127.0.0.1", f"binds loopback by default, not {server.host}")
    status, page, headers = request(server.url + "/")
    check(status == 200 and "<canvas" in page and headers.get("Content-Type", "").startswith("text/html"), "GET / serves the page")
    status, chart, _ = request(server.url + "/chart.min.js")
    check(status == 200 and "Chart.js v" in chart, "Chart.js is served from the binary")

    site = json.loads(request(server.url + "/api/site")[1])
    scenario = next(p["scenario"] for p in site["presets"] if p["name"] == "llama3-70b-h100-training")
    status, body, headers = request(server.url + "/api/predict", json.dumps({"scenario": scenario}))
    check(status == 200 and json.loads(body)["training"]["step_time_s"] > 0, "POST /api/predict answers")
    check("compute;dur=" in headers.get("Server-Timing", ""), "the reply carries the server's compute time")

    # Several clients at once: every answer is whole and equal.
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: request(server.url + "/api/predict", json.dumps({"scenario": scenario}))[1], range(16)))
    check(len(set(answers)) == 1, "concurrent requests get the same answer")

    one_line_error(*request(server.url + "/api/predict", "{not json")[:2], 400, "not valid JSON")
    one_line_error(*request(server.url + "/api/predict", "[]")[:2], 400, "give a JSON object")
    one_line_error(*request(server.url + "/api/predict", json.dumps({"scenario": {"model": {"hf_config": "/etc/passwd"}}}))[:2], 400,
                   "a file path is not accepted here")
    one_line_error(*request(server.url + "/api/predict", json.dumps({"scenario": scenario, "calibration": "/etc/passwd"}))[:2], 400,
                   "unknown key 'calibration'")
    # A body beyond the limit: refused with 413, or the connection closed under the sender once the
    # server has refused it (which of the two the client sees depends on timing).
    try:
        one_line_error(*request(server.url + "/api/predict", "x" * (2 << 20))[:2], 413, "beyond")
    except (ConnectionResetError, BrokenPipeError, urllib.error.URLError) as e:
        print(f"a 2 MiB body: the connection closed while sending ({e})")
    one_line_error(*request(server.url + "/api/nothing")[:2], 404, "no endpoint")
    one_line_error(*request(server.url + "/api/predict")[:2], 405, "POST")
    one_line_error(*request(server.url + "/hardware_db/accelerators/h100-sxm.toml")[:2], 404, "no page")
    check(raw(server.port, b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n") in (400, 404), "a path walking out is refused")
    # A body announced beyond the limit is refused before it is sent.
    one_line_error(*raw(server.port, b"POST /api/predict HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000000\r\n\r\n", True), 413, "beyond")
    check(raw(server.port, b"BREW /api/predict HTTP/1.1\r\nHost: x\r\n\r\n") in (400, 404, 405), "an unknown method is refused")
    status, body, _ = request(server.url + "/api/site")
    check(status == 200, "the server still answers after the bad requests")

    # A second server on a port in use is refused in one line, not bound beside the first.
    second = subprocess.run([BINARY, "serve", "--port", str(server.port)], capture_output=True, text=True, timeout=30)
    check(second.returncode == 2 and second.stderr.count("\n") == 1 and "cannot listen" in second.stderr,
          f"a second server on port {server.port}: exit {second.returncode}, {second.stderr!r}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("web server: all checks passed")
