"""opgen.testing (see design.md §1)."""
