"""GPU models: TOML files in ``configs/`` loaded into a frozen dataclass tree.

Life of a config: :func:`load` takes a preset name (``"h100"``, a file in the ``configs`` package), a path
to a TOML file, or a :class:`Config`; the TOML tables become the sections below, each key checked against
the section's fields (an unknown or missing key, or a value of the wrong type or out of range, is a
:class:`ConfigError` naming the file and the dotted key); ``overrides`` (``{"l1.size_bytes": 65536}``,
as ``--set`` gives them) replace values before the checks, which also reject values of different sections
that contradict each other (L1 and L2 sector sizes that differ, say). The names that choose a part of the
model (``scheduler.policy``, ``l1.model`` ...) are checked against :mod:`smsim.registry`. The result is
immutable: the timing model's components take their section as their spec.

Every value in a preset cites its source in a comment (datasheet, paper, or a measurement in
``shared/hardware``); ``docs/configs.md`` tells how each was chosen.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, fields, is_dataclass
from importlib import resources
from pathlib import Path
from typing import get_type_hints

from . import registry
from .fast.cache import POLICIES as REPLACEMENTS

try:
    import tomllib
except ModuleNotFoundError:          # Python 3.10: the same parser, as the tomli package
    import tomli as tomllib

#: What the warp schedulers issue (``scheduler.stream``): the SASS ptxas makes of the kernel (:mod:`isa.sass`;
#: needs the ``smsim[sass]`` extra), the PTX with :mod:`isa.cost`'s estimate of its SASS, or SASS when the
#: tools are installed and PTX otherwise
STREAMS = ("auto", "sass", "ptx")

PIPES = ("fp32", "fp64", "int", "imad", "imad_wide", "sfu", "branch", "barrier", "sync")


class ConfigError(ValueError):
    """A bad configuration: unknown or missing key, wrong type, value out of range. Names the key."""


@dataclass(frozen=True)
class GpuSpec:
    name: str
    num_sms: int
    clock_mhz: float


@dataclass(frozen=True)
class SmSpec:
    subpartitions: int
    max_threads: int
    max_warps: int
    max_blocks: int
    registers: int
    register_alloc_unit: int          # registers, allocated per warp in units of this many
    max_registers_per_thread: int
    shared_bytes: int                 # largest shared-memory carveout per SM
    max_shared_per_block_bytes: int   # opt-in maximum per block
    shared_alloc_unit_bytes: int
    reserved_shared_per_block_bytes: int
    unified_l1_shared_bytes: int      # L1 + shared memory, split by the carveout
    carveouts_kb: tuple               # the carveout sizes the driver chooses from


@dataclass(frozen=True)
class SchedulerSpec:
    policy: str                       # a name in smsim.registry.SCHEDULER_POLICIES
    two_level_active: int             # warps in the active set of the two-level policy
    stream: str = "ptx"               # what the schedulers issue: "sass", "ptx" or "auto" (STREAMS)
    branch_resolve_cycles: float = 0.0  # SASS: a branch holds its warp this long past its control code's stall
    reconverge_cycles: float = 0.0    # SASS: ... a BSYNC (reconvergence) this long
    wide_dispatch_cycles: float = 1.0  # SASS: an IMAD.WIDE (a 64-bit integer product) holds its sub-partition's
                                       # dispatch this long (no other warp issues meanwhile)
    hi_dispatch_cycles: float = 1.0    # SASS: ... an IMAD.HI (the product's high half) this long
    register_banks: int = 0           # SASS: banks of a sub-partition's register file, each reading one source
                                      # register a cycle for an arithmetic instruction (0: not modelled)


@dataclass(frozen=True)
class PipeSpec:
    latency_cycles: float             # dependent-issue latency of a fixed-latency result
    issue_interval_cycles: float      # cycles the pipe is busy per warp-instruction (per sub-partition)


@dataclass(frozen=True)
class PipesSpec:
    fp32: PipeSpec
    fp64: PipeSpec
    int: PipeSpec
    imad: PipeSpec                    # SASS: IMAD and IMUL (the FMA pipe's heavy half)
    imad_wide: PipeSpec               # SASS: IMAD.WIDE and IMAD.HI (a 64-bit product), on imad's pipe
    sfu: PipeSpec
    branch: PipeSpec
    barrier: PipeSpec
    sync: PipeSpec


@dataclass(frozen=True)
class SpecialSpec:
    latency_cycles: float             # S2R (%tid, %ctaid... into a register): from its issue to its result
    uniform_latency_cycles: float     # S2UR (into a uniform register): from the unit starting it to its result
    uniform_interval_cycles: float    # the SM's one unit for S2UR starts a read every this many cycles


@dataclass(frozen=True)
class SharedSpec:
    banks: int
    bank_width_bytes: int
    latency_cycles: int               # load-to-use latency of a one-wavefront access
    wavefront_latency_cycles: int     # extra load-to-use latency per additional wavefront (a bank conflict)
    wavefronts_per_cycle: int
    mio_queue: int                    # shared/SFU instructions queued per sub-partition before mio_throttle
    model: str = "banked"             # a name in smsim.registry.SHARED_MODELS


@dataclass(frozen=True)
class L1Spec:
    size_bytes: int                   # upper bound; the carveout may leave less
    line_bytes: int
    sector_bytes: int
    assoc: int
    replacement: str
    hit_latency_cycles: int
    mshrs: int                        # outstanding missed sectors
    tag_lookups_per_cycle: int        # requests (tag stages) per cycle
    data_bytes_per_cycle: int         # return bandwidth to the registers
    lsu_queue: int                    # global/local instructions queued per SM before lg_throttle
    model: str = "sectored"           # a name in smsim.registry.L1_MODELS
    reduction_credits: int = 0        # reduction operations an SM has sent to L2 and L2 not yet performed (0: any)
    store_credits: int = 0            # store requests (a line each) an SM has sent to L2 not yet acknowledged (0: any)
    write_request_cycles: float = 0.0  # cycles of the SM's port to L2 a store's write request (a line) takes (0: none)
    write_data_cycles: float = 0.0    # ... and each sector of data it carries (0: none)
    write_buffer_cycles: float = 0.0  # the port's own backlog past which a store holds the tag stage (0: never)
    merge_sectors: int = 0            # a warp's consecutive stores into the same sectors, each touching at most this
    merge_lines: int = 0              # many sectors in at most this many lines, reach L2 as one write (0: never)
    cross_merge_window: int = 0       # lines of the latest stores whose waiting writes others' stores join (0: none)
    tag_banks: int = 1                # a cached load's lines are looked up a line of each tag bank a cycle (banks
                                      # by line index XOR-folded), its missed lines leaving at tag_lookups_per_cycle
    data_banks: int = 0               # banks of the data array a cached load's words are read from, one distinct
                                      # word a bank a wavefront (shared memory's rule; 0: not modelled)
    in_order_fills: bool = False      # a warp's loads that wait for L2 get their data in the order it issued them
    store_waits_fill: bool = False    # a store into sectors whose fill is on its way holds the tag stage until it lands
    atomic_holds_reads: bool = False  # an atomic waits in L2's queue for its slice's unit with the SM's later read
                                      # misses behind it (false: they pass it)
    one_data_stage: bool = False      # shared wavefronts take L1's data path, where a cached load's data-array
                                      # wavefronts take a cycle each too (false: the shared pipe apart)
    fill_sector_cycles: float = 0.0   # with one_data_stage: the data stage's cycles per sector a cached load's
                                      # fill brings from DRAM, written into the data array (0: none)
    fence_cta_cycles: float = 0.0     # a memory fence of the block's scope: from the SM's fence unit taking it to
    fence_gpu_cycles: float = 0.0     # its warp's next instruction; of the GPU's scope (numba's threadfence)
    fence_sys_cycles: float = 0.0     # and of the system's (0: at once)
    fence_cta_interval_cycles: float = 0.0  # the SM's fence unit takes a fence of the block's scope every this
    fence_gpu_interval_cycles: float = 0.0  # many cycles, of the GPU's, of the system's (0: any number at once)
    fence_sys_interval_cycles: float = 0.0
    fence_invalidates: bool = False   # a fence of the GPU's or the system's scope empties L1 (CCTL.IVALL)

    def write_cycles(self, lines: int, sectors: int) -> float:
        """The cycles a store's write requests into ``sectors`` sectors of ``lines`` lines hold the SM's port to
        L2: ``write_request_cycles`` a line and ``write_data_cycles`` a sector."""
        return self.write_request_cycles * lines + self.write_data_cycles * sectors


@dataclass(frozen=True)
class L2Spec:
    size_bytes: int
    line_bytes: int
    sector_bytes: int
    assoc: int
    replacement: str
    hit_latency_cycles: int           # extra cycles an L1 miss takes when L2 hits
    bandwidth_bytes_per_cycle: float  # whole device
    sm_port_bytes_per_cycle: float    # most one SM can move to/from L2
    slices: int                       # L2 slices, each with its own atomic unit
    slice_bytes: int                  # consecutive bytes that map to one slice
    atomic_op_cycles: float           # one slice's atomic unit: cycles per sector operation naming one word
    atomic_round_cycles: float = 0.0  # ... per operation naming every word of a sector (0: as atomic_op_cycles)
    cas_round_cycles: float = 0.0     # ... per compare-and-swap operation naming several words (0: as an add's)
    float_atomic_cycles: float = 0.0  # a float add after another on the same word (0: as atomic_op_cycles)
    atomic_wide_cycles: float = 0.0   # an integer operation on a 64-bit word (0: as atomic_op_cycles)
    model: str = "write_through"      # a name in smsim.registry.L2_MODELS
    dirty_bytes: int = 0              # write_back: dirty data L2 keeps (0: all of it) before writing back
    dirty_at_start_bytes: int = 0     # write_back: dirty data L2 holds when the kernel starts, its oldest lines
                                      # (a write-through L2 holds none: it ignores this)
    partial_lines: int = 0            # lines holding sectors written in part L2 keeps (0: until evicted) before
                                      # completing them
    partial_write_cycles: float = 0.0  # a slice merging a line's sectors written in part: one sector's (0: free)
    write_sector_cycles: float = 0.0  # a slice taking any other written sector (0: free)
    fill_sector_cycles: float = 0.0   # a slice writing a sector DRAM brought into its data array, in the cycles
                                      # written sectors take (0: free)
    subword_chain_cycles: float = 0.0  # a store writing part of a 4-byte word into a sector begins this long after
                                       # the last such store into it, for each block storing there (0: no wait)
    sharing: str = "private"          # "neighbours": lines a block's grid neighbours (other SMs) brought are in L2;
                                      # "device": lines any earlier block brought, as long as the device's L2 keeps them
    usable_bytes: int = 0             # what a stream over the whole GPU can keep in L2 (0: all of size_bytes)
    read_lines_per_cycle: float = 0.0  # lines the device's L2 looks up for reads per cycle (0: no limit)
    partitions: int = 1               # L2 partitions, each with a copy of a line SMs of both read (its slices'
                                      # lookups serve its SMs' reads)
    completions_per_cycle: float = 0.0  # lines written in part the device's L2 completes per cycle (0: no limit)

    @property
    def usable(self) -> int:
        """The capacity the SMs' shares divide among them: ``usable_bytes``, or all of ``size_bytes``."""
        return self.usable_bytes or self.size_bytes


@dataclass(frozen=True)
class DramSpec:
    latency_cycles: int               # extra cycles an L2 miss takes (row miss)
    row_hit_latency_cycles: int       # extra cycles when the DRAM row is open
    row_bytes: int
    row_open_cycles: int              # a row stays open this long after its last access
    bandwidth_gbps: float             # achievable device bandwidth, GB/s
    loaded_latency_cycles: int        # extra latency at full utilization of this SM's bandwidth share
    utilization_window_cycles: int    # time constant of the utilization estimate
    access_bytes: int                 # bytes one DRAM read moves (a missed sector brings its neighbours)
    model: str = "hbm"                # a name in smsim.registry.DRAM_MODELS
    write_turnaround: float = 0.0     # a written byte holds the bus 1 + this times as long as a read one
    slowest_sm_busy: tuple = ()       # busy SMs at which slowest_sm_cycles is given (increasing)
    slowest_sm_cycles: tuple = ()     # how much later than the mean SM the slowest of that many ends a DRAM read
    activations_per_cycle: float = 0.0  # DRAM rows the device opens per cycle at most (0: no limit)
    write_drain_cycles: float = 0.0   # how long HBM drains a batch of writes, reads to its banks waiting (0: none)
    write_activation_cost: float = 1.0  # a row opened for a write takes this many of the device's activations


@dataclass(frozen=True)
class LaunchSpec:
    overhead_ns: float                # kernel launch and completion inside gpu__time_duration, beyond the SM's cycles
    blocks_per_cycle: float           # finished blocks the device retires per cycle, all SMs (0: no limit)
    first_wave_blocks_per_cycle: float  # first-wave blocks handed out per cycle, all SMs (0: no limit)
    icache_cold_cycles: int           # an SM's first instruction fetch of a kernel (cold instruction cache)
    const_miss_cycles: float          # a parameter/constant line not yet in the SM's constant cache, one SM busy
    const_line_bytes: int             # the constant cache's line
    block_launch_cycles: float        # from a block's retirement to the start of the block that takes its slot
    const_miss_per_sm_cycles: float = 0.0   # what each further busy SM adds to the miss (the SMs' misses queue)
    const_line_cycles: float = 0.0    # a further missed line lands at least this long after the one before
    const_address_cycles: float = 0.0   # the constant cache's port: cycles of the SM a distinct address of a load
    const_replay_cycles: float = 0.0    # what each further distinct address adds to the load's latency
    model: str = "front_end"          # a name in smsim.registry.LAUNCH_MODELS


@dataclass(frozen=True)
class Config:
    gpu: GpuSpec
    sm: SmSpec
    scheduler: SchedulerSpec
    pipes: PipesSpec
    special: SpecialSpec
    shared: SharedSpec
    l1: L1Spec
    l2: L2Spec
    dram: DramSpec
    launch: LaunchSpec
    seed: int = 0
    source: str = ""                  # where it was loaded from (not a TOML key)

    def replace(self, overrides: dict) -> "Config":
        """A copy with dotted-key ``overrides`` applied and checked."""
        return _build(Config, _merge(_as_dict(self), overrides, self.source), self.source)

    @property
    def name(self) -> str:
        return self.gpu.name


# ------------------------------------------------------------------------------------------- loading
def presets() -> list:
    """Names of the built-in configs."""
    return sorted(p.name[:-5] for p in resources.files("configs").iterdir() if p.name.endswith(".toml"))


def load(config: "str | Path | Config" = "h100", overrides: dict | None = None) -> Config:
    """A :class:`Config` from a preset name, a TOML path or a Config, with ``overrides`` applied."""
    if isinstance(config, Config):
        return config.replace(overrides) if overrides else config
    if not isinstance(config, (str, Path)):
        raise ConfigError(f"config must be a preset name ({', '.join(presets())}), a path to a TOML file or "
                          f"a Config, got {type(config).__name__}")
    text, source = _read(config)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source}: not valid TOML: {e}") from None
    return _build(Config, _merge(data, overrides or {}, source), source)


def _read(config) -> tuple:
    name = str(config)
    if not name.endswith(".toml") and "/" not in name and "\\" not in name:
        path = resources.files("configs") / f"{name}.toml"
        if not path.is_file():
            raise ConfigError(f"unknown config {name!r}: the presets are {', '.join(presets())} "
                              f"(or give a path to a .toml file)")
        return path.read_text(), name
    path = Path(name)
    if not path.is_file():
        raise ConfigError(f"config file {name} not found")
    return path.read_text(), str(path)


def _merge(data: dict, overrides: dict, source: str) -> dict:
    """``data`` with each dotted override set; a key is known when the Config tree has that field, so a
    defaulted key the file leaves out (``seed``) can be overridden too."""
    data = _copy(data)
    for key, value in overrides.items():
        *path, last = str(key).split(".")
        node, cls = data, Config
        for depth, p in enumerate(path):
            cls = _field_type(cls, p)
            if not is_dataclass(cls):
                raise ConfigError(f"{source}: unknown config key {key!r}")
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{source}: {'.'.join(path[:depth + 1])} must be a table")
        if _field_type(cls, last) is None:
            raise ConfigError(f"{source}: unknown config key {key!r}")
        node[last] = value
    return data


def _field_type(cls, name: str):
    """The type of field ``name`` of dataclass ``cls``, or None when there is no such key."""
    if name == "source" or name not in {f.name for f in fields(cls)}:
        return None
    return get_type_hints(cls)[name]


def _copy(d):
    return {k: _copy(v) for k, v in d.items()} if isinstance(d, dict) else d


def _as_dict(obj) -> dict:
    out = {}
    for f in fields(obj):
        if f.name == "source":
            continue
        v = getattr(obj, f.name)
        out[f.name] = _as_dict(v) if is_dataclass(v) else list(v) if isinstance(v, tuple) else v
    return out


def _build(cls, data, source: str, prefix: str = ""):
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: {prefix.rstrip('.') or 'config'} must be a table")
    hints = get_type_hints(cls)
    names = {f.name for f in fields(cls)} - {"source"}
    unknown = set(data) - names
    if unknown:
        raise ConfigError(f"{source}: unknown config key {prefix + sorted(unknown)[0]!r} "
                          f"(known in {prefix.rstrip('.') or 'the top level'}: {', '.join(sorted(names))})")
    values = {}
    for f in fields(cls):
        if f.name == "source":
            continue
        key = prefix + f.name
        if f.name not in data:
            if f.default is not dataclasses.MISSING:
                continue
            raise ConfigError(f"{source}: missing config key {key!r}")
        t = hints[f.name]
        v = data[f.name]
        values[f.name] = _build(t, v, source, key + ".") if is_dataclass(t) else _value(t, v, key, source)
    obj = cls(**values, **({"source": source} if cls is Config else {}))
    _check(obj, prefix, source)
    return obj


def _value(t, v, key: str, source: str):
    if t is tuple:
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            raise ConfigError(f"{source}: {key} must be a list of integers, got {v!r}")
        return tuple(v)
    ok = {int: isinstance(v, int) and not isinstance(v, bool),
          float: isinstance(v, (int, float)) and not isinstance(v, bool),
          str: isinstance(v, str), bool: isinstance(v, bool)}[t]
    if not ok:
        kind = {float: "a number", int: "an integer", str: "a string", bool: "true or false"}[t]
        raise ConfigError(f"{source}: {key} must be {kind}, got {v!r}")
    if t is float and not math.isfinite(v):
        raise ConfigError(f"{source}: {key} must be a finite number, got {v!r}")
    return float(v) if t is float else v


#: ``l2.sharing``: what this SM's share of L2 holds that other SMs brought in ("private": nothing)
L2_SHARING = ("private", "neighbours", "device")
#: the most register-file banks ``scheduler.register_banks`` may name (smsim.sass_stream.RF_UNITS)
MAX_REGISTER_BANKS = 32
#: the most banks ``l1.tag_banks`` may name (smsim.fast.coalesce.bank_lines counts up to 64)
MAX_TAG_BANKS = 64
#: keys that take one of a fixed set of names (the model keys take their registry's: registry.BY_KEY)
_CHOICES = {"l1.replacement": tuple(REPLACEMENTS), "l2.replacement": tuple(REPLACEMENTS), "l2.sharing": L2_SHARING}
_POW2 = {"line_bytes", "sector_bytes", "banks", "tag_banks", "data_banks", "bank_width_bytes", "assoc", "access_bytes",
         "slice_bytes"}
_NONNEG = {"reserved_shared_per_block_bytes", "seed", "row_open_cycles", "loaded_latency_cycles", "overhead_ns",
           "blocks_per_cycle", "first_wave_blocks_per_cycle", "icache_cold_cycles", "const_miss_cycles",
           "const_miss_per_sm_cycles", "const_line_cycles", "const_address_cycles", "const_replay_cycles",
           "dirty_bytes", "dirty_at_start_bytes", "partial_lines", "partial_write_cycles", "write_sector_cycles",
           "subword_chain_cycles",
           "write_turnaround", "write_drain_cycles", "block_launch_cycles", "usable_bytes", "float_atomic_cycles",
           "atomic_wide_cycles",
           "atomic_round_cycles", "cas_round_cycles", "branch_resolve_cycles", "reconverge_cycles",
           "read_lines_per_cycle", "completions_per_cycle", "activations_per_cycle", "reduction_credits",
           "store_credits", "merge_sectors", "merge_lines", "cross_merge_window", "register_banks",
           "write_request_cycles", "write_data_cycles", "write_buffer_cycles", "data_banks", "fill_sector_cycles",
           "fence_cta_cycles", "fence_gpu_cycles", "fence_sys_cycles", "fence_cta_interval_cycles",
           "fence_gpu_interval_cycles", "fence_sys_interval_cycles"}


def _check(obj, prefix: str, source: str) -> None:
    for f in fields(obj):
        v = getattr(obj, f.name)
        key = prefix + f.name
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            if v < 0 or (v == 0 and f.name not in _NONNEG):
                raise ConfigError(f"{source}: {key} = {v} must be {'>= 0' if f.name in _NONNEG else '> 0'}")
            if f.name in _POW2 and int(v) & (int(v) - 1):
                raise ConfigError(f"{source}: {key} = {v} must be a power of two")
    for f in fields(obj):
        key = prefix + f.name
        reg = registry.BY_KEY.get(key)
        names = reg.names() if reg is not None else _CHOICES.get(key)
        if names is not None and getattr(obj, f.name) not in names:
            raise ConfigError(f"{source}: {key} = {getattr(obj, f.name)!r}; choose one of {', '.join(names)}")
    if isinstance(obj, (L1Spec, L2Spec)):
        if obj.line_bytes % obj.sector_bytes:
            raise ConfigError(f"{source}: {prefix}line_bytes must be a multiple of {prefix}sector_bytes")
        if obj.size_bytes % (obj.line_bytes * obj.assoc):
            raise ConfigError(f"{source}: {prefix}size_bytes = {obj.size_bytes} must be a multiple of "
                              f"line_bytes x assoc = {obj.line_bytes * obj.assoc}")
    if isinstance(obj, L1Spec) and obj.tag_banks > MAX_TAG_BANKS:
        raise ConfigError(f"{source}: {prefix}tag_banks = {obj.tag_banks} must be at most {MAX_TAG_BANKS}")
    if isinstance(obj, L2Spec) and 0 < obj.partial_write_cycles < obj.write_sector_cycles:
        raise ConfigError(f"{source}: {prefix}partial_write_cycles = {obj.partial_write_cycles} must be 0 or at "
                          f"least {prefix}write_sector_cycles = {obj.write_sector_cycles} (a line written in part "
                          "costs the difference on top of its sectors)")
    if isinstance(obj, L2Spec) and obj.slices % obj.partitions:
        raise ConfigError(f"{source}: {prefix}partitions = {obj.partitions} must divide {prefix}slices = "
                          f"{obj.slices} (each partition has as many slices)")
    if isinstance(obj, L2Spec) and obj.usable_bytes > obj.size_bytes:
        raise ConfigError(f"{source}: {prefix}usable_bytes = {obj.usable_bytes} exceeds {prefix}size_bytes = "
                          f"{obj.size_bytes}")
    if isinstance(obj, L2Spec) and obj.dirty_at_start_bytes > (obj.dirty_bytes or obj.usable):
        raise ConfigError(f"{source}: {prefix}dirty_at_start_bytes = {obj.dirty_at_start_bytes} exceeds what L2 "
                          f"keeps dirty ({prefix}dirty_bytes, or usable_bytes: {obj.dirty_bytes or obj.usable})")
    if isinstance(obj, SmSpec):
        if obj.max_warps * 32 < obj.max_threads:
            raise ConfigError(f"{source}: {prefix}max_threads exceeds max_warps x 32")
        if obj.max_warps % obj.subpartitions:
            raise ConfigError(f"{source}: {prefix}max_warps must be a multiple of {prefix}subpartitions")
        if not obj.carveouts_kb or any(c < 0 or c * 1024 > obj.unified_l1_shared_bytes for c in obj.carveouts_kb):
            raise ConfigError(f"{source}: {prefix}carveouts_kb must be non-empty, each >= 0 and within "
                              f"unified_l1_shared_bytes")
        if obj.max_shared_per_block_bytes > obj.shared_bytes:
            raise ConfigError(f"{source}: {prefix}max_shared_per_block_bytes exceeds {prefix}shared_bytes")
    if isinstance(obj, SchedulerSpec) and obj.stream not in STREAMS:
        raise ConfigError(f"{source}: {prefix}stream = {obj.stream!r}; choose one of {', '.join(STREAMS)}")
    if isinstance(obj, SchedulerSpec) and obj.register_banks > MAX_REGISTER_BANKS:
        raise ConfigError(f"{source}: {prefix}register_banks = {obj.register_banks} must be at most "
                          f"{MAX_REGISTER_BANKS} (0: not modelled)")
    if isinstance(obj, SharedSpec) and obj.banks * obj.bank_width_bytes % 4:
        raise ConfigError(f"{source}: {prefix}banks x bank_width_bytes must be a multiple of 4")
    if isinstance(obj, Config):
        _check_together(obj, source)


def _check_together(cfg: Config, source: str) -> None:
    """Values of different sections that must agree."""
    if cfg.l1.sector_bytes != cfg.l2.sector_bytes:
        raise ConfigError(f"{source}: l1.sector_bytes = {cfg.l1.sector_bytes} and l2.sector_bytes = "
                          f"{cfg.l2.sector_bytes} must be equal (L1 hands its missed sectors to L2 by index)")
    if cfg.l1.size_bytes > cfg.sm.unified_l1_shared_bytes:
        raise ConfigError(f"{source}: l1.size_bytes = {cfg.l1.size_bytes} exceeds sm.unified_l1_shared_bytes = "
                          f"{cfg.sm.unified_l1_shared_bytes}")
    if cfg.l2.slice_bytes % cfg.l2.sector_bytes:
        raise ConfigError(f"{source}: l2.slice_bytes = {cfg.l2.slice_bytes} must be a multiple of "
                          f"l2.sector_bytes = {cfg.l2.sector_bytes}")
    if cfg.dram.row_bytes % cfg.l2.sector_bytes:
        raise ConfigError(f"{source}: dram.row_bytes = {cfg.dram.row_bytes} must be a multiple of "
                          f"l2.sector_bytes = {cfg.l2.sector_bytes}")
    if cfg.dram.access_bytes % cfg.l2.sector_bytes or cfg.dram.row_bytes % cfg.dram.access_bytes:
        raise ConfigError(f"{source}: dram.access_bytes = {cfg.dram.access_bytes} must be a multiple of "
                          f"l2.sector_bytes and divide dram.row_bytes")
    busy, lag = cfg.dram.slowest_sm_busy, cfg.dram.slowest_sm_cycles
    if len(busy) != len(lag) or any(b < 1 for b in busy) or any(b >= c for b, c in zip(busy, busy[1:])) \
            or any(x < 0 for x in lag):
        raise ConfigError(f"{source}: dram.slowest_sm_busy = {list(busy)} and dram.slowest_sm_cycles = {list(lag)} "
                          f"must be lists of one length, busy SMs >= 1 and increasing, cycles >= 0")
    per_sp = cfg.sm.max_warps // cfg.sm.subpartitions
    if cfg.scheduler.two_level_active > per_sp:
        raise ConfigError(f"{source}: scheduler.two_level_active = {cfg.scheduler.two_level_active} exceeds the "
                          f"{per_sp} warps a sub-partition holds (sm.max_warps / sm.subpartitions)")


__all__ = ["Config", "ConfigError", "load", "presets"]
