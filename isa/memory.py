"""Memory of the functional interpreter: the flat 64-bit global address space and per-block/per-thread
spaces, with bounds and alignment checks.

Life of an access: an ``ld``/``st``/``atom`` computes one address per active lane; :meth:`Spaces.locate`
maps them (generic addresses first split by window) to byte offsets into one numpy ``uint8`` buffer per
space, raising :class:`Fault` with the offending lanes if any address falls outside an allocation (or
outside the block's shared memory / the thread's local memory) or is not aligned to the access size.
The instruction then gathers or scatters through a typed view of that buffer.

Global allocations sit 256-byte aligned from :data:`GLOBAL_BASE`, with a guard gap after each so a
one-past-the-end access is caught. Shared addresses are offsets in the block's shared memory, local
addresses offsets in the thread's local memory; generic addresses put them in windows at
:data:`SHARED_WINDOW` and :data:`LOCAL_WINDOW` (what ``cvta`` adds and removes).
"""
from __future__ import annotations

from bisect import bisect_right

import numpy as np

from .layout import align_up

GLOBAL_BASE = 0x7F00_0000_0000
SHARED_WINDOW = 0x7E00_0000_0000
LOCAL_WINDOW = 0x7D00_0000_0000
CONST_WINDOW = 0x7C00_0000_0000
WINDOW_BYTES = 1 << 32
ALLOC_ALIGN = 256
GUARD_BYTES = 256
#: the sector of the functional run's counters (``isa.run(..., counters=True)``): Nsight Compute's 32 bytes.
#: The ISA has no GPU config; the timing model counts sectors of its config's ``l1.sector_bytes``.
COUNTER_SECTOR_BYTES = 32


class Fault(Exception):
    """A bad access: ``lanes`` are indices into the access's active lanes."""

    def __init__(self, message: str, lanes: np.ndarray):
        super().__init__(message)
        self.message, self.lanes = message, lanes


class GlobalMemory:
    """Flat device memory: numpy arrays copied in at 256-byte-aligned addresses, as cudaMalloc would."""

    def __init__(self, sizes: list, counters: dict | None = None):
        #: global load/store requests and 32-byte sectors, when counting (see :meth:`count`)
        self.counters = counters
        starts, off = [], 0
        for n in sizes:
            starts.append(off)
            off = align_up(off + max(n, 1) + GUARD_BYTES, ALLOC_ALIGN)
        self.buf = np.zeros(max(off, 8), np.uint8)
        self.starts = np.array(starts, np.uint64)
        self.ends = np.array([s + n for s, n in zip(starts, sizes)], np.uint64)
        self.start_list, self.end_list = self.starts.tolist(), self.ends.tolist()

    def address(self, k: int) -> int:
        """Device address of allocation ``k``."""
        return GLOBAL_BASE + int(self.starts[k])

    def write(self, k: int, data: bytes) -> None:
        s = int(self.starts[k])
        self.buf[s:s + len(data)] = np.frombuffer(data, np.uint8)

    def read(self, k: int) -> bytes:
        s, e = int(self.starts[k]), int(self.ends[k])
        return self.buf[s:e].tobytes()

    def count(self, op: str, addr: np.ndarray, lanes: np.ndarray) -> None:
        """Tally one warp-wide ``op`` ("ld" or "st") access: a request per warp with an active lane, and
        the distinct 32-byte sectors each warp touches (aligned accesses of at most 16 bytes lie in one
        sector). Names follow Nsight Compute's ``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_*``."""
        if self.counters is None or not lanes.size:
            return
        sector = (addr - np.uint64(GLOBAL_BASE)) // np.uint64(COUNTER_SECTOR_BYTES)
        key = (lanes.astype(np.uint64) // np.uint64(32) << np.uint64(40)) | sector
        c = self.counters
        c[f"requests_{op}"] = c.get(f"requests_{op}", 0) + int(np.unique(lanes // 32).size)
        c[f"sectors_{op}"] = c.get(f"sectors_{op}", 0) + int(np.unique(key).size)

    def offsets(self, addr: np.ndarray, nbytes: int) -> np.ndarray:
        """Byte offsets of global addresses ``addr``; :class:`Fault` for any outside an allocation."""
        off = addr - np.uint64(GLOBAL_BASE)   # wraps for addresses below the base: caught below
        if off.size:
            # mostly the accesses of an instruction fall in one allocation: if the lowest and the highest do,
            # all do (an address below the base wraps to the highest offset, and fails this)
            lo, hi = int(off.min()), int(off.max())
            k0 = bisect_right(self.start_list, lo) - 1
            if k0 >= 0 and hi + nbytes <= self.end_list[k0]:
                return off.astype(np.int64)
        k = np.searchsorted(self.starts, off, side="right").astype(np.int64) - 1
        ok = (k >= 0) & (addr >= GLOBAL_BASE)
        kk = np.maximum(k, 0)
        ok &= off + np.uint64(nbytes) <= self.ends[kk]
        if not ok.all():
            raise Fault("out of bounds global access", np.flatnonzero(~ok))
        return off.astype(np.int64)


class Spaces:
    """All state spaces of one batch of blocks: global (shared by all), shared per block, local per thread,
    const and param (read-only)."""

    def __init__(self, gmem: GlobalMemory, nblocks: int, shared_bytes: int, lanes_per_block: int,
                 local_bytes: int, const: np.ndarray, params: np.ndarray):
        self.gmem = gmem
        self.shared_bytes, self.local_bytes = shared_bytes, local_bytes
        # per-block / per-thread slots are 16-byte strided so typed views index every slot alike
        self.shared_stride, self.local_stride = align_up(shared_bytes, 16), align_up(local_bytes, 16)
        self.lanes_per_block = lanes_per_block
        self.shared = np.zeros(max(nblocks * self.shared_stride, 16), np.uint8)
        nlanes = nblocks * lanes_per_block
        self.local = np.zeros(max(nlanes * self.local_stride, 16), np.uint8)
        self.const, self.params = const, params
        self._buffers = {"global": gmem.buf, "shared": self.shared, "local": self.local, "const": const,
                         "param": params}

    def buffer(self, space: str) -> np.ndarray:
        return self._buffers[space]

    def locate(self, space: str, addr: np.ndarray, lanes: np.ndarray, nbytes: int) -> np.ndarray:
        """Byte offsets into :meth:`buffer` of ``space`` for ``addr`` (uint64, one per lane in ``lanes``)."""
        if addr.size and nbytes > 1:
            if nbytes & (nbytes - 1):
                bad = (addr % np.uint64(nbytes)) != 0
            else:                                        # a power of two: the low bits (faster than %)
                bad = (addr & np.uint64(nbytes - 1)) != 0
            if bad.any():
                raise Fault(f"misaligned {space} access ({nbytes}-byte access needs {nbytes}-byte alignment)",
                            np.flatnonzero(bad))
        if space == "global":
            return self.gmem.offsets(addr, nbytes)
        if space == "shared":
            return self._windowed(addr, lanes // self.lanes_per_block, self.shared_bytes, self.shared_stride,
                                  nbytes, space)
        if space == "local":
            return self._windowed(addr, lanes, self.local_bytes, self.local_stride, nbytes, space)
        limit = self.const.size if space == "const" else self.params.size
        return self._windowed(addr, np.zeros_like(lanes), limit, 0, nbytes, space)

    @staticmethod
    def _windowed(addr, slot, size: int, stride: int, nbytes: int, space: str) -> np.ndarray:
        ok = addr + np.uint64(nbytes) <= np.uint64(size)
        if not ok.all():
            what = {"shared": "the block's shared memory", "local": "the thread's local memory"}.get(space, space)
            raise Fault(f"out of bounds {space} access (beyond the {size} bytes of {what})",
                        np.flatnonzero(~ok))
        return slot.astype(np.int64) * stride + addr.astype(np.int64)

    def split_generic(self, addr: np.ndarray) -> dict:
        """Split generic addresses by window: {space: (positions, space addresses)}."""
        out = {}
        for space, base in (("shared", SHARED_WINDOW), ("local", LOCAL_WINDOW), ("const", CONST_WINDOW)):
            sel = (addr >= np.uint64(base)) & (addr < np.uint64(base + WINDOW_BYTES))
            if sel.any():
                pos = np.flatnonzero(sel)
                out[space] = (pos, addr[pos] - np.uint64(base))
        rest = np.ones(addr.shape, bool)
        for pos, _ in out.values():
            rest[pos] = False
        if rest.any():
            pos = np.flatnonzero(rest)
            out["global"] = (pos, addr[pos])
        return out
