"""opgen's runtime against kopf on one API server: `python -m benchmarks.runtime`."""
