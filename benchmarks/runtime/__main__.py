"""`python -m benchmarks.runtime [--objects N] [--runs R] [--skip-kopf]`."""

import sys

from benchmarks.runtime.bench import main

main(sys.argv[1:])
