"""The `svc` console script: a thin dispatcher over svc's management commands."""

from __future__ import annotations

import os
import sys

from catalog.domain.version import svc_version

# `svc <subcommand>` → management command name, with its one-line summary.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("serve", "run the production web server (gunicorn) on FRAMEWORK_SITE_ADDR"),
    "validate": ("validate", "check a data directory: schemas, references, orphans, duplicates"),
    "stamp": ("stamp", "update the change ledger beside a data directory (before deploying it)"),
    "healthcheck": ("healthcheck", "probe a health URL; exit 0 on HTTP 200, 1 otherwise"),
    "check-api-usage": ("check_api_usage", "find uses of removed/deprecated companion repository API items"),
}

# Commands of offline tools whose app the server does not install (command -> its package):
# run straight from their command class, so that serving never loads them.
TOOL_COMMANDS: dict[str, str] = {"check_api_usage": "apiusage"}

HELP_FLAGS = frozenset({"-h", "--help", "help"})
VERSION_FLAGS = frozenset({"-V", "--version"})
USAGE = "usage: svc [--version] <command> [options]   (svc <command> --help for its options)"


def usage() -> str:
    width = max(map(len, SUBCOMMANDS))
    lines = [USAGE, "", "commands:"]
    lines += [f"  {name.ljust(width)}  {summary}" for name, (_, summary) in SUBCOMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:  # a command is required: the usage, as for any other usage error
        print(usage(), file=sys.stderr)
        return 2
    if args[0] in HELP_FLAGS:
        print(usage())
        return 0
    # Each command's own --version would print Django's version, which no operator asks for.
    if args[0] in VERSION_FLAGS or (args[0] in SUBCOMMANDS and "--version" in args[1:]):
        print(f"svc {svc_version()}")
        return 0
    if args[0] not in SUBCOMMANDS:
        print(f"svc: unknown command {args[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svc_site.settings")
    import django
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line, load_command_class

    try:
        django.setup()
    except ImproperlyConfigured as error:
        print(f"svc: configuration error: {error}", file=sys.stderr)
        return 2
    command, _ = SUBCOMMANDS[args[0]]
    argv = ["svc", command, *args[1:]]
    if command in TOOL_COMMANDS:
        load_command_class(TOOL_COMMANDS[command], command).run_from_argv(argv)
    else:
        execute_from_command_line(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
