"""Domain errors; the servicer maps them to gRPC status codes."""

from __future__ import annotations


class GraphError(Exception):
    """Base class for errors a client can act on."""


class InvalidArgument(GraphError):
    """The request is malformed; the message names the field and the fix."""


class SymbolNotFound(GraphError):
    """A SymbolRef matched no definition in the repository."""


class StoreUnavailable(GraphError):
    """The graph store (a server backend) cannot be reached; worth retrying."""
