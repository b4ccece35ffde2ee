"""The gateway's pure logic: no I/O, no gRPC, no clocks. One module per step of a prompt's way through:

- `sanitize`    — strip pasted code/logs, system reminders and our own earlier block; cap the length.
- `routing`     — rule-based intent route (skip/lookup/flow/bug/architecture) and seeds.
- `fusion`      — merge search hits, seed definitions, call-tree neighbours, hubs and active files
                  into one ranked candidate list; the architecture overview text.
- `assembly`    — the budgeted, character-capped context block (DESIGN.md §6).
- `accounting`  — tokens injected vs. tokens of file reads spared.
- `conventions` — the SessionStart conventions summary.
- `markers`     — the `<reporecall-context …>` envelope shared by assembly and the sanitiser.

`data/routing_prompts.yaml` is the labelled prompt set the router is measured on.
"""
