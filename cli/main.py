"""reporecall — command line for the RepoRecall suite.

This module only builds the parser and dispatches; each command group is a module of its own.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cli.client import CliError

_CONNECTION_OPTIONS = ("--url", "--token", "--data-dir")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # `reporecall mcp` is started by Claude Code for every session and must answer `initialize` fast:
    # it builds only its own parser and imports none of the other commands' modules.
    parser = build_parser(only_mcp=_command(argv) == "mcp")
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        raise SystemExit(2)
    try:
        code = args.handler(args)
        sys.stdout.flush()
    except CliError as exc:
        print(f"reporecall: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except BrokenPipeError:
        # The reader went away (`reporecall status | head`): stop quietly, as other Unix tools do.
        # stdout is pointed at /dev/null so the interpreter's final flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(141) from None
    raise SystemExit(code or 0)


def _connection_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--url", default=default, help="gateway URL (default: REPORECALL_URL or the local run file)"
    )
    parser.add_argument(
        "--token", default=default, help="bearer token (default: REPORECALL_TOKEN or the local run file)"
    )
    parser.add_argument("--data-dir", type=Path, default=default, help="data directory of a local suite")


def _accept_options_anywhere(parser: argparse.ArgumentParser) -> None:
    """Let --url/--token/--data-dir come after the command too (`reporecall up --data-dir DIR`).

    Sub-parsers get the options with a suppressed default, so a value given before the command is kept
    when none is given after it.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                if "--data-dir" not in sub._option_string_actions:
                    _connection_options(sub, argparse.SUPPRESS)
                _accept_options_anywhere(sub)


def _command(argv: list[str]) -> str:
    """The command word of `argv` (the first argument that is neither an option nor an option's value)."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _CONNECTION_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return ""


def build_parser(only_mcp: bool = False) -> argparse.ArgumentParser:
    from cli import cmd_mcp

    parser = argparse.ArgumentParser(prog="reporecall", description=__doc__.split("\n\n")[0])
    _connection_options(parser, None)
    commands = parser.add_subparsers(title="commands")
    if only_mcp:
        cmd_mcp.register(commands)
        _accept_options_anywhere(parser)
        return parser
    from cli import cmd_doctor, cmd_index, cmd_memory, cmd_repos, cmd_search, cmd_suite, cmd_tokens
    from cli.common import client_of
    from cli.init_cmd import add_init_command

    cmd_suite.register(commands)
    cmd_index.register(commands)
    cmd_search.register(commands)
    cmd_memory.register(commands)
    cmd_repos.register(commands)
    cmd_doctor.register(commands)
    add_init_command(commands, client_of)
    cmd_mcp.register(commands)
    cmd_tokens.register(commands)
    _accept_options_anywhere(parser)
    return parser


if __name__ == "__main__":
    main()
