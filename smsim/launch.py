"""``smsim.compile`` and ``smsim.launch``: the stable entry points.

Life of a launch: :func:`launch` takes a kernel (an ``smsim.cuda.jit``/``numba.cuda.jit`` kernel, a plain
Python function, or an :class:`isa.Kernel` from PTX text), compiles Python kernels for the launch
arguments' types (:func:`compile`, cached per type signature on the kernel; ``compiler="numba"`` has
numba-cuda compile it instead, :mod:`smsim.numba_front`), flattens the arguments into
the compiled kernel's parameters (an array becomes its data pointer plus the shape values the kernel
reads) and runs the grid. ``timing=True`` (the default) times it on the SM model of a config
(:func:`smsim.single_sm.simulate`): each block runs on the functional interpreter when it is dispatched,
and its warps' recorded instruction streams are then replayed against the SM's clock; ``timing=False``
runs it on the functional interpreter (:func:`isa.run`) only. The results are written back into the numpy
arrays either way, and they are the same. ``timeline=True`` also records each warp's state over time and each memory
transfer (``res.timeline``); ``res.plot_*()`` draw the result (:mod:`smsim.plots`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence


import isa
from isa.errors import CompileError, KernelError

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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

    config: object = field(default=None, repr=False)
    #: timed launches only: SM cycles, stall warp-cycles by reason, the flat metrics dict (Nsight names),
    #: the occupancy (:class:`smsim.occupancy.Occupancy`) and per-ISA-instruction counters
    cycles: float = 0.0
    stalls: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    occupancy: object = None
    instructions: list = field(default_factory=list, repr=False)
    blocks_timed: int = 0
    #: ``launch(..., timeline=True)`` only: ``{"warps": {"slot", "block", "warp", "start", "end", "state"}
    #: arrays (state: index into :data:`smsim.warp.REASONS`), "transfers": {"l1"|"l2"|"dram": {"t", "bytes"}}}``
    timeline: dict | None = field(default=None, repr=False)
    #: True when Ctrl-C stopped the simulation: the figures cover what was simulated until then
    partial: bool = False

    #: registers per thread the occupancy used (``registers=``, ptxas's allocation when SASS was timed, else
    #: the PTX's liveness estimate); None: not timed
    registers: int | None = None

    @property
    def registers_per_thread(self) -> int:
        return self.registers if self.registers is not None else self.kernel.registers_per_thread()

    @property
    def timed(self) -> bool:
        return self.config is not None

    @property
    def lines(self) -> dict:
        """Per Python source line: executions, issue slots, stall cycles by reason, sectors, wavefronts and
        bank conflicts."""
        from .stats import per_line
        return per_line(self.instructions)

    def stalls_per_instruction(self) -> dict:
        """Warp-cycles per issued instruction, per reason (Nsight's WarpStateStats section)."""
        n = max(self.issued_instructions, 1)
        return {r: v / n for r, v in self.stalls.items()}

    def report(self) -> str:
        """The result for a person: summary, memory, shared memory, stalls, hottest lines."""
        from .report import render
        return render(self)

    def plot_stalls(self) -> Figure:
        """Figure: warp-cycles per issued instruction by reason (:func:`smsim.plots.stall_breakdown`)."""
        from . import plots
        return plots.stall_breakdown(self)

    def plot_timeline(self, max_warps: int = 64) -> Figure:
        """Figure: each warp's state over cycles (:func:`smsim.plots.warp_timeline`; needs ``timeline=True``)."""
        from . import plots
        return plots.warp_timeline(self, max_warps)

    def plot_bandwidth(self, bins: int = 100) -> Figure:
        """Figure: bytes per cycle of L1, L2 and DRAM over time (:func:`smsim.plots.bandwidth_over_time`)."""
        from . import plots
        return plots.bandwidth_over_time(self, bins)

    def plot_lines(self) -> Figure:
        """Figure: sectors and bank conflicts per source line (:func:`smsim.plots.lines`)."""
        from . import plots
        return plots.lines(self)

    def to_dict(self) -> dict:
        from .report import to_dict
        return to_dict(self)

    def to_json(self, path: str | os.PathLike | None = None, indent: int = 1) -> str:
        """JSON of :meth:`to_dict`; also written to ``path`` when given."""
        import json
        text = json.dumps(self.to_dict(), indent=indent, sort_keys=True)
        if path is not None:
            with open(path, "w") as f:
                f.write(text)
        return text


#: the compilers a Python kernel can be compiled with: smsim's own (:mod:`isa.compiler`), numba-cuda's NVVM
#: (:mod:`smsim.numba_front`), or "auto": numba's where numba-cuda is installed and accepts the kernel (the
#: PTX a GPU would run, and the closer to an H200's time: docs/timing_model.md), else smsim's
COMPILERS = ("auto", "smsim", "numba")


def compile(kernel: Any, args: Sequence, compiler: str = "auto") -> isa.Kernel:  # noqa: A001 - the public name
    """The ISA kernel for ``kernel`` called with ``args`` (numpy arrays and scalars; only their types
    matter), annotated with the Python source line of each instruction. Cached per argument-type
    signature. ``compiler``: ``"smsim"`` (its own compiler), ``"numba"`` (numba-cuda's PTX) or ``"auto"``
    (:data:`COMPILERS`)."""
    _check_compiler(compiler)
    if isinstance(kernel, isa.Kernel):
        return kernel
    return _compiled(kernel, args, compiler)[0]


def _check_compiler(compiler: str) -> None:
    if compiler not in COMPILERS:
        raise ValueError(f"compiler={compiler!r}: use one of {', '.join(repr(c) for c in COMPILERS)}")


def _compiled(kernel, args, compiler: str = "auto"):
    """``(isa.Kernel, flatten)`` of a Python kernel for ``args``' types, cached on the kernel (an smsim
    dispatcher's ``compiled``) per (compiler, signature). ``"auto"``: numba's when numba-cuda is installed and
    compiles the kernel, else smsim's (whose errors name the Python line)."""
    from . import numba_front
    cache = getattr(kernel, "compiled", None)
    if cache is None:
        cache = _plain_cache.setdefault(kernel, {})
    if compiler == "numba" or (compiler == "auto" and numba_front.available()):
        key: tuple | None = None
        try:
            key = ("numba", numba_front.signature_of(args))
            if key not in cache:
                cache[key] = numba_front.compile_kernel(kernel, args)
            if cache[key] is not None:
                return cache[key]
        except (CompileError, KernelError, ImportError):
            if compiler == "numba":
                raise
            if key is not None:
                cache[key] = None             # numba cannot: smsim's compiler, from now on
    from isa.compiler import compile_kernel, signature_of
    sig = signature_of(args)
    key = ("smsim", sig)
    if key not in cache:
        cache[key] = compile_kernel(kernel, sig)
    return cache[key]


_plain_cache: dict = {}


def launch(kernel: Any, grid: int | tuple, block: int | tuple, args: Sequence = (), shared_bytes: int = 0,
           timing: bool = True, *, config: Any = "h100", overrides: dict | None = None, blocks: str | int = "share",
           complete: bool = True, registers: int | None = None, counters: bool = True, timeline: bool = False,
           progress: Callable[[int, int, float], None] | None = None,
           max_instructions: int = isa.interp.MAX_INSTRUCTIONS, compiler: str = "auto") -> LaunchResult:
    """Run ``kernel`` over ``grid`` x ``block`` threads with ``args``; arrays receive the results.

    ``timing=True``: time it on ``config`` (a preset name such as ``"h100"``, a TOML path or a
    :class:`smsim.config.Config`; ``overrides`` like ``{"l1.size_bytes": 65536}``). ``blocks="share"``
    times the blocks one SM would run, ``"all"`` the whole grid on one SM, ``N`` the first N; the other
    blocks run functionally unless ``complete=False`` (then only the timed blocks and, with
    ``l2.sharing = "neighbours"``, their grid neighbours run). ``registers``: registers per thread for the
    occupancy (as ``-maxrregcount`` or ptxas would give), instead of the estimate from the kernel's liveness.
    ``timing=False``: functional only; ``counters`` then also counts global-memory requests and 32-byte
    sectors per load/store kind. ``timeline=True`` (timed only) records ``res.timeline`` for
    :meth:`LaunchResult.plot_timeline` and :meth:`LaunchResult.plot_bandwidth`. ``progress(blocks done,
    blocks to time, cycle)`` is called as the simulation goes; Ctrl-C stops it with a partial result.
    ``compiler``: how a Python kernel becomes PTX: ``"smsim"`` (smsim's compiler), ``"numba"``
    (numba-cuda's NVVM on the CPU, :mod:`smsim.numba_front`; needs ``pip install 'smsim[numba]'``) or
    ``"auto"`` (numba's where installed and it accepts the kernel, else smsim's).
    """
    _check_compiler(compiler)
    args = tuple(args)
    if isinstance(kernel, isa.Kernel):
        compiled, flat = kernel, args
    else:
        compiled, flatten = _compiled(kernel, args, compiler)
        flat = flatten(args)
    if not timing:
        out = isa.run(compiled, grid, block, flat, shared_bytes, max_instructions=max_instructions,
                      counters=counters)
        return LaunchResult(compiled, _dims(grid), _dims(block), out["warp_instructions"], out["blocks"],
                            out["issued_instructions"], out.get("counters", {}))
    from . import config as config_mod
    from .single_sm import simulate, timed_blocks
    cfg = config_mod.load(config, overrides)
    try:
        timed_blocks(blocks, 1, 1)
    except ValueError as e:
        raise KernelError(f"invalid launch: {e}") from None
    run = isa.interp.Launch(compiled, grid, block, flat, shared_bytes, max_instructions=max_instructions,
                            max_shared_bytes=cfg.sm.max_shared_per_block_bytes)
    timed = simulate(run, cfg, blocks, complete, registers, timeline, progress)
    run.finish()
    m = timed.metrics
    counts = {"requests_ld": m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"],
              "sectors_ld": m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
              "requests_st": m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"],
              "sectors_st": m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]}
    return LaunchResult(compiled, run.grid3, run.block3, timed.warp_instructions, run.nblocks, timed.issued,
                        counts, cfg, timed.cycles, timed.stalls, m, timed.occupancy, timed.instructions,
                        timed.blocks_timed, timed.timeline, timed.partial, timed.registers)


def _dims(d) -> tuple:
    d = (d,) if isinstance(d, int) else tuple(d)
    return d + (1,) * (3 - len(d))


__all__ = ["launch", "compile", "LaunchResult", "CompileError"]
