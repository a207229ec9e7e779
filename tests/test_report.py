"""`gitai report`: one self-contained HTML page, opened in a real headless Chromium."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from testing.browser import chromium
from testing.commands import git, gitai, gitai_json

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"



def test_report_is_one_offline_file(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = gitai_json(history, "report", "-o", str(out))
    page = out.read_text(encoding="utf-8")
    assert result["bytes"] == len(page.encode("utf-8")) < 200_000
    assert "<link" not in page and not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in page  # the page may not fetch anything, even by mistake
    assert page.count("<script") == 2 and "</script>" not in page.split('id="gitai-data">')[1].split("</script>")[0]


def test_report_range_keeps_only_those_commits(history: Path, tmp_path: Path) -> None:
    whole = gitai_json(history, "report", "-o", str(tmp_path / "a.html"))
    part = gitai_json(history, "report", "--range", "HEAD~2..HEAD", "-o", str(tmp_path / "b.html"))
    assert part["bytes"] < whole["bytes"]
    bad = gitai(history, "report", "--range", "nope..HEAD", "-o", str(tmp_path / "c.html"))
    assert bad.returncode == 2 and "nope" in bad.stderr and not (tmp_path / "c.html").exists()


def _text(driver, element_id: str) -> str:
    return driver.find_element("id", element_id).text


def test_report_renders_in_chromium_and_filters(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    gitai_json(history, "report", "-o", str(out))
    with chromium() as driver:
        driver.get(out.as_uri())
        for _ in range(50):
            if driver.find_element("tag name", "body").get_attribute("data-ready") == "true":
                break
            time.sleep(0.1)
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []
        css = driver.find_elements
        # 11 traced commits reach HEAD: 2 of the catalogue, 4 for INT-001, 4 for INT-003 (one merged), the merge
        assert _text(driver, "count-commits") == "11"
        assert _text(driver, "count-unowned") == "1" and _text(driver, "count-shared") == "1"
        assert [e.text for e in css("css selector", "#ownership tr.unowned code")] == ["misc/notes.txt"]
        # .orchestration/ is left out; the unattributed first commit's AGENTS.md (from gitai init) is not
        assert {e.get_attribute("data-intent") for e in css("css selector", "#treemap g.tm-intent")} == {"-1", "0", "2"}
        treemap = css("css selector", '#treemap g[data-intent="-1"] rect.tm-file')
        assert [e.get_attribute("data-path") for e in treemap] == [
            "AGENTS.md"]
        assert len(css("css selector", "#intent-cards .intent-card")) == 5
        assert _text(driver, "count-refusals") == "1" and _text(driver, "count-approvals") == "1"
        events = css("css selector", "#events tr.event-row")
        assert sorted(e.find_elements("tag name", "td")[1].text for e in events) == [
            "approve", "refusal"]
        assert _text(driver, "count-refactor") == "2"  # the reformat and the merge
        providers = [e.text for e in css("css selector", "#prov-legend span")]
        assert providers == ["ai:claude-sonnet-4", "human"]
        rows = {r.find_elements("tag name", "td")[0].text: [td.text for td in r.find_elements("tag name", "td")[2:]]
                for r in css("css selector", "#prov-intents tr.prov-row")}
        assert rows["INT-001"] == ["14", "12 (86%)", "2 (14%)"]  # lines, ai:claude-sonnet-4, human
        blamed = driver.find_element("css selector", "#file-select option:checked").text
        lines = css("css selector", "#blame div.bl")
        assert len(lines) == len(git(history, "show", f"HEAD:{blamed}").stdout.splitlines()) > 0
        assert all(line.get_attribute("data-intent") in ("-1", "0", "2") for line in lines)
        driver.save_screenshot(str(tmp_path / "report-all.png"))

        driver.find_element("css selector", '#intent-filter .chip[data-intent="0"]').click()  # INT-001
        assert _text(driver, "count-commits") == "4"
        assert _text(driver, "count-refactor") == "1"
        assert {e.get_attribute("data-intent") for e in css("css selector", "#treemap g.tm-intent")} == {"0"}
        assert {e.get_attribute("data-path") for e in css("css selector", "#treemap rect.tm-file")} == {
            "src/auth/login.py", "src/auth/token.py", "src/shared/auth_util.py"}
        assert len(css("css selector", "#intent-cards .intent-card")) == 1
        assert _text(driver, "count-refusals") == "0"
        driver.set_window_size(1366, 3000)
        driver.save_screenshot(str(tmp_path / "report-int-001.png"))

        driver.find_element("id", "reset").click()
        assert _text(driver, "count-commits") == "11"
        _set_date(driver, "from", "2100-01-01")  # the time filter: nothing is that recent
        assert _text(driver, "count-commits") == "0" and _text(driver, "map-count") == "0"
        _set_date(driver, "from", "")
        assert _text(driver, "count-commits") == "11"

        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(21, 25, 30)"  # the dark palette
        driver.set_window_size(1366, 900)
        driver.save_screenshot(str(tmp_path / "report-dark.png"))
        assert driver.get_log("browser") == []
    ARTIFACTS.mkdir(exist_ok=True)
    for name in ("report-all.png", "report-int-001.png", "report-dark.png"):
        shutil.copyfile(tmp_path / name, ARTIFACTS / name)


def _set_date(driver, element_id: str, value: str) -> None:
    """Set a date input as a person picking a date does (typing into one depends on the locale)."""
    driver.execute_script("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                          "e.dispatchEvent(new Event('change'));", element_id, value)


def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(monkeypatch) -> None:
    import _pytest.outcomes
    from testing import browser

    monkeypatch.setattr(browser, "CHROMIUM", None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(_pytest.outcomes.Failed, match="BROWSER TEST NOT RUN: missing chromium"):
        browser.require_browser()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="make provision"):
        browser.require_browser()


def test_no_subject_or_path_can_break_out_of_the_data(repo: Path, tmp_path: Path) -> None:
    import json

    from testing.repos import commit, write

    hostile = "</script><script>alert(1)</script> <!-- x"
    gitai(repo, "select", "INT-001")
    write(repo, "src/auth/</script>.py", "x = 1\n")
    commit(repo, hostile)
    gitai_json(repo, "report", "-o", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    data = json.loads(page.split('id="gitai-data">', 1)[1].split("</script>", 1)[0])
    assert hostile in [c[6] for c in data["commits"]]
    assert "src/auth/</script>.py" in data["paths"]


def test_open_hands_the_page_to_the_browser(history: Path, tmp_path: Path) -> None:
    opened, browser, out = tmp_path / "opened.txt", tmp_path / "browser", tmp_path / "r.html"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    browser.chmod(0o755)
    proc = gitai(history, "report", "-o", str(out), "--open", env={"BROWSER": str(browser)})
    assert proc.returncode == 0, proc.stderr
    assert opened.read_text().strip() == out.as_uri()


def _weekly_repository(tmp_path: Path) -> Path:
    """What a lead adopting gitai has: a history made before gitai, then backfilled (intents inferred
    per file, contributors unknown), two files named client.py, a deleted file, an unowned file."""
    from testing.commands import gitai_ok
    from testing.repos import CATALOGUE, commit, new_repo, write

    repo = new_repo(tmp_path / "weekly")
    write(repo, ".orchestration/active_intents.yaml", CATALOGUE)
    commit(repo, "catalogue")
    write(repo, "src/auth/old.py", "def old():\n    return 0\n")
    write(repo, "src/auth/client.py", "def connect():\n    return 1\n")
    write(repo, "src/billing/client.py", "def charge():\n    return 2\n")
    commit(repo, "two clients")
    for n in range(3):  # src/auth/client.py: the most changed code file
        write(repo, "src/auth/client.py", f"def connect():\n    return {n + 10}\n\n\ndef retry():\n    return {n}\n")
        write(repo, ".orchestration/active_intents.yaml", CATALOGUE + f"# revision {n}\n")
        commit(repo, f"auth client {n}")
    write(repo, "src/billing/client.py", "def charge():\n    return 20\n\n\ndef refund():\n    return 21\n")
    (repo / "src/auth/old.py").unlink()
    commit(repo, "billing client; old auth code gone")
    write(repo, "misc/notes.txt", "nobody owns this\n")
    commit(repo, "unowned")
    gitai_ok(repo, "init")
    gitai_ok(repo, "backfill")
    return repo


def test_weekly_report_shows_the_code_at_head_full_paths_and_inferred_marks(tmp_path: Path) -> None:
    repo = _weekly_repository(tmp_path)
    out = tmp_path / "weekly.html"
    gitai_json(repo, "report", "-o", str(out))
    shots = ("report-head.png", "report-history.png", "report-file.png")
    with chromium() as driver:
        driver.get(out.as_uri())
        for _ in range(50):
            if driver.find_element("tag name", "body").get_attribute("data-ready") == "true":
                break
            time.sleep(0.1)
        assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")] == []
        css = driver.find_elements

        def tiles() -> dict[str, str]:
            return {e.get_attribute("data-path"): e.get_attribute("data-inferred")
                    for e in css("css selector", "#treemap rect.tm-file")}

        # the code as it is: the deleted file is out, gitai's own files are out, both client.py told apart
        assert driver.find_element("id", "view-head").get_attribute("aria-pressed") == "true"
        assert tiles() == {"src/auth/client.py": "true", "src/billing/client.py": "true", "misc/notes.txt": "false"}
        labels = [e.text for e in css("css selector", "#treemap text.tm-path")]
        assert {"~ src/auth/client.py", "~ src/billing/client.py"} <= set(labels)
        assert all(any(p.endswith(label[1:]) for p in tiles()) for label in labels if label.startswith("\u2026"))
        files = [r.find_element("tag name", "code").text for r in css("css selector", "#prov-files tr.prov-row")]
        assert files and not [f for f in files if f.startswith(".orchestration/") or f == "src/auth/old.py"]
        # "(no intent)" and "unknown" (backfill's contributor) in two colours
        no_intent = driver.find_element("css selector", '#intent-filter .chip[data-intent="-1"] i')
        unknown = [e for e in css("css selector", "#prov-legend span") if e.text == "unknown"][0]
        assert no_intent.value_of_css_property("background-color") != \
            unknown.find_element("tag name", "i").value_of_css_property("background-color")
        # per intent its commits, a commit whose files serve two intents under each ("(no intent)": the commits
        # touching the catalogue or misc/notes.txt, and the one deleting src/auth/old.py, whose deleted row
        # carries the commit's own intent, none)
        attribution = {r.find_elements("tag name", "td")[0].text:
                       [td.text for td in r.find_elements("tag name", "td")[1:]]
                       for r in css("css selector", "#prov-attribution tr") if r.find_elements("tag name", "td")}
        assert attribution == {"(no intent)": ["0", "6"], "INT-001": ["0", "4"], "INT-003": ["0", "2"]}
        driver.set_window_size(1366, 1400)
        driver.save_screenshot(str(tmp_path / shots[0]))

        driver.find_element("id", "view-history").click()  # history: the deleted file is back
        assert tiles() == {"src/auth/client.py": "true", "src/billing/client.py": "true", "misc/notes.txt": "false",
                           "src/auth/old.py": "true"}
        driver.save_screenshot(str(tmp_path / shots[1]))

        # the file view opens on the most changed code file, its lines marked as inferred
        assert driver.find_element("css selector", "#file-select option:checked").text == "src/auth/client.py"
        options = [e.text for e in css("css selector", "#file-select option")]
        assert not [o for o in options if o.startswith(".orchestration/")]
        marks = {e.text for e in css("css selector", "#blame div.bl b")}
        assert marks == {"~INT-001"}
        assert {e.text for e in css("css selector", "#blame-legend span")} == {"~INT-001 6 lines"}
        driver.execute_script("document.getElementById('file').scrollIntoView()")
        driver.save_screenshot(str(tmp_path / shots[2]))
        assert driver.get_log("browser") == []
    ARTIFACTS.mkdir(exist_ok=True)
    for name in shots:
        shutil.copyfile(tmp_path / name, ARTIFACTS / name)
