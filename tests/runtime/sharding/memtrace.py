"""Where a replica's memory is: with `OPGEN_MEMTRACE=<folder>`, each SIGUSR1
makes `operator.py` write `<shard>-<n>.txt` (RSS and where it is resident,
glibc's heap in use and free,
pymalloc's arenas, live objects by type) to the folder; with
`OPGEN_MEMTRACE_PYTHON=<frames>` too, the first SIGUSR1 starts tracing Python's
allocations (`tracemalloc`, which costs memory and time of its own, and hides
pymalloc's arenas), and each later one writes `<shard>-<n>.snapshot`: what was
allocated since the first and is still held. `python -m benchmarks.sharding --memtrace <folder>` sends it at the
idle baseline and at the measurement, and prints the difference. With
`OPGEN_MEMTRACE_PEAK=<objects>` too, the leader writes `<shard>-peak.txt` (and,
tracing, `<shard>-peak.snapshot`) once that many objects wait for their label at
once: what a burst holds at its height, which the measurement after it no
longer sees.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import io
import os
import signal
import sys
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opgen.runtime.sharding.assigner import Key, _Unlabelled


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                     "fsmblks", "uordblks", "fordblks", "keepcost")
    ]  # fmt: skip


def mallinfo() -> dict[str, int]:
    """glibc's view of its heap: `arena` (bytes from the system by brk), `hblkhd`
    (mmapped blocks), `uordblks` (in use), `fordblks` (free, kept)."""
    path = ctypes.util.find_library("c")
    libc = ctypes.CDLL(path)
    function = getattr(libc, "mallinfo2", None)
    if function is None:
        return {}
    function.restype = _Mallinfo2
    info = function()
    return {name: getattr(info, name) for name, *_ in _Mallinfo2._fields_}


def pymalloc_stats() -> str:
    """`sys._debugmallocstats()`'s summary lines (it writes to the C stderr)."""
    read, write = os.pipe()
    saved = os.dup(2)
    try:
        os.dup2(write, 2)
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    keep = ("arenas", "# bytes in", "Total", "bytes lost")
    return "\n".join(line for line in text.splitlines() if any(k in line for k in keep))


def rss_kib() -> int:
    status = Path("/proc/self/status").read_text()
    (line,) = [x for x in status.splitlines() if x.startswith("VmRSS:")]
    return int(line.split()[1])


def resident() -> dict[str, int]:
    """Resident KiB by kind of mapping (`/proc/self/smaps`): glibc's main heap
    (`heap`, which `malloc_trim` gives back from), anonymous mappings (`anon`:
    pymalloc's arenas, glibc's mmapped blocks and thread heaps; the kernel merges
    neighbours, so arenas are not told apart by size), and files."""
    kinds = {"heap": 0, "anon": 0, "file": 0}
    kind = "file"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and not fields[0].endswith(":"):  # a mapping's first line
            path = fields[5] if len(fields) > 5 else ""
            kind = "heap" if path == "[heap]" else "file" if path else "anon"
        elif fields and fields[0] == "Rss:":
            kinds[kind] += int(fields[1])
    return kinds


def sockets() -> int:
    """Open sockets (the API server's connections, the metrics and probe servers)."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if _link(fd).startswith("socket:"))


def _link(fd: Path) -> str:
    try:
        return os.readlink(fd)
    except OSError:  # closed meanwhile
        return ""


def install(folder: Path, shard: str, *, frames: int) -> None:
    """Each SIGUSR1 from now on writes a report to `folder`; with `frames`, the
    first starts tracing allocations and each later one writes a snapshot."""
    count = 0

    def dump() -> None:
        nonlocal count
        count += 1
        report(folder / f"{shard}-{count}", frames)

    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, dump)


def install_peak(folder: Path, shard: str, *, waiting: int) -> None:
    """Write one report (and snapshot, when tracing) the first time `waiting`
    objects wait for their label at once."""
    from opgen.runtime.sharding.assigner import Assigner

    enqueue = Assigner._enqueue
    done = False

    def at_peak(self: Assigner, watch: _Unlabelled, key: Key, slot: int) -> None:
        nonlocal done
        enqueue(self, watch, key, slot)
        if not done and len(self._queue) >= waiting:
            done = True
            report(folder / f"{shard}-peak", 1 if tracemalloc.is_tracing() else 0)

    Assigner._enqueue = at_peak  # type: ignore[method-assign]


def report(stem: Path, frames: int) -> None:
    """Write `<stem>.txt`; with `frames`, start tracing the first time and write
    `<stem>.snapshot` every later one."""
    out = io.StringIO()
    print(f"rss_kib {rss_kib()}", file=out)
    print(f"sockets {sockets()}", file=out)
    for name, kib in resident().items():
        print(f"resident_kib {name} {kib}", file=out)
    if frames and not tracemalloc.is_tracing():
        tracemalloc.start(frames)
    elif frames:
        tracemalloc.take_snapshot().dump(f"{stem}.snapshot")
        traced, peak = tracemalloc.get_traced_memory()
        print(f"traced {traced} peak {peak}", file=out)
        overhead = tracemalloc.get_tracemalloc_memory()
        print(f"tracemalloc_overhead {overhead}", file=out)
    for name, value in mallinfo().items():
        print(f"mallinfo {name} {value}", file=out)
    print(pymalloc_stats(), file=out)
    kinds = Counter(type(o).__name__ for o in gc.get_objects())
    print(f"gc_objects {sum(kinds.values())}", file=out)
    for name, n in kinds.most_common(40):
        print(f"objects {name} {n}", file=out)
    Path(f"{stem}.txt").write_text(out.getvalue())
