"""`gitai report`: one self-contained HTML page of intents, scopes, provenance and history."""

from __future__ import annotations

import os

import click

from gitai.commands.output import emit_json, json_option, reader_layout
from gitai.errors import EXIT_OK, GitaiError
from gitai.git.runner import rev_list
from gitai.report.build import build_report
from gitai.util.files import write_atomic


@click.command("report", epilog="Example: gitai report -o report.html --open")
@click.option("-o", "--output", default="gitai-report.html", show_default=True, metavar="FILE",
              help="Where to write the page (replaced if it exists).")
@click.option("--range", "revision_range", metavar="A..B", help="Only the records of these commits (default: all).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@json_option
def report_cmd(output: str, revision_range: str | None, open_browser: bool, as_json: bool) -> int:
    """Write an HTML report that works offline: intent map, provenance, history, per-file blame."""

    lay = reader_layout()
    if revision_range is not None and not revision_range.strip():
        raise GitaiError("--range: empty revision range")
    if os.path.isdir(output):
        raise GitaiError(f"{output} is a directory; give a file name with -o")
    only = set(rev_list(lay.root, revision_range)) if revision_range is not None else None
    page = build_report(lay, only)
    write_atomic(output, page)
    if open_browser:
        import webbrowser

        webbrowser.open("file://" + os.path.abspath(output))
    if as_json:
        emit_json({"path": output, "bytes": len(page.encode("utf-8"))})
    else:
        click.echo(f"wrote {output} ({len(page.encode('utf-8')) / 1024:.0f} KiB)")
    return EXIT_OK
