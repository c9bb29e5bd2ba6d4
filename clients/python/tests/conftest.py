"""Starts a real healthd on an ephemeral port with a fresh data directory for the test session."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import pytest

# The client under test is this working tree's, not an installed copy.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from healthstore import Client  # noqa: E402

BIN = os.environ.get("HEALTHSTORE_BIN") or os.path.join(os.path.dirname(__file__), "..", "..", "..", ".build", "debug")


def binary(name):
    path = os.path.join(BIN, name)
    if not os.path.exists(path):
        pytest.fail(f"{path} not found: build it (swift build) or set HEALTHSTORE_BIN")
    return path


def store_arguments(data, extra):
    """`--store` for HEALTHSTORE_TEST_STORE (a PostgreSQL URL), with the schema recorded in the data
    directory's test-store-schema (made up on first use), so a restart on the directory or a node
    started from a copy of it finds the same data; nothing when the test names its own store."""
    url = os.environ.get("HEALTHSTORE_TEST_STORE", "")
    if not url or "--store" in extra:
        return []
    path = os.path.join(data, "test-store-schema")
    if os.path.exists(path):
        with open(path) as file:
            schema = file.read().strip()
    else:
        schema = "hs_py_" + uuid.uuid4().hex
        os.makedirs(data, exist_ok=True)
        with open(path, "w") as file:
            file.write(schema)
    return ["--store", url + ("&" if "?" in url else "?") + "options=-csearch_path%3D" + schema]


# Servers not yet stopped: a failing test's report carries the end of each one's log.
_running = []


class Server:
    """A healthd process; `owner_token`, `port` and `unix_path` describe how to reach it."""

    def __init__(self, policy="prompt", *extra, data=None):
        _running.append(self)
        self.data = data or tempfile.mkdtemp(prefix="healthstore-pytest-")
        self.unix_path = os.path.join(self.data, "healthd.sock")
        self.log = []
        self.process = subprocess.Popen(
            [binary("healthd"), "--listen", "127.0.0.1:0", "--unix", self.unix_path, "--data", self.data,
             "--authorization-policy", policy, "--log-level", "debug", *store_arguments(self.data, extra),
             # No test server takes the fixed dashboard port unless the test asks for HTTP.
             *([] if "--http" in extra else ["--http", "off"]), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.port = None
        ready = threading.Event()

        def pump():
            for line in self.process.stdout:
                self.log.append(line.rstrip())
                match = re.search(r"listening on tcp 127\.0\.0\.1:(\d+)", line)
                if match and self.port is None and int(match.group(1)) != 0:
                    self.port = int(match.group(1))
                    ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(30):
            self.stop()
            pytest.fail("healthd did not report its port; log:\n" + "\n".join(self.log))
        deadline = time.time() + 10
        token_file = os.path.join(self.data, "owner.token")
        while not os.path.exists(token_file) and time.time() < deadline:
            time.sleep(0.05)
        with open(token_file) as f:
            self.owner_token = f.read().strip()
        with open(os.path.join(self.data, "operator.token")) as f:
            self.operator_token = f.read().strip()

    def connect(self, token=None, **hello):
        return Client.connect(token or self.owner_token, port=self.port, **hello)

    def healthctl(self, *args):
        """Runs healthctl against this server with the owner token; returns stdout."""
        command = [binary("healthctl"), *args, "--server", f"127.0.0.1:{self.port}",
                   "--token-file", os.path.join(self.data, "owner.token")]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
        return result.stdout

    def stop(self):
        if self in _running:
            _running.remove(self)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.data, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report ends with the last lines each running healthd logged, so a failure
    seen only in CI can be read from its output."""
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for server in _running:
            name = f"healthd log (port {server.port}, {server.data})"
            report.sections.append((name, "\n".join(server.log[-80:])))


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    s.stop()


@pytest.fixture()
def server_with():
    """Starts servers of the test's own, with extra healthd flags; stops them afterwards."""
    started = []

    def start(*extra):
        started.append(Server("allow-all", *extra))
        return started[-1]

    yield start
    for s in started:
        s.stop()


@pytest.fixture()
def owner(server):
    with server.connect() as client:
        yield client


_app_counter = iter(range(1, 1_000_000))


@pytest.fixture()
def new_app(server, owner):
    """Registers a fresh app and returns a function connecting as it (with its own bundle id)."""

    def make(share=(), read=(), approve=True):
        bundle = f"org.pytest.app{next(_app_counter)}"
        token = owner.register_app(bundle, f"Pytest App {bundle[-2:]}")
        client = server.connect(token, bundle_id=bundle, name="Pytest App", version="1.0",
                                product_type="Linux", os_version=(6, 1, 0),
                                default_device={"name": "pytest", "manufacturer": "Python"})
        if share or read:
            client.request_authorization(share=share, read=read)
            if approve:
                owner.decide_authorization(bundle, share=share, read=read, grant=True)
        client.bundle_id = bundle
        return client

    return make


@pytest.fixture(scope="session")
def certificate(tmp_path_factory):
    """A self-signed certificate and key for "localhost" (PEM files)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)
