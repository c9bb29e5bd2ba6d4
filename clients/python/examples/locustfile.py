"""Locust load test for the HealthStore binary protocol.

One bounded headless run against a local healthd (owner token in data/owner.token):

    locust -f clients/python/examples/locustfile.py --headless -u 20 -r 10 -t 15s --host 127.0.0.1:7420

Run it from the directory holding data/owner.token (the repository root when healthd uses its
default ./data), or point HEALTHSTORE_TOKEN_FILE at the server's owner.token.

Each simulated user registers its own app, gets share/read permission, then saves batches of
heart-rate samples, runs range queries and pings. Requests are reported to Locust by call name;
errors from the server and lost connections (all `HealthStoreError`) count as failures.
"""

import logging
import os
import random
import time
import uuid

from locust import User, between, events, task

from healthstore import Client, errors, values as v

HR = "HeartRate"
TOKEN_FILE = os.environ.get("HEALTHSTORE_TOKEN_FILE", "data/owner.token")


@events.test_start.add_listener
def _require_owner_token(environment, **_):
    """Stops the run at once with a clear message instead of one traceback per user."""
    if not os.path.isfile(TOKEN_FILE):
        logging.error("owner token file %r not found: run from the directory holding data/owner.token "
                      "or set HEALTHSTORE_TOKEN_FILE", os.path.abspath(TOKEN_FILE))
        environment.process_exit_code = 1
        environment.runner.quit()


class HealthStoreUser(User):
    """A device that saves and queries heart rate over one connection."""

    wait_time = between(0.01, 0.1)

    def on_start(self):
        server = self.host or None  # --host HOST:PORT or unix:PATH; else $HEALTHSTORE_SERVER
        self.bundle = f"org.example.locust.{uuid.uuid4().hex[:12]}"
        with Client.connect(server=server, token_file=TOKEN_FILE) as owner:
            token = owner.register_app(self.bundle, "Locust device")
            owner.decide_authorization(self.bundle, share=HR, read=HR)
        self.client = Client.connect(token, server=server, bundle_id=self.bundle, version="1.0",
                                     default_device={"name": "Locust band"})
        self.client.request_authorization(share=[HR], read=[HR])
        self.rng = random.Random(self.bundle)

    def on_stop(self):
        self.client.close()

    def _measure(self, name, call, size=0):
        started = time.perf_counter()
        exception = None
        try:
            call()
        except errors.HealthStoreError as exc:
            exception = exc
        events.request.fire(request_type="healthstore", name=name, response_time=(time.perf_counter() - started) * 1000,
                            response_length=size, exception=exception, context={})

    @task(5)
    def save_batch(self):
        now = v.now_micros()
        batch = [v.quantity_sample(HR, self.rng.gauss(72, 9), "count/min", now - i * 5_000_000) for i in range(50)]
        self._measure("SaveObjects x50", lambda: self.client.save(batch), len(batch))

    @task(2)
    def query_last_hour(self):
        now = v.now_micros()
        self._measure("QuerySamples 1h", lambda: self.client.samples(HR, predicate=v.date_range(now - 3_600_000_000, now), limit=500))

    @task(1)
    def ping(self):
        self._measure("Ping", lambda: self.client.ping())
