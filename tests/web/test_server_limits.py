"""`perfcast serve` against clients large, slow or foreign on purpose (CTest web_server_limits): bodies
past 1 MiB are refused however they are framed, without the server holding them; slow clients do not
hold up the others; only this server's own name and page drive the API; other methods get 405."""
import gzip
import json
import os
import re
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from serve import Server  # noqa: E402

BINARY = os.environ["PERFCAST_BINARY"]
SMALL = json.dumps({"scenario": {"schema_version": 1, "model": {"preset": "llama3-8b"}, "hardware": {"accelerator": "h100-sxm"},
                                 "inference": {"input_len": 1024, "output_len": 128, "batch": 8}}}).encode()
failures = []


def check(condition, what):
    print(("ok: " if condition else "FAIL: ") + what)
    if not condition:
        failures.append(what)


def reply(sock, timeout=10, buffered=None):
    """The status, body and head of the next reply read from `sock` (0 when none came); `buffered`
    (a bytearray) keeps the bytes of the replies after it, for pipelined requests."""
    sock.settimeout(timeout)
    data = buffered if buffered is not None else bytearray()
    try:
        while True:
            head, sep, body = bytes(data).partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            if sep and length and len(body) >= int(length.group(1)):
                break
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    head, sep, rest = bytes(data).partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    n = int(length.group(1)) if length else len(rest)
    del data[:len(head) + len(sep) + n]
    return (int(head.split(b" ")[1]) if head else 0), rest[:n], head


def send(port, data, timeout=10):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        return reply(s, timeout)


def post(port, body=SMALL, headers="", host="127.0.0.1"):
    return send(port, f"POST /api/predict HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{headers}"
                      f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


def peak_rss_kib(pid):
    return int(re.search(r"VmHWM:\s+(\d+)", open(f"/proc/{pid}/status").read()).group(1))


with Server(BINARY) as server:
    port, pid = server.port, server.process.pid
    check(post(port)[0] == 200, "a plain JSON POST from a loopback client is answered")
    for _ in range(20):
        post(port)
    base = peak_rss_kib(pid)

    # 200 MiB chunked: cut off at the byte budget, answered 413, the rest drained and dropped.
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"POST /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"100000\r\n" + b"x" * (1 << 20) + b"\r\n"
        try:
            for _ in range(200):
                s.sendall(chunk)
            s.sendall(b"0\r\n\r\n")
        except OSError:
            pass
        status, body, _ = reply(s)
    grew = (peak_rss_kib(pid) - base) >> 10
    check(status == 413 and b"beyond" in body and grew < 16, f"a 200 MiB chunked body: status {status}, peak RSS grew {grew} MiB (< 16)")

    # A body inflating to 300 MiB: refused by its encoding, never inflated.
    bomb = gzip.compress(b'{"scenario": {"name": "' + b"a" * (300 << 20) + b'"}}', 6)
    status, body, _ = post(port, bomb, "Content-Encoding: gzip\r\n")
    grew = (peak_rss_kib(pid) - base) >> 10
    check(status == 415 and grew < 16, f"{len(bomb) >> 10} KiB of gzip inflating to 300 MiB: status {status}, peak RSS grew {grew} MiB (< 16)")

    t = time.time()
    status, body, _ = send(port, b"POST /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1073741824\r\n\r\n{")
    check(status == 413 and time.time() - t < 2, f"1 GiB declared, one byte sent: status {status} after {time.time() - t:.1f} s (at once)")
    status, body, _ = send(port, b"POST /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n{}")
    check(status == 400 and b"not a count of bytes" in body, f"Content-Length -5: status {status} {body[:80]!r}")
    status, _, _ = send(port, b"POST /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n{}")
    check(status == 411, f"a POST with neither a length nor chunks: status {status}")

    # Slow clients: 12 connections sending a header line every 4 s; the others are answered at once,
    # and each slow one is cut off at the request deadline.
    slow = []
    for _ in range(12):
        c = socket.create_connection(("127.0.0.1", port), timeout=30)
        c.sendall(b"POST /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        slow.append(c)
    stop = threading.Event()

    def drip():
        k = 0
        while not stop.wait(4):
            for c in slow:
                try:
                    c.sendall(b"X-%d: y\r\n" % k)
                except OSError:
                    pass
            k += 1
    threading.Thread(target=drip, daemon=True).start()
    time.sleep(1)
    waits = []
    for _ in range(3):
        t = time.time()
        ok = post(port)[0] == 200
        waits.append(time.time() - t if ok else 99)
        time.sleep(1)
    check(max(waits) < 2, f"12 slow clients connected: other requests answered in {', '.join(f'{w:.2f}' for w in waits)} s (< 2)")
    status, body, _ = reply(slow[0], 15)
    check(status == 408, f"a slow client is cut off at the request deadline: status {status}")
    stop.set()
    for c in slow:
        c.close()

    # Only this server's own name and page drive the API.
    status, body, _ = post(port, host="evil.example")
    check(status == 403 and b"DNS rebinding" in body, f"a foreign Host: status {status}")
    status, _, _ = post(port, headers="Origin: http://evil.example\r\n")
    check(status == 403, f"a POST with a foreign Origin: status {status}")
    status, _, _ = post(port, headers=f"Origin: http://127.0.0.1:{port}\r\n", host=f"127.0.0.1:{port}")
    check(status == 200, f"a POST from the server's own page (Origin = its Host): status {status}")
    status, _, _ = post(port, headers="Sec-Fetch-Site: cross-site\r\n")
    check(status == 403, f"a POST a browser marks cross-site: status {status}")
    status, _, _ = send(port, f"POST /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: {len(SMALL)}\r\n\r\n".encode() + SMALL)
    check(status == 415, f"a text/plain body (what a form or a simple cross-site fetch sends): status {status}")
    status, _, _ = post(port, host="localhost")
    check(status == 200, f"Host localhost: status {status}")

    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
        status, body, head = send(port, f"{method} /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{{}}".encode())
        check(status == 405 and b"allow: post" in head.lower(), f"{method} /api/predict: status {status}, with Allow")

    # Pipelined requests on one connection are each answered, in order.
    one = f"POST /api/predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(SMALL)}\r\n\r\n".encode() + SMALL
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(one * 20)
        buffered = bytearray()
        statuses = [reply(s, buffered=buffered)[0] for _ in range(20)]
    check(statuses == [200] * 20, f"20 pipelined requests: {statuses}")
    check(server.process.poll() is None and post(port)[0] == 200, "the server still answers after all of it")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("web server limits: all checks passed")
