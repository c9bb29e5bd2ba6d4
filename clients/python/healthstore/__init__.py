"""HealthStore client: talk to a healthd server over its binary protobuf protocol.

    from healthstore import Client, values
    with Client.connect(token, bundle_id="com.example.app") as c:
        c.save([values.quantity_sample("HeartRate", 72, "count/min", values.now_micros())])
"""

from . import errors, values
from .aio import AsyncClient
from .client import Client, hello_message
from .errors import HealthStoreError
from .framing import FrameDecoder, encode_frame
from .v1 import healthstore_pb2 as pb

__all__ = ["AsyncClient", "Client", "FrameDecoder", "HealthStoreError", "encode_frame", "errors", "hello_message", "pb", "values"]
