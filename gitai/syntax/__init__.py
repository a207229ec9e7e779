"""tree-sitter normal forms and change classification."""
