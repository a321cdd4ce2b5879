"""opgen.api (see design.md §1)."""
