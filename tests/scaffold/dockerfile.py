"""A generated Dockerfile's steps, run on this machine without a container engine.

There is no daemon here and no base image to pull, so `build` carries out the
Dockerfile's own instructions, as written, on the build context `.dockerignore`
admits:

- every stage shares one root folder, and the Dockerfile's absolute paths
  outside the system's folders (`/opt/venv`, `/workspace`) are moved into it;
  `COPY --from` a path onto itself is then already done;
- `python` is this machine's interpreter (the base image's), first on PATH;
- `ARG` takes `build_args` (as `--build-arg`) or its default, `ENV` adds to the
  environment (with `$VAR` expanded), `WORKDIR` creates and enters a folder,
  `COPY` copies from the context or, with `--from`, within the root, `RUN` runs
  with `sh -c` in that environment (pip's configuration files are ignored);
- `USER` is recorded, not switched to.

The result is the final stage: its environment and entrypoint, run with
`Image.command(...)`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

SYSTEM_FOLDERS = frozenset(
    {
        "bin",
        "dev",
        "etc",
        "lib",
        "lib64",
        "proc",
        "run",
        "sbin",
        "sys",
        "tmp",
        "usr",
        "var",
    }
)
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


@dataclass
class Image:
    """The final stage of a build: where its files are, its environment, entrypoint."""

    root: Path
    env: dict[str, str]
    entrypoint: list[str]
    user: str | None = None
    log: list[str] = field(default_factory=list)

    def path(self, container_path: str) -> Path:
        """Where a path of the image is on this machine."""
        return self.root / container_path.lstrip("/")

    def command(self, *args: str) -> list[str]:
        """The entrypoint with `args`, its program resolved on the image's PATH."""
        program = shutil.which(self.entrypoint[0], path=self.env["PATH"])
        assert program, f"{self.entrypoint[0]} is not on the image's PATH"
        return [program, *self.entrypoint[1:], *args]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The entrypoint with `args`, in the image's environment, from its root."""
        return subprocess.run(
            self.command(*args),
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def ignored(patterns: list[str], path: str) -> bool:
    """Whether `.dockerignore` keeps `path` (relative, POSIX) out of the context.

    Docker's rules: the last pattern that matches the path, or one of its
    parent folders, decides; `!` admits; `*` and `?` stay within a folder,
    `**` spans any number of them.
    """
    verdict = False
    parts = PurePosixPath(path).parts
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for raw in patterns:
        negated = raw.startswith("!")
        pattern = raw[1:] if negated else raw
        regex = _pattern_regex(pattern.strip("/"))
        if any(regex.fullmatch(candidate) for candidate in candidates):
            verdict = not negated
    return verdict


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def context_files(context: Path) -> list[str]:
    """The files `.dockerignore` admits into the build context (relative paths)."""
    ignore_file = context / ".dockerignore"
    patterns = [
        line.strip()
        for line in (
            ignore_file.read_text().splitlines() if ignore_file.exists() else []
        )
        if line.strip() and not line.strip().startswith("#")
    ]
    return sorted(
        str(path.relative_to(context))
        for path in context.rglob("*")
        if path.is_file() and not ignored(patterns, str(path.relative_to(context)))
    )


def build(context: Path, root: Path, build_args: dict[str, str] | None = None) -> Image:
    """Carry out `context/Dockerfile` into `root`; the final stage as an `Image`."""
    given = build_args or {}
    base_bin = root / ".base" / "bin"
    base_bin.mkdir(parents=True)
    (base_bin / "python").symlink_to(Path(sys._base_executable).resolve())  # type: ignore[attr-defined]
    admitted = context_files(context)
    base_env = {
        "PATH": f"{base_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(root / ".home"),
        "LANG": "C.UTF-8",
        "PIP_CONFIG_FILE": os.devnull,
    }
    env: dict[str, str] = {}
    in_stage = False
    workdir = root
    image = Image(root=root, env={}, entrypoint=[])

    def expand(text: str, values: dict[str, str]) -> str:
        return _VARIABLE.sub(lambda m: values.get(m.group(1) or m.group(2), ""), text)

    def reroot(text: str) -> str:
        def move(match: re.Match[str]) -> str:
            top = match.group(1)
            return match.group(0) if top in SYSTEM_FOLDERS else f"{root}/{top}"

        return re.sub(r"(?<![\w:/.$-])/([A-Za-z0-9_.-]+)", move, text)

    for word, rest in instructions((context / "Dockerfile").read_text()):
        image.log.append(f"{word} {rest}")
        if word == "ARG":
            name, _, default = rest.partition("=")
            value = given.get(name, default)
            # Before the first FROM an ARG serves FROM lines only.
            if in_stage and (name in given or default):
                env[name] = value
        elif word == "FROM":
            in_stage = True
            env = dict(base_env)
            workdir = root
            image.entrypoint = []
        elif word == "ENV":
            for name, value in re.findall(r"(\w+)=(\S+)", rest):
                env[name] = reroot(expand(value, env))
        elif word == "WORKDIR":
            workdir = Path(reroot(expand(rest, env)))
            workdir.mkdir(parents=True, exist_ok=True)
        elif word == "RUN":
            done = subprocess.run(
                ["sh", "-c", reroot(rest)],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            image.log.append(done.stdout + done.stderr)
            assert done.returncode == 0, "\n".join(image.log)
        elif word == "COPY":
            words = [expand(word, env) for word in rest.split()]
            _copy(words, context, admitted, workdir, reroot)
        elif word == "USER":
            image.user = rest
        elif word == "ENTRYPOINT":
            image.entrypoint = json.loads(rest)
        else:
            raise AssertionError(
                f"the Dockerfile uses {word}, which build() does not know"
            )
    image.env = env
    return image


def _copy(
    words: list[str],
    context: Path,
    admitted: list[str],
    workdir: Path,
    reroot: Callable[[str], str],
) -> None:
    stage = None
    if words[0].startswith("--from="):
        stage, words = words[0].removeprefix("--from="), words[1:]
    *sources, destination = words
    if stage is not None:
        for source in sources:
            there, here = Path(reroot(source)), Path(reroot(destination))
            if there != here:
                shutil.copytree(there, here, symlinks=True, dirs_exist_ok=True)
        return
    target = workdir / destination
    for source in sources:
        prefix = source.rstrip("/")
        picked = [
            path
            for path in admitted
            if prefix in (".", path) or path.startswith(f"{prefix}/")
        ]
        assert picked, f"COPY {source}: nothing in the build context matches"
        for path in picked:
            if path == prefix and not destination.endswith("/") and len(sources) == 1:
                out = target
            else:
                relative = path if prefix == "." else path[len(prefix) :].lstrip("/")
                out = target / (relative or PurePosixPath(path).name)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(context / path, out)
