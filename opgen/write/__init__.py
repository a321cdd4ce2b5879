"""The only stage that touches the disk.

Generators return `File` values (and `Removal`s); `plan` compares them with
the tree under a root, applying the ownership rules; a `Plan` is then applied
all-or-nothing, checked for drift (`--check`) or described (`--dry-run`).
"""

from opgen.write.files import File, Ownership, Removal
from opgen.write.hashes import content_hash, edited_files, generated_hashes
from opgen.write.insertions import Insertion, insert, insertion_marker
from opgen.write.plan import Action, Change, Plan, apply, plan
from opgen.write.regions import Region, read_regions, splice, wrap

__all__ = [
    "Action",
    "Change",
    "File",
    "Insertion",
    "Ownership",
    "Plan",
    "Region",
    "Removal",
    "apply",
    "content_hash",
    "edited_files",
    "generated_hashes",
    "insert",
    "insertion_marker",
    "plan",
    "read_regions",
    "splice",
    "wrap",
]
