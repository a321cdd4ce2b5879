"""opgen.render (see design.md §1)."""
