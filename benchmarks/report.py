"""`gitai report` and `gitai export` on a real traced repository, against `gitai trace verify` (which
reads the same notes) in the same run, alternating; medians of RUNS runs; and the page's size.

Targets, for click's whole history traced by `gitai backfill`: the report under 10 s and
the file under 5 MB. The repository is given (a clone, `gitai init`, a catalogue, `gitai backfill`:
docs/report.md says how it was measured); nothing is written into it.
Usage: .venv/bin/python benchmarks/report.py REPO [RUNS]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_ms, run, scratch, timed


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    repo = Path(sys.argv[1]).resolve()
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    for out in scratch():
        page, db = out / "report.html", out / "trace.sqlite"
        samples: dict[str, list[float]] = {"verify": [], "report": [], "export": []}
        for _ in range(runs):
            samples["verify"].append(timed(run, ["gitai", "trace", "verify", "--json"], repo))
            samples["report"].append(timed(run, ["gitai", "report", "-o", str(page)], repo))
            samples["export"].append(timed(run, ["gitai", "export", "-o", str(db)], repo))
        verify = median_ms(samples["verify"])
        for name in ("report", "export"):
            ms = median_ms(samples[name])
            print(f"{name:<7} {ms:8.0f} ms  ({ms / verify:.2f} x trace verify, {verify:.0f} ms)")
        size = page.stat().st_size
        print(f"page    {size / 1024:8.0f} KiB")
        ok = median_ms(samples["report"]) < 10_000 and size < 5 * 1024 * 1024
        print("targets (report < 10 s, page < 5 MB):", "met" if ok else "MISSED")
        return 0 if ok else 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
