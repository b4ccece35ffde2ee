"""Replica address lists for gRPC channels (REPORECALL_*_ADDR=a,b → one round_robin channel)."""

from __future__ import annotations

import pytest

from kit.grpc_client import channel_target


def test_one_address_is_passed_through():
    assert channel_target("graph:7874") == "graph:7874"
    assert channel_target("dns:///graph:7874") == "dns:///graph:7874"
    assert channel_target("unix:/tmp/graph.sock") == "unix:/tmp/graph.sock"


def test_a_list_of_ip_replicas_becomes_one_target():
    assert channel_target("127.0.0.1:1, 127.0.0.2:2") == "ipv4:127.0.0.1:1,127.0.0.2:2"
    assert channel_target("[::1]:1,[::1]:2") == "ipv6:[::1]:1,[::1]:2"


@pytest.mark.parametrize(
    ("address", "fix"),
    [
        ("graph-a:7874,graph-b:7874", "dns:///host:port"),
        ("127.0.0.1:1,[::1]:2", "one IP family"),
    ],
)
def test_a_list_that_grpc_cannot_dial_is_refused_naming_the_fix(address, fix):
    with pytest.raises(ValueError, match="replica address list") as err:
        channel_target(address)
    assert fix in str(err.value) and address in str(err.value)
