"""The shell hook template installed by `gitai hooks install` (packaged from hooks-templates/)."""
