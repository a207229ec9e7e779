"""The trace as tables, exports and the HTML report."""
