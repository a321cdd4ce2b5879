"""The file plan: ownership rules, --check drift, --dry-run, atomic apply and removals."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest

from opgen.errors import ScaffoldError
from opgen.write import (
    Action,
    File,
    Ownership,
    Region,
    Removal,
    apply,
    content_hash,
    generated_hashes,
    plan,
    wrap,
)


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def f(path: str, content: str, ownership: Ownership = Ownership.GENERATED) -> File:
    return File(PurePosixPath(path), content, ownership)


def test_create_then_unchanged(tmp_path: Path) -> None:
    files = [f("a/b.txt", "one\n"), f("c.txt", "two\n", Ownership.USER)]
    first = plan(files, tmp_path)
    assert [c.action for c in first.changes] == [Action.CREATE, Action.CREATE]
    first.apply()
    assert _tree(tmp_path) == {"a/b.txt": "one\n", "c.txt": "two\n"}
    again = plan(files, tmp_path)
    assert [c.action for c in again.changes] == [Action.UNCHANGED, Action.UNCHANGED]
    assert again.drift() == ()


def test_user_file_is_skipped_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("edited\n")
    skipped = plan([f("mine.py", "scaffold\n", Ownership.USER)], tmp_path)
    assert [c.action for c in skipped.changes] == [Action.SKIP]
    assert "exists and is yours" in skipped.describe()[0]
    skipped.apply()
    assert (tmp_path / "mine.py").read_text() == "edited\n"
    forced = plan([f("mine.py", "scaffold\n", Ownership.USER)], tmp_path, force=True)
    assert [c.action for c in forced.changes] == [Action.UPDATE]
    forced.apply()
    assert (tmp_path / "mine.py").read_text() == "scaffold\n"


def test_generated_file_is_rewritten_and_drift_has_a_diff(tmp_path: Path) -> None:
    (tmp_path / "gen.yaml").write_text("a: 1\nb: 2\n")
    the_plan = plan([f("gen.yaml", "a: 1\nb: 3\n")], tmp_path)
    (drift,) = the_plan.drift()
    assert drift.action is Action.UPDATE
    diff = drift.diff()
    assert "--- a/gen.yaml" in diff and "-b: 2" in diff and "+b: 3" in diff


def test_long_diffs_are_cut(tmp_path: Path) -> None:
    (tmp_path / "g").write_text("".join(f"{i}\n" for i in range(200)))
    (drift,) = plan([f("g", "x\n")], tmp_path).drift()
    assert "more diff lines" in drift.diff(max_lines=10)


def test_injected_file_only_changes_between_markers(tmp_path: Path) -> None:
    region = Region("things", "- one\n")
    initial = "user: top\n" + wrap(region) + "user: bottom\n"
    file = File(PurePosixPath("k.yaml"), initial, Ownership.INJECTED, (region,))
    plan([file], tmp_path).apply()
    (tmp_path / "k.yaml").write_text(initial.replace("user: top", "user: edited"))
    grown = Region("things", "- one\n- two\n")
    updated = File(
        PurePosixPath("k.yaml"),
        "ignored when the file exists",
        Ownership.INJECTED,
        (grown,),
    )
    plan([updated], tmp_path).apply()
    assert (tmp_path / "k.yaml").read_text() == "user: edited\n" + wrap(
        grown
    ) + "user: bottom\n"


def test_injected_file_without_marker_fails_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "k.yaml").write_text("no markers here\n")
    files = [
        f("new.txt", "x\n"),
        File(
            PurePosixPath("k.yaml"),
            "",
            Ownership.INJECTED,
            (Region("things", "- a\n"),),
        ),
    ]
    with pytest.raises(ScaffoldError, match="not found"):
        plan(files, tmp_path)
    assert _tree(tmp_path) == {"k.yaml": "no markers here\n"}


def test_removal_deletes_file_and_empty_folders(tmp_path: Path) -> None:
    plan([f("pkg/api/v1/types.py", "x\n"), f("pkg/keep.py", "y\n")], tmp_path).apply()
    (tmp_path / "pkg/api/v1/__pycache__").mkdir()
    the_plan = plan(
        [], tmp_path, removals=[Removal(PurePosixPath("pkg/api/v1/types.py"))]
    )
    assert the_plan.describe() == ["delete    pkg/api/v1/types.py"]
    the_plan.apply()
    assert _tree(tmp_path) == {"pkg/keep.py": "y\n"}
    assert not (tmp_path / "pkg/api").exists()
    assert tmp_path.exists()


def test_removal_of_missing_file_is_nothing(tmp_path: Path) -> None:
    assert (
        plan([], tmp_path, removals=[Removal(PurePosixPath("gone.py"))]).changes == ()
    )


def test_failure_midway_restores_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("old a\n")
    (tmp_path / "z.txt").write_text("old z\n")
    (tmp_path / "gone.txt").write_text("keep me\n")
    before = _tree(tmp_path)
    the_plan = plan(
        [f("a.txt", "new a\n"), f("new/dir/b.txt", "b\n"), f("z.txt", "new z\n")],
        tmp_path,
        removals=[Removal(PurePosixPath("gone.txt"))],
    )
    real_replace = os.replace
    calls = {"n": 0}

    def flaky_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 4:
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(ScaffoldError, match="disk full") as caught:
        the_plan.apply()
    assert caught.value.hint is not None and "nothing was changed" in caught.value.hint
    monkeypatch.setattr(os, "replace", real_replace)
    assert _tree(tmp_path) == before
    assert not (tmp_path / "new").exists()


def test_directory_in_the_way_and_duplicate_paths(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ScaffoldError, match="directory is in the way"):
        plan([f("d", "x\n")], tmp_path)
    with pytest.raises(ScaffoldError, match="twice"):
        plan([f("x", "1\n"), f("x", "2\n")], tmp_path)


def test_apply_wrapper_returns_written_files(tmp_path: Path) -> None:
    files = [f("a", "1\n"), f("b", "2\n", Ownership.USER)]
    assert apply(files, tmp_path) == files
    assert apply(files, tmp_path) == []
    (tmp_path / "b").write_text("mine\n")
    assert apply(files, tmp_path) == []
    assert apply(files, tmp_path, force=True) == [files[1]]


def test_mode_of_existing_file_is_kept(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    plan([f("run.sh", "new\n")], tmp_path).apply()
    assert script.stat().st_mode & 0o777 == 0o755


def test_generated_files_edited_since_their_recorded_hash_are_marked(
    tmp_path: Path,
) -> None:
    (tmp_path / "opgens.yaml").write_text("as written\n")
    (tmp_path / "edited.yaml").write_text("edited\n")
    (tmp_path / "unrecorded.yaml").write_text("anything\n")
    (tmp_path / "same.yaml").write_text("new\n")
    (tmp_path / "stale.yaml").write_text("edited\n")
    recorded = {
        path: content_hash("as written\n")
        for path in ("opgens.yaml", "edited.yaml", "same.yaml", "stale.yaml")
    }
    files = [f(name, "new\n") for name in ("opgens.yaml", "edited.yaml", "same.yaml")]
    files.append(f("unrecorded.yaml", "new\n"))
    the_plan = plan(
        files,
        tmp_path,
        removals=[Removal(PurePosixPath("stale.yaml"))],
        generated=recorded,
    )
    assert [str(c.path) for c in the_plan.hand_edited] == ["edited.yaml", "stale.yaml"]
    assert [c.action for c in the_plan.hand_edited] == [Action.UPDATE, Action.DELETE]
    assert "update    edited.yaml (edited by hand since opgen wrote it)" in (
        the_plan.describe()
    )
    assert plan(files, tmp_path).hand_edited == ()


def test_generated_hashes_are_those_of_generated_files_as_written() -> None:
    files = [f("b.yaml", "b\n"), f("a.py", "a\n"), f("mine.py", "m\n", Ownership.USER)]
    assert generated_hashes(files) == {
        "b.yaml": content_hash("b\n"),
        "a.py": content_hash("a\n"),
    }


def test_an_injected_file_s_new_content_is_made_only_to_create_it(
    tmp_path: Path,
) -> None:
    made: list[str] = []

    def new_file() -> str:
        made.append("made")
        return "# +opgen:scaffold:imports\nimport a\n# +opgen:scaffold:imports:end\n"

    regions = (Region("imports", "import b\n"),)
    existing = tmp_path / "main.py"
    existing.write_text(
        "x = 1\n# +opgen:scaffold:imports\nimport a\n# +opgen:scaffold:imports:end\n"
    )
    injected = File(PurePosixPath("main.py"), new_file, Ownership.INJECTED, regions)
    [change] = plan([injected], tmp_path).changes
    assert change.action is Action.UPDATE
    assert change.new == (
        "x = 1\n# +opgen:scaffold:imports\nimport b\n# +opgen:scaffold:imports:end\n"
    )
    assert made == []

    existing.unlink()
    [change] = plan([injected], tmp_path).changes
    assert change.action is Action.CREATE
    assert injected.content == change.new
    assert made == ["made"]  # once: the content is kept
