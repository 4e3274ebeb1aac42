"""The page in a real browser (Debian's chromium, driven through chromedriver's WebDriver API with
the standard library): it loads, shows a prediction, a typed tp changes the step time and the
address, the address alone reproduces the what-if, and `perfcast report`'s file opens standalone
with its charts drawn. Saves screenshots (CTest web_browser_chromium)."""
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from serve import Server  # noqa: E402

BINARY = os.environ["PERFCAST_BINARY"]
SOURCE = os.environ["PERFCAST_SOURCE_DIR"]
OUT = os.environ.get("PERFCAST_SCREENSHOTS", tempfile.mkdtemp())
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self):
        port = free_port()
        self.driver = subprocess.Popen([CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if self.call("GET", "/status")["value"]["ready"]:
                    break
            except OSError:
                time.sleep(0.1)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server", "--window-size=1400,1500"]
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}}
        self.session = "/session/" + self.call("POST", "/session", caps)["value"]["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else (b"{}" if method == "POST" else None)
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            value = json.loads(e.read() or b"{}").get("value", {})
            raise SystemExit(f"WebDriver {method} {path}: {value.get('error')}: {str(value.get('message'))[:300]}") from None

    def go(self, url):
        self.call("POST", self.session + "/url", {"url": url})

    def js(self, script, *args):
        return self.call("POST", self.session + "/execute/sync", {"script": script, "args": list(args)})["value"]

    def element(self, css):
        found = self.call("POST", self.session + "/element", {"using": "css selector", "value": css})["value"]
        return next(iter(found.values()))

    def type_into(self, css, text):
        e = self.element(css)
        self.call("POST", f"{self.session}/element/{e}/clear")
        self.call("POST", f"{self.session}/element/{e}/value", {"text": text})

    def wait(self, script, what, seconds=60):
        end = time.time() + seconds
        while time.time() < end:
            value = self.js(script)
            if value:
                return value
            time.sleep(0.1)
        page_error = self.js("return document.getElementById('error')?.textContent")
        raise SystemExit(f"timed out waiting for {what}; the page's error line: {page_error!r}")

    def screenshot(self, name):
        png = base64.b64decode(self.call("GET", self.session + "/screenshot")["value"])
        path = os.path.join(OUT, name)
        with open(path, "wb") as f:
            f.write(png)
        print(f"screenshot: {path}")

    def close(self):
        try:
            self.call("DELETE", self.session)
        finally:
            self.driver.terminate()
            self.driver.wait(timeout=10)


def step_time(browser):
    return browser.js("return document.getElementById('step-time')?.textContent || ''")


os.makedirs(OUT, exist_ok=True)
browser = Browser()
try:
    with Server(BINARY) as server:
        browser.go(server.url + "/?preset=llama3-70b-h100-training")
        before = browser.wait("return document.getElementById('step-time')?.textContent", "the first prediction")
        charts = browser.js("return document.querySelectorAll('canvas').length")
        drawn = browser.js("return [...document.querySelectorAll('canvas')].filter(c => Chart.getChart(c)).length")
        print(f"tp 4: step time {before}; {drawn} of {charts} charts drawn")
        assert drawn >= 3, "breakdown, memory and roofline are drawn"
        band = browser.js("return document.getElementById('step-time').parentElement.querySelector('.band').textContent")
        print(f"step time band: {band}")
        assert band.startswith("P10-P90 ") and " cases, " in band, "the headline carries its empirical band"

        browser.type_into('[id="field-parallelism.tp"]', "8")
        after = browser.wait(f"const t = document.getElementById('step-time')?.textContent; return t && t !== {json.dumps(before)} && t", "tp 8 to change the step time")
        url = browser.js("return location.href")
        print(f"tp 8: step time {after}; address {url}")
        assert "parallelism.tp=8" in url, "the address holds the change"

        # The sweep's Pareto front and the compare bars, from their buttons.
        browser.call("POST", f"{browser.session}/element/{browser.element('#run-sweep')}/click")
        browser.wait("return !!Chart.getChart(document.getElementById('chart-pareto'))", "the sweep's Pareto front")
        browser.js("[...document.getElementById('compare-systems').options].forEach(o => o.selected = ['dgx-b200', 'dgx-h100'].includes(o.value))")
        browser.call("POST", f"{browser.session}/element/{browser.element('#run-compare')}/click")
        bars = browser.wait("const c = Chart.getChart(document.getElementById('chart-compare')); return c && c.data.labels.length", "the compare bars")
        assert bars == 2, f"{bars} compare bars"
        spread = browser.js("return Chart.getChart(document.getElementById('chart-compare')).data.datasets.some(d => d.label === 'tokens/s P10-P90')")
        assert spread, "the compare bars carry each row's P10-P90"
        browser.wait("return document.getElementById('trust').textContent", "the validation line")
        browser.screenshot("serve-tp8.png")

        # The address alone reproduces the what-if.
        browser.go(url)
        browser.wait("return document.body.dataset.recomputed", "the shared link's prediction")
        assert browser.js("return document.getElementById('field-parallelism.tp').value") == "8"
        assert step_time(browser) == after, f"the shared link predicts {step_time(browser)}, not {after}"

        # A bad value: one line on the page, no chart of the old answer pretending to be new.
        browser.type_into('[id="field-parallelism.tp"]', "3")
        error = browser.wait("const e = document.getElementById('error'); return !e.hidden && e.textContent", "the error line")
        print(f"tp 3: {error}")
        assert "tp" in error

        browser.go(server.url + "/?preset=llama3-70b-h100-serving")
        browser.wait("return [...document.querySelectorAll('canvas')].filter(c => Chart.getChart(c)).length >= 5", "the serving charts")
        browser.screenshot("serve-serving.png")

    report = os.path.join(OUT, "report.html")
    subprocess.run([BINARY, "report", os.path.join(SOURCE, "scenarios", "llama3-70b-h100-serving.toml"), "-o", report], check=True)
    browser.go("file://" + os.path.abspath(report))
    charts = browser.wait("return Number(document.body.dataset.charts)", "the report's charts")
    title = browser.js("return document.querySelector('h1').textContent")
    print(f"report: {charts} charts, '{title}'")
    assert charts >= 5, "breakdown, memory, roofline, throughput and latency"
    bands = browser.js("return [...document.querySelectorAll('.headline .band')].filter(b => b.textContent.startsWith('P10-P90')).length")
    assert bands >= 3, f"{bands} of the report's headline figures carry a band"
    browser.screenshot("report.png")
finally:
    browser.close()
print("browser: all checks passed")
