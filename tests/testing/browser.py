"""Headless Chromium for the report tests (Debian's chromium + chromium-driver, driven by selenium).

In CI (`CI` set) a missing browser fails the test loudly; elsewhere the test skips with the reason
and the command that installs it (`make provision`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1366,900")


def require_browser() -> None:
    """Skip (or in CI, fail) when Chromium, its driver or selenium is missing."""
    missing = [name for name, found in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)) if not found]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip extra 'test')")
    if not missing:
        return
    reason = (f"BROWSER TEST NOT RUN: missing {', '.join(missing)}; "
              "run 'make provision' (apt-get install chromium chromium-driver)")
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def chromium() -> Iterator[Any]:
    """A fresh headless Chromium (own profile directory), with its console log readable."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="gitai-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or ""
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER or ""), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
