"""opgen's benchmarks: scripts that print figures and ratios (`python -m benchmarks`)."""
