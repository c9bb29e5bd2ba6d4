"""Against a real healthd: context managers, type lists, short type names resolved by the server,
the environment variables, failover across HEALTHSTORE_SERVER, and typed results."""

import asyncio
import os
import socket
import uuid

import pytest

from healthstore import AsyncClient, Client, errors, pb, results, values as v

HR = "HKQuantityTypeIdentifierHeartRate"
STEPS = "HKQuantityTypeIdentifierStepCount"
T0 = 1_790_000_000_000_000
MIN = 60_000_000


def test_client_closes_at_the_end_of_with(server):
    with Client.connect(server.owner_token, port=server.port) as client:
        assert client.ping(b"x").payload == b"x"
    with pytest.raises(errors.ConnectionClosed):
        client.ping()


def test_async_client_closes_at_the_end_of_async_with(server):
    async def run():
        async with AsyncClient.connect(server.owner_token, unix_path=server.unix_path) as client:
            assert (await client.ping(b"y")).payload == b"y"
            assert client.hello_result.role == "OWNER"
        with pytest.raises(errors.ConnectionClosed):
            await client.ping()
        connected = await AsyncClient.connect(server.owner_token, port=server.port)
        async with connected as same:
            assert same is connected
        with pytest.raises(errors.ConnectionClosed):
            await connected.ping()

    asyncio.run(run())


def test_type_arguments_accept_lists_and_short_names_everywhere(server, owner, new_app):
    app = new_app()
    assert app.request_status(share="HeartRate", read=["HeartRate"]) == "SHOULD_REQUEST"
    app.request_authorization(share=["HeartRate", "step-count"], read="heart_rate")
    assert app.request_status(share="HeartRate", read=["HeartRate"]) == "UNNECESSARY"
    assert owner.decide_authorization(app.bundle_id, share=("HeartRate", "StepCount"), read=["HeartRate"]) == 3
    assert app.authorization_status(["HeartRate", "stepCount"]) == {HR: "SHARING_AUTHORIZED", STEPS: "SHARING_AUTHORIZED"}
    short = v.quantity_sample(HR, 77, "count/min", T0)
    short.type = "heart_rate"  # as any client could send it, past the builder's own prefixing
    assert app.save([short]) == ["STORED"]
    found = app.samples(["HeartRate"], predicate=v.date_range(T0, T0 + MIN))
    assert [(s.uuid, s.type) for s in found] == [(uuid.UUID(bytes=short.uuid), HR)]
    assert app.samples("heart-rate", [], predicate=v.date_range(T0, T0 + MIN)) == found
    assert [c.count for c in app.count_samples(("HeartRate",), predicate=v.date_range(T0, T0 + MIN))] == [1]
    assert [s.bundle_id for s in app.sources("HeartRate")] == [app.bundle_id]
    assert app.statistics("HeartRate", "discrete_average", predicate=v.date_range(T0, T0 + MIN)).type == HR
    owner.set_source_priority("HeartRate", [app.bundle_id])
    assert owner.get_source_priority("heart_rate")[0] == app.bundle_id


def test_an_unknown_type_name_gets_a_suggestion(owner, new_app):
    app = new_app()
    with pytest.raises(errors.InvalidArgument) as info:
        app.request_authorization(share=["HartRate"])
    assert 'did you mean "HeartRate" (HKQuantityTypeIdentifierHeartRate)?' in info.value.message
    assert info.value.field == "share_types"
    with pytest.raises(errors.InvalidArgument, match="did you mean \"StepCount\""):
        owner.samples("StepCont")
    wrong = v.quantity_sample(HR, 70, "count/min", T0)
    wrong.type = "HeartRat"
    with pytest.raises(errors.InvalidArgument, match="did you mean \"HeartRate\"") as info:
        owner.save([wrong])
    assert info.value.object_index == 0


def test_environment_variables_name_the_server_and_token(server, monkeypatch, tmp_path):
    monkeypatch.delenv("HEALTHSTORE_TOKEN", raising=False)
    monkeypatch.setenv("HEALTHSTORE_SERVER", f"127.0.0.1:{server.port}")
    monkeypatch.setenv("HEALTHSTORE_TOKEN_FILE", os.path.join(server.data, "owner.token"))
    with Client.connect() as client:
        assert client.hello_result.role == "OWNER"
    monkeypatch.setenv("HEALTHSTORE_SERVER", f"unix:{server.unix_path}")
    monkeypatch.delenv("HEALTHSTORE_TOKEN_FILE")
    monkeypatch.setenv("HEALTHSTORE_TOKEN", server.operator_token)

    async def run():
        async with AsyncClient.connect() as client:
            assert client.hello_result.role == "OPERATOR"

    asyncio.run(run())


def test_a_comma_separated_server_list_fails_over_to_the_first_that_answers(server):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    with Client.connect(server.owner_token, server=f"127.0.0.1:{dead},127.0.0.1:{server.port}") as client:
        assert client.ping().payload == b""

    async def run():
        async with AsyncClient.connect(server.owner_token, server=f"127.0.0.1:{dead}, unix:{server.unix_path}") as client:
            assert (await client.ping()).payload == b""

    asyncio.run(run())


def test_results_are_typed_and_keep_their_message(owner, new_app):
    app = new_app(share=["HeartRate"], read=["HeartRate"])
    sample = v.quantity_sample("HeartRate", 64, "count/min", T0 + 5 * MIN, metadata={"HKWasUserEntered": True})
    app.save([sample])
    (stored,) = app.samples("HeartRate", predicate=v.date_range(T0 + 5 * MIN, T0 + 6 * MIN))
    assert isinstance(stored, results.Sample) and stored.kind == "quantity"
    assert stored.quantity.unit in ("count/min", "count/s")
    assert stored.start_time == T0 + 5 * MIN and stored.start == results.datetime_from_micros(T0 + 5 * MIN)
    assert stored.metadata["HKWasUserEntered"] is True
    assert stored.device and stored.device.name == "pytest"
    assert isinstance(stored.raw, pb.Sample)
    assert app.save([stored]) == ["ALREADY_STORED"], "a result saves again as it was read"
    permissions = owner.list_permissions(app.bundle_id)
    assert {(p.type, p.direction, p.state) for p in permissions} == {(HR, "SHARE", "GRANTED"), (HR, "READ", "GRANTED")}
    assert app.bundle_id in {a.bundle_id for a in owner.list_apps()}
    updates = app.anchored_updates("HeartRate", predicate=v.from_sources(app.bundle_id))
    page = next(updates)
    updates.close()
    assert isinstance(page, results.AnchoredPage) and [s.uuid for s in page.samples] == [stored.uuid]
