"""opgen.schema (see design.md §1)."""
