"""pytest plugin: envtest fixtures for opgen's tests and every generated project's."""
