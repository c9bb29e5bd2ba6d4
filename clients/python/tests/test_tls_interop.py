"""The Python client against a real healthd serving TLS: verified connections work end to end,
and each way of getting TLS wrong fails with the documented exception."""

import ssl

import pytest

from healthstore import Client, errors


@pytest.fixture()
def tls_server(server_with, certificate):
    cert, key = certificate
    return server_with("--tls-cert", cert, "--tls-key", key)


def test_a_verified_tls_connection_saves_and_reads(tls_server, certificate):
    cert, _ = certificate
    with Client.connect(tls_server.owner_token, host="localhost", port=tls_server.port, tls=True, ca=cert) as client:
        assert client.hello_result.role == "OWNER"
        assert client.ping(b"over tls").payload == b"over tls"
        assert client.count_samples("HeartRate") == []


def test_plaintext_on_a_tls_port_is_told_to_use_tls(tls_server):
    with pytest.raises(errors.HealthStoreError) as caught:
        Client.connect(tls_server.owner_token, host="127.0.0.1", port=tls_server.port)
    assert "TLS" in str(caught.value)


def test_an_untrusted_certificate_is_a_tls_error(tls_server):
    other = ssl.create_default_context()  # the system's trust store does not know the test CA
    with pytest.raises(errors.TLSError):
        Client.connect(tls_server.owner_token, host="localhost", port=tls_server.port, tls=other)


def test_tls_to_a_plaintext_port_is_an_error(server, certificate):
    cert, _ = certificate
    with pytest.raises(errors.HealthStoreError):
        Client.connect(server.owner_token, host="localhost", port=server.port, tls=True, ca=cert)
