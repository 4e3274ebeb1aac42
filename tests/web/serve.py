"""Starts `perfcast serve --port 0` for a test and stops it after: the port comes from its first line."""
import os
import re
import subprocess


class Server:
    def __init__(self, binary, *args):
        self.process = subprocess.Popen([binary, "serve", "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.match(r"perfcast serve: http://([0-9.]+):(\d+)/", line)
        if not match:
            self.process.kill()
            raise SystemExit(f"perfcast serve printed {line!r}, stderr {self.process.stderr.read()!r}")
        self.host, self.port = match.group(1), int(match.group(2))
        self.url = f"http://{self.host}:{self.port}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)


# Requests to this machine never go through a proxy the environment names.
for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
    os.environ.pop(name, None)
os.environ["no_proxy"] = "*"
