"""The process a command runs in (docs/safety.md#the-machine-the-tool-runs-on): one BLAS thread,
standard streams that never fail to print, a closed pipe and low memory as clear outcomes.

``prepare_process`` runs once at startup, before numpy is imported (the console script's
``tui.cli.entry`` and ``python -m scoring``); ``commands.main.run`` uses the rest.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import sys

# Scoring does no linear algebra: numpy's and scipy's OpenBLAS get one thread each unless the user
# set otherwise (each thread takes another core at import and its own buffer of address space).
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

# Address space that loading numpy and scipy.special takes with one BLAS thread: 156 MiB measured
# (VmSize before and after, docs/performance.md#memory), plus a margin. scipy's OpenBLAS retries
# forever when the 32 MiB buffer it maps at load does not fit (it spun for minutes under
# ``ulimit -v 160000``), so under a limit the libraries are loaded only once this much is free.
NUMERIC_LIBRARIES_BYTES = 176 << 20
# The smallest limit under which ``score`` of the demo run completes: 215 MiB measured (ulimit -v 220000).
START_BYTES = 220 << 20

MiB = 1 << 20


def prepare_process() -> None:
    """Once, before numpy is imported: cap the BLAS threads (only variables the user has not set),
    and make the standard streams escape what their encoding cannot show (``\\u65e5``) instead of
    failing: printing never fails, whatever the locale."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def address_space_limit() -> int | None:
    """The soft address-space limit in bytes (``ulimit -v``), or None when there is none."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def load_numeric_libraries() -> None:
    """Under an address-space limit, load numpy and scipy.special now, once their address space is
    known to be free (``NUMERIC_LIBRARIES_BYTES``): a MemoryError if it is not, or if loading them
    runs out of it. Without a limit they load when first needed, as usual."""
    if address_space_limit() is None or "scipy.special" in sys.modules:
        return
    try:
        mmap.mmap(-1, NUMERIC_LIBRARIES_BYTES).close()  # address space only: the pages are never touched
    except (OSError, MemoryError):
        raise MemoryError from None
    try:
        import numpy  # noqa: F401
        import scipy.special  # noqa: F401
    except ImportError as exc:  # "failed to map segment from shared object": out of address space
        raise MemoryError from exc


def peak_memory() -> int | None:
    """The most address space (Linux: VmPeak) or, elsewhere, resident memory this process used, in bytes."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) * 1024
    try:
        import resource
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def out_of_memory_message() -> str:
    """What ``run`` says when memory ran out: the limit when one is set, what the tool needs to
    start, how much the command had reached (docs/safety.md#the-machine-the-tool-runs-on)."""
    peak = peak_memory()
    reached = f" (this command had reached {peak / MiB:,.0f} MiB)" if peak else ""
    limit = address_space_limit()
    if limit is None:
        return f"tcsexam: memory ran out{reached}; nothing written: free some memory, or use a machine with more"
    return (
        f"tcsexam: memory ran out: the address space is limited to {limit / MiB:,.0f} MiB (ulimit -v "
        f"{limit // 1024}); the tool needs about {START_BYTES / MiB:,.0f} MiB to start and more for a large "
        f"run{reached}; nothing written: raise the limit"
    )


def silence_closed_streams() -> None:
    """After a write to a closed pipe (``| head``): point standard output and error at /dev/null, so
    that the flush at exit does not fail a second time (Python's documented way)."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(AttributeError, OSError, ValueError):
                os.dup2(devnull, stream.fileno())
        os.close(devnull)
