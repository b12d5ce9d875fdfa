"""A resident warp's timing state: its scoreboard and where its cycles went.

Life of a warp: the SM dispatches it with its block; it is then, at every cycle until it retires, in one
of the states Nsight Compute names (:data:`REASONS`). Rather than visiting every warp every cycle, a warp
keeps the cycle it could issue its next instruction (:attr:`Warp.ready_at`, the latest of its source
and destination registers' ready cycles, a branch's resolution, a barrier's release, a fence's drain)
and the reason that cycle is what it is (``long_scoreboard`` for a register a global/local load will
write, ``short_scoreboard`` for shared memory/SFU/shuffle results, ``wait`` for a fixed-latency result,
``branch_resolving``, ``barrier``, ``membar``). When the warp issues at cycle ``t`` (:meth:`Warp.account`),
the cycles since its previous issue are split: up to ``ready_at`` that reason; then the throttle reason
the scheduler noted (``math_pipe_throttle``, ``mio_throttle``, ``lg_throttle``) for the cycles the pipe it
waited on was busy (each sub-partition sums its pipes' busy cycles) or the queue it waited on full; the
rest ``not_selected``; and ``selected`` for its issue slots.
After ``exit`` a warp whose stores have not left the SM yet stays resident as ``drain``.

A warp's state has one writer: its own methods. The SM tells it what an issued instruction did
(:meth:`Warp.results_at`, :meth:`Warp.hold_fetch`, :meth:`Warp.memory_issued`, :meth:`Warp.dram_read_issued`,
:meth:`Warp.advance`; :meth:`Warp.issued_sass` all at once for a plain SASS instruction), the scheduler that
its pipe or queue was busy (:meth:`Warp.block_on`), its block that it waits at or is released from a barrier
(:meth:`Warp.wait_at_barrier`, :meth:`Warp.release_barrier`).

Recording (``smsim.launch(..., timeline=True)``): the SM gives each warp a ``hook``, a :class:`Timeline`,
which :meth:`Warp.account` and :meth:`Warp.retire` hand each piece of the split, as an interval of cycles in
one state (the split itself is done once, here, for plain and recorded warps alike); the memory queues hand
it their transfers (:class:`smsim.mem.queue.LoggedQueue`). Without a timeline the hook is None and costs
one test per issue.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from typing import Any, Sequence

import numpy as np


REASONS = ("selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait", "barrier", "mio_throttle",
           "lg_throttle", "math_pipe_throttle", "branch_resolving", "no_instruction", "drain", "membar",
           "dispatch_stall", "imc_miss")
R = {name: i for i, name in enumerate(REASONS)}
SELECTED, NOT_SELECTED, LONG, SHORT, WAIT, BARRIER = 0, 1, 2, 3, 4, 5
BRANCH, DRAIN, MEMBAR = R["branch_resolving"], R["drain"], R["membar"]
NO_INSTRUCTION, IMC_MISS, DISPATCH = R["no_instruction"], R["imc_miss"], R["dispatch_stall"]
INF = math.inf


class Warp:
    """Timing state of one resident warp of ``block``, replaying its trace (:class:`isa.trace.WarpTrace`:
    its instruction stream ``pcs``, ``k`` the next one, ``info`` its :class:`isa.trace.OpInfo` from
    ``infos``; its memory accesses, ``cursor`` the next one), dispatched at cycle ``t`` into warp slot
    ``slot`` of sub-partition ``sp``; its first instruction arrives at ``code_at`` (``no_instruction``
    until then). ``stalls``: the per-instruction stall counters all warps add to
    (``[pc][reason]``); ``hook``: a :class:`Timeline` to hand state intervals to, or None. ``stream``: the
    SASS the warp issues instead of the trace's PTX (``(items, positions)`` of
    :meth:`isa.sass.Replay.stream`; the positions say whose accesses a memory instruction makes)."""
    __slots__ = ("trace", "pcs", "n", "where", "k", "cursor", "index", "block", "slot", "sp", "reg_ready", "reg_reason",
                 "fetch_at", "fetch_reason", "fetch_wait", "ready_at", "reason", "free_at", "blocked_until",
                 "blocked_reason",
                 "pipe_mark", "info", "infos",
                 "mem_done", "fence_done", "last_store", "at_barrier", "done", "start", "end", "stalls", "hook",
                 "chain", "chain_pending", "merged_at", "load_rows", "fill_order")
    info: Any                   # the next instruction's isa.trace.OpInfo; None once the warp has exited

    def __init__(self, trace: Any, block: Any, slot: int, sp: int, nregs: int, t: float, stalls: list,
                 infos: Sequence, hook: "Timeline | None" = None, code_at: float = 0.0, stream: Any = None):
        self.trace, self.index, self.pcs, self.k, self.cursor = trace, trace.index, trace.pcs, 0, 0
        self.where = None
        if stream is not None:                   # a SASS stream: (items, PTX positions) from isa.sass.Replay
            self.pcs, self.where = stream
        self.n = len(self.pcs)                   # the stream's length
        self.block, self.slot, self.sp = block, slot, sp
        self.reg_ready = [0.0] * nregs
        self.reg_reason = [WAIT] * nregs
        self.fetch_at, self.fetch_reason = (code_at if code_at > t else t), NO_INSTRUCTION
        self.fetch_wait = 0.0       # a branch's hold: ``wait`` until this cycle, ``branch_resolving`` after
        self.ready_at, self.reason = t, WAIT
        self.free_at = self.start = t
        self.blocked_until, self.blocked_reason = t, NOT_SELECTED
        self.pipe_mark: tuple | None = None  # (its sub-partition, the pipe, the pipe's busy cycles so far) when the
                                             # warp first found its pipe busy: how long it was busy since
        self.infos = infos
        self.info = infos[self.pcs[0]] if self.pcs else None
        self.mem_done = t           # when its global/local memory instructions in flight are done
        self.fence_done = t         # when its reductions are performed at L2 (a fence waits for them)
        self.last_store = t         # when its last store has left the SM (drain)
        self.chain = 0              # DRAM round trips, one after another, done before its latest load issued
        self.chain_pending: list = []   # (done, chain) of its loads from DRAM in flight
        self.merged_at: set | None = None   # stream indices of stores an earlier store carried to L2
        self.load_rows: tuple | None = None  # the DRAM rows (first, last) of its latest global load
        self.fill_order = 0.0              # when the data of its latest load that waited for L2 is back
        self.at_barrier = False
        self.done = False
        self.end = t
        self.stalls = stalls
        self.hook = hook
        self.refresh()

    def refresh(self) -> None:
        """Recompute :attr:`ready_at` and :attr:`reason` for the next instruction."""
        t, reason = self.fetch_at, self.fetch_reason
        if self.at_barrier:
            t, reason = INF, BARRIER
        info = self.info
        if info is not None:
            rr, why = self.reg_ready, self.reg_reason
            for r in info.srcs:
                if rr[r] > t:
                    t, reason = rr[r], why[r]
            for r in info.dsts:
                if rr[r] > t:
                    t, reason = rr[r], why[r]
            if info.fence:                 # the block's scope: loads back, stores sent; wider: stores at L2 too
                done = self.mem_done if info.fence == "cta" or self.mem_done > self.fence_done else self.fence_done
                if done > t:
                    t, reason = done, MEMBAR
        self.ready_at, self.reason = t, reason

    # ------------------------------------------------------------------ what an issue did
    def results_at(self, regs: Sequence[int], ready: float, reason: int) -> None:
        """Registers ``regs`` are written at ``ready``; until then reading them stalls for ``reason``."""
        rr, why = self.reg_ready, self.reg_reason
        for r in regs:
            rr[r], why[r] = ready, reason

    def results_by(self, regs: Sequence[int], ready: float, reason: int) -> None:
        """As :meth:`results_at`, for scoreboards, which count: each is clear once its latest result is in."""
        rr, why = self.reg_ready, self.reg_reason
        for r in regs:
            if ready >= rr[r]:
                rr[r], why[r] = ready, reason

    def hold_fetch(self, until: float, reason: int, waited: float = 0.0) -> None:
        """The next instruction cannot be fetched before ``until`` (a branch resolving, a barrier); a branch
        whose control code holds the warp until ``waited`` is counted ``wait`` until then."""
        self.fetch_at, self.fetch_reason, self.fetch_wait = until, reason, waited

    def memory_issued(self, done: float, store: bool, sent: float | None = None) -> None:
        """A global/local memory instruction of this warp is done at ``done`` (a store: L2 has it). A store
        or a reduction, which return nothing, hold the warp only until they leave the SM at ``sent``: an
        exiting warp drains for that, as the H200 counts ``drain`` (about 20 cycles a warp for a coalesced
        store, not the hundreds L2's acknowledgement takes), and does not wait for L2 to take them (a fence
        does, and the kernel's end)."""
        if sent is not None:
            if done > self.fence_done:
                self.fence_done = done
            done = sent
        if done > self.mem_done:
            self.mem_done = done
        if store and done > self.last_store:
            self.last_store = done

    def dram_read_issued(self, t: float, done: float) -> None:
        """A load of this warp issued at ``t`` reads DRAM and is back at ``done``: one more round trip after
        those of its loads that were back by ``t`` (what it may depend on)."""
        self._chain_until(t)
        self.chain_pending.append((done, self.chain + 1))

    def dram_chain(self) -> int:
        """The most DRAM round trips of this warp that followed one another (each load issued after the
        one before it was back)."""
        self._chain_until(math.inf)
        return self.chain

    def _chain_until(self, t: float) -> None:
        """Count the DRAM loads back by ``t`` into :attr:`chain` (the longest chain they end)."""
        pending = self.chain_pending
        if pending:
            keep = []
            for done, n in pending:
                if done <= t:
                    if n > self.chain:
                        self.chain = n
                else:
                    keep.append((done, n))
            self.chain_pending = keep

    def position(self) -> int:
        """Of a SASS stream: the position in the PTX trace of the execution whose accesses the current
        instruction makes (-1: none); of a PTX stream, the current position."""
        return self.k if self.where is None else self.where[self.k]

    def memory_parts(self, space_names: Sequence[str], pos: int | None = None) -> list:
        """The memory parts of the current instruction (or of the PTX execution at ``pos`` of the trace):
        ``[(space, addresses, lanes)]``, one per state space it touched (none if no lane was active); the
        cursor moves past them."""
        parts, self.cursor = self._parts(space_names, self.k if pos is None else pos, pos is None)
        return parts

    def peek_parts(self, space_names: Sequence[str], pos: int) -> list:
        """:meth:`memory_parts` of the PTX execution at ``pos`` of the trace, the cursor left where it is."""
        return self._parts(space_names, pos, False)[0]

    def _parts(self, space_names: Sequence[str], k: int, at_cursor: bool) -> tuple:
        tr, blk, parts = self.trace, self.block.trace, []
        mk, n = tr.mem_k, len(tr.mem_k)
        c = self.cursor if at_cursor else bisect_left(mk, k)
        while c < n and mk[c] == k:
            lo, hi = tr.mem_lo[c], tr.mem_hi[c]
            parts.append((space_names[tr.mem_space[c]], blk.addr[lo:hi], blk.lanes[lo:hi]))
            c += 1
        return parts, c

    def next_memory(self, after: int, limit: int = 256) -> tuple | None:
        """``(stream index, trace position)`` of the warp's next global, local or shared memory instruction
        after stream index ``after`` (constant and parameter lookups passed over), if it follows at once: None
        where an instruction that waits on a result (a register or scoreboard it reads, so it may issue
        any time later), a barrier or a fence comes first, or none comes within ``limit`` instructions. A SASS
        instruction's wait on a scoreboard last set for an earlier instruction's register read (ptxas's wait
        before a store's source registers are written again, free a few cycles after the store issued) is not
        such a wait (:meth:`_waits_result`)."""
        infos, pcs, where = self.infos, self.pcs, self.where
        for j in range(after + 1, min(len(pcs), after + 1 + limit)):
            info = infos[pcs[j]]
            if info.mem and info.space in ("param", "const"):
                continue
            if info.mem:
                pos = j if where is None else where[j]
                return (j, pos) if pos >= 0 else None
            if info.barrier or info.fence or (info.srcs and self._waits_result(j, info)):
                return None
        return None

    def _waits_result(self, j: int, info: Any, limit: int = 256) -> bool:
        """Whether the instruction at stream index ``j`` (``info``) waits on a result: a PTX instruction
        whenever it reads a register, a SASS one where one of the scoreboards it waits on was last set (within
        ``limit`` instructions before) for a result, not for a register read (``read_sb``)."""
        if not hasattr(info, "read_sb"):
            return True
        infos, pcs = self.infos, self.pcs
        for r in info.srcs:
            for i in range(j - 1, max(-1, j - 1 - limit), -1):
                prev = infos[pcs[i]]
                if r in prev.results:
                    return True
                if prev.read_sb == r:
                    break
            else:
                return True
        return False

    def merge_store(self, j: int) -> None:
        """The store at stream index ``j`` reached L2 with an earlier store of this warp (:meth:`merged`)."""
        if self.merged_at is None:
            self.merged_at = set()
        self.merged_at.add(j)

    def merged(self) -> bool:
        """Did the current instruction, a store, reach L2 with an earlier store of this warp?"""
        return self.merged_at is not None and self.k in self.merged_at

    def issued_sass(self, t: float, slots: int, stall: float, resolve: float, read_sb: int | None, read_at: float,
                    results: Sequence[int], ready: float) -> bool:
        """A SASS instruction of ``slots`` issue slots that is neither memory, barrier nor ``S2UR`` issued at
        ``t``: as :meth:`hold_fetch` for its control code's ``stall`` (and a branch's ``resolve``, if any;
        nothing for a zero-slot lookup), :meth:`results_by` for its read scoreboard (``read_sb``, clear at
        ``read_at``) and for its ``results`` (at ``ready``), then :meth:`advance`, in one call."""
        if slots:
            if resolve:
                self.fetch_at, self.fetch_reason, self.fetch_wait = t + stall + resolve, BRANCH, t + stall
            else:
                self.fetch_at, self.fetch_reason, self.fetch_wait = t + stall, WAIT, 0.0
        rr, why = self.reg_ready, self.reg_reason
        if read_sb is not None and read_at >= rr[read_sb]:
            rr[read_sb], why[read_sb] = read_at, SHORT
        for r in results:
            if ready >= rr[r]:
                rr[r], why[r] = ready, SHORT
        return self.advance()

    def advance(self) -> bool:
        """Move to the next instruction of the stream; False when there is none (the warp has exited)."""
        k = self.k = self.k + 1
        if k < self.n:
            self.info = self.infos[self.pcs[k]]
            self.refresh()
            return True
        self.info = None
        return False

    # ------------------------------------------------------------------ scheduler and block
    def block_on(self, until: float, reason: int, pipe: tuple | None = None, now: float = 0.0) -> None:
        """The scheduler found the warp ready but its pipe/queue busy at ``now`` (until ``until``, if known).
        ``pipe``: ``(sub-partition, unit)``, the warp's pipe: from now until this warp issues it is throttled
        in the cycles the pipe is busy (after each issue to it, until its issue interval has passed: Nsight's
        "waiting for the execution pipe to be available"), and ``not_selected`` in the others, in which it
        could have issued but another warp did (to this pipe or another), whether or not the scheduler looked
        at this warp then; a pipe of issue interval 2 saturated by several warps splits their waits about
        evenly. A queue (``pipe`` None) throttles it until ``until``."""
        if pipe is not None and self.pipe_mark is None:
            sub, unit = pipe
            self.pipe_mark = (sub, unit, sub.pipe_held[unit] - (until - now))
        if until > self.blocked_until:
            self.blocked_until, self.blocked_reason = until, reason

    def wait_at_barrier(self) -> None:
        """The warp has arrived at its block's barrier and waits for the others."""
        self.at_barrier = True
        self.refresh()

    def release_barrier(self, release: float, regs: Sequence[int]) -> None:
        """The barrier is released: the warp goes on at ``release`` (``regs``: the barrier's results)."""
        self.at_barrier = False
        self.hold_fetch(release, BARRIER)
        self.results_at(regs, release, BARRIER)
        self.refresh()

    # ------------------------------------------------------------------ where the cycles went
    def account(self, t: float, slots: int, pc: int) -> None:
        """Attribute the cycles since the previous issue, issuing at ``t`` for ``slots`` cycles: up to
        :attr:`ready_at` to :attr:`reason`, then to the throttle reason for the cycles its pipe was busy or
        its queue full, the rest ``not_selected``, and ``selected`` for the issue slots."""
        row = self.stalls[pc]
        start = self.free_at
        dep = self.ready_at                      # min(max(ready_at, start), t)
        if dep > t:
            dep = t
        split = start
        if dep > start:
            if self.reason == BRANCH and self.fetch_wait > start:   # the control code's stall, then the branch
                split = self.fetch_wait if self.fetch_wait < dep else dep
                row[WAIT] += split - start
            row[self.reason] += dep - split
        else:
            dep = start
        mark = self.pipe_mark
        if mark is not None:                     # its pipe's busy cycles since it was first found waiting
            sub, unit, held = mark
            held = sub.pipe_held[unit] - held
            if held > t - dep:
                held = t - dep
            if held < 0:
                held = 0
            blocked = dep + held
        else:                                    # a queue: min(max(blocked_until, dep), t)
            blocked = self.blocked_until
            if blocked > t:
                blocked = t
            if blocked < dep:
                blocked = dep
        if blocked > dep:
            row[self.blocked_reason] += blocked - dep
        if t > blocked:
            row[NOT_SELECTED] += t - blocked
        row[SELECTED] += slots
        hook = self.hook
        if hook is not None:
            hook.interval(self, start, split, WAIT)
            hook.interval(self, split, dep, self.reason)
            hook.interval(self, dep, blocked, self.blocked_reason)
            hook.interval(self, blocked, t, NOT_SELECTED)
            hook.interval(self, t, t + slots, SELECTED)
        self.free_at = t + slots
        self.blocked_until, self.blocked_reason = self.free_at, NOT_SELECTED
        self.pipe_mark = None

    def exit(self, t: float) -> float:
        """The warp's ``exit`` has issued, its slots ending at ``t``: the cycle it can leave (when its
        memory operations are done)."""
        if t > self.free_at:
            self.free_at = t
        return max(t, self.mem_done)

    def retire(self, t: float, pc: int) -> None:
        """The warp has exited at ``t``; it leaves once its stores have left the SM (``drain``)."""
        self.done = True
        free = self.free_at
        end = max(t, free, self.last_store)
        if end > free:
            self.stalls[pc][DRAIN] += end - free
            if self.hook is not None:
                self.hook.interval(self, free, end, DRAIN)
        self.end = end


class Timeline:
    """What a recorded launch did over time: each warp's state intervals (consecutive intervals of one
    state merged) and each memory level's transfers (``logs``: level -> list of ``(cycle, bytes)``)."""

    COLUMNS = ("slot", "block", "warp", "start", "end", "state")

    def __init__(self) -> None:
        self.rows: dict = {c: [] for c in self.COLUMNS}
        self.logs: dict = {}
        self.last: dict = {}        # warp -> index of its latest interval in ``rows``

    def interval(self, w: Warp, a: float, b: float, state: int) -> None:
        """Warp ``w`` spent cycles ``[a, b)`` in ``state`` (nothing if empty)."""
        if b <= a:
            return
        rows, i = self.rows, self.last.get(w, -1)
        if i >= 0 and rows["state"][i] == state and rows["end"][i] == a:
            rows["end"][i] = b
            return
        for key, v in zip(self.COLUMNS, (w.slot, w.block.index, w.index, a, b, state)):
            rows[key].append(v)
        self.last[w] = len(rows["state"]) - 1

    def log(self, level: str) -> list:
        """The transfer log of ``level`` (a new, empty one the first time)."""
        return self.logs.setdefault(level, [])

    def arrays(self) -> dict:
        """``{"warps": {column: array}, "transfers": {level: {"t", "bytes"}}}``, intervals sorted by warp
        block, warp and start."""
        r = self.rows
        warps = {k: np.array(r[k], dtype=float if k in ("start", "end") else np.int64) for k in self.COLUMNS}
        order = np.lexsort((warps["start"], warps["warp"], warps["block"]))
        warps = {k: v[order] for k, v in warps.items()}
        transfers = {}
        for level, log in self.logs.items():
            a = np.array(log, dtype=float).reshape(-1, 2)
            transfers[level] = {"t": a[:, 0], "bytes": a[:, 1].astype(np.int64)}
        return {"warps": warps, "transfers": transfers}
