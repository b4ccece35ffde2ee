"""Gateway settings (REPORECALL_* environment variables)."""

from __future__ import annotations

from pydantic import SecretStr

from kit.settings import ServiceSettings


class GatewaySettings(ServiceSettings):
    # HTTP listener for hooks, MCP and the CLI's JSON API.
    http_host: str = "127.0.0.1"
    http_port: int = 7870
    # Backend service addresses (host:port).
    indexer_addr: str = "127.0.0.1:7872"
    search_addr: str = "127.0.0.1:7873"
    graph_addr: str = "127.0.0.1:7874"
    memory_addr: str = "127.0.0.1:7875"
    # Default token budget of a context block and the hook's total deadline.
    budget_tokens: int = 2500
    hook_deadline_ms: int = 1500
    # Per-backend call deadline inside a hook.
    backend_deadline_ms: int = 600
    # Bearer token the `up` supervisor generated for local use (also accepted from the token store).
    local_token: str = ""
    # Largest request body accepted, bytes.
    max_body_bytes: int = 1_000_000
    # Requests per second allowed per token on average (0 disables), and the burst above it.
    rate_limit_per_second: float = 20.0
    rate_limit_burst: int = 60
    # Shared secret of git push webhooks (POST /hooks/git); empty disables them.
    webhook_secret: SecretStr = SecretStr("")
    # TLS: serve HTTPS when both are set.
    tls_cert_file: str = ""
    tls_key_file: str = ""
