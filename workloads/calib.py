"""Calibration kernels: the CUDA C microbenchmarks behind the H200 measurements, as nvcc compiles them.

The timing model is calibrated against ``/work/shared/hardware/h200_microbench.json``. Those numbers came
from CUDA C kernels built with ``nvcc -O3 -arch=sm_90``; ``workloads/cuda/calib.cu`` re-creates them from the
README's descriptions and ``workloads/ptx/calib.ptx`` is nvcc's PTX of it (regenerate with
``workloads/cuda/build.sh calib.cu``). ``benchmarks/calib_hw.py`` runs the same PTX on an H100/H200 and
``docs/hardware/calib_kernels.md`` compares what it measured with the JSON.

Kernels (each timed one takes an iteration count; ``NAME_clk`` is the same body with ``clock64()`` around the
timed loop and one more argument, ``clk``, an int64 array that receives the cycles):

* ``ffma_dep(out, a, iters)``: one thread, 16 dependent ``fmaf`` per loop trip.
* ``chase(a, out, iters, warm)`` / ``chase_cg``: one thread, ``j = a[j]`` with default (``.ca``) or
  ``ld.global.cg`` loads over a chain the host builds (``a[k] = (k + stride) mod n``). The warm-up is part
  of the kernel: ``warm`` untimed steps from word 0, then ``iters`` timed steps from word 0 again (so with
  ``warm >= iters`` they revisit warmed lines; ``warm = 0`` for the cold DRAM chases, which the hardware
  run starts with L2 flushed).
* ``shared_chase(a, out, iters)``: the block copies a 16 KB chain into shared memory, thread 0 chases it.
* ``smem_bank(out, stride, iters)``, ``smem_bank_v2(out, iters)``, ``smem_bank_v4(out, iters)``: one block of
  W warps; lane l re-reads shared word ``l * stride`` (float2 / float4 element l) in a dependent loop,
  ``v = buf[l*stride + (int)v]`` (a float-to-int conversion on the path, as the H200 timings imply).
* ``stream_ilp1/4(a, out, n4)``: grid-stride float4 read, 1 or 4 loads in flight per thread, blocks of 128,
  dynamic shared memory limiting blocks per SM.
* ``stream_single_sm(a, out, n4, step4, iters)``: one block; each thread makes ``iters`` ``ld.global.cg``
  float4 loads, one in flight, at vector ``(k * step4 + tid) mod n4``.
* ``copy_stride / copy_offset / copy_f2 / copy_f4``: the coalescing copies, one element per thread.

Life of a case: ``build(n, rng)`` calls the matching ``*_setup`` helper (which builds the inputs and the
launch geometry) and adds the numpy reference of what the kernel writes; outputs start poisoned. The
helpers are also the calibration tests' entry points: each returns a :class:`Launch` ``(kernel, grid,
block, args, shared_bytes)`` ready for ``smsim.launch(*launch)`` (``kernel`` parsed from the PTX; pass
``load=False`` for the :class:`PtxKernel` handle, as the GPU script does). :data:`HW` maps each case to the
JSON entry it is compared with and says how simulated cycles become that figure (:func:`figure`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

import numpy as np

from smsim.case import Case, Setup

from .case import PtxKernel

PTX = "ptx/calib.ptx"
SMS = 132                       # H100 SXM / H200
CLOCK_MHZ = 1978.8              # the H200's SM clock as the JSON measured it
FFMA_PER_TRIP = 16             # dependent FMAs per ffma_dep loop trip
CHASE_ITERS = 4096
SHARED_CHASE_WORDS = 4096       # 16 KB
BANK_WORDS = 2048
STREAM_BLOCK = 128
SINGLE_SM_ITERS = 2048
SINGLE_SM_REGION = {"l2": 2 << 20, "dram": 512 << 20}
COPY_BLOCK = 256
POISON_U32 = 0xFFFFFFFF
# Dynamic shared bytes per 128-thread block that allow exactly k blocks on an SM (the JSON's smem values).
OCCUPANCY_SHARED_BYTES = {1: 204800, 2: 111616, 3: 74069, 4: 55296, 6: 36522, 8: 27136, 12: 17749, 16: 0}


class Launch(NamedTuple):
    """One launch: ``smsim.launch(kernel, grid, block, args, shared_bytes=shared_bytes)``."""
    kernel: Any
    grid: tuple
    block: tuple
    args: tuple
    shared_bytes: int = 0


def kernel(name: str) -> PtxKernel:
    """The calib.ptx kernel ``name`` (exact name: ``chase`` is not ``chase_cg``)."""
    return PtxKernel(PTX, name)


def _launch(name, grid, block, args, shared_bytes=0, clocked=False, load=True) -> Launch:
    if clocked:
        name, args = name + "_clk", tuple(args) + (np.zeros(1, np.int64),)
    k = kernel(name)
    if load:
        k = k.load()          # the exact name: isa's Module.find prefers it to names containing it
    return Launch(k, tuple(grid), tuple(block), tuple(args), int(shared_bytes))


# ----------------------------------------------------------------------------------------------- helpers
def ffma_setup(iters: int, a: float = 1.0, clocked: bool = False, load: bool = True) -> Launch:
    """One thread, ``16 * iters`` dependent FMAs ``x = x*a + 1`` (a = 1: out[0] = 16 * iters exactly)."""
    out = np.full(1, np.nan, np.float32)
    return _launch("ffma_dep", (1,), (1,), (out, np.float32(a), np.int32(iters)), clocked=clocked, load=load)


def chase_array(nbytes: int, stride_words: int) -> np.ndarray:
    """The chain: ``nbytes / 4`` uint32 words, ``a[k] = (k + stride) mod n``."""
    n = nbytes // 4
    a = np.arange(n, dtype=np.uint32)
    a += np.uint32(stride_words % n)
    a[a >= n] -= np.uint32(n)
    return a


def chain_length(nbytes: int, stride_words: int) -> int:
    """Steps before the chain from word 0 returns to word 0."""
    n = nbytes // 4
    return n // np.gcd(n, stride_words % n or n)


def chase_setup(nbytes: int, stride_words: int, iters: int, cg: bool = False, warm=None, shared_bytes: int = 0,
                clocked: bool = False, load: bool = True) -> Launch:
    """One thread chases ``iters`` timed steps from word 0 of an ``nbytes`` chain of ``stride_words`` steps.

    ``warm`` untimed steps from word 0 come first (their end goes to out[1]); the timed chase then starts
    again at word 0, so ``warm >= iters`` makes every timed step revisit a warmed line. Default: ``iters``
    for arrays under 48 MiB, 0 (a cold chase) for larger ones. To difference N and 2N timed steps, give
    both launches the same ``warm`` (at least 2N). ``shared_bytes``: dynamic shared memory the kernel does
    not use; on the GPU it takes part of the SM's 256 KB of L1 + shared (180 KB leaves a 60 KB L1)."""
    if warm is None:
        warm = iters if nbytes < (48 << 20) else 0
    a = chase_array(nbytes, stride_words)
    out = np.full(2, POISON_U32, np.uint32)
    name = "chase_cg" if cg else "chase"
    return _launch(name, (1,), (1,), (a, out, np.int32(iters), np.int32(warm)), shared_bytes, clocked=clocked,
                   load=load)


def shared_chase_setup(iters: int, stride_words: int = 1, block: int = 256, clocked: bool = False,
                       load: bool = True) -> Launch:
    """The block fills a 16 KB shared chain (``stride_words`` steps), thread 0 chases it ``iters`` times."""
    a = chase_array(4 * SHARED_CHASE_WORDS, stride_words)
    out = np.full(1, POISON_U32, np.uint32)
    return _launch("shared_chase", (1,), (block,), (a, out, np.int32(iters)), clocked=clocked, load=load)


def bank_setup(warps: int, stride, iters: int, clocked: bool = False, load: bool = True) -> Launch:
    """One block of ``warps`` warps. ``stride``: an int (lane l re-reads word ``l*stride``), or ``"f2"`` /
    ``"f4"`` (lane l re-reads float2 / float4 element l). Only out[0] is written (by the last thread): the
    word it read (``31*stride / 4096``), or its sum (``iters * 31``, ``3 * iters * 31``)."""
    block = (32 * warps,)
    out = np.full(1, np.nan, np.float32)
    if stride in ("f2", "f4"):
        name = "smem_bank_v2" if stride == "f2" else "smem_bank_v4"
        return _launch(name, (1,), block, (out, np.int32(iters)), clocked=clocked, load=load)
    if not 0 <= 31 * int(stride) < BANK_WORDS:
        raise ValueError(f"stride {stride}: lane 31 would read word {31 * int(stride)} of {BANK_WORDS}")
    return _launch("smem_bank", (1,), block, (out, np.int32(stride), np.int32(iters)), clocked=clocked, load=load)


def stream_setup(warps_per_sm: int, ilp: int, total_bytes: int, sms: int = SMS, rng=None,
                 load: bool = True) -> Launch:
    """Grid-stride float4 read of ``total_bytes``: ``sms * warps_per_sm / 4`` blocks of 128 threads, each
    with the dynamic shared bytes that allow exactly that many blocks per SM. Data: small integers (sums
    exact in any order), from ``rng`` (a seeded generator by default)."""
    bps = warps_per_sm // 4
    if 4 * bps != warps_per_sm or bps not in OCCUPANCY_SHARED_BYTES:
        raise ValueError(f"warps_per_sm {warps_per_sm}: one of {[4 * b for b in OCCUPANCY_SHARED_BYTES]}")
    rng = np.random.default_rng(0) if rng is None else rng
    n4 = total_bytes // 16
    a = rng.integers(0, 16, 4 * n4).astype(np.float32)
    grid = sms * bps
    out = np.full(grid * STREAM_BLOCK, np.nan, np.float32)
    return _launch(f"stream_ilp{ilp}", (grid,), (STREAM_BLOCK,), (a, out, np.uint64(n4)),
                   OCCUPANCY_SHARED_BYTES[bps], load=load)


def single_sm_setup(warps: int, region, iters: int, step4=None, rng=None, clocked: bool = False,
                    load: bool = True) -> Launch:
    """One block of ``warps`` warps, ``iters`` float4 ``ld.global.cg`` loads per thread, one in flight, from a
    region of ``"l2"`` (2 MB), ``"dram"`` (512 MB) or an int number of bytes. Trip k reads vector
    ``(k * step4 + tid) mod n4``; ``step4`` defaults to the block size (a contiguous sweep)."""
    nbytes = SINGLE_SM_REGION[region] if isinstance(region, str) else int(region)
    n4 = nbytes // 16
    threads = 32 * warps
    step4 = threads if step4 is None else int(step4)
    rng = np.random.default_rng(0) if rng is None else rng
    a = rng.integers(0, 16, 4 * n4).astype(np.float32)
    out = np.full(threads, np.nan, np.float32)
    args = (a, out, np.uint32(n4), np.uint32(step4), np.int32(iters))
    return _launch("stream_single_sm", (1,), (threads,), args, clocked=clocked, load=load)


def copy_setup(kind: str, n: int, param: int = 0, rng=None, load: bool = True) -> Launch:
    """The coalescing copies over ``n`` floats, blocks of 256, one element per thread: ``kind`` ``"stride"``
    (``out[i] = in[i*param]``), ``"offset"`` (``out[i] = in[i+param]``), ``"f2"``, ``"f4"``."""
    rng = np.random.default_rng(0) if rng is None else rng
    width = {"f2": 2, "f4": 4}.get(kind, 1)
    count = n // width
    size = {"stride": n * max(param, 1), "offset": n + param}.get(kind, n)
    inp = rng.standard_normal(size, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    grid = (-(-count // COPY_BLOCK),)
    args = (out, inp, np.int32(count)) + ((np.int32(param),) if kind in ("stride", "offset") else ())
    return _launch(f"copy_{kind}", grid, (COPY_BLOCK,), args, load=load)


# ------------------------------------------------------------------------------------------- references
def ref_chase_stride(n_words: int, stride_words: int, steps: int) -> np.ndarray:
    """Where ``steps`` steps of the ``a[k] = (k + stride) mod n`` chain from word 0 end."""
    return np.array([(steps * stride_words) % n_words], np.uint32)


def ref_stream(a: np.ndarray, threads: int) -> np.ndarray:
    """Per thread, the sum of its grid-stride float4 vectors (exact: small integers)."""
    v = a.reshape(-1, 4).sum(axis=1, dtype=np.float64)
    pad = np.zeros(-(-len(v) // threads) * threads)
    pad[:len(v)] = v
    return pad.reshape(-1, threads).sum(axis=0).astype(np.float32)


def ref_single_sm(a: np.ndarray, threads: int, step4: int, iters: int) -> np.ndarray:
    v = a.reshape(-1, 4).sum(axis=1, dtype=np.float64)
    idx = (np.arange(iters, dtype=np.int64)[:, None] * step4 + np.arange(threads)[None, :]) % len(v)
    return v[idx].sum(axis=0).astype(np.float32)


def ref_copy(kind: str, inp: np.ndarray, n: int, param: int) -> np.ndarray:
    if kind == "stride":
        return inp[: n * param: param].copy()
    if kind == "offset":
        return inp[param: param + n].copy()
    return inp.copy()


# ------------------------------------------------------------------------------------------- case builds
def _setup(launch: Launch, expected: Mapping, rtol=0.0, atol=0.0) -> Setup:
    return Setup(launch.grid, launch.block, launch.args, dict(expected), launch.shared_bytes, rtol, atol)


def build_ffma(n, rng):
    s = ffma_setup(n, load=False)
    return _setup(s, {0: np.array([FFMA_PER_TRIP * n], np.float32)})


def build_chase(stride_words: int, cg: bool, cold: bool):
    def build(n, rng):
        s = chase_setup(n, stride_words, CHASE_ITERS, cg, warm=0 if cold else None, load=False)
        ends = [ref_chase_stride(n // 4, stride_words, steps)[0] for steps in (CHASE_ITERS, int(s.args[3]))]
        return _setup(s, {1: np.array(ends, np.uint32)})
    return build


def build_shared_chase(n, rng):
    s = shared_chase_setup(n, load=False)
    return _setup(s, {1: ref_chase_stride(SHARED_CHASE_WORDS, 1, n)})


def build_bank(warps: int, stride):
    def build(n, rng):
        s = bank_setup(warps, stride, n, load=False)
        lane = 31
        want = {"f2": n * lane, "f4": 3 * n * lane}[stride] if isinstance(stride, str) else lane * stride / 4096
        return _setup(s, {0: np.array([want], np.float32)})
    return build


def _stream_sms(nbytes: int) -> int:
    """SMs a stream case spreads over: all 132 from 528 MB (the full 1 GiB), one at the test size."""
    return int(min(SMS, max(1, nbytes >> 22)))


def build_stream(warps_per_sm: int, ilp: int):
    def build(n, rng):
        s = stream_setup(warps_per_sm, ilp, n, sms=_stream_sms(n), rng=rng, load=False)
        return _setup(s, {1: ref_stream(s.args[0], len(s.args[1]))})
    return build


def _single_sm_region(region: str, warps: int, iters: int) -> int:
    """The JSON's region; for "dram" below the full size, just twice what the contiguous sweep touches."""
    if region == "l2" or iters >= SINGLE_SM_ITERS:
        return SINGLE_SM_REGION[region]
    return 2 * 16 * 32 * warps * iters


def build_single_sm(warps: int, region: str):
    def build(n, rng):
        s = single_sm_setup(warps, _single_sm_region(region, warps, n), n, rng=rng, load=False)
        a, _, _, step4, iters = s.args
        return _setup(s, {1: ref_single_sm(a, 32 * warps, int(step4), int(iters))})
    return build


def build_copy(kind: str, param: int = 0):
    def build(n, rng):
        s = copy_setup(kind, n, param, rng=rng, load=False)
        return _setup(s, {0: ref_copy(kind, s.args[1], n, param)})
    return build


# ------------------------------------------------------------------------------------------------- cases
# (case name, JSON latency key, full bytes, test bytes, stride words, cg, cold)
CHASES = (
    ("chase_l1", "l1_hit", 8 << 10, 4 << 10, 32, False, False),
    ("chase_l1_64k", "l1_hit_64k", 64 << 10, 16 << 10, 32, False, False),
    ("chase_l2_cg", "l2_hit_cg", 4 << 20, 32 << 10, 32, True, False),
    ("chase_l2_ca_big", "l2_hit_ca_big", 8 << 20, 32 << 10, 32, False, False),
    ("chase_l2_cg_32m", "l2_hit_cg_32m", 32 << 20, 32 << 10, 32, True, False),
    ("chase_dram_cg_1g", "dram_cg_1g", 1 << 30, 64 << 10, 1056, True, True),
    ("chase_dram_cg_256m_pagestride", "dram_cg_256m_pagestride", 256 << 20, 4 << 20, 524320, True, True),
)
BANK_STRIDES = (0, 1, 2, 3, 4, 8, 16, 32, 33, 64)
COPY_STRIDES = (1, 2, 4, 8, 16, 32)
COPY_OFFSETS = (0, 1, 2, 4, 8, 16, 31, 32)
N_COPY_FULL = 1 << 24
N_COPY_TEST = 1 << 16           # the Nsight Compute rows' size


@dataclass(frozen=True)
class HwRef:
    """Where a case's hardware figure is in h200_microbench.json, and how simulated cycles become it.

    ``section``: the JSON's top-level key; ``match``: the entry's key (``latency_cycles``) or the field
    values that pick it from a list section; ``field``: the figure. ``kind`` (see :func:`figure`):
    ``"cycles_per_step"`` = (cycles(2N) - cycles(N)) / (N * steps_per_iter), N timed iterations (trips);
    ``"gbps"`` = useful bytes / (cycles / clock) / 1e9; ``"bytes_per_cycle"`` = bytes loaded / cycles."""
    section: str
    match: Any
    field: str
    kind: str
    steps_per_iter: int = 1
    bytes_per_unit: int = 0      # gbps / bytes_per_cycle: useful bytes per unit of the case size n

    def entry(self, data: Mapping) -> Mapping:
        """This case's entry of the loaded JSON."""
        sec = data[self.section]
        if isinstance(self.match, str):
            return sec[self.match]
        found = [e for e in sec if all(e.get(k) == v for k, v in self.match.items())]
        if len(found) != 1:
            raise KeyError(f"{self.section} {self.match}: {len(found)} entries")
        return found[0]


def figure(ref: HwRef, cycles: float, cycles_2n: float | None = None, iters: int | None = None,
           nbytes: float | None = None, clock_mhz: float = CLOCK_MHZ) -> float:
    """The hardware figure from simulated cycles. ``cycles_per_step``: ``cycles`` at N = ``iters`` timed
    iterations and ``cycles_2n`` at 2N. ``gbps``: ``nbytes`` useful bytes in ``cycles``. ``bytes_per_cycle``:
    ``nbytes`` over ``cycles`` (or, given ``cycles_2n``, the bytes of N iterations over the difference)."""
    if ref.kind == "cycles_per_step":
        return (cycles_2n - cycles) / (iters * ref.steps_per_iter)
    if ref.kind == "gbps":
        return nbytes / (cycles / (clock_mhz * 1e6)) / 1e9
    if ref.kind == "bytes_per_cycle":
        return nbytes / (cycles if cycles_2n is None else cycles_2n - cycles)
    raise ValueError(f"unknown figure kind {ref.kind!r}")


CASES: list = [
    Case("calib", "ffma_dep", kernel("ffma_dep"), build_ffma, {"test": 64, "full": 4096},
         "one thread, n loop trips of 16 dependent fmaf (a = 1: out = 16n)"),
    Case("calib", "shared_chase", kernel("shared_chase"), build_shared_chase, {"test": 256, "full": CHASE_ITERS},
         "the block copies a 16 KB chain to shared memory; thread 0 chases it n times"),
]
HW: dict = {
    "calib.ffma_dep": HwRef("latency_cycles", "ffma_dep", "cycles_per_dependent_access", "cycles_per_step",
                              FFMA_PER_TRIP),
    "calib.shared_chase": HwRef("latency_cycles", "shared_chase", "cycles_per_dependent_access",
                                "cycles_per_step"),
}
NCU: dict = {}       # case id -> the Nsight Compute row (its "case" text) measured at the case's test size

for _name, _key, _full, _test, _stride, _cg, _cold in CHASES:
    CASES.append(Case("calib", _name, kernel("chase_cg" if _cg else "chase"), build_chase(_stride, _cg, _cold),
                      {"test": _test, "full": _full},
                      f"one thread chases {CHASE_ITERS} steps over n bytes, stride {_stride} words, "
                      f"{'ld.global.cg' if _cg else 'default (.ca) loads'}, "
                      f"{'cold' if _cold else 'after an untimed warm-up pass over the same steps'}"))
    HW[f"calib.{_name}"] = HwRef("latency_cycles", _key, "cycles_per_dependent_access", "cycles_per_step")

for _w in (1, 32):
    for _s in BANK_STRIDES + ("f2", "f4"):
        _name = f"smem_bank_{_s}_w{_w}" if isinstance(_s, str) else f"smem_bank_s{_s}_w{_w}"
        _k = {"f2": "smem_bank_v2", "f4": "smem_bank_v4"}.get(_s, "smem_bank")
        CASES.append(Case("calib", _name, kernel(_k), build_bank(_w, _s), {"test": 64, "full": 4096},
                          f"{_w} warp(s); lane l re-reads " + (f"shared word l*{_s}" if isinstance(_s, int) else
                                                               f"{'float2' if _s == 'f2' else 'float4'} element l")
                          + " n times, each load depending on the last"))
        _match = {"kernel": f"smem_bank_{_s}", "warps": _w} if isinstance(_s, str) else \
            {"kernel": "smem_bank", "warps": _w, "stride": _s}
        HW[f"calib.{_name}"] = HwRef("bank_conflicts", _match, "cycles_per_iteration", "cycles_per_step")
        NCU[f"calib.{_name}"] = (f"{_k} warps={_w} " + (f"stride={_s} iters=64 (32-bit loads" if isinstance(_s, int)
                                                         else "iters=64 ("))

for _ilp in (1, 4):
    for _bps in OCCUPANCY_SHARED_BYTES:
        _name = f"stream_ilp{_ilp}_w{4 * _bps}"
        CASES.append(Case("calib", _name, kernel(f"stream_ilp{_ilp}"), build_stream(4 * _bps, _ilp),
                          {"test": 64 << 10, "full": 1 << 30},
                          f"grid-stride float4 read of n bytes, {_ilp} load(s) in flight per thread, {_bps} "
                          f"block(s) of 128 per SM ({OCCUPANCY_SHARED_BYTES[_bps]} B dynamic shared each)"))
        HW[f"calib.{_name}"] = HwRef("occupancy_full_gpu", {"ilp": _ilp, "blocks_per_sm": _bps}, "gbps", "gbps",
                                     bytes_per_unit=1)

for _w in (1, 2, 4, 8, 16, 32):
    for _region in ("dram", "l2"):
        _name = f"single_sm_w{_w}_{_region}"
        CASES.append(Case("calib", _name, kernel("stream_single_sm"), build_single_sm(_w, _region),
                          {"test": 16, "full": SINGLE_SM_ITERS},
                          f"one block of {_w} warps, n ld.global.cg float4 loads per thread, one in flight, "
                          f"contiguous sweep of a {SINGLE_SM_REGION[_region] >> 20} MB region (full size)"))
        HW[f"calib.{_name}"] = HwRef("single_sm", {"warps": _w, "region": _region}, "bytes_per_cycle",
                                     "bytes_per_cycle", bytes_per_unit=16 * 32 * _w)

_COPIES = [("stride", s, f"copy_stride{s}", {"kernel": "copy_stride", "stride": s}) for s in COPY_STRIDES]
_COPIES += [("offset", o, f"copy_offset{o}", {"kernel": "copy_offset", "offset": o}) for o in COPY_OFFSETS]
_COPIES += [("f2", 0, "copy_f2", {"kernel": "copy_f2"}), ("f4", 0, "copy_f4", {"kernel": "copy_f4"})]
for _kind, _p, _name, _match in _COPIES:
    CASES.append(Case("calib", _name, kernel(f"copy_{_kind}"), build_copy(_kind, _p),
                      {"test": N_COPY_TEST, "full": N_COPY_FULL},
                      f"n floats copied, one element per thread, blocks of 256 ({_kind} {_p})"))
    HW[f"calib.{_name}"] = HwRef("coalescing", _match, "useful_gbps", "gbps", bytes_per_unit=8)
    NCU[f"calib.{_name}"] = (f"copy_{_kind} n=65536 " + (f"{_kind}={_p} " if _kind in ("stride", "offset")
                                                          else "floats "))
