"""The shared kit: domain types, settings, logging, metrics and gRPC plumbing used by every process."""
