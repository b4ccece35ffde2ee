"""Memory domain: the memory record, its defaults, frontmatter, ranking, budgets and lifecycle plans. No I/O."""
