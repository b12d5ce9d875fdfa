"""From what a user names on the command line to launches: targets, cases, sizes and sweeps.

Life of a command-line launch: ``smsim run TARGET`` names a built-in workload (a family such as
``transpose``: all its cases; or one case, ``transpose.naive``), a Python file that declares ``CASES`` as
the workload modules do (a list of :class:`smsim.Case`), or a PTX file (one kernel, launched with
arguments made up from its parameters: :func:`ptx_cases`). :func:`resolve` turns it into cases;
:func:`launch_case` sets a case up at a size (``test``, ``full`` or a number), launches it on a config with
``--set`` overrides, checks the outputs against the case's numpy reference and returns the result.

A sweep (:func:`points`, :func:`sweep_row`) is the cartesian product of ``--vary`` axes over the cases:
``warps_per_sm`` (resident warps per SM, limited the way microbenchmarks do it: dynamic shared memory per
block that leaves room for only so many blocks), ``block`` (threads per block of a 1-D launch, the grid
resized to keep the threads), ``registers`` (per thread, as ``-maxrregcount``), ``smem`` (extra dynamic
shared bytes per block), ``config`` (a preset or TOML path) and any config key (``l1.size_bytes``). Each
point is one launch, independent of the others, so sweeps run in worker processes; a row holds plain
values only (what a worker can send back).

Mistakes a user can make here raise :class:`UsageError` (the command line prints its message).
"""
from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import sys
from typing import Any, Sequence

import numpy as np

from workloads import case as cases

from .case import Case


class UsageError(ValueError):
    """A bad target, case, size or sweep axis, with a message for the person who typed it."""


# --------------------------------------------------------------------------------------------- targets
def resolve(target: str, case: str | None = None, kernel: str | None = None, ptx: dict | None = None) -> list:
    """The cases ``target`` names (see the module docstring); ``case``/``kernel`` select among them."""
    if target.endswith(".ptx"):
        found = ptx_cases(target, kernel, **(ptx or {}))
    elif target.endswith(".py"):
        found = _file_cases(target)
    else:
        found = _builtin(target)
    if case is not None:
        found = [c for c in found if c.name == case or c.id == case]
        if not found:
            raise UsageError(f"{target}: no case {case!r}; try `smsim list`")
    if kernel is not None and not target.endswith(".ptx"):
        found = [c for c in found if kernel in getattr(c.kernel, "__name__", "")]
        if not found:
            raise UsageError(f"{target}: no case whose kernel name contains {kernel!r}")
    return found


def _builtin(target: str) -> list:
    fam, _, name = target.partition(".")
    if fam not in cases.FAMILIES:
        hint = " (a file? it must end in .py or .ptx)" if os.sep in target else ""
        raise UsageError(f"unknown workload {target!r}{hint}; workloads: {', '.join(cases.FAMILIES)} "
                         f"(`smsim list` shows their cases)")
    if not name:
        return cases.family(fam)
    try:
        return [cases.get(target)]
    except KeyError as e:
        raise UsageError(e.args[0]) from None


def _file_cases(path: str) -> list:
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    full = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    try:
        if os.path.dirname(full) == os.path.dirname(os.path.abspath(cases.__file__)):
            module = importlib.import_module(f"workloads.{stem}")     # a built-in family, named by its file
        else:
            module = _import_file(full, "smsim_user_" + stem.replace("-", "_"))
    except SyntaxError as e:
        raise UsageError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    except Exception as e:          # noqa: BLE001 - the user's module failed: say where, not a traceback
        tb = e.__traceback__
        line = None
        while tb is not None:
            if os.path.abspath(tb.tb_frame.f_code.co_filename) == full:
                line = tb.tb_lineno
            tb = tb.tb_next
        where = f"{path}:{line}" if line else path
        raise UsageError(f"{where}: importing it failed: {type(e).__name__}: {e}") from None
    found = getattr(module, "CASES", None)
    if not found or not all(isinstance(c, Case) for c in found):
        raise UsageError(f"{path}: declares no cases; define CASES = [smsim.Case(...), ...] as the "
                         f"modules in workloads/ do (see docs/labs/README.md)")
    return list(found)


def _import_file(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def ptx_cases(path: str, kernel: str | None = None, grid: int | None = None, block: int = 256) -> list:
    """One case per selected kernel of a PTX file. Its launch at size ``n`` (``test`` 4096, ``full`` 2**20,
    or a number): ``block`` threads per block, ``grid`` blocks (default: enough for ``n`` threads); each
    64-bit parameter is taken for a pointer and gets a float32 array of ``n`` elements (random in [0, 1)),
    each 32-bit integer parameter ``n``, each float parameter 1.0. Nothing is checked: there is no
    reference to check against."""
    import isa
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    with open(path) as f:
        module = isa.parse(f.read())
    kernels = [k for k in module if kernel is None or kernel in k.name]
    if not kernels:
        raise UsageError(f"{path}: no kernel{' matching ' + repr(kernel) if kernel else ''}; kernels: "
                         f"{', '.join(k.name for k in module)}")

    def build(k):
        def setup(size, rng):
            count = int(size)
            args = tuple(_ptx_arg(p, count, rng) for p in k.params)
            g = grid if grid is not None else max(1, -(-count // block))
            return cases.Setup((g,), (block,), args, {})
        return setup
    sizes = {"test": 4096, "full": 1 << 20}
    return [cases.Case("ptx", k.name, k, build(k), sizes=sizes, description=f"from {path}") for k in kernels]


def _ptx_arg(param, n: int, rng):
    t = param.type
    if param.ptr or t in ("u64", "b64", "s64"):
        return rng.random(n).astype(np.float32)
    if t.startswith("f"):
        return np.float32(1.0) if t == "f32" else np.float64(1.0)
    return np.dtype({"u32": np.uint32, "b32": np.uint32}.get(t, np.int32)).type(n)


def size_of(text: str) -> str | int:
    """``test``, ``full`` or a positive int, from the command line."""
    if text in ("test", "full"):
        return text
    try:
        n = int(text)
    except ValueError:
        raise UsageError(f"--size {text!r}: use test, full or a positive number") from None
    if n < 1:
        raise UsageError(f"--size {text!r}: must be positive")
    return n


def parse_sets(items: Sequence[str] | None) -> dict:
    """``["l1.size_bytes=65536", ...]`` -> overrides (numbers and booleans parsed, else strings)."""
    out = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"--set {item!r}: expected KEY=VALUE, e.g. --set l1.size_bytes=65536")
        out[key.strip()] = _value(value.strip())
    return out


def _value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        with contextlib.suppress(ValueError):
            return conv(text)
    return text


# --------------------------------------------------------------------------------------------- launches
def launch_case(case: Case, size: str | int = "test", config: Any = "h100", overrides: dict | None = None,
                blocks: str | int = "share", seed: int = 0, registers: int | None = None, extra_shared: int = 0,
                block: int | None = None, check: bool = True, **options: Any) -> tuple:
    """Set ``case`` up, launch it timed and check its outputs; ``(setup, result)``."""
    import smsim
    s = case.setup(size, seed)
    grid, blk = s.grid, s.block
    if block is not None:
        grid, blk = _reshape(case, s, block)
    kernel = case.kernel.load() if isinstance(case.kernel, cases.PtxKernel) else case.kernel
    res = smsim.launch(kernel, grid, blk, s.args, shared_bytes=s.shared_bytes + extra_shared, config=config,
                       overrides=overrides, blocks=blocks, registers=registers, **options)
    if check and s.expected and (options.get("complete", True)):
        try:
            cases.check(s, case.id)
        except AssertionError as e:
            raise UsageError(f"{case.id}: wrong outputs{' with block=' + str(block) if block else ''}: {e}") from None
    return s, res


def _reshape(case, s, block: int) -> tuple:
    grid, blk = tuple(s.grid) + (1,) * (3 - len(s.grid)), tuple(s.block) + (1,) * (3 - len(s.block))
    if grid[1:] != (1, 1) or blk[1:] != (1, 1):
        raise UsageError(f"{case.id}: block= varies 1-D launches only (this one is {grid} x {blk})")
    threads = grid[0] * blk[0]
    return (max(1, -(-threads // block)),), (block,)


# --------------------------------------------------------------------------------------------- sweeps
LAUNCH_AXES = ("warps_per_sm", "block", "registers", "smem", "config")


def parse_vary(items: Sequence[str] | None) -> dict:
    """``["warps_per_sm=4..64", "block=64,128"]`` -> ``{axis: [values]}``. ``a..b`` doubles from a to b;
    ``a..b:s`` steps by s; ``x,y,z`` lists."""
    axes = {}
    for item in items or ():
        key, eq, spec = item.partition("=")
        if not eq or not spec:
            raise UsageError(f"--vary {item!r}: expected AXIS=VALUES, e.g. warps_per_sm=4..64 or block=64,128,256")
        axes[key.strip()] = _values(key.strip(), spec.strip())
    return axes


def _values(key: str, spec: str) -> list:
    if ".." in spec:
        lo, _, rest = spec.partition("..")
        hi, _, step = rest.partition(":")
        try:
            a, b, s = int(lo), int(hi), int(step) if step else 0
        except ValueError:
            raise UsageError(f"--vary {key}={spec}: a range is INT..INT or INT..INT:STEP") from None
        if a < 1 or b < a or (step and s < 1):
            raise UsageError(f"--vary {key}={spec}: need 1 <= start <= end and a positive step")
        out, v = [], a
        while v <= b:
            out.append(v)
            v = v + s if s else v * 2
        return out
    return [_value(v.strip()) for v in spec.split(",") if v.strip()]


def points(axes: dict) -> list:
    """Every combination of the axes' values, as dicts."""
    keys = list(axes)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(axes[k] for k in keys))]


def shared_for_warps(case: Case, size: str | int, config: Any, overrides: dict | None, warps: int,
                     registers: int | None = None) -> int:
    """Extra dynamic shared bytes per block that leave room for ``warps // warps_per_block`` blocks per SM."""
    from . import config as config_mod
    from .occupancy import occupancy
    cfg = config_mod.load(config, overrides)
    s = case.setup(size, 0)
    threads = int(np.prod(s.block))
    per_block = -(-threads // 32)
    want = max(1, warps // per_block)
    regs = registers or 32
    if occupancy(cfg.sm, threads, regs, s.shared_bytes).blocks_per_sm <= want:
        return 0
    lo, hi = 0, cfg.sm.max_shared_per_block_bytes - s.shared_bytes
    while lo < hi:                       # the least extra that brings the blocks per SM down to ``want``
        mid = (lo + hi) // 2
        if occupancy(cfg.sm, threads, regs, s.shared_bytes + mid).blocks_per_sm <= want:
            hi = mid
        else:
            lo = mid + 1
    return lo


def sweep_row(task: tuple) -> dict:
    """Run one sweep point (in a worker): ``(target, case name, size, config, sets, blocks, point)``."""
    target, name, size, config, sets, blocks, point, ptx = task
    case = resolve(target, name, ptx=ptx)[0]
    overrides = dict(sets)
    overrides.update({k: v for k, v in point.items() if k not in LAUNCH_AXES})
    config = point.get("config", config)
    registers = point.get("registers")
    extra = int(point.get("smem", 0))
    if "warps_per_sm" in point:
        extra += shared_for_warps(case, size, config, overrides, int(point["warps_per_sm"]), registers)
    _, res = launch_case(case, size, config, overrides, blocks, registers=registers, extra_shared=extra,
                         block=point.get("block"), check=False, complete=False)
    return row_of(case.id, point, res)


def row_of(case_id: str, point: dict, res: Any) -> dict:
    """The plain figures of one result that sweep tables, CSVs and plots show."""
    from .report import stall_rows
    m, occ = res.metrics, res.occupancy
    busy = min(res.config.gpu.num_sms, res.blocks)
    top = next((r[0] for r in stall_rows(res) if r[0] != "selected"), "-")
    req = m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    return {"case": case_id, **point,
            "warps_per_sm_theoretical": occ.warps_per_sm, "limiter": occ.limiter,
            "achieved_occupancy_pct": m["sm__warps_active.avg.pct_of_peak_sustained_active"],
            "cycles": res.cycles, "time_us": m["gpu__time_duration.sum"] / 1e3,
            "dram_gbps": m["smsim.dram.gbps"] * busy, "l2_gbps": m["smsim.l2.gbps"] * busy,
            "sectors_per_request_ld": m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / req if req else 0.0,
            "bank_conflicts": m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
            + m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"],
            "ipc": m["sm__inst_executed.avg.per_cycle_elapsed"], "top_stall": top}
