"""What a process reads once before it validates a kind with its rules.

For `opgen.testing.prepared`, which does it when a test session's backend
starts rather than in the session's first test: a kind's rule walk, class by
class, and its CEL programs (`prepare_rules`); and whether a model's validator
keeps the check of its markers and rules (`settle_checks`), which a model
with nothing to enforce is built again without."""

from __future__ import annotations

from opgen.api._cel import prepare_rules
from opgen.api._model import settle_checks

__all__ = ["prepare_rules", "settle_checks"]
