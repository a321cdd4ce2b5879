"""The checker: the API server's CRD validation rules, run before anything is written.

Written from apiextensions-apiserver (`pkg/apiserver/schema` structural checks
and `pkg/apis/apiextensions/validation`). Errors name the Python module, class
and field the offending node came from, plus the schema path as the API server
would print it. CEL expressions are compiled (and their cost estimated) only by
the API server itself.
"""

from opgen.schema.check.crd import ERROR_SIZE, WARNING_SIZE, check_crd, inspect_crd
from opgen.schema.check.defaults import prune
from opgen.schema.check.report import Problem, Report

__all__ = [
    "ERROR_SIZE",
    "WARNING_SIZE",
    "Problem",
    "Report",
    "check_crd",
    "inspect_crd",
    "prune",
]
