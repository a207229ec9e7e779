"""`python -m gitai`: the same as the `gitai` command."""

from gitai.cli import main

main()
