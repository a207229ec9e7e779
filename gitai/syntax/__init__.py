"""tree-sitter normal forms and change classification.

- languages: path -> language (no tree_sitter import) and lazy grammar loading
- definitions: what counts as a definition per language, qualified names
- normal_form: normal-form hashes of files and definitions (`hash_source`)
- reasons: the wording of classification reasons (no tree_sitter import)
- classify: AST_REFACTOR / INTENT_EVOLUTION for a commit's changes (`classify_changes`)

Nothing is re-exported here so that `import gitai.syntax.languages` stays cheap.
"""
