"""Trace records: one Agent Trace 0.1.0 record per commit, as a git note and a ledger line."""
