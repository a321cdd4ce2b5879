"""Benchmark: the client's and the webhook handlers' work on one RayCluster, in instructions.

    python -m benchmarks raycluster_admission [-- --rounds 100 --before TREE]

What the example's tests pay outside the memory server, per RayCluster, counted
by valgrind's callgrind (which must be installed), so that a loaded machine
cannot disturb it:

- `decode`: the client's decode of an answer (`opgen.runtime.decoding.decode`,
  Pydantic with opgen's markers, CEL rules skipped);
- `webhook`: a defaulting webhook's work on a review: the object decoded from
  its JSON, dumped before and after a change, and the JSON patch
  (`jsonpatch.carry_over`, `jsonpatch.diff`).

Each is run `--rounds` times inside `exec()`, with callgrind collecting only
inside `builtin_exec` (imports run through it too, so a run of zero rounds is
subtracted), after 30 rounds of warm-up. `--before TREE` (another checkout of
opgen, e.g. `git worktree add /tmp/main main`) counts that checkout's beside
this one's, in the same way.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "generated"
MODES = ("decode", "webhook")

_WORK = """
import json, sys
sys.path[:0] = [".", "tests"]
from rayclusters import sample
from ray_operator.api.v1.raycluster_types import RayCluster
from opgen.engine.cel.rules import rules_skipped
from opgen.runtime import decoding
from opgen.runtime.resources import resource_type
from opgen.runtime.webhook import jsonpatch

rtype = resource_type(RayCluster)
doc = rtype.encode_obj(sample("a", "ns"))
doc["metadata"].update({"uid": "u", "resourceVersion": "5", "generation": 1,
                        "creationTimestamp": "2024-05-01T12:00:00Z"})
raw = json.dumps(doc).encode()
mode = sys.argv[2]

def work():
    if mode == "decode":
        assert decoding.decode(rtype, raw).metadata.name == "a"
        return
    with rules_skipped():
        obj = rtype.decode_dict(json.loads(raw))
    before = rtype.encode_obj(obj)
    obj.spec.worker_groups[0].replicas = 3
    after = rtype.encode_obj(obj)
    sent = json.loads(raw)
    assert jsonpatch.diff(sent, jsonpatch.carry_over(sent, before, after))

for _ in range(30):
    work()
exec("for _ in range(int(sys.argv[1])): work()")
"""


def _collected(tree: Path, script: Path, rounds: int, mode: str) -> int:
    """Instructions callgrind collected inside `exec()` for `rounds` rounds."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=builtin_exec",
                f"--callgrind-out-file={folder}/out",
                sys.executable,
                str(script),
                str(rounds),
                mode,
            ],
            cwd=EXAMPLE,
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind said no count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="raycluster_admission")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--before", type=Path, default=None)
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("this benchmark runs valgrind's callgrind: install valgrind")
    trees = [("after", ROOT)] + ([("before", args.before)] if args.before else [])
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder, "work.py")
        script.write_text(_WORK)
        counts: dict[tuple[str, str], float] = {}
        for name, tree in trees:
            for mode in MODES:
                idle = _collected(tree, script, 0, mode)
                busy = _collected(tree, script, args.rounds, mode)
                counts[name, mode] = (busy - idle) / args.rounds
    print(f"Instructions per RayCluster (callgrind, {args.rounds} rounds):")
    for mode in MODES:
        line = f"  {mode:8} {counts['after', mode] / 1e6:7.3f} M"
        if args.before:
            before = counts["before", mode]
            line += f"   before {before / 1e6:7.3f} M   {before / counts['after', mode]:.2f}x"
        print(line)
