"""A process's memory figures from Linux's /proc/<pid>/status, in KiB.

The benchmarks' peak RSS is `VmHWM`, not `getrusage`'s `ru_maxrss`: Linux
carries a process's maximum resident set across fork and exec, so a child
started by the benchmark driver reports at least the driver's peak (some 100
MiB), whatever its own. `VmHWM` belongs to the process's current address space,
the one exec gave it. The controller-runtime peer (crpeer/main.go) reads the
same line.

Standard library only, and no pathlib: the kopf operator imports this file from
its own virtualenv, and the stack's floor probe imports it among the imports it
measures.
"""

from __future__ import annotations

__all__ = ["peak_rss_kib", "reset_peak_rss", "rss_kib", "status_kib"]


def status_kib(field: str, pid: int | str = "self") -> int:
    """A `Vm…` line of /proc/<pid>/status (`VmRSS`, `VmHWM`), in KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def rss_kib(pid: int | str = "self") -> int:
    """The current resident set (VmRSS)."""
    return status_kib("VmRSS", pid)


def peak_rss_kib(pid: int | str = "self") -> int:
    """The peak resident set of the process's own address space (VmHWM)."""
    return status_kib("VmHWM", pid)


def reset_peak_rss() -> None:
    """Reset this process's VmHWM to its current RSS (`5` to clear_refs)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
