"""`python -m gitai`: the same as the `gitai` command."""

from gitai.entry import main

main()
