"""Shared memory: banks, wavefronts and the MIO queue in front of the shared-memory pipe.

Life of an access: a warp's ``ld/st/atom.shared`` gives one byte offset per active lane. The bank arbitration
(:func:`smsim.fast.banks.wavefronts`: the most distinct words any bank must serve, one word read by many lanes
being a broadcast; 64-bit accesses in half-warp phases, 128-bit in quarter-warp phases, a load's phases served
two at a time where their banks allow, as measured on an H200; atomics also serialize
lanes on one address; ptxas's ``ATOMS.POPC.INC``, every lane adding 1 to one address, adds the active lanes'
count once and reaches here as one lane) says how many wavefronts it needs. The instruction waits in its
sub-partition's MIO queue (at most ``mio_queue`` waiting: a full queue stalls the next shared instruction as
``mio_throttle``) for the SM's one shared-memory pipe, which serves ``wavefronts_per_cycle``; a load's data is
ready ``latency_cycles`` after its first wavefront starts, plus ``wavefront_latency_cycles`` per further
wavefront (a conflicted access is slower for the warp than the pipe's throughput alone would say). The pipe is
L1TEX's data stage: a global store's data crosses it too, one wavefront per 128-byte line
(:meth:`SharedMemory.store_data`), so stores queue behind a conflicted load's wavefronts (the unpadded tiled
transposes' ``drain`` on the H200). Counters: instructions and wavefronts per op (Nsight's
``smsp__sass_inst_executed_op_shared_*`` and ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*``; bank
conflicts = wavefronts beyond one per phase that has an active lane, never fewer than none, which for 32-bit
accesses is wavefronts - instructions, as Nsight counts them).
Registered as ``shared.model = "banked"``.
"""
from __future__ import annotations

import numpy as np

from ..config import SharedSpec
from ..contracts import level_metrics
from ..fast import banks
from ..registry import SHARED_MODELS
from .queue import room_at

WARP_LANES = 32           # lanes of a warp: an access's phases split these


@SHARED_MODELS.register("banked")
class SharedMemory:
    """The SM's shared-memory pipe (``spec``: :class:`smsim.config.SharedSpec`) and the MIO queues of its
    ``subpartitions`` sub-partitions."""

    def __init__(self, spec: SharedSpec, subpartitions: int):
        self.spec = spec
        self.free = 0.0
        self.queued: list[list] = [[] for _ in range(subpartitions)]   # start cycles of waiting instructions
        self.inst = {"ld": 0, "st": 0, "atom": 0}
        self.wavefronts = {"ld": 0, "st": 0, "atom": 0}
        self.conflicts = {"ld": 0, "st": 0, "atom": 0}   # wavefronts beyond one per phase with an active lane

    def full(self, sp: int, t: float) -> bool:
        """Is sub-partition ``sp``'s MIO queue full at ``t``?"""
        return room_at(self.queued[sp], self.spec.mio_queue, t) > t

    def next_free(self, sp: int) -> float:
        """The cycle sub-partition ``sp``'s MIO queue next frees an entry (0 if none is waiting)."""
        q = self.queued[sp]
        return q[0] if q else 0.0

    def access(self, sp: int, kind: str, offsets: np.ndarray, lanes: np.ndarray, nbytes: int,
               t: float) -> tuple:
        """``(ready cycle, wavefronts, bank conflicts)`` of an access of ``kind`` ("ld", "st" or "atom")
        issued at ``t``."""
        spec = self.spec
        if kind == "atom":
            n = banks.atomic_wavefronts(offsets, lanes, nbytes, spec.banks, spec.bank_width_bytes)
        else:
            n = banks.wavefronts(offsets, lanes, nbytes, spec.banks, spec.bank_width_bytes, kind == "ld")
        self.inst[kind] += 1
        self.wavefronts[kind] += n
        per_phase = max(1, WARP_LANES // max(1, nbytes // spec.bank_width_bytes))
        conflicts = max(0, n - len(set((lanes // per_phase).tolist())))
        self.conflicts[kind] += conflicts
        start = t + 1 if t + 1 > self.free else self.free
        self.free = start + n / spec.wavefronts_per_cycle
        if start > t + 1:
            self.queued[sp].append(start)
        return start + spec.latency_cycles + (n - 1) * spec.wavefront_latency_cycles, n, conflicts

    def store_data(self, lines: int, t: float) -> float:
        """A global store issued at ``t`` moves its data through L1TEX's data stage, the pipe shared-memory
        wavefronts take, one wavefront per 128-byte line it writes: the cycle it has crossed (the store has
        then left the SM, :meth:`smsim.warp.Warp.memory_issued`). Behind a bank-conflicted shared load's
        wavefronts, a store waits, and its warp drains at its exit, as on the H200."""
        start = t + 1 if t + 1 > self.free else self.free
        self.free = start + lines / self.spec.wavefronts_per_cycle
        return self.free

    def metrics(self, cycles: float) -> dict:
        """Wavefronts and bank conflicts per op (``l1tex__data_*_mem_shared_op_{ld,st}``) and shared
        instructions per op (``smsp__sass_inst_executed_op_shared_*``)."""
        wf, conflicts, inst = self.wavefronts, self.conflicts, self.inst
        spec = self.spec
        width = spec.banks * spec.bank_width_bytes
        return {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": wf["ld"],
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": wf["st"],
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": conflicts["ld"],
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": conflicts["st"],
                "smsp__sass_inst_executed_op_shared_ld.sum": inst["ld"],
                "smsp__sass_inst_executed_op_shared_st.sum": inst["st"],
                "smsp__sass_inst_executed_op_shared_atom.sum": inst["atom"],
                **level_metrics("shared", sum(wf.values()) * width, spec.wavefronts_per_cycle * width)}
