"""The functional interpreter: ``isa.run(kernel, grid, block, args)`` runs a whole grid, warp-wide.

Life of a launch: :func:`prepare` decodes a kernel once into a :class:`Program` (register ids, symbol
offsets, decoded instructions), which every launch of that kernel shares and none writes to. :func:`run`
makes a :class:`Launch`, which holds everything of one launch: it checks the launch (dimensions,
arguments, shared memory), copies each numpy array into its own flat device memory
(:class:`~isa.memory.GlobalMemory`), places the module's ``.global`` variables there and lays out the
parameter buffer. Blocks then run in *batches* of consecutive blocks whose threads execute together: every
instruction is one set of numpy operations over all lanes of the batch (lanes of a block padded to whole
warps), with an active mask. Divergence is handled with one SIMT reconvergence stack per batch: a
divergent branch splits the lanes, runs the taken side then the other, and the two meet again at the
branch's immediate post-dominator (:mod:`isa.cfg`). Seen from any one warp this is exactly per-warp
IPDOM execution; warps, and blocks of a batch, are simply interleaved instruction by instruction, which
only a data race could observe. A barrier must be reached by every thread of the block that has not
exited (exited threads are not waited for, as PTX defines for ``exit``), or it is a deadlock: an error
naming the waiting warps. After the last batch the arrays are copied
back. On any :class:`~isa.errors.KernelError` the caller's arrays are left as they were.

Atomics apply lane by lane in ascending global thread order within an instruction, instructions in
execution order; concurrent plain stores to one address keep the highest lane's value.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from . import ptxtypes
from .decode import Op
from .engine import Batch, TraceLog
from .errors import KernelError
from .layout import align_up, layout
from .memory import GlobalMemory
from .ops import carry
from .program import Instruction, Kernel

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_GRID_DIMS = (2 ** 31 - 1, 65535, 65535)
#: default shared-memory limit per block: the H100's 227 KB opt-in maximum
MAX_SHARED_BYTES = 227 * 1024
#: default instruction budget: warp-instructions any one warp may execute
MAX_INSTRUCTIONS = 10_000_000
#: lanes executed together in one batch of blocks (at least one whole block)
BATCH_LANES = 16384


class Program:
    """A kernel prepared for execution: register ids, symbol addresses and decoded instructions."""

    def __init__(self, kernel: Kernel):
        from .cfg import reconvergence_points
        self.kernel = kernel
        globals_ = self.module_vars = tuple(v for v in kernel.globals if v.space != "shared")
        self.reg_types = kernel.register_types()
        uses_carry = any(carry.uses_carry(ins) for ins in kernel.body)
        if uses_carry:                      # the per-lane carry flag of add.cc/addc ... (isa.ops.carry)
            self.reg_types[carry.CARRY] = "u32"
        self.reg_index = {name: i for i, name in enumerate(self.reg_types)}
        self.reg_dtypes = [ptxtypes.storage_dtype(t) for t in self.reg_types.values()]
        self.shared_offsets, self.static_shared = layout(kernel.shared_vars())
        self.local_offsets, self.local_bytes = layout([v for v in kernel.vars if v.space == "local"])
        self.param_offsets, off = {}, 0
        for p in kernel.params:
            a = p.align or ptxtypes.size(p.type)
            off = align_up(off, a)
            self.param_offsets[p.name] = off
            off += p.size
        self.param_bytes = max(off, 8)
        self.globals = {v.name: v for v in globals_}
        self.const_offsets, self.const_bytes = layout([v for v in globals_ if v.space == "const"])
        self.rpc = reconvergence_points(kernel)
        self.targets = {i: kernel.labels.get(ins.operands[-1].name) for i, ins in enumerate(kernel.body)
                        if ins.opcode == "bra"}
        for i, t in self.targets.items():
            if t is None:
                raise KernelError(f"branch to undefined label {kernel.body[i].operands[-1].name}",
                                  kernel.name, instruction=kernel.body[i].text(), loc=kernel.body[i].loc)
        self.ops = [Op(ins, i, self) for i, ins in enumerate(kernel.body)]
        if uses_carry:
            for op in self.ops:
                if carry.uses_carry(op.ins):
                    carry.attach(op)
        #: pcs holding an unconditional exit/ret: lanes reconverging there have finished
        self.exits = {i for i, ins in enumerate(kernel.body) if ins.opcode in ("exit", "ret") and ins.guard is None}
        #: where dynamic shared memory starts: at the extern arrays (aligned), else after static variables
        self.dynamic_base = max((self.shared_offsets[v.name] for v in kernel.shared_vars() if v.extern),
                                default=align_up(self.static_shared, 16))

    def reg_id(self, name: str) -> int:
        try:
            return self.reg_index[name]
        except KeyError:
            raise KernelError(f"register {name} is not declared", self.kernel.name) from None

    def reg_dtype(self, rid: int) -> np.dtype:
        return self.reg_dtypes[rid]

    def symbol_address(self, name: str, ins: Instruction) -> int:
        """Address of a shared, local, param or const variable named in an instruction, in its own state
        space. (A module ``.global`` variable's address is the launch's: :meth:`isa.engine.Batch.
        symbol_address`.)"""
        for table in (self.shared_offsets, self.local_offsets, self.param_offsets, self.const_offsets):
            if name in table:
                return table[name]
        raise KernelError(f"unknown symbol {name}", self.kernel.name, instruction=ins.text(), loc=ins.loc)


def _dims(value, what: str, limits) -> tuple:
    dims = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, (int, np.integer)) for d in dims):
        raise KernelError(f"invalid launch: {what} must be an int or a tuple of 1-3 ints, got {value!r}")
    dims = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    for axis, d, lim in zip("xyz", dims, limits):
        if d < 1:
            raise KernelError(f"invalid launch: {what}.{axis} = {d}; dimensions must be at least 1")
        if d > lim:
            raise KernelError(f"invalid launch: {what}.{axis} = {d} exceeds the maximum {lim}")
    return dims


def _pack_params(args, kernel: Kernel) -> tuple:
    """Check ``args`` against the parameters: ``(arrays, slots)``, the distinct arrays to allocate and, per
    parameter, ``("array", allocation index)`` or ``("scalar", typed value)``."""
    params = kernel.params
    if len(args) != len(params):
        names = ", ".join(p.name for p in params)
        raise KernelError(f"invalid launch: {len(params)} argument(s) expected ({names}), got {len(args)}",
                          kernel.name)
    arrays, slots = [], []
    for i, (p, a) in enumerate(zip(params, args)):
        if isinstance(a, np.ndarray):
            if p.type not in ("u64", "s64", "b64"):
                raise KernelError(f"invalid launch: argument {i} ({p.name}) is .{p.type}: pass a scalar, "
                                  f"not an array", kernel.name)
            for other in arrays:
                if other is not a and np.shares_memory(other, a):
                    raise KernelError(f"invalid launch: argument {i} ({p.name}) overlaps another array "
                                      f"argument; pass the same array object or separate arrays", kernel.name)
            k = next((j for j, other in enumerate(arrays) if other is a), None)
            if k is None:
                arrays.append(a)
                k = len(arrays) - 1
            slots.append(("array", k))
        else:
            slots.append(("scalar", _scalar(p, a, i, kernel)))
    return arrays, slots


def _scalar(p, a, i: int, kernel: Kernel):
    if p.count:
        raise KernelError(f"invalid launch: argument {i} ({p.name}) is a byte array parameter; "
                          f"not supported", kernel.name)
    dt = ptxtypes.DTYPES[p.type]
    if isinstance(a, (bool, np.bool_)):
        a = int(a)
    if dt.kind == "f":
        if not isinstance(a, (int, float, np.integer, np.floating)):
            raise KernelError(f"invalid launch: argument {i} ({p.name}) is .{p.type}: expected a number, "
                              f"got {type(a).__name__}", kernel.name)
        return np.array([a], dt)
    if not isinstance(a, (int, np.integer)):
        raise KernelError(f"invalid launch: argument {i} ({p.name}) is .{p.type}: expected an integer, "
                          f"got {type(a).__name__} {a!r}", kernel.name)
    bits = 8 * dt.itemsize
    untyped = p.type.startswith("b")           # .b32 takes either signed or unsigned values
    lo = -(1 << (bits - 1)) if dt.kind == "i" or untyped else 0
    hi = (1 << (bits - 1)) - 1 if dt.kind == "i" else (1 << bits) - 1
    if not lo <= int(a) <= hi:
        raise KernelError(f"invalid launch: argument {i} ({p.name}) = {a} does not fit in .{p.type}",
                          kernel.name)
    return np.array([int(a) & ((1 << bits) - 1)], ptxtypes.BITS[dt.itemsize]).view(dt)


def _const_buffer(prog: Program, globals_) -> np.ndarray:
    buf = np.zeros(max(align_up(prog.const_bytes, 8), 8), np.uint8)
    for v in globals_:
        if v.space == "const" and v.init:
            data = np.array(v.init, ptxtypes.DTYPES[v.type]).tobytes()
            off = prog.const_offsets[v.name]
            buf[off:off + len(data)] = np.frombuffer(data, np.uint8)[: v.size]
    return buf


_cache: dict = {}


def prepare(kernel: Kernel) -> Program:
    """Decode ``kernel`` once (cached per kernel object)."""
    hit = _cache.get(id(kernel))
    if hit is None or hit[0] is not kernel:
        hit = (kernel, Program(kernel))
        _cache[id(kernel)] = hit
    return hit[1]


def run(kernel: Kernel, grid: int | tuple, block: int | tuple, args: Sequence = (), shared_bytes: int = 0, *,
        max_instructions: int = MAX_INSTRUCTIONS, max_shared_bytes: int = MAX_SHARED_BYTES,
        counters: bool = False) -> dict:
    """Run ``kernel`` over the whole grid; arrays in ``args`` receive the results.

    ``grid``/``block``: an int or a tuple of up to 3 ints. ``args``: numpy arrays for pointer parameters
    (copied into device memory and back), Python or numpy scalars for the others. ``shared_bytes``:
    dynamic shared memory per block. ``max_instructions``: the most warp-instructions one warp may execute
    before the run stops as a runaway. Returns counts: ``{"warp_instructions": ..., "issued_instructions":
    ..., "blocks": ...}`` (PTX warp-instructions executed, and the SASS-equivalent issue slots of
    :mod:`isa.cost`), and
    with ``counters=True`` also ``"counters"``: global load/store requests and 32-byte sectors
    (``requests_ld``, ``sectors_ld``, ``requests_st``, ``sectors_st``; atomics are not loads or stores).
    """
    launch = Launch(kernel, grid, block, args, shared_bytes, max_instructions=max_instructions,
                    max_shared_bytes=max_shared_bytes, counters=counters)
    counts = launch.run_blocks(range(launch.nblocks))
    launch.finish()
    if counters:
        counts["counters"] = launch.tally
    return counts


class Launch:
    """A checked launch with its device memory, run in parts: :meth:`run_blocks` runs blocks functionally,
    :meth:`block` gives one block's state for a caller that steps its warps itself (the timing model), and
    :meth:`finish` copies the results back into the caller's arrays."""

    def __init__(self, kernel: Kernel, grid: int | tuple, block: int | tuple, args: Sequence = (),
                 shared_bytes: int = 0, *,
                 max_instructions: int = MAX_INSTRUCTIONS, max_shared_bytes: int = MAX_SHARED_BYTES,
                 counters: bool = False):
        if not isinstance(kernel, Kernel):
            raise KernelError(f"isa.run expects a Kernel (module[name] or module.find(part)), got "
                              f"{type(kernel).__name__}")
        self.grid3 = _dims(grid, "grid", MAX_GRID_DIMS)
        self.block3 = _dims(block, "block", MAX_BLOCK_DIMS)
        tpb = self.block3[0] * self.block3[1] * self.block3[2]
        if tpb > MAX_THREADS_PER_BLOCK:
            raise KernelError(f"invalid launch: {tpb} threads per block exceeds the maximum "
                              f"{MAX_THREADS_PER_BLOCK}", kernel.name)
        self.nblocks = self.grid3[0] * self.grid3[1] * self.grid3[2]
        self.threads_per_block = tpb
        self.prog = prog = prepare(kernel)
        if shared_bytes < 0:
            raise KernelError(f"invalid launch: shared_bytes = {shared_bytes} is negative", kernel.name)
        total_shared = prog.dynamic_base + shared_bytes if shared_bytes else prog.static_shared
        if total_shared > max_shared_bytes:
            raise KernelError(f"invalid launch: {total_shared} bytes of shared memory per block "
                              f"({prog.static_shared} static, {shared_bytes} dynamic, with alignment) exceed the "
                              f"limit of {max_shared_bytes}", kernel.name)
        self.shared_total, self.dynamic, self.budget = total_shared, shared_bytes, max_instructions
        self.arrays, slots = _pack_params(tuple(args), kernel)
        self.tally = {"requests_ld": 0, "sectors_ld": 0, "requests_st": 0, "sectors_st": 0} if counters else None
        self.gmem, self.params = self._memory(kernel, slots)
        self.const = _const_buffer(prog, prog.module_vars)

    def _memory(self, kernel, slots) -> tuple:
        prog, arrays = self.prog, self.arrays
        gvars = [v for v in prog.module_vars if v.space == "global"]
        gmem = GlobalMemory([a.nbytes for a in arrays] + [v.size for v in gvars], self.tally)
        for k, a in enumerate(arrays):
            gmem.write(k, np.ascontiguousarray(a).tobytes())
        #: module ``.global`` variables: name -> device address in this launch's memory
        self.global_addresses = {v.name: gmem.address(len(arrays) + j) for j, v in enumerate(gvars)}
        for j, v in enumerate(gvars):
            if v.init:
                gmem.write(len(arrays) + j, np.array(v.init, ptxtypes.DTYPES[v.type]).tobytes()[: v.size])
        params = np.zeros(align_up(prog.param_bytes, 8), np.uint8)
        for p, (kind, val) in zip(kernel.params, slots):
            data = np.array([gmem.address(val)], np.uint64) if kind == "array" else val
            raw = np.frombuffer(data.tobytes(), np.uint8)
            off = prog.param_offsets[p.name]
            params[off:off + raw.size] = raw
        return gmem, params

    def batch(self, first: int | Sequence[int], count: int = 1, log: TraceLog | None = None) -> Batch:
        """The state of blocks ``first .. first+count-1`` (or, ``first`` a sequence, of those block indices),
        ready to run together; ``log`` (a :class:`isa.engine.TraceLog`) records what it executes."""
        ids = np.arange(first, first + count) if isinstance(first, (int, np.integer)) else first
        return Batch(self.prog, self.grid3, self.block3, ids, self.shared_total, self.dynamic,
                     self.gmem, self.const, self.params, self.budget, self.global_addresses, log)

    def run_blocks(self, blocks: Iterable[int]) -> dict:
        """Run ``blocks`` (ascending block indices) functionally, consecutive ones batched together."""
        lanes_per_block = align_up(self.threads_per_block, 32)
        per_batch = max(1, BATCH_LANES // lanes_per_block)
        total = issued = n = 0
        for first, count in _runs(list(blocks), per_batch):
            batch = self.batch(first, count)
            total += batch.run()
            issued += batch.issued
            n += count
        return {"warp_instructions": total, "issued_instructions": issued, "blocks": n}

    def finish(self) -> None:
        """Copy device memory back into the caller's arrays."""
        for k, a in enumerate(self.arrays):
            result = np.frombuffer(self.gmem.read(k), a.dtype).reshape(a.shape)
            np.copyto(a, result)


def _runs(blocks: list, limit: int):
    """(first, count) runs of consecutive indices in ``blocks``, each at most ``limit`` long."""
    i = 0
    while i < len(blocks):
        j = i + 1
        while j < len(blocks) and j - i < limit and blocks[j] == blocks[j - 1] + 1:
            j += 1
        yield blocks[i], j - i
        i = j
