"""Execution of one batch of blocks: register state, special registers and the SIMT stack.

Life of an instruction: the top of the reconvergence stack names a pc and a lane mask; the guard
predicate (if any) narrows the mask to the active lanes; the decoded :class:`~isa.decode.Op` runs over
all lanes at once (ALU) or over the active lanes (memory, warp-synchronous ops); the pc advances. A
branch that splits the lanes pushes the two sides, each running until the branch's reconvergence pc;
``exit`` removes lanes everywhere (and lanes whose reconvergence point is an unconditional ``ret``
exit at the branch, so an early return does not hold up a later barrier); ``bar.sync`` checks that each
block that reaches it is complete.
Each warp's instruction count is kept (a warp counts an instruction when any of its lanes is in the
mask), and a warp over the budget stops the run as a runaway. A memory or warp-synchronous instruction
gets an :class:`~isa.decode.ExecContext` for its one execution (the decoded Op is shared by every launch);
a batch given a :class:`TraceLog` records each step there for the timing model (:mod:`isa.trace`).
"""
from __future__ import annotations

import numpy as np

from typing import Any

from .decode import DecodeError, ExecContext, Op
from .errors import KernelError
from .memory import GlobalMemory, Spaces
from .program import Instruction

_END = object()


class Entry:
    """A SIMT stack entry: lanes in ``mask`` run from ``pc`` until ``rpc``; ``full``: mask == all live."""
    __slots__ = ("pc", "rpc", "mask", "full", "warps", "count", "cost")

    def __init__(self, pc: int, rpc: int, mask: np.ndarray, full: bool, warps: np.ndarray):
        self.pc, self.rpc, self.mask, self.full, self.warps, self.count = pc, rpc, mask, full, warps, 0
        self.cost = 0


class TraceLog:
    """What a traced batch executed, for :func:`isa.trace.trace_blocks`: ``steps``, one ``(pc, warps
    executing)`` per step; ``accesses``, one ``(step, space, space addresses, lanes)`` per memory access
    part (appended by the memory instructions, :mod:`isa.ops.memory`); ``atomics``, None or a list given one
    ``(global addresses, lanes)`` per global atomic's part (:func:`isa.trace.global_sectors`)."""
    __slots__ = ("steps", "accesses", "atomics")

    def __init__(self) -> None:
        self.steps: list = []
        self.accesses: list = []
        self.atomics: list | None = None


class Batch:
    """Blocks executing together: ``ids``, their linear block indices. ``global_addresses``: the launch's
    module ``.global`` variables; ``log``: a :class:`TraceLog` to record into, or None."""

    def __init__(self, prog: Any, grid3: tuple, block3: tuple, ids: Any, shared_total: int, dynamic: int,
                 gmem: GlobalMemory, const: np.ndarray, params: np.ndarray, budget: int,
                 global_addresses: dict | None = None, log: TraceLog | None = None):
        self.prog, self.grid3, self.block3, self.ids = prog, grid3, block3, np.asarray(ids, np.int64)
        self.count = count = len(self.ids)
        self.budget = budget
        tpb = block3[0] * block3[1] * block3[2]
        self.lpb = -(-tpb // 32) * 32
        n = self.nlanes = count * self.lpb
        self.regs = [np.zeros(n, dt) for dt in prog.reg_dtypes]
        self.written = [None] * len(self.regs)
        lane_in_block = np.tile(np.arange(self.lpb, dtype=np.uint32), count)
        self.block_slot = np.repeat(np.arange(count, dtype=np.int64), self.lpb)
        self.live = np.tile(np.arange(self.lpb) < tpb, count)
        self.spaces = Spaces(gmem, count, shared_total, self.lpb, prog.local_bytes, const, params)
        self.steps = 0
        self.global_addresses = global_addresses or {}
        self.log = log
        self.warp_counts = np.zeros(n // 32, np.int64)
        self.issued = 0           # SASS-equivalent issue slots (isa.cost), summed over warps
        self.warp_issued = np.zeros(n // 32)     # ... per warp
        self._special: dict = {}          # special registers, each made when first read (:meth:`special`)
        self._special_of = (lane_in_block, tpb, shared_total, dynamic)

    # ---------------------------------------------------------------- special registers
    def _make_special(self, name: str) -> np.ndarray | None:
        """Special register ``name`` of every lane (uint32), or None: not one made once per batch."""
        lane_in_block, tpb, shared_total, dynamic = self._special_of
        bx, by, bz = self.block3
        gx, gy, gz = self.grid3
        v: Any
        if name in ("%tid.x", "%tid.y", "%tid.z"):
            tid = np.minimum(lane_in_block, tpb - 1)
            v = tid % bx if name == "%tid.x" else tid // bx % by if name == "%tid.y" else tid // (bx * by)
        elif name in ("%ctaid.x", "%ctaid.y", "%ctaid.z"):
            blk = self.ids[self.block_slot].astype(np.uint32)
            v = blk % gx if name == "%ctaid.x" else blk // gx % gy if name == "%ctaid.y" else blk // (gx * gy)
        elif name == "%laneid":
            v = lane_in_block % 32
        elif name == "%warpid":
            v = lane_in_block // 32
        elif name.startswith("%lanemask_"):
            eq = np.uint32(1) << (lane_in_block % 32)
            lt = eq - np.uint32(1)
            v = {"%lanemask_eq": eq, "%lanemask_lt": lt, "%lanemask_le": lt | eq, "%lanemask_gt": ~(lt | eq),
                 "%lanemask_ge": ~lt}.get(name)
        else:
            consts = {"%ntid.x": bx, "%ntid.y": by, "%ntid.z": bz, "%nctaid.x": gx, "%nctaid.y": gy,
                      "%nctaid.z": gz, "%nwarpid": self.lpb // 32, "%smid": 0, "%nsmid": 1, "%gridid": 0,
                      "%dynamic_smem_size": dynamic, "%total_smem_size": shared_total}
            c = consts.get(name)
            v = None if c is None else np.full(self.nlanes, c, np.uint32)
        return None if v is None else np.ascontiguousarray(v, dtype=np.uint32)

    def symbol_address(self, name: str, ins: Instruction) -> int:
        """Address of a variable named in an instruction: the launch's for a module ``.global`` variable,
        else the program's (:meth:`isa.interp.Program.symbol_address`)."""
        addr = self.global_addresses.get(name)
        return addr if addr is not None else self.prog.symbol_address(name, ins)

    def special(self, name: str) -> np.ndarray:
        got = self._special.get(name)
        if got is None:
            got = self._make_special(name)
            if got is not None:
                self._special[name] = got
        if got is not None:
            return got
        if name in ("%clock", "%clock64", "%globaltimer"):
            dt = np.uint32 if name == "%clock" else np.uint64
            return np.full(self.nlanes, self.steps, dt)
        raise KernelError(f"unknown special register {name}", self.prog.kernel.name)

    # ---------------------------------------------------------------- register tracking
    def mark_written(self, rid: int, active: np.ndarray) -> None:
        w = self.written[rid]
        if w is True:
            return
        w = active.copy() if w is None else (w | active)
        self.written[rid] = True if not (self.live & ~w).any() else w

    def check_written(self, rid: int, active: np.ndarray, name: str, op: Op) -> None:
        """A read of register ``rid`` by ``active`` lanes: an error naming the lanes that never wrote it."""
        w = self.written[rid]
        bad = active if w is None else active & ~w
        if bad.any():
            raise self.error(f"register {name} is read before it was ever written", np.flatnonzero(bad), op)

    # ---------------------------------------------------------------- errors
    def thread_of(self, lane: int) -> tuple:
        return tuple(int(self.special(f"%tid.{a}")[lane]) for a in "xyz")

    def block_of(self, lane: int) -> tuple:
        return tuple(int(self.special(f"%ctaid.{a}")[lane]) for a in "xyz")

    def error(self, message: str, lanes: Any, op: Op | None = None) -> KernelError:
        """A :class:`KernelError` naming the block and threads of ``lanes`` (absolute lane indices) and ``op``."""
        lanes = np.asarray(lanes)
        block = self.block_of(int(lanes[0])) if lanes.size else None
        same = [int(x) for x in lanes if self.block_of(int(x)) == block] if lanes.size else []
        threads = [self.thread_of(x) for x in same]
        ins = op.ins.text() if op is not None else ""
        loc = op.loc if op is not None else None
        return KernelError(message, self.prog.kernel.name, block, threads, ins, loc)

    # ---------------------------------------------------------------- the SIMT loop
    def _entry(self, pc, rpc, mask, full) -> Entry:
        return Entry(pc, rpc, mask, full, mask.reshape(-1, 32).any(axis=1))

    def _flush(self, e: Entry) -> None:
        if e.count:
            self.warp_counts += e.warps * e.count
            self.issued += int(e.warps.sum()) * e.cost
            self.warp_issued += e.warps * e.cost
            e.count = e.cost = 0
            if self.warp_counts.max() > self.budget:
                over = np.flatnonzero(self.warp_counts > self.budget)
                lanes = np.flatnonzero(np.repeat(self.warp_counts > self.budget, 32) & e.mask)
                raise self.error(f"instruction budget exceeded: warp(s) {(over[:8] % (self.lpb // 32)).tolist()} "
                                 f"executed more than {self.budget} instructions (a runaway loop? raise "
                                 f"max_instructions if the kernel is really this long)",
                                 lanes if lanes.size else np.flatnonzero(e.mask), self.prog.ops[e.pc]
                                 if e.pc < len(self.prog.ops) else None)

    def run(self) -> int:
        ops, n_ops = self.prog.ops, len(self.prog.ops)
        stack = [self._entry(0, n_ops, self.live.copy(), True)]
        check_every = min(4096, self.budget + 1)
        log = self.log
        while stack:
            e = stack[-1]
            if e.pc == e.rpc or e.pc >= n_ops:
                self._pop(stack, n_ops)
                continue
            op = ops[e.pc]
            e.count += 1
            e.cost += op.cost
            self.steps += 1
            if log is not None:
                log.steps.append((e.pc, e.warps))
            if e.count >= check_every:
                self._flush(e)
            if op.guard is None:
                active, full = e.mask, e.full
            else:
                rid, neg, name = op.guard
                if self.written[rid] is not True:
                    self.check_written(rid, e.mask, name, op)
                g = self.regs[rid]
                active, full = (e.mask & ~g if neg else e.mask & g), False
            kind = op.kind
            if kind == "alu":
                op.run_alu(self, active, full)
                e.pc += 1
            elif kind == "ctrl":
                self._control(stack, e, op, active, n_ops)
            else:
                if active is not e.mask and not active.any():
                    e.pc += 1
                    continue
                try:
                    op.fam.semantics(op.ins, ExecContext(op, self, active, full))
                except DecodeError as err:
                    raise self.error(str(err), np.flatnonzero(active), op) from None
                e.pc += 1
        return int(self.warp_counts.sum())

    def _pop(self, stack, n_ops) -> None:
        e = stack.pop()
        self._flush(e)
        if e.pc >= n_ops and e.rpc >= n_ops:    # fell off the end of the kernel: those lanes are done
            self._exit_lanes(stack, e.mask.copy())

    def _control(self, stack, e: Entry, op, active, n_ops) -> None:
        name = op.ins.opcode
        if name == "bra":
            self._branch(stack, e, op, active, n_ops)
        elif name in ("exit", "ret"):
            self._exit_lanes(stack, active.copy(), e)
        elif name == "trap":
            raise self.error("trap instruction executed", np.flatnonzero(active), op)
        else:
            raise self.error(f"unhandled control instruction {name}", np.flatnonzero(active), op)

    def _branch(self, stack, e: Entry, op, active, n_ops) -> None:
        target = self.prog.targets[op.index]
        if op.guard is None:
            e.pc = target
            return
        taken = active
        rest = e.mask & ~taken
        if not taken.any():
            e.pc += 1
            return
        if not rest.any():
            e.pc = target
            return
        rpc = self.prog.rpc.get(op.index, n_ops)
        self._flush(e)
        if rpc == e.rpc:
            stack.pop()            # the entry below already waits at rpc with these lanes
        else:
            e.pc = rpc
        done = None
        for pc, mask in ((op.index + 1, rest), (target, taken)):
            if pc != rpc:
                stack.append(self._entry(pc, rpc, mask, False))
            elif rpc in self.prog.exits:
                done = mask      # an early return: these lanes would only exit, so they exit now
        if done is not None:
            # they still execute the return: count it for the warps none of whose other lanes will (once they
            # reach it, as the warp does after a uniform branch)
            other = rest if done is taken else taken
            warps = done.reshape(-1, 32).any(axis=1) & ~other.reshape(-1, 32).any(axis=1)
            if warps.any():
                self.warp_counts += warps
                self.issued += int(warps.sum()) * self.prog.ops[rpc].cost
                self.warp_issued += warps * self.prog.ops[rpc].cost
                self.steps += 1
                if self.log is not None:
                    self.log.steps.append((rpc, warps))
            self._exit_lanes(stack, done.copy())

    def _exit_lanes(self, stack, lanes: np.ndarray, current: Entry = None) -> None:
        self.live &= ~lanes
        if current is not None:
            current.pc += 1
        for s in stack:
            s.mask &= ~lanes
            warps = s.mask.reshape(-1, 32).any(axis=1)
            if (warps != s.warps).any():       # warps whose lanes all exited stop counting as executing
                self._flush(s)
                s.warps = warps
        while stack and not stack[-1].mask.any():
            self._flush(stack.pop())
