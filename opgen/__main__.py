"""`python -m opgen` runs the command-line interface."""

from opgen.cli import main

if __name__ == "__main__":
    main()
