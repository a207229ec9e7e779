"""The report page: one HTML file with its style, script and data inlined (no network at view time)."""

from __future__ import annotations

import html
import json
import os
from typing import Any

ASSETS = os.path.join(os.path.dirname(__file__), "assets")


def _asset(name: str) -> str:
    with open(os.path.join(ASSETS, name), encoding="utf-8") as handle:
        return handle.read()


def render_page(data: dict[str, Any]) -> str:
    """The page for `data` (gitai.report.build.report_data). Every `<` of the JSON is written
    `\\u003c`, so no string in it (a commit subject, a path) can end the script element it sits in."""
    payload = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")
    page = _asset("report.html")
    for key, value in (("@TITLE@", html.escape(str(data["repo"]["name"]))), ("@CSS@", _asset("report.css")),
                       ("@JS@", _asset("report.js")), ("@DATA@", payload)):
        page = page.replace(key, value, 1)
    return page
