"""The gateway: the suite's only public surface (Claude Code hooks, MCP, the CLI's JSON API)."""
