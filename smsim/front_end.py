"""The SM's front end: what getting a kernel's work onto the SM costs, before any of its loads.

Life of a launch through the front end, as measured on an H200 (``docs/hardware/validate_hw.json``,
the ``streams.empty_*`` and ``streams.launch_*`` kernels):

* **Launch and completion.** The host's launch reaching the GPU, the grid's set-up and, at the end, the
  kernel's completion take time that ``gpu__time_duration`` counts but no SM's cycles do:
  ``launch.overhead_ns``, added once to the duration (:meth:`FrontEnd.metrics`).
* **Block dispatch and retirement.** The first wave's blocks are handed out quickly,
  ``launch.first_wave_blocks_per_cycle`` per cycle to all SMs together (one of the ``busy`` SMs gets one
  every ``busy / first_wave_blocks_per_cycle`` cycles, :meth:`FrontEnd.dispatch_at`): on an H200 the
  warps of a short kernel's first blocks all wait for its code and parameters, as they do only if they
  start together. A finished block is retired by the device at ``launch.blocks_per_cycle`` per cycle, all
  SMs together (:meth:`FrontEnd.retire_at`; the kernel ends when its last block is retired), so a kernel
  of many short blocks waits for retirements rather than for memory. This SM gets one block retired every
  ``busy / blocks_per_cycle`` cycles, and room it left unused (the other SMs' blocks finish at other times
  once the first wave is over) takes a later burst of up to the blocks it holds at once (a token bucket,
  the GCRA: blocks of a many-wave stencil finish eight together and need not wait; the first wave's SMs
  all finish together, so its blocks get no such room); a block that takes a retired block's
  slot starts ``launch.block_launch_cycles`` after its retirement (one block of 256 threads resident at a
  time, blocks that only write a word a thread follow each other 288 cycles apart beyond their own time on an
  H200, whatever shared memory they hold: ``docs/hardware/block_launch_hw.md``; the H200 counts the warps
  active through most of that wait, smsim does not).
* **Cold instruction cache.** An SM's first instruction fetch of the kernel misses; every warp that
  starts before the code arrives waits for it (``no_instruction``), ``launch.icache_cold_cycles`` after
  the first warp's start. Sequential prefetch covers the rest of a short kernel's code, so later fetches
  are not modelled as misses.
* **Constant cache.** Kernel parameters (``ld.param``: constant bank 0, where sm_90 puts them from byte
  ``PARAM_BANK_OFFSET``) and ``ld.const`` data are read through the SM's constant cache in lines of
  ``launch.const_line_bytes``: a line's first access misses (``imc_miss``); accesses while its fill is on
  the way wait for that fill; later ones hit (a parameter is then an operand, free; ``ld.const`` takes the
  shared-memory latency, as before). Every busy SM misses on the same lines at about the same time (its
  first warps read the same parameters), and their requests for a line queue behind one another: a miss
  takes ``launch.const_miss_cycles`` with one SM busy and ``launch.const_miss_per_sm_cycles`` more for
  each further one, this SM standing for the mean; and the SM fetches the lines it missed one at a time,
  each landing at least ``launch.const_line_cycles`` after the one before. On an H200 a warp's
  ``imc_miss`` grows with both: in the test-size validation cases (``docs/hardware/validate_hw.json``)
  kernels of 2-16 blocks wait a median 82, 145, 177, 213 cycles with 1, 2, 3, 4 parameter lines missed,
  kernels of 65-132 blocks 250, 298, 380, 478.

Registered as ``launch.model = "front_end"``.
"""
from __future__ import annotations

import math

import numpy as np

from .config import LaunchSpec
from .registry import LAUNCH_MODELS

#: Not a timing value: where sm_90 places a kernel's parameters in constant bank 0 (``c[0x0][0x210]``)
PARAM_BANK_OFFSET = 0x210


@LAUNCH_MODELS.register("front_end")
class FrontEnd:
    """The front end of one of ``busy`` SMs (``spec``: :class:`smsim.config.LaunchSpec`) that holds
    ``resident`` blocks at once."""

    def __init__(self, spec: LaunchSpec, busy: int, resident: int = 1):
        self.spec, self.resident = spec, resident
        self.interval = busy / spec.blocks_per_cycle if spec.blocks_per_cycle else 0.0
        self.first_interval = busy / spec.first_wave_blocks_per_cycle if spec.first_wave_blocks_per_cycle else 0.0
        self.const_miss = spec.const_miss_cycles + spec.const_miss_per_sm_cycles * (busy - 1)
        self.next_free = 0.0                         # when the block scheduler hands out the next first-wave block
        self.tat: float | None = None                # retirement's theoretical arrival time (GCRA)
        self.code_at: float | None = None          # when the kernel's code is in the instruction cache
        self.lines: dict = {}                        # (space, line) -> cycle its fill lands
        self.fetched = -math.inf                      # when the latest missed line's fill lands
        self.blocks = 0
        self.dispatch_wait = 0.0
        self.retire_wait = 0.0
        self.const_misses = 0

    def dispatch_at(self, t: float, refill: bool = False) -> float:
        """A block for this SM is asked for at ``t`` (``refill``: into the slot of a block retired at ``t``):
        the cycle it starts, a first-wave block when the block scheduler hands it over, a refill
        ``block_launch_cycles`` after the retirement."""
        if refill:
            start = t + self.spec.block_launch_cycles
        else:
            start = t if t > self.next_free else self.next_free
            self.next_free = start + self.first_interval
        self.blocks += 1
        self.dispatch_wait += start - t
        return start

    def retire_at(self, t: float) -> float:
        """A block of this SM finished at ``t``: the cycle the device has retired it (its slot is free)."""
        if not self.interval:
            return t
        tol = (self.resident - 1) * self.interval     # unused room the device keeps for this SM, in cycles
        if self.tat is None:
            self.tat = t + tol                         # none at the first retirement: the first wave's SMs all
        start = t if t > self.tat - tol else self.tat - tol   # finish together
        self.tat = (self.tat if self.tat > start else start) + self.interval
        self.retire_wait += start - t
        return start

    def code_ready(self, t: float) -> float:
        """The cycle a warp starting at ``t`` has its first instruction."""
        if self.code_at is None:
            self.code_at = t + self.spec.icache_cold_cycles
        return self.code_at if self.code_at > t else t

    def constant(self, space: str, addr: np.ndarray, t: float) -> float:
        """Parameter (``space`` "param") or constant addresses read at ``t``: the cycle their lines are in
        the constant cache (``t`` if all hit)."""
        line = self.spec.const_line_bytes
        base = PARAM_BANK_OFFSET if space == "param" else 0
        first, last = (int(addr.min()) + base) // line, (int(addr.max()) + base) // line
        if first == last:                  # the usual case: a parameter, one address for every lane
            at = self.lines.get((space, first))
            if at is not None and at <= t:
                return t
            lines = [first]
        else:
            lines = np.unique((addr.astype(np.int64) + base) // line).tolist()
        ready = t
        for ln in lines:
            at = self.lines.get((space, ln))
            if at is None:                 # the SM fetches one missed line at a time
                at = max(t + self.const_miss, self.fetched + self.spec.const_line_cycles)
                self.lines[(space, ln)] = self.fetched = at
                self.const_misses += 1
            if at > ready:
                ready = at
        return ready

    def metrics(self, cycles: float) -> dict:
        """The launch overhead that the duration adds, blocks handed out and their wait, constant-cache
        misses."""
        return {"smsim.launch.overhead_ns": float(self.spec.overhead_ns), "smsim.launch.blocks": self.blocks,
                "smsim.launch.dispatch_wait_cycles": self.dispatch_wait,
                "smsim.launch.retire_wait_cycles": self.retire_wait,
                "smsim.launch.const_misses": self.const_misses}
