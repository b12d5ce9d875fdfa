"""Occupancy: how a block's resources become resident blocks per SM.

Life of a launch through this module: before the block scheduler places a kernel's blocks, the launch asks
:func:`occupancy` how many blocks of ``threads_per_block`` threads, each thread using
``registers_per_thread`` registers and the block ``shared_per_block_bytes`` bytes of shared memory, can be
resident on one SM at once. The answer follows NVIDIA's occupancy calculator as ``cuda_occupancy.h``
implements it (``cudaOccMaxActiveBlocksPerMultiprocessor``, the code behind
``cudaOccupancyMaxActiveBlocksPerMultiprocessor``), with the default carveout preference and shared memory
opted in up to ``sm.max_shared_per_block_bytes``:

1. The block is allocated whole warps: ``ceil(threads / 32)``.
2. Registers are allocated per warp, ``registers_per_thread * 32`` rounded up to ``sm.register_alloc_unit``
   (256). The register file is split evenly over the ``sm.subpartitions`` sub-partitions and a warp's
   registers live in one of them, so the SM holds ``subpartitions * floor(registers / subpartitions /
   regs_per_warp)`` warps by registers and ``floor(that / warps_per_block)`` blocks (the calculator's
   per-warp granularity; the per-sub-partition floor is why 40 registers allow 48 warps, not
   ``floor(65536 / 1280) = 51``). It also implies the hardware's per-block register check when the
   per-block register limit equals the SM's registers, as it does on cc 7.0-9.0. Zero registers set no
   limit, as in ``cuda_occupancy.h`` (which returns ``INT_MAX``; here :data:`UNLIMITED`).
3. Shared memory per block is the user's bytes plus ``sm.reserved_shared_per_block_bytes`` (1 KB the
   driver keeps per block on cc 8.0+), rounded up to ``sm.shared_alloc_unit_bytes``; the SM holds
   ``floor(sm.shared_bytes / that)`` blocks: the largest carveout, which the default preference lets the
   driver pick. Zero bytes set no limit.
4. Warp slots: ``floor(min(sm.max_warps, sm.max_threads / 32) / warps_per_block)`` blocks ("warps" covers
   the thread limit too). Block slots: ``sm.max_blocks``.

The resident blocks are the smallest of the four limits. The limiter named is the resource giving that
minimum; on a tie the first of ``registers, shared, warps, blocks`` wins (:data:`LIMITERS`): the
resources the kernel's code chooses come before the launch shape and the fixed block slots, so a report
points at what the code sets (``limits`` shows every limit, ties included). A block that cannot be resident
at all is an :class:`OccupancyError` naming the resource, as are inputs out of the device's range.

Last, the driver sizes the carveout: the smallest of ``sm.carveouts_kb`` holding the resident blocks'
shared memory; :func:`l1_bytes` gives the L1 data cache what the unified L1/shared array has left.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from smsim.config import Config, SmSpec

WARP_SIZE = 32
MAX_THREADS_PER_BLOCK = 1024          # every compute capability since 2.0
UNLIMITED = 2**31 - 1                 # a limit a resource does not impose (cuda_occupancy.h's INT_MAX)
LIMITERS = ("registers", "shared", "warps", "blocks")   # tie-break order of the limiter


class OccupancyError(ValueError):
    """A block the SM cannot hold: an input out of range, or a resource too small for even one block."""


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks per SM for one kernel's block shape, and the resource that limits them."""
    blocks_per_sm: int
    warps_per_sm: int
    occupancy: float                  # warps_per_sm / sm.max_warps
    limiter: str                      # one of LIMITERS
    limits: dict = field(hash=False)  # limiter -> blocks that resource alone allows (UNLIMITED: no limit)
    threads_per_block: int
    registers_per_thread: int         # as allocated: the per-warp allocation / 32
    shared_per_block_bytes: int       # as allocated, including the per-block reservation
    carveout_bytes: int               # the shared-memory capacity the driver configures

    @property
    def warps_per_block(self) -> int:
        return -(-self.threads_per_block // WARP_SIZE)

    def describe(self) -> str:
        """One line: ``"4 blocks/SM, 32 warps (50%), limited by registers"``."""
        pct = f"{self.occupancy * 100:.1f}".removesuffix(".0")
        return (f"{self.blocks_per_sm} block{'s' if self.blocks_per_sm != 1 else ''}/SM, "
                f"{self.warps_per_sm} warps ({pct}%), limited by {self.limiter}")


def occupancy(sm: SmSpec, threads_per_block: int, registers_per_thread: int,
              shared_per_block_bytes: int) -> Occupancy:
    """Resident blocks per SM of a block of ``threads_per_block`` threads using ``registers_per_thread``
    registers each and ``shared_per_block_bytes`` bytes of shared memory (static + dynamic)."""
    _check_inputs(sm, threads_per_block, registers_per_thread, shared_per_block_bytes)
    warps = -(-threads_per_block // WARP_SIZE)
    regs_warp = _round_up(registers_per_thread * WARP_SIZE, sm.register_alloc_unit)
    shared = _round_up(shared_per_block_bytes + sm.reserved_shared_per_block_bytes, sm.shared_alloc_unit_bytes)
    limits = {
        "registers": _register_limit(sm, warps, regs_warp),
        "shared": sm.shared_bytes // shared if shared else UNLIMITED,
        "warps": min(sm.max_warps, sm.max_threads // WARP_SIZE) // warps,
        "blocks": sm.max_blocks,
    }
    blocks = min(limits.values())
    limiter = next(name for name in LIMITERS if limits[name] == blocks)
    if blocks == 0:
        raise OccupancyError(_no_fit(sm, limiter, threads_per_block, registers_per_thread, warps, regs_warp,
                                     shared))
    return Occupancy(blocks_per_sm=blocks, warps_per_sm=blocks * warps, occupancy=blocks * warps / sm.max_warps,
                     limiter=limiter, limits=limits, threads_per_block=threads_per_block,
                     registers_per_thread=regs_warp // WARP_SIZE, shared_per_block_bytes=shared,
                     carveout_bytes=_carveout(sm, blocks * shared))


def l1_bytes(config: Config, occ: Occupancy) -> int:
    """The L1 data capacity the carveout leaves: the unified array less the shared-memory carveout, at most
    ``config.l1.size_bytes``, rounded down to whole sets (``line_bytes * assoc``)."""
    way_set = config.l1.line_bytes * config.l1.assoc
    left = min(config.l1.size_bytes, config.sm.unified_l1_shared_bytes - occ.carveout_bytes)
    return max(left, 0) // way_set * way_set


# ------------------------------------------------------------------------------------------- helpers
def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _check_inputs(sm: SmSpec, threads: int, registers: int, shared: int) -> None:
    for name, value in (("threads_per_block", threads), ("registers_per_thread", registers),
                        ("shared_per_block_bytes", shared)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise OccupancyError(f"{name} must be an integer, got {value!r}")
    if not 1 <= threads <= MAX_THREADS_PER_BLOCK:
        raise OccupancyError(f"threads_per_block = {threads} must be between 1 and {MAX_THREADS_PER_BLOCK}")
    if not 0 <= registers <= sm.max_registers_per_thread:
        raise OccupancyError(f"registers_per_thread = {registers} must be between 0 and "
                             f"{sm.max_registers_per_thread} (sm.max_registers_per_thread)")
    if not 0 <= shared <= sm.max_shared_per_block_bytes:
        raise OccupancyError(f"shared_per_block_bytes = {shared} must be between 0 and "
                             f"{sm.max_shared_per_block_bytes} (sm.max_shared_per_block_bytes)")


def _register_limit(sm: SmSpec, warps: int, regs_warp: int) -> int:
    """Blocks the register file holds: whole warps per sub-partition, then whole blocks."""
    if regs_warp == 0:
        return UNLIMITED
    warps_by_regs = sm.registers // sm.subpartitions // regs_warp * sm.subpartitions
    return warps_by_regs // warps


def _no_fit(sm: SmSpec, limiter: str, threads: int, registers: int, warps: int, regs_warp: int,
            shared: int) -> str:
    """Why not even one block fits, in terms of the resource that runs out."""
    if limiter == "registers":
        per_sp = sm.registers // sm.subpartitions
        return (f"a block of {threads} threads x {registers} registers does not fit: its {warps} warps need "
                f"{regs_warp} registers each ({warps * regs_warp} in all), and the SM's {sm.registers} registers "
                f"({sm.subpartitions} sub-partitions x {per_sp}) hold {per_sp // regs_warp * sm.subpartitions} "
                f"such warps")
    if limiter == "shared":
        return (f"a block's shared memory ({shared} bytes allocated, including the "
                f"{sm.reserved_shared_per_block_bytes}-byte reservation) exceeds the SM's {sm.shared_bytes}")
    if limiter == "warps":
        return (f"a block of {threads} threads ({warps} warps) exceeds the SM's "
                f"{min(sm.max_warps, sm.max_threads // WARP_SIZE)} warps")
    return f"the SM holds no blocks (sm.max_blocks = {sm.max_blocks})"


def _carveout(sm: SmSpec, shared_bytes: int) -> int:
    """The smallest carveout holding ``shared_bytes`` of resident blocks' shared memory."""
    fitting = [kb * 1024 for kb in sm.carveouts_kb if kb * 1024 >= shared_bytes]
    if not fitting:
        raise OccupancyError(f"no carveout in sm.carveouts_kb {list(sm.carveouts_kb)} holds the {shared_bytes} "
                             f"bytes of shared memory of the resident blocks (sm.shared_bytes = "
                             f"{sm.shared_bytes}: the largest carveout should equal it)")
    return min(fitting)


__all__ = ["LIMITERS", "Occupancy", "OccupancyError", "UNLIMITED", "l1_bytes", "occupancy"]
