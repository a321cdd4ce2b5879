"""opgen.load (see design.md §1)."""
