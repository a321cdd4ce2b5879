"""opgen.runtime (see design.md §1)."""
