"""The PROJECT file, input validation and the layout of a generated project.

`config` is the PROJECT file as a Pydantic model; `validate` checks every
command input before anything is written and `inputs` turns the inputs into
PROJECT records; `consistency` checks PROJECT itself on every command (its
values valid and agreeing with each other and with the types files); `layout` says where each file goes; `paths` finds and reads
the project a command runs in; `sources` finds the user's types files and
reconcilers (the load stage imports them); `follow` updates PROJECT from the
types; `removal` makes every decision about what opgen removes: the files of
`delete api`, and the outputs of an earlier `opgen generate` that the current
one no longer produces; `coregroups` knows Kubernetes' built-in groups for
controllers of core types.
"""

from opgen.project.config import (
    PROJECT_FILE,
    ImportedCrd,
    Project,
    Resource,
    dump_project,
    parse_project,
    replay_commands,
)
from opgen.project.layout import Layout
from opgen.project.paths import (
    ensure_empty_for_init,
    load_project,
    require_project_root,
)

__all__ = [
    "PROJECT_FILE",
    "ImportedCrd",
    "Layout",
    "Project",
    "Resource",
    "dump_project",
    "ensure_empty_for_init",
    "load_project",
    "parse_project",
    "replay_commands",
    "require_project_root",
]
