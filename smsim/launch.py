"""``smsim.compile`` and ``smsim.launch``: the stable entry points.

Life of a launch: :func:`launch` takes a kernel (an ``smsim.cuda.jit``/``numba.cuda.jit`` kernel, a plain
Python function, or an :class:`isa.Kernel` from PTX text), compiles Python kernels for the launch
arguments' types (:func:`compile`, cached per type signature on the kernel), flattens the arguments into
the compiled kernel's parameters (an array becomes its data pointer plus the shape values the kernel
reads) and runs the grid. ``timing=False`` runs it on the functional interpreter (:func:`isa.run`); the
results are written back into the numpy arrays either way.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import isa
from isa.errors import CompileError


@dataclass
class LaunchResult:
    """What a launch returns. Functional runs (``timing=False``) fill the counts only:
    ``warp_instructions`` (PTX instructions executed, summed over warps), ``issued_instructions`` (the
    SASS-equivalent issue slots of :mod:`isa.cost`, comparable to Nsight's ``smsp__inst_executed.sum``)
    and ``counters`` (global load/store requests and sectors)."""
    kernel: isa.Kernel = field(repr=False)
    grid: tuple
    block: tuple
    warp_instructions: int
    blocks: int
    issued_instructions: int = 0
    counters: dict = field(default_factory=dict)

    @property
    def registers_per_thread(self) -> int:
        return self.kernel.registers_per_thread()


def compile(kernel, args) -> isa.Kernel:  # noqa: A001 - the public name the API promises
    """The ISA kernel for ``kernel`` called with ``args`` (numpy arrays and scalars; only their types
    matter), annotated with the Python source line of each instruction. Cached per argument-type
    signature."""
    if isinstance(kernel, isa.Kernel):
        return kernel
    return _compiled(kernel, args)[0]


def _compiled(kernel, args):
    from isa.compiler import compile_kernel, signature_of
    sig = signature_of(args)
    cache = getattr(kernel, "compiled", None)
    if cache is None:
        cache = _plain_cache.setdefault(kernel, {})
    if sig not in cache:
        cache[sig] = compile_kernel(kernel, sig)
    return cache[sig]


_plain_cache: dict = {}


def launch(kernel, grid, block, args=(), shared_bytes: int = 0, timing: bool = False, *,
           counters: bool = True, max_instructions: int = isa.interp.MAX_INSTRUCTIONS) -> LaunchResult:
    """Run ``kernel`` over ``grid`` x ``block`` threads with ``args``; arrays receive the results.

    ``timing=False`` runs functionally (the timing model arrives in a later release, behind this same
    call). ``counters`` also counts global-memory requests and 32-byte sectors per load/store kind.
    """
    if timing:
        raise NotImplementedError("the timing model is not part of this release; use timing=False")
    args = tuple(args)
    if isinstance(kernel, isa.Kernel):
        compiled, flat = kernel, args
    else:
        compiled, flatten = _compiled(kernel, args)
        flat = flatten(args)
    out = isa.run(compiled, grid, block, flat, shared_bytes, max_instructions=max_instructions,
                  counters=counters)
    return LaunchResult(compiled, _dims(grid), _dims(block), out["warp_instructions"], out["blocks"],
                        out["issued_instructions"], out.get("counters", {}))


def _dims(d) -> tuple:
    d = (d,) if isinstance(d, int) else tuple(d)
    return d + (1,) * (3 - len(d))


__all__ = ["launch", "compile", "LaunchResult", "CompileError"]
