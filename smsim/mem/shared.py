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
transposes' ``drain`` on the H200); with ``l1.one_data_stage`` it is L1's data path as well (the SM builds
both on one :class:`smsim.mem.queue.GapQueue`), where a cached global load's data wavefronts take their cycles
when the data is read (a load whose sectors are all there after its lookup; a fill's data is forwarded as it
lands, its lanes' bytes): wavefronts take the stage's free
cycles from the cycle after issue on, around what was booked for later (``docs/hardware/data_stage_hw.md``:
an H200 serves shared and global data wavefronts a cycle each, one stage for both). Counters: instructions and
wavefronts per op (Nsight's
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
from .queue import GapQueue, room_at

WARP_LANES = 32           # lanes of a warp: an access's phases split these


@SHARED_MODELS.register("banked")
class SharedMemory:
    """The SM's shared-memory pipe (``spec``: :class:`smsim.config.SharedSpec`; ``stage``: L1's data path when
    the two are one stage, else the pipe's own) and the MIO queues of its ``subpartitions`` sub-partitions."""

    def __init__(self, spec: SharedSpec, subpartitions: int, stage: GapQueue | None = None):
        self.spec = spec
        #: L1TEX's data stage: a server whose free cycles wavefronts take in turn (``stage``: one L1 shares, its
        #: data path, ``l1.one_data_stage``; else the pipe's own)
        self.stage = stage if stage is not None else GapQueue(spec.banks * spec.bank_width_bytes)
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
        busy = n / spec.wavefronts_per_cycle
        start, end = self._take(t, busy)
        if start > t + 1:
            self.queued[sp].append(start)
        # wavefronts a cycle apart come wavefront_latency_cycles apart; cycles others took between them add
        ready = start + spec.latency_cycles + (n - 1) * spec.wavefront_latency_cycles + (end - start - busy)
        return ready, n, conflicts

    @property
    def free(self) -> float:
        """The cycle the data stage has served all it was given."""
        return self.stage.free

    def _take(self, t: float, cycles: float) -> tuple:
        """``cycles`` of the data stage for an instruction issued at ``t``, from the next cycle on, in its free
        cycles (what the stage serves later, loads' data booked for when it lands, keeps its place):
        ``(start, end)``."""
        return self.stage.occupy(t + 1, cycles, t)

    def store_data(self, lines: int, t: float) -> float:
        """A global store issued at ``t`` moves its data through L1TEX's data stage, the pipe shared-memory
        wavefronts take, one wavefront per 128-byte line it writes: the cycle it has crossed (the store has
        then left the SM, :meth:`smsim.warp.Warp.memory_issued`). Behind a bank-conflicted shared load's
        wavefronts, a store waits, and its warp drains at its exit, as on the H200."""
        return self._take(t, lines / self.spec.wavefronts_per_cycle)[1]

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
