"""opgen.project (see design.md §1)."""
