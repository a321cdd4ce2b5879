"""`opgen` and `python -m opgen` run the command-line interface.

The command line needs the `cli` extra (`pip install 'opgen[cli]'`). A runtime
install, as an operator's image has, lacks its packages; there the command
says what to install instead of failing with an import error.
"""

from __future__ import annotations

import sys

CLI_MODULES = frozenset({"typer", "click", "jinja2", "black"})
"""Top-level modules only the `cli` extra brings."""

CLI_MISSING = (
    "error: the opgen command line needs its `cli` extra, and this install has only "
    "opgen's runtime (no {module}).\n"
    "  hint: pip install 'opgen[cli]' (pipx install 'opgen[cli]' for the command alone)"
)


def main() -> None:
    """Console-script entry point."""
    try:
        from opgen.cli import main as cli_main
    except ModuleNotFoundError as error:
        module = (error.name or "").partition(".")[0]
        if module not in CLI_MODULES:
            raise
        print(CLI_MISSING.format(module=module), file=sys.stderr)
        sys.exit(1)
    cli_main()


if __name__ == "__main__":
    main()
