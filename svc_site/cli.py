"""The `svc` console script: a thin dispatcher over svc's management commands."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from catalog.domain.version import svc_version

if TYPE_CHECKING:
    from django.core.management.base import BaseCommand

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

# Django's options of every management command, meaningless to an operator: `svc <command> --help` hides them
# (`python manage.py <command>` shows them, and both accept them).
DJANGO_OPTIONS = frozenset({"--verbosity", "--settings", "--pythonpath", "--traceback", "--no-color", "--force-color"})

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

    try:
        django.setup()
    except ImproperlyConfigured as error:
        print(f"svc: configuration error: {error}", file=sys.stderr)
        return 2
    command(args[0]).run_from_argv(["svc", args[0], *args[1:]])
    return 0


def command(name: str) -> BaseCommand:
    """The management command behind `svc <name>`, as an operator meets it: without Django's options in its help.

    (No command has `--skip-checks` either: none runs Django's system checks through the option that adds it.)
    """
    from django.core.management import get_commands, load_command_class

    command_name = SUBCOMMANDS[name][0]
    app = TOOL_COMMANDS.get(command_name) or get_commands()[command_name]
    loaded = load_command_class(str(app), command_name)
    loaded.suppressed_base_arguments = set(DJANGO_OPTIONS)
    return loaded


if __name__ == "__main__":
    sys.exit(main())
