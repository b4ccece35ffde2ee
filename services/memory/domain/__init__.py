"""Memory domain: the record and its defaults, frontmatter, ranking, budgets, lifecycle plans. No I/O."""
