"""Kinds with CEL rules for the property test against the API server."""
