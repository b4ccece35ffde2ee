"""python -m gateway — run the gateway: HTTP (hooks, MCP, JSON API) and gRPC (Context) in one event loop."""

from __future__ import annotations

from gateway.bootstrap import build_service
from gateway.settings import GatewaySettings
from kit.service import run_service


def main() -> None:
    run_service("gateway", GatewaySettings, build_service)


if __name__ == "__main__":
    main()
