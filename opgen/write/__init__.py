"""The only stage that touches the disk.

Generators return `File` values; `apply` writes a whole plan or nothing.
"""

from opgen.write.files import File, Ownership, apply

__all__ = ["File", "Ownership", "apply"]
