"""HealthStore client: talk to a healthd server over its binary protobuf protocol.

    from healthstore import Client, values
    with Client.connect(bundle_id="com.example.app") as client:   # $HEALTHSTORE_SERVER, $HEALTHSTORE_TOKEN_FILE
        client.save([values.quantity_sample("HeartRate", 72, "count/min", values.now_micros())])
        for sample in client.samples("HeartRate"):
            print(sample.start, sample.quantity)

Results are typed dataclasses (`healthstore.results`) whose `.raw` is the protobuf message; every
failure is a `healthstore.errors.HealthStoreError`.
"""

from . import errors, results, series, values
from .aio import AsyncClient
from .calls import TypeNames
from .client import Client
from .connection import Address, parse_servers, tls_context
from .errors import HealthStoreError
from .framing import FrameDecoder, encode_frame
from .protocol import hello_message
from .v1 import healthstore_pb2 as pb

__all__ = [
    "Address", "AsyncClient", "Client", "FrameDecoder", "HealthStoreError", "TypeNames", "encode_frame", "errors",
    "hello_message", "parse_servers", "pb", "results", "series", "tls_context", "values",
]
