"""`gitai gc`: trim gitai's local caches to a bound."""

from __future__ import annotations

import click

from gitai.commands.output import emit_json, json_option, layout
from gitai.errors import EXIT_OK, GitaiError
from gitai.gc import gc, parse_size


@click.command("gc", epilog="Example: gitai gc --max-size 16M")
@click.option("--max-size", metavar="SIZE",
              help="The bound, e.g. 64M or 1G (default: git config gitai.cacheSize, else 64M).")
@json_option
def gc_cmd(max_size: str | None, as_json: bool) -> int:
    """Trim the local caches (line origins, syntax hashes, notes index) to a size bound; all are rebuilt on demand."""
    limit = None
    if max_size is not None:
        try:
            limit = parse_size(max_size)
        except ValueError:
            raise GitaiError(f"--max-size {max_size}: expected a size such as 64M, 1G or 500000") from None
    result = gc(layout(), limit)
    if as_json:
        emit_json(result.to_json())
    else:
        mib = 1024 * 1024
        click.echo(f"caches: {result.before / mib:.1f} MB -> {result.after / mib:.1f} MB "
                   f"(bound {result.limit / mib:.0f} MB; {result.removed_files} files removed)")
    return EXIT_OK
