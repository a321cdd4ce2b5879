"""opgen: Kubebuilder for Python.

Operator authors write Pydantic models with markers (`opgen.api`); opgen turns
them into CustomResourceDefinitions, RBAC, typed clients and a scaffolded
operator project that runs on `opgen.runtime` and is tested with
`opgen.testing`. The rules and marker machinery the stages share live in
`opgen.engine`, which is internal (docs/architecture.md maps the packages).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
