"""What the tests share, imported as `testing.…` (tests/ is on pytest's path): the hermetic environment,
the real commands, real repositories, and the independent oracles the records are checked against."""
