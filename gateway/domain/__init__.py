"""The gateway's pure logic: prompt sanitising, intent routing, candidate fusion, context assembly,
token accounting and the SessionStart conventions summary. No I/O, no gRPC, no clocks."""
