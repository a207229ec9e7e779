"""One module per `gitai` subcommand; gitai.cli registers them."""
