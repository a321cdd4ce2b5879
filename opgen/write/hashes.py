"""Content hashes of the files opgen writes, to tell later whether the user edited them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from opgen.write.files import File, Ownership


def content_hash(content: str) -> str:
    """`sha256:<hex>` of a file's text as opgen writes it (UTF-8)."""
    return "sha256:" + hashlib.sha256(content.encode("utf-8")).hexdigest()


def edited_files(
    root: Path, paths: Iterable[PurePosixPath], recorded: Mapping[str, str]
) -> list[PurePosixPath]:
    """The `paths` that exist under `root` and differ from their recorded hash.

    A file with no recorded hash counts as edited: opgen did not write it.
    """
    edited = []
    for path in paths:
        target = root.joinpath(*path.parts)
        if not target.is_file():
            continue
        current = content_hash(target.read_text(encoding="utf-8"))
        if recorded.get(str(path)) != current:
            edited.append(path)
    return sorted(edited)


def generated_hashes(files: Iterable[File]) -> dict[str, str]:
    """`path: sha256:<hex>` of each generated file of `files`, as it is written."""
    return {
        str(file.path): content_hash(file.content)
        for file in files
        if file.ownership is Ownership.GENERATED
    }
