"""Line origins: for one version of a file, the commit (and the file's name there) each line
comes from, with commits classified AST_REFACTOR for the file looked through.

The hooks and backfill extend them commit by commit (`maintain`), so `blame-intent` usually
reads them instead of running `git blame`; when they are missing (a fresh clone, history made
without the hooks) `annotate` computes them through `git blame` and the same step, and keeps them.
"""
