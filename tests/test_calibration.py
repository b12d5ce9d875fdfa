"""Calibration of the h200 config against the real H200 (../shared/hardware/h200_microbench.json).

The kernels are nvcc's PTX of workloads/cuda/calib.cu, which re-creates the measured CUDA C microbenchmarks
(workloads/calib.py). Latency and per-iteration figures are differenced, (cycles(2N) - cycles(N)) / N, so
start-up cancels. How each config value was chosen: docs/configs.md.
"""
import functools
import math
import json
from pathlib import Path

import numpy as np
import pytest

import smsim
from smsim import numba_front
from smsim.config import load as load_config
from workloads import calib as C
from workloads import case as cases

pytestmark = pytest.mark.slow          # long: whole calibration kernels on the h200 config

HW_FILE = Path(__file__).resolve().parents[2] / "shared" / "hardware" / "h200_microbench.json"
if not HW_FILE.exists():
    HW_FILE = Path(__file__).resolve().parents[1] / "docs" / "hardware" / "h200_microbench.json"
HW = json.loads(HW_FILE.read_text())
SAME_PTX_ON_H200 = {r["id"]: r for r in json.loads(
    (Path(__file__).resolve().parents[1] / "docs" / "hardware" / "calib_hw.json").read_text())["rows"]}


def cycles(launch, **kw) -> float:
    return smsim.launch(launch.kernel, launch.grid, launch.block, launch.args, shared_bytes=launch.shared_bytes,
                        config="h200", **kw).cycles


def per_step(make, n: int, steps_per_iter: int = 1) -> float:
    return (cycles(make(2 * n)) - cycles(make(n))) / n / steps_per_iter


LATENCY = [
    ("ffma_dep", lambda n: C.ffma_setup(n), 64, 16),
    ("shared_chase", lambda n: C.shared_chase_setup(n), 256, 1),
    ("l1_hit", lambda n: C.chase_setup(8192, 32, n, warm=1024), 256, 1),
    ("l2_hit_cg", lambda n: C.chase_setup(4 << 20, 32, n, cg=True, warm=1024), 256, 1),
    ("dram_cg_256m_pagestride", lambda n: C.chase_setup(256 << 20, 524320, n, cg=True, warm=0), 128, 1),
]


@pytest.mark.parametrize("key,make,n,steps", LATENCY, ids=[x[0] for x in LATENCY])
def test_chase_latencies_within_10_percent(key, make, n, steps):
    want = HW["latency_cycles"][key]["cycles_per_dependent_access"]
    if key == "l1_hit":
        # The JSON's 47.3 is not reproduced by this PTX on a real H200 (39.7 cycles per step, clock64 around
        # the loop; 40.5 from events; the numba chase chains.l1_chase_u32: 39.7 under ncu): compare with that
        # measurement of the same code (docs/hardware/calib_kernels.md).
        want = SAME_PTX_ON_H200["calib.chase_l1"]["clk"]
    assert per_step(make, n, steps) == pytest.approx(want, rel=0.10)


@pytest.mark.parametrize("row", HW["bank_conflicts"],
                         ids=lambda r: f"{r['kernel']}-w{r['warps']}-s{r.get('stride', '')}")
def test_bank_stride_cycles_per_iteration_within_20_percent(row):
    stride = row.get("stride", "f2" if row["kernel"].endswith("f2") else "f4")
    n = 32 if row["warps"] == 32 else 128
    got = per_step(lambda it: C.bank_setup(row["warps"], stride, it), n)
    assert got == pytest.approx(row["cycles_per_iteration"], rel=0.20)


def _single_sm(warps: int, region: str, n: int = 32) -> float:
    # the L2 region is made small enough to wrap within N iterations, so the differenced part hits in L2
    # (the H200 measurement ran 2048 iterations over a warm 2 MB region)
    where = max(4096, 512 * warps * 16) if region == "l2" else "dram"
    diff = cycles(C.single_sm_setup(warps, where, 2 * n)) - cycles(C.single_sm_setup(warps, where, n))
    return warps * 32 * 16 * n / diff


@pytest.mark.parametrize("row", HW["single_sm"], ids=lambda r: f"{r['region']}-w{r['warps']}")
def test_single_sm_streaming_bytes_per_cycle(row):
    got = _single_sm(row["warps"], row["region"])
    if row["region"] == "dram" and row["warps"] > 1:
        # The JSON's DRAM rows from 2 warps up (~580 cycles per iteration) are not reproduced by this PTX on a
        # real H200 either (~745, docs/hardware/calib_kernels.md): compare with that measurement of the same code.
        want = SAME_PTX_ON_H200[f"calib.single_sm_w{row['warps']}_dram"]["clk"]
    else:
        want = row["bytes_per_cycle"]
    assert got == pytest.approx(want, rel=0.20)


@functools.lru_cache(maxsize=None)
def _stream(warps: int, ilp: int, nbytes: int):
    launch = C.stream_setup(warps, ilp, nbytes)
    # registers: ptxas fits these kernels in 32 per thread (16 blocks of 128 ran per SM on the H200); the
    # liveness estimate of the PTX says 40, which would cap the SM at 48 warps
    return smsim.launch(launch.kernel, launch.grid, launch.block, launch.args, shared_bytes=launch.shared_bytes,
                        config="h200", complete=False, registers=32)


def _marginal_gbps(warps: int, ilp: int) -> float:
    """GB/s of the grid-stride read between 32 and 64 MB: the H200 read 1 GiB, over which the launch and the
    first wave's dispatch (a few microseconds, modelled) are amortised; the difference of two sizes leaves
    them out as that measurement does."""
    small, big = _stream(warps, ilp, 32 << 20), _stream(warps, ilp, 64 << 20)
    assert big.occupancy.warps_per_sm == warps
    t = big.metrics["gpu__time_duration.sum"] - small.metrics["gpu__time_duration.sum"]
    return (32 << 20) / (t * 1e-9) / 1e9


@pytest.mark.parametrize("row", HW["occupancy_full_gpu"], ids=lambda r: f"w{r['warps_per_sm']}-ilp{r['ilp']}")
def test_full_gpu_occupancy_sweep_gbps_within_20_percent(row):
    assert _marginal_gbps(row["warps_per_sm"], row["ilp"]) == pytest.approx(row["gbps"], rel=0.20)


_RW_MIX = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "rw_mix_hw.json").read_text())


@functools.lru_cache(maxsize=None)
def _rw_kernels(tmp: str):
    """benchmarks/rw_mix_hw.py's kernels, the source the H200 ran, as a module smsim compiles."""
    import importlib.util
    from benchmarks import rw_mix_hw as R
    src = ["from smsim import cuda", "import numpy as np"]
    for mix in R.MIXES:
        for ilp in R.ILPS:
            src.append(R.kernel_source(mix, ilp, True).replace("def k(", f"@cuda.jit\ndef k_{mix}_{ilp}_p("))
        src.append(R.kernel_source(mix, 1, False).replace("def k(", f"@cuda.jit\ndef k_{mix}_1_o("))
    path = Path(tmp) / "rw_mix_kernels.py"
    path.write_text("\n".join(src))
    spec = importlib.util.spec_from_file_location("rw_mix_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("mix,dtype,ilp,persistent", [("copy", "float32", 1, True), ("copy", "float64", 1, True),
                                                      ("add", "float32", 1, False)])
def test_reads_and_writes_mixed_move_the_h200s_bandwidth(mix, dtype, ilp, persistent, tmp_path_factory):
    """benchmarks/rw_mix_hw.py's streams, the marginal GB/s of 32 -> 64 MiB arrays against the H200's at 1
    GiB (ncu): a copy in float64 is bound by the bus (writes cost 1 + write_turnaround times a read), a copy
    and out = a + b in float32 by latency, reads waiting behind write drains (write_drain_cycles)."""
    from benchmarks import rw_mix_hw as R
    mod = _rw_kernels(str(tmp_path_factory.mktemp("rw")))
    k = getattr(mod, f"k_{mix}_{ilp}_{'p' if persistent else 'o'}")
    reads, writes, _ = R.MIXES[mix]
    item = np.dtype(dtype).itemsize
    ns, ns_n = [], []
    for size in (32 << 20, 64 << 20):
        grid, n = R.shape(dtype, ilp, persistent, size)
        arrays = [np.ones(n, dtype) for _ in range(4)]
        res = smsim.launch(k, (grid,), (R.THREADS,), (*arrays, n, np.dtype(dtype).type(3), np.dtype(dtype).type(2)),
                           config="h200", complete=False)
        ns.append(res.metrics["gpu__time_duration.sum"])
        ns_n.append(n)
    gbps = (ns_n[1] - ns_n[0]) * item * (reads + writes) / (ns[1] - ns[0])
    hw = next(r for r in _RW_MIX["rows"] if (r["mix"], r["dtype"], r["ilp"], r["persistent"]) ==
              (mix, dtype, ilp, persistent))
    assert gbps == pytest.approx(hw["ncu_gbps"], rel=0.10)


_STORE_PATHS = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "store_paths_hw.json")
                          .read_text())


def _store_paths_kernel(tmp_path, pattern: str):
    """benchmarks/store_paths_hw.py's kernel of ``pattern`` (the source the H200 ran), for smsim."""
    import importlib.util

    from benchmarks import store_paths_hw as P
    path = tmp_path / f"store_paths_{pattern}.py"
    path.write_text("from smsim import cuda\n" + P.kernel_source(pattern).replace("def k(", "@cuda.jit\ndef k("))
    spec = importlib.util.spec_from_file_location(f"store_paths_{pattern}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.k


def _store_paths_launch(kernel, n: int, warps: int = 64):
    """``kernel`` over ``n`` threads as store_paths_hw.py launches it, ``warps`` resident an SM."""
    from benchmarks import store_paths_hw as P
    out, inp = np.zeros(P.WORDS, np.float32), np.ones(1, np.float32)
    return smsim.launch(kernel, (n // P.THREADS,), (P.THREADS,), (out, inp, n, np.float32(2.0)), config="h200",
                        shared_bytes=P.shared_bytes(warps), complete=False)


def _store_paths_rate(kernel, threads: tuple, per_unit: int) -> float:
    """The marginal rate (units a ns, ``per_unit`` threads each) between two launches of ``threads``."""
    ns = [_store_paths_launch(kernel, n).metrics["gpu__time_duration.sum"] for n in threads]
    return (threads[1] - threads[0]) / per_unit / (ns[1] - ns[0])


def _store_paths_hw_rate(pattern: str, per_unit: int, warps: int = 64) -> float:
    hw = next(r for r in _STORE_PATHS["rows"] if r["pattern"] == pattern and r["warps_per_sm"] == warps)
    return hw["n"] / per_unit / hw["metrics"]["gpu__time_duration.sum"]


def test_random_whole_sectors_are_written_at_the_h200s_rate_of_rows_opened_for_writes(tmp_path):
    """rand_sector: whole 32-byte sectors written at random into 1 GiB, each in a row of its own; the marginal
    rate of 1M -> 2M sectors (32 -> 64 MB, past what L2 keeps dirty) against the H200's 8.4M at 64 warps an
    SM. Rows opened for writes cost write_activation_cost of the device's activations: at 1 (as reads)
    smsim would write 38% faster."""
    rate = _store_paths_rate(_store_paths_kernel(tmp_path, "rand_sector"), (1 << 23, 1 << 24), 8)
    assert rate == pytest.approx(_store_paths_hw_rate("rand_sector", 8), rel=0.10)


def test_lines_written_in_part_are_completed_at_the_h200s_rate(tmp_path):
    """stride32: a word stored into every 128-byte line of 1 GiB; the marginal rate of 2M -> 4M lines (past
    the 3 MB of partly written sectors L2 keeps, each line completed with a DRAM read and written back)
    against the H200's 8.4M at 64 warps an SM (the same at 8: a device bound). The bus alone would let
    smsim complete lines 2.5x as fast (l2.completions_per_cycle = 0)."""
    rate = _store_paths_rate(_store_paths_kernel(tmp_path, "stride32"), (1 << 21, 1 << 22), 1)
    assert rate == pytest.approx(_store_paths_hw_rate("stride32", 1), rel=0.10)


def test_warps_whose_stores_l2_completes_slowly_wait_at_exit_as_on_the_h200(tmp_path):
    """stride32 at 8 warps an SM, all 8.4M lines: the H200's warps drain 42.9 warp-cycles per issued
    instruction after EXIT, waiting for L2 to take their stores (l1.store_credits; with no limit, 5.9)."""
    from benchmarks import store_paths_hw as P
    res = _store_paths_launch(_store_paths_kernel(tmp_path, "stride32"), P.PATTERNS["stride32"][3], warps=8)
    hw = next(r for r in _STORE_PATHS["rows"] if r["pattern"] == "stride32" and r["warps_per_sm"] == 8)
    stalls = res.stalls_per_instruction()
    assert max(stalls, key=stalls.get) == "drain"
    assert stalls["drain"] == pytest.approx(
        hw["metrics"]["smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"], rel=0.15)


def test_latency_hiding_bandwidth_rises_and_saturates_with_long_scoreboard_at_low_occupancy():
    rows = [r for r in HW["occupancy_full_gpu"] if r["ilp"] == 1]
    got = []
    for r in rows:
        got.append(_marginal_gbps(r["warps_per_sm"], 1))
        res = _stream(r["warps_per_sm"], 1, 32 << 20)
        if r["warps_per_sm"] <= 8:
            top = max(res.stalls, key=res.stalls.get)
            assert top == "long_scoreboard"
    assert all(b > a for a, b in zip(got[:5], got[1:6]))             # rises with warps up to 32 per SM
    assert got[3] > 3 * got[0]                                        # 16 warps: far above 4 warps
    measured = [r["gbps"] for r in rows]
    # 32 -> 64 warps: saturated as on the H200, where 32 warps already reach 87% of the best (smsim 0.94 with
    # the config's seed: HBM's loaded waits are drawn, and with them a marginal rate of two launches moves by up
    # to 3% with the seed, another seed giving 0.88)
    assert min(got[5:]) / max(got) == pytest.approx(min(measured[5:]) / max(measured), abs=0.08)
    for g, m in zip(got, measured):
        assert g == pytest.approx(m, rel=0.20)


_NCU_ROWS = {r["case"]: r for r in HW["ncu_counters"]}
_METRICS = ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum")


@pytest.mark.parametrize("case_id", sorted(C.NCU))
def test_sector_and_wavefront_counts_equal_nsight_exactly(case_id):
    row = next(r for text, r in _NCU_ROWS.items() if text.startswith(C.NCU[case_id]))
    case = next(c for c in C.CASES if c.id == case_id)
    _, res = cases.run_case(case, "test", timing=True, config="h200", blocks="all")
    for name in _METRICS:
        if name in row:
            assert res.metrics[name] == row[name], name
    per_instruction = sum(r["bank_conflicts"] for r in res.instructions)
    assert per_instruction == res.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] + \
        res.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]


_SCHED = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "sched_order_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the probe's clock stamps)")
@pytest.mark.parametrize("name", ["write_gs", "xu_blocks", "xu_one_block"])
def test_warps_finish_in_the_h200s_order_oldest_block_first_a_blocks_warps_together(name):
    """The H200 runs the oldest resident block's warps first and a block's warps in turn
    (benchmarks/sched_order_hw.py, per-warp clock stamps): a store-bound grid-stride loop of 16 blocks an
    SM ends its blocks one after another in start order (55% of the warp slots busy on average, where
    round-robin over all warps ends them together: 98%), and an XU-bound loop of one 32-warp block ends
    every warp together (greedy-then-oldest starves the youngest: 33%)."""
    from benchmarks import sched_order_hw as S
    hw = S.summarise(_SCHED["rows"][name]["stamps"])
    sim = S.simulate(name)
    assert sim["warps_active_pct"] == pytest.approx(hw["warps_active_pct"], abs=5.0)
    assert sim["within_block_spread"] <= 0.05
    if not math.isnan(hw["block_order_corr"]):
        assert sim["block_order_corr"] >= 0.95 and hw["block_order_corr"] >= 0.95


_SPREAD = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "sm_spread_hw.json").read_text())


def test_the_slowest_sm_lag_is_the_h200s_measured_one():
    """A kernel lasts until its slowest SM is done (benchmarks/sm_spread_hw.py: one DRAM read per warp, one
    256-thread block on each of B SMs): the config's table is the measured lag of the slowest SM behind the
    mean one, and it grows with the SMs busy; a store the SM waits for lags as much (within 70 cycles)."""
    from benchmarks import sm_spread_hw as S
    measured = S.analyse_data(_SPREAD)
    cfg = load_config("h200")
    for b, lag in zip(cfg.dram.slowest_sm_busy, cfg.dram.slowest_sm_cycles):
        if b == 1:
            assert lag == 0                              # one SM is its own slowest
            continue
        name = "load" if b == 132 else f"load_{b}x256"
        assert lag == pytest.approx(measured[name]["slowest_excess"], abs=1.0)
        store = "store" if b == 132 else f"store_{b}x256"
        if store in measured:
            assert measured[store]["slowest_excess"] == pytest.approx(lag, abs=70.0)
    assert cfg.dram.slowest_sm_cycles[-1] > 5 * cfg.dram.slowest_sm_cycles[1]


def test_a_kernel_that_goes_to_memory_ends_with_the_slowest_sm():
    """vector.vec_add at its test size (12 blocks) ends the 12-SM lag later, streams.write_only (1024 blocks,
    stores only) the 132-SM one; an empty kernel makes no memory round trip and ends as the mean SM does."""
    off = {"dram.slowest_sm_busy": [], "dram.slowest_sm_cycles": []}
    cfg = load_config("h200")
    lag = functools.partial(np.interp, xp=cfg.dram.slowest_sm_busy, fp=cfg.dram.slowest_sm_cycles)
    for case_id, want in (("vector.vec_add", lag(12)), ("streams.write_only", lag(132)),
                          ("streams.empty_1wave", 0.0)):
        case = cases.get(case_id)
        s = case.setup("test")
        runs = [smsim.launch(case.load_kernel(), s.grid, s.block, s.args, config="h200", overrides=o,
                             complete=False) for o in (None, off)]
        assert runs[0].metrics["smsim.dram.slowest_sm_lag_cycles"] == pytest.approx(want)
        assert runs[0].cycles - runs[1].cycles == pytest.approx(want, abs=1.0)


@smsim.cuda.jit
def _chase8(nxt, out):
    """Eight dependent reads per lane through a random cycle (sm_spread_hw.py's ``chase``, without stamps)."""
    i = smsim.cuda.grid(1)
    idx = (i * 7919) % nxt.shape[0]
    for _ in range(8):
        idx = nxt[idx]
    out[i] = idx


def test_a_chain_of_dependent_dram_reads_lags_as_independent_draws():
    """The slowest SM of a chain of DRAM round trips lags as the sum of independent draws (sm_spread_hw:
    eight dependent DRAM reads 1797 cycles against one read's 422 on 132 SMs, steps uncorrelated): a warp's
    reads, each issued after the one before was back, make a chain of eight, and the lag is the one-read
    lag times sqrt(8). That falls short of the measured chase (its steps, 32 random sectors a warp, lag more
    than one coalesced read: 688 cycles a step), as docs/timing_model.md says."""
    from benchmarks import sm_spread_hw as S
    rng = np.random.default_rng(0)
    n = 16 << 20                                          # 64 MiB: past L2, every step a DRAM read
    order = rng.permutation(n)
    nxt = np.empty(n, np.int32)
    nxt[order] = np.roll(order, -1)
    res = smsim.launch(_chase8, (132,), (256,), (nxt, np.zeros(132 * 256, np.int32)), config="h200",
                       complete=False)
    one = load_config("h200").dram.slowest_sm_cycles[-1]
    assert res.metrics["smsim.dram.slowest_sm_lag_cycles"] == pytest.approx(one * math.sqrt(8))
    measured = S.analyse_data(_SPREAD)
    chase = measured["chase"]["total"]["max_mean"] - measured["chase"]["total"]["mean"]
    assert chase == pytest.approx(1797, abs=1) and measured["load"]["slowest_excess"] == pytest.approx(one, abs=1)
    assert res.metrics["smsim.dram.slowest_sm_lag_cycles"] == pytest.approx(chase, rel=0.4)


_ATOMICS = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "atomics_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the probe's kernels)")
@pytest.mark.parametrize("dtype,bins", [("int32", 1), ("int64", 1), ("float32", 1), ("float64", 1),
                                        ("int32", 32), ("float32", 32), ("int64", 32)])
def test_same_address_atomics_take_the_h200s_time_by_data_type(dtype, bins):
    """benchmarks/atomics_hw.py: on one address a float add waits for the previous one (3.66 cycles per
    operation on the H200, integers 1.5-1.6); on 32 words of a line floats run as fast as integers. (float64
    on 32 words runs at half the int64 rate on the H200: not modelled, left out.)"""
    from benchmarks import atomics_hw as A
    _, _, red, _ = A._kernels()
    hw = next(r for r in _ATOMICS["rows"] if (r["dtype"], r["mode"], r["bins"]) == (dtype, "red", bins))
    d = np.dtype(dtype)
    res = smsim.launch(red, A.BLOCKS, A.THREADS, (np.zeros(bins, d), d.type(1), bins, A.REPS[bins]),
                       config="h200", complete=False)
    assert res.metrics["gpu__time_duration.sum"] / hw["ns_median"] == pytest.approx(1.0, abs=0.2)


_SCATTER = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "l2_scatter_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the probe's kernels)")
@pytest.mark.parametrize("stride,tolerance", [(8, 0.1), (16, 0.1), (0, 0.1), (32, 0.15)])
def test_scattered_dram_reads_take_the_h200s_time(stride, tolerance):
    """benchmarks/l2_scatter_hw.py from DRAM on 132 SMs: whole lines stream (stride 8), two 64-byte accesses a
    line move as many bytes (16), hashed words open a DRAM row each, 2.66 TB/s of accesses
    (``dram.activations_per_cycle``; smsim was 0.60 of the H200's time without it). One access per line of
    consecutive lines (32) reaches 89% of the stream on the H200 (bank groups, not modelled): 1.14x as fast here. The
    probe's own kernel (its block's ``%smid`` note included), over 256 MiB, which L2 does not keep either: a
    quarter of the probe's 1 GiB, where blocks seldom ask for one DRAM access at the same point of their code
    (over 64 MiB they would 37% of the time, and share its fetch: smsim.sm.SM._by_lot)."""
    from benchmarks import l2_scatter_hw as P
    _, _, scatter = P._kernel()
    hw = next(r for r in _SCATTER["rows"] if r["array_words"] == P.DRAM_WORDS and r["stride"] == stride)
    loops, sms = 16, 132
    res = smsim.launch(scatter, sms, P.THREADS, (np.ones(P.DRAM_WORDS // 4, np.float32), np.zeros(1, np.float32),
                                                 stride, loops, np.zeros(sms, np.int32)), config="h200", complete=False)
    sectors = loops * 4 * sms * P.THREADS // 32 * P.sectors_per_request(stride)
    rate = sectors / res.metrics["gpu__time_duration.sum"]
    assert rate / hw["sectors_per_ns"] == pytest.approx(1.0, abs=tolerance)


#: test-size kernels whose warps wait on loads of 4-32 sectors with many in flight: on the H200 none of them
#: shows lg_throttle (docs/hardware/validate_hw.json, [hw2])
LOAD_BACKLOGS = ("coalescing.particles_aos4", "coalescing.particles_aos8", "ordinary.rowsum64",
                 "transpose.naive_32x32", "transpose.naive_strided_reads_32x32")


def test_a_load_backlog_is_long_scoreboard_not_lg_throttle_as_on_the_h200():
    """The H200 shows no lg_throttle where loads wait for L1 (its queue holds them; they wait for MSHRs and
    the tag stage as long_scoreboard). smsim gave 0.6-3.3 warp-cycles per instruction with an LSU queue of
    16 that a load with no MSHR free blocked (l1.lsu_queue, smsim/mem/l1.py)."""
    from smsim import validate as v
    rows = v.rows(v.load(), ("test",), only=lambda c: c in LOAD_BACKLOGS)
    assert len(rows) == len(LOAD_BACKLOGS)
    for r in rows:
        assert r.hw_stalls["lg_throttle"] < 0.3, r.case
        assert r.sim_stalls.get("lg_throttle", 0.0) < 0.3, r.case
        assert r.sim_stalls["long_scoreboard"] > 5.0, r.case


#: test-size kernels whose time is the atomics every busy SM sends: a warp's 32 lanes on one word, 1024 words
#: over 8 slices, one warp an SM's block each (bootcamp.warp_atomic_same, 5.4 us, 2.4 of it beyond an empty
#: kernel's); one word, all 32768 threads' adds (streams.hist_bins1) ([hw2], docs/hardware/validate_hw.json)
ATOMIC_BACKLOGS = ("bootcamp.warp_atomic_same", "streams.hist_bins1")


def test_a_short_kernel_lasts_until_the_slices_performed_every_sms_atomics_as_on_the_h200():
    """The kernel's end waits for the atomic units' backlog all busy SMs feed, the busiest slice's (less the
    SMs' lag: their requests come spread around this SM's), not for this SM's own operations, which the share
    model books first: warp_atomic_same ran 0.67 of the H200's time, its SM's words on the least busy of the
    8 slices, and hist_bins1 0.91."""
    from smsim import validate as v
    rows = v.rows(v.load(), ("test",), only=lambda c: c in ATOMIC_BACKLOGS)
    assert len(rows) == len(ATOMIC_BACKLOGS)
    for r in rows:
        assert r.ratio == pytest.approx(1.0, abs=0.05), r.case


#: test-size kernels whose warps start by reading their thread and block index ([hw2]): copies (two S2R, the
#: first used 4 cycles after it issued), 1 to 31 warps an SM at once, and empty kernels (an S2R and an S2UR,
#: then a LOP3 that waits for both) of 4 warps an SM and of 32 at once
SPECIAL_READS = ("coalescing.copy_stride1", "vector.vec_add", "streams.copy", "streams.launch_1wave",
                 "streams.empty_1wave", "streams.empty_1block", "streams.empty_1block1024")


def test_reading_the_thread_and_block_index_waits_as_on_the_h200():
    """Each warp's wait for its special-register reads (short_scoreboard, and mio_throttle behind the S2UR
    unit) is within 25% of the H200's at test size (smsim/special.py). With S2R timed as a 4-cycle ALU
    instruction and S2UR as an 18-cycle one, smsim gave none to the copies and 60% to the empty kernels."""
    from smsim import validate as v
    rows = v.rows(v.load(), ("test",), only=lambda c: c in SPECIAL_READS)
    assert len(rows) == len(SPECIAL_READS)
    for r in rows:
        hw = r.hw_stalls["short_scoreboard"] + r.hw_stalls["mio_throttle"]
        sim = r.sim_stalls.get("short_scoreboard", 0.0) + r.sim_stalls.get("mio_throttle", 0.0)
        assert sim == pytest.approx(hw, rel=0.25), r.case


def test_the_block_refill_probe_measures_each_blocks_gap_to_the_slot_it_took():
    """benchmarks/block_refill_hw.py's analysis: a block's start less the latest end, before it, of a block of
    its SM; the SM's first wave (started before any block ended) has none. On the H200's stamps
    (docs/hardware/block_refill_hw.json) no block started while more warps of other blocks ran than the
    SM's 64 warp slots leave room for: a slot is handed on a block at a time."""
    from benchmarks import block_refill_hw as B
    # SM 0: blocks 0 and 1 at once; 0 ends at 100, 2 starts at 130 (30); 1 ends at 150, 3 starts at 200 (50).
    # SM 1: block 4 ends at 50, block 5 starts at 90 (40)
    st = np.array([[0, 0, 10, 100], [0, 0, 12, 90], [0, 1, 11, 150], [0, 2, 130, 300], [0, 3, 200, 400],
                   [1, 4, 5, 50], [1, 5, 90, 120]])
    g = B.block_gaps(np, st)
    assert g["refills"] == 3 and g["gap_mean"] == pytest.approx(40.0) and g["blocks"] == 6
    data = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "block_refill_hw.json").read_text())
    for raw in data["raw"]:
        a = np.array(raw["rows"])
        for sm in np.unique(a[:, 0]):
            x = a[a[:, 0] == sm]
            starts = {b: x[x[:, 1] == b, 2].min() for b in np.unique(x[:, 1])}
            running = [((x[:, 2] <= s) & (x[:, 3] > s) & (x[:, 1] != b)).sum() for b, s in starts.items()]
            assert max(running) <= 64 - raw["threads"] // 32, (raw["threads"], sm)


_FP64 = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "fp64_chain_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_dependent_float64_chains_take_the_h200s_cycles_a_step():
    """One warp's dependent float64 chains (benchmarks/fp64_chain_hw.py, docs/hardware/fp64_chain_hw.md): a
    DFMA or DADD step 8.1 cycles (pipes.fp64.latency_cycles, ptxas's stall counts), a division 132, a square
    root 100 (libdevice's MUFU and DFMA steps), an FFMA 4.3; within 5%. libdevice's exp: within 10% (smsim
    issues one instruction a step fewer than the H200: 25 of 26)."""
    from benchmarks import fp64_chain_hw as F
    hw, sim = F.per_step(_FP64["rows"]), F.per_step(F.simulated(_FP64["rows"]))
    assert hw["dfma"] == pytest.approx(8.1, abs=0.1) and hw["ffma"] == pytest.approx(4.3, abs=0.1)
    for name in F.KERNELS:
        assert sim[name] == pytest.approx(hw[name], rel=0.10 if name == "dexp" else 0.05), name


_STORE_LOAD = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "store_load_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_load_after_its_warps_store_into_the_same_place_takes_the_h200s_cycles():
    """A loop loading what the store before wrote (benchmarks/store_load_hw.py, docs/hardware/store_load_hw.md):
    coalesced, one warp or eight, as long as loading another array on the H200 (within 6% of each, but eight
    warps reloading the word they stored within 8%: 1.01 before the register-file banks, 1.07 with them, their
    conflicts in its index arithmetic delaying the other warp of each sub-partition where the H200 shows 0.06
    warp-cycles of dispatch_stall an issue); eight warps' uncoalesced loads into the sectors or lines their stores
    wrote (32 lines a request), within 20%: 0.90-0.99 before the stores' port to L2 and its buffer
    (l1.write_request_cycles, write_data_cycles, write_buffer_cycles), 1.07-1.18 with them, whose buffer was
    fitted over these and 13 more rows of loads behind stores (benchmarks/store_port_hw.py, cold_rows_hw.py: mean
    error 0.157 -> 0.059 in log). (One warp's uncoalesced ones, which miss L1 now and then on the H200, are not
    modelled: 0.42-0.86.)"""
    from benchmarks import store_load_hw as S
    rows = [r for r in _STORE_LOAD["rows"] if r["kernel"].startswith("coal") or
            (r["threads"] == 256 and r["kernel"] in ("row_raw", "row_split", "row_line"))]
    hw, sim = S.per_step(_STORE_LOAD["rows"]), S.per_step(S.simulated(rows))
    assert hw[("coal_raw", 32)] == pytest.approx(hw[("coal_split", 32)], rel=0.1)
    assert hw[("row_raw", 32)] > 1.5 * hw[("row_split", 32)]          # what is not modelled, recorded
    for key in sim:
        tol = 0.20 if not key[0].startswith("coal") else 0.08 if key == ("coal_raw", 256) else 0.06
        assert sim[key] == pytest.approx(hw[key], rel=tol), key


_COLD_ROWS = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "cold_rows_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_stores_write_requests_leave_the_sm_two_cycles_a_line_as_on_the_h200():
    """``course.prefix_row32``'s walk over cold rows taken apart on one SM (benchmarks/cold_rows_hw.py,
    docs/hardware/cold_rows_hw.md): a store of a word in each of 32 lines costs the H200 two cycles a line at 1,
    8 and 32 warps alike (l1.write_request_cycles + write_data_cycles), where the loads alone take one (the tag
    stage), and loads behind the stores wait while the port's backlog is past l1.write_buffer_cycles. The stores
    alone and the loads alone within 7% of the H200's duration at every shape (the loads in four blocks 0.935: 0.942
    while a parameter's constant-cache miss was 270 cycles for every launch, imc_miss 2.62 warp-cycles an
    instruction against the H200's 1.9, 1.63 since smsim/front_end.py queues the SMs' misses and fetches the
    lines one at a time; what else the loads lack is not in the front end); at 8 and 32 warps the walk itself
    (loads, and stores into what they read), the walk twice and the loads with stores into another array within
    10%. Without the port the stores alone run 0.6 of the H200's time and the walk 0.73; without its buffer the
    loads with stores into another array at 32 warps 0.78 and the walk twice in four blocks 0.86 (the walk
    itself at 32 warps 0.97, 0.84 before the LSU queue's entries went to the sub-partitions in turn,
    smsim.scheduler.Clock.lead: the loads queue behind other sub-partitions' stores anyway)."""
    from benchmarks import cold_rows_hw as R
    rows = [r for r in _COLD_ROWS["rows"] if r["kernel"] in ("store", "load") or r["threads"] >= 256]

    def ratios(overrides: dict) -> dict:
        sim = R.simulated(rows, overrides=overrides)
        return {(r["kernel"], r["blocks"], r["threads"]): s["metrics"]["gpu__time_duration.sum"] /
                r["metrics"]["gpu__time_duration.sum"] for r, s in zip(rows, sim)}

    for key, ratio in ratios({}).items():
        assert ratio == pytest.approx(1.0, abs=0.07 if key[0] in ("store", "load") else 0.10), key
    free = ratios({"l1.write_request_cycles": 0.0, "l1.write_data_cycles": 0.0})
    assert free[("store", 1, 256)] < 0.7 and free[("raw", 1, 256)] < 0.8
    unbuffered = ratios({"l1.write_buffer_cycles": 0.0})
    assert unbuffered[("split", 1, 1024)] < 0.8 and unbuffered[("raw2", 4, 256)] < 0.9


_STORE_PORT = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "store_port_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_stores_write_requests_hold_the_port_a_cycle_a_line_and_a_cycle_a_sector():
    """One block's stores into lines no store touched (benchmarks/store_port_hw.py, docs/hardware/store_port_hw.md):
    a word in each of 32 lines, of 16 lines (two sectors each) and of 8 lines (four each) take the H200 64, 48 and
    40 cycles a request at 8 and 32 warps (l1.write_request_cycles + l1.write_data_cycles), into the same lines
    over and over as into fresh ones: within 3%; a float2 written as two floats, whose pairs ptxas separates by a
    wait on an older store's register read, reach L2 as one write each (0.52-0.53 of the L1 store sectors on the
    H200): 0.50 here, within 10% of its time; an L1 hit before each store (the loads behind the stores' port
    backlog, l1.write_buffer_cycles) within 16%."""
    from benchmarks import store_port_hw as P
    rows = [r for r in _STORE_PORT["rows"] if r["kernel"] in ("line1", "line2", "sector1", "same_word", "same_line",
                                                              "coal2", "hit_fresh", "hit_same")]
    sim_rows = P.simulated(rows)
    hw, sim = P.per_step(rows), P.per_step(sim_rows)
    for key in sim:
        tol = 0.16 if key[0].startswith("hit") else 0.10 if key[0] == "coal2" else 0.03
        assert sim[key] == pytest.approx(hw[key], rel=tol), key
    for r in sim_rows:
        if r["kernel"] == "coal2":
            m = r["metrics"]
            l1_sectors = m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
            assert m["lts__t_sectors_srcunit_tex_op_write.sum"] == l1_sectors / 2


_FP64_RATE = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "fp64_rate_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_three_source_chains_at_64_warps_take_the_h200s_register_bank_reads():
    """The chains at 16 warps a sub-partition (benchmarks/fp64_rate_hw.py, docs/hardware/fp64_rate_hw.md): a
    float32 ``FFMA R8, R8, R4, R5`` chain, two source registers in one bank (scheduler.register_banks 2), 2.37
    cycles a step where its ``FADD R5, R5, UR6`` twin issues at one a cycle (1.65 a step of 1.66 instructions);
    ``DFMA R8, R8, UR6, R4`` (two registers from each bank) 2.44 a step where ``DADD`` keeps the FP64 pipe's 2:
    within 5% each, and without the banks the FFMA chain is 30% too fast."""
    from benchmarks import fp64_rate_hw as F
    rows = [r for r in _FP64_RATE["rows"] if r["kernel"] in ("ffma", "fadd", "dfma", "dadd")]
    hw, sim = F.per_step(rows), F.per_step(F.simulated(rows))
    assert hw["ffma"] > 1.35 * hw["fadd"] and hw["dfma"] > 1.15 * hw["dadd"]
    for name in sim:
        assert sim[name] == pytest.approx(hw[name], rel=0.05), name
    off = F.per_step(F.simulated([r for r in rows if r["kernel"] == "ffma"], overrides={"scheduler.register_banks": 0}))
    assert off["ffma"] < 0.75 * hw["ffma"]


_BANK_OCC = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" /
                        "bank_occupancy_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_bank_conflict_costs_the_other_warps_of_a_sub_partition_at_any_occupancy():
    """The FFMA chain (two source registers from one bank) at 1, 2, 3, 4 and 8 warps a sub-partition
    (benchmarks/bank_occupancy_hw.py, docs/hardware/bank_occupancy_hw.md): within 6% of the H200's cycles a
    step at each, the banks as pipes that must be free to issue (a one-cycle queue before them was predicted 8%
    fast at two warps, and without the banks smsim is 16-32% fast from two warps on)."""
    from benchmarks import bank_occupancy_hw as B
    rows = [r for r in _BANK_OCC["rows"] if r["kernel"] == "ffma"]
    hw, sim = B.per_step(rows), B.per_step(B.simulated(rows))
    for key in hw:
        assert sim[key] == pytest.approx(hw[key], rel=0.06), key
    off = B.per_step(B.simulated([r for r in rows if r["k"] == 2], overrides={"scheduler.register_banks": 0}))
    assert off[("ffma", 2)] < 0.9 * hw[("ffma", 2)]


_HW_DIR = Path(__file__).resolve().parents[1] / "docs" / "hardware"


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_another_warps_store_joins_a_write_that_waits_to_leave_the_sm_as_on_the_h200():
    """docs/hardware/store_cross_hw.md: with one block an SM the H200 merges no two stores into the same sectors,
    however close together (two warps at once) or whatever comes between (four junk stores): neither does smsim.
    At 64 warps an SM (store_merge_hw) a block's 8 warps' words into the same 32 sectors of 8 lines reach L2 as
    0.21 of the L1 store sectors in 44.6 us: smsim within 15% of that time and at most 0.30 (3.6x the time with
    l1.cross_merge_window = 0); stores of 32 lines join none, a warp's own eight of 32 sectors in 8 lines hardly
    any (the H200 0.92 of the sectors at L2: other sub-partitions' stores come between, past the window)."""
    from benchmarks import store_cross_hw as pairs
    from benchmarks import store_merge_hw as probe
    cross = json.loads((_HW_DIR / "store_cross_hw.json").read_text())["rows"]
    low = [r for r in cross if r["name"] in ("nosync_L8_g0_j0", "sync_L16_g0_j4")]
    assert len(low) == 2 and all(pairs.pair_merged(r) == 1.0 for r in low)
    assert all(pairs.pair_merged(r) == 1.0 for r in pairs.simulated(low))
    rows = {r["name"]: r for r in json.loads((_HW_DIR / "store_merge_hw.json").read_text())["rows"]}
    block, spread, own = probe.simulated([rows["block_k1_dense"], rows["block_k1_spread"], rows["warp_k1_dense"]])
    hw = rows["block_k1_dense"]["metrics"]
    assert probe.merged(hw) == pytest.approx(0.207, abs=0.001)
    assert probe.merged(block["metrics"]) <= 0.30
    assert block["metrics"]["gpu__time_duration.sum"] == pytest.approx(hw["gpu__time_duration.sum"], rel=0.15)
    assert probe.merged(spread["metrics"]) == 1.0 and probe.merged(own["metrics"]) >= 0.9
    alone, = probe.simulated([rows["block_k1_dense"]], overrides={"l1.cross_merge_window": 0})
    assert alone["metrics"]["gpu__time_duration.sum"] > 3 * hw["gpu__time_duration.sum"]


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_narrow_stores_of_two_warps_into_the_same_sectors_merge_whatever_the_warps_loaded_as_on_the_h200():
    """docs/hardware/size_sweep_hw.md: tutorial.transpose_8x32 (a warp stores 16 bytes into each of 8 lines, the
    next warp the other 16, their loads from other DRAM rows) reaches L2 as 0.73 and 0.78 of its L1 store sectors
    at 256 K and 1 M elements on the H200. smsim kept such warps' stores apart (1.00 at L2, 1.13 and 1.21 of the
    H200's time); a store within l1.merge_sectors / l1.merge_lines joins regardless: at most 0.93 at L2 and
    within 10% of the time (0.89 and 0.84 until each SM's reads opened their DRAM rows alone, 2026-12-02,
    docs/hardware/block_shape_hw.md: its warps' loads, a 32-byte sector a line, come back further apart, and so
    do their stores, 0.92 and 0.88)."""
    from smsim import validate as v
    data = v.load(_HW_DIR / "size_sweep_hw.json")
    for size in ("262144", "1048576"):
        record = data["runs"][size]["tutorial.transpose_8x32"]
        hw = record["metrics"]
        assert 0.72 <= hw["lts__t_sectors_srcunit_tex_op_write.sum"] / \
            hw["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] <= 0.79
        res = v.predict("tutorial.transpose_8x32", size)
        m = res.metrics
        stored = m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
        assert m["lts__t_sectors_srcunit_tex_op_write.sum"] <= 0.93 * stored
        assert v.compare("tutorial.transpose_8x32", size, record, res).error <= 0.10


def test_partial_writes_cost_the_slices_the_same_where_l2_keeps_the_lines_as_on_the_h200():
    """docs/hardware/store_size_hw.md: eight warps' words into each sector of 32 lines a store (the 32-wide naive
    transpose's stores) and two warps' 16 bytes into 8 lines (the 8x32 transpose's), no loads, into 4-32 MB of
    lines L2 keeps: l2.partial_write_cycles, fitted where L2 completes lines, gives smsim within 6% of the H200's
    time at each size (0.97-1.04; with 2.0 the 32-line ones run 20-24% fast)."""
    from benchmarks import store_read_hw as probe
    rows = [r for r in json.loads((_HW_DIR / "store_size_hw.json").read_text())["rows"]
            if r["name"].startswith(("f32_l1_g8", "f32_l4_g2")) and 1 << 15 <= r["sectors"] <= 1 << 18]
    assert len(rows) == 8
    for hw, sim in zip(rows, probe.simulated(rows)):
        assert sim["metrics"]["gpu__time_duration.sum"] == pytest.approx(hw["metrics"]["gpu__time_duration.sum"],
                                                                        rel=0.06), hw["name"]
    cheap = probe.simulated([r for r in rows if r["name"].startswith("f32_l1_g8")],
                            overrides={"l2.partial_write_cycles": 2.0})
    hw32 = [r for r in rows if r["name"].startswith("f32_l1_g8")]
    assert all(s["metrics"]["gpu__time_duration.sum"] < 0.88 * h["metrics"]["gpu__time_duration.sum"]
               for h, s in zip(hw32, cheap))


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_partial_writes_in_a_transposes_order_and_a_warps_field_stores_up_to_32_warps_as_on_the_h200():
    """docs/hardware/partial_order_hw.md: a word a lane into 32 lines a store, a line's words from consecutive
    warps (a naive transpose's order), float32 into 16 MB of lines and float64 into 64 MB: smsim within 6% of
    the H200's time (1.02, 1.03); particles_aos8's three field stores at one warp and 16 warps an SM merge into
    one write (0.333 and 0.415 of the L1 store sectors on the H200), smsim within 0.1 and 10% of the time. (With a
    record a thread at 64 warps an SM they merge 0.855 on the H200 and 0.347 here: the gap the doc and
    field_stores_hw.md leave open.)"""
    from benchmarks import partial_order_hw as probe
    from benchmarks.store_merge_hw import merged
    rows = {r["name"]: r for r in json.loads((_HW_DIR / "partial_order_hw.json").read_text())["rows"]}
    want = {"near_f32_16MB": None, "near_f64_64MB": None, "fields3_w1": 0.333, "fields3_w16": 0.415}
    for (name, share), sim in zip(want.items(), probe.simulated([rows[n] for n in want])):
        hw, m = rows[name]["metrics"], sim["metrics"]
        assert m["gpu__time_duration.sum"] == pytest.approx(hw["gpu__time_duration.sum"],
                                                            rel=0.06 if share is None else 0.10), name
        if share is not None:
            assert merged(hw) == pytest.approx(share, abs=0.001), name
            assert merged(m) == pytest.approx(share, abs=0.1), name


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_warps_second_store_merges_only_if_it_reaches_l1_before_the_first_is_through_as_on_the_h200():
    """docs/hardware/store_resident_hw.md: one warp an SM, two 16-sector stores into the records it loaded reach
    L2 as one write back to back (0.500 of the L1 store sectors) and as two with 16 dependent multiply-adds
    between (1.000; smsim merged them before); with the same chain into records nobody loaded, whose stream of
    stores backs the port up, 86% of pairs merge (0.570; smsim 0.501); 128 multiply-adds apart at 8 warps an SM
    none. smsim within 0.1 of each share (the measure store_resident_hw.md counts) and 10% of each time."""
    _resident_merges({"r4_loaded_c0_one": 0.500, "r4_loaded_c16_one": 1.000, "r4_cold_c16_one": 0.570,
                      "r4_loaded_c128_sparse": 1.000})


def _resident_merges(want: dict, untimed: tuple = ()) -> None:
    """store_resident_hw's rows ``want`` (name -> the H200's merged share, L2 write / L1 store sectors): smsim
    within 0.1 of each share and 10% of each time (not those ``untimed``)."""
    from benchmarks import store_resident_hw as probe
    from benchmarks.store_merge_hw import merged
    rows = {r["name"]: r for r in json.loads((_HW_DIR / "store_resident_hw.json").read_text())["rows"]}
    for (name, share), sim in zip(want.items(), probe.simulated([rows[n] for n in want])):
        hw = rows[name]["metrics"]
        assert merged(hw) == pytest.approx(share, abs=0.005), name
        assert merged(sim["metrics"]) == pytest.approx(share, abs=0.1), name
        if name not in untimed:
            assert sim["metrics"]["gpu__time_duration.sum"] == pytest.approx(hw["gpu__time_duration.sum"],
                                                                             rel=0.10), name


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_warps_32_sector_stores_merge_back_to_back_unless_other_subpartitions_stores_come_between():
    """docs/hardware/store_resident_hw.md: two 32-sector stores of a warp (8 lines) back to back reach L2 as one
    write at one warp an SM (0.502 of the L1 store sectors) and at 8 warps an SM into records they loaded, whose
    stores come apart in time (0.500); at 8 warps storing records nobody loaded, the 4 sub-partitions' stores
    interleaved, as good as none merge (0.995; smsim, whose sub-partition 0 took every free LSU-queue entry
    first, merged no 32-sector stores at all before); at 64 warps an SM into loaded records 88% of pairs
    (0.561). store_merge_hw's warp_k1_dense (eight such stores a warp, 64 warps an SM): 0.921. smsim within 0.1
    of each share and 10% of each time (not r8_cold_c0_sparse's, 0.73 of the H200's: a store stream at 8 warps
    an SM, as before)."""
    from benchmarks import store_merge_hw
    _resident_merges({"r8_cold_c0_one": 0.502, "r8_loaded_c0_sparse": 0.500, "r8_cold_c0_sparse": 0.995,
                      "r8_loaded_c0_full": 0.561}, untimed=("r8_cold_c0_sparse",))
    dense = [r for r in json.loads((_HW_DIR / "store_merge_hw.json").read_text())["rows"]
             if r["name"] == "warp_k1_dense"]
    assert store_merge_hw.merged(dense[0]["metrics"]) == pytest.approx(0.921, abs=0.005)
    assert store_merge_hw.merged(store_merge_hw.simulated(dense)[0]["metrics"]) == pytest.approx(0.921, abs=0.1)


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_load_of_a_sector_just_written_in_part_waits_for_dram_as_on_the_h200():
    """docs/hardware/store_resident_hw.md: each warp stores 4 bytes into each of 16 sectors nobody loaded, then
    loads another word of each: one warp an SM takes the H200 442 us for 1 K such steps, 8 warps 72 us, as if
    each load read DRAM (smsim 177 and 42 as L2 hits before): smsim within 10% of each."""
    from benchmarks import store_resident_hw as probe
    rows = {r["name"]: r for r in json.loads((_HW_DIR / "store_resident_hw.json").read_text())["rows"]}
    names = ("r4_cold_hit_one", "r4_cold_hit_sparse")
    for name, sim in zip(names, probe.simulated([rows[n] for n in names])):
        hw = rows[name]["metrics"]["gpu__time_duration.sum"]
        assert sim["metrics"]["gpu__time_duration.sum"] == pytest.approx(hw, rel=0.10), name


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_sector_left_in_part_by_more_stores_takes_longer_to_complete_as_on_the_h200():
    """docs/hardware/store_read_hw.md: sectors left written in part (8 of 32 bytes from each of 1, 2, 3 warps,
    a sector a line, 2M lines) take the H200 75, 140 and 180 us: the lines' completions take a turn for each
    L2 write request merged into them (l2.completions_per_cycle). The H200 merges 5-7% of those stores before
    L2, smsim's cross-warp joins (l1.cross_merge_window) 18-26%, which takes their requests away too (the
    default's 1.05, 0.91 and 0.68 of the H200's time): with no joins, the completions alone, smsim within 15%
    of each; a turn a line would make the two-warp one 1.7x too fast."""
    from benchmarks import store_read_hw as probe
    rows = {r["name"]: r for r in json.loads((_HW_DIR / "store_read_hw.json").read_text())["rows"]}
    names = ("f32_l2_g1_r0", "f32_l2_g2_r0", "f32_l2_g3_r0")
    sims = probe.simulated([rows[n] for n in names], overrides={"l1.cross_merge_window": 0})
    for hw, sim in zip((rows[n] for n in names), sims):
        got, want = sim["metrics"]["gpu__time_duration.sum"], hw["metrics"]["gpu__time_duration.sum"]
        assert got == pytest.approx(want, rel=0.15), hw["name"]
    assert rows["f32_l2_g2_r0"]["metrics"]["gpu__time_duration.sum"] > 1.7 * \
        rows["f32_l2_g1_r0"]["metrics"]["gpu__time_duration.sum"]


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_float64_clamp_in_place_at_the_block_rate_and_by_a_persistent_grid_as_on_the_h200():
    """docs/hardware/inplace_f64_hw.md: a float64 array clamped in place over 2^24 elements. In blocks of 64 and
    96 threads the H200 retires 0.82-0.83 blocks a cycle (launch.blocks_per_cycle), 160 and 107 us, and a
    persistent grid-stride grid moves the bytes at 3.5 TB/s, 69.5 us: smsim within 3% and 5%. (From 128
    threads up the H200's one element a thread runs 66-75 us, the fastest of all, and smsim's 1.05-1.31 of it:
    its loads wait as long as the persistent grid's, the H200's a third less; not modelled.)"""
    from benchmarks import inplace_f64_hw as probe
    rows = {r["name"]: r for r in json.loads((_HW_DIR / "inplace_f64_hw.json").read_text())["rows"]}
    names = ("clamp_b64", "clamp_b96", "clamp_gs")
    for hw, sim in zip((rows[n] for n in names), probe.simulated([rows[n] for n in names])):
        got, want = sim["metrics"]["gpu__time_duration.sum"], hw["metrics"]["gpu__time_duration.sum"]
        assert got == pytest.approx(want, rel=0.03 if hw["block"] < 128 else 0.05), hw["name"]
    hw_ns = {n: r["metrics"]["gpu__time_duration.sum"] for n, r in rows.items()}
    assert hw_ns["clamp_b192"] < hw_ns["clamp_gs"]          # the H200 loses nothing to blocks' turnover


_DATA_STAGE = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "data_stage_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_shared_wavefronts_and_global_load_data_take_one_stage_as_on_the_h200():
    """benchmarks/data_stage_hw.py, docs/hardware/data_stage_hw.md: at 64 warps an SM an LDS.128 (4 shared
    wavefronts) and four 4-line LDG hits (16 data wavefronts) an iteration take the H200 the sum of their
    wavefronts, a cycle each (mix_wide 10.05 cycles a load; lds_wide alone 4.14, ldg_wide 16.04): the loop's
    cycles a load (from 24 and 72 iterations, the H200's 512 too many to simulate here) within 6% each with
    l1.one_data_stage, and mix_wide's 10% short with the two apart."""
    from benchmarks import data_stage_hw as D
    from smsim import cuda
    hw = {r["name"]: r["metrics"]["sm__cycles_active.avg"] / (64 * D.ITER * 2) for r in _DATA_STAGE["rows"]}

    def per_load(name: str, **overrides) -> float:
        cycles = []
        for n in (24, 72):
            g, out = D._arrays(name, np)
            res = smsim.launch(D._kernel(name, cuda), D.BLOCKS, D.THREADS, (g, out, n), config="h200",
                               compiler="numba", complete=False,
                               overrides={"scheduler.stream": "sass", **overrides})
            cycles.append(res.cycles)
        return (cycles[1] - cycles[0]) / (64 * 48 * 2)
    for name in ("lds_wide", "ldg_wide", "mix_wide"):
        assert per_load(name) == pytest.approx(hw[name], rel=0.06), name
    assert per_load("mix_wide", **{"l1.one_data_stage": False}) < 0.9 * hw["mix_wide"]


_CONFLICT_OVERLAP = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware"
                                / "conflict_overlap_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_fill_from_dram_takes_the_data_stage_a_cycle_a_sector_as_on_the_h200():
    """benchmarks/conflict_overlap_hw.py, docs/hardware/conflict_overlap_hw.md: 16 waves of 256-thread blocks
    (64 warps an SM) that stage 4 KB in shared memory and then read it in 8-way conflicts take the H200 84.1 us
    staged from DRAM (b8_g16) and 73.2 us staged from a constant (b8_c16): the 32 four-sector loads a block
    cost the data stage about 5 cycles each (l1.fill_sector_cycles: a cycle a sector from DRAM, and the
    lanes' bytes). Both within 6%, and the difference within 25% of the H200's (2.6 us without the fills'
    writes, a quarter of it)."""
    from benchmarks import conflict_overlap_hw as C
    rows = {r["name"]: r for r in _CONFLICT_OVERLAP["rows"] if r["name"] in ("b8_g16", "b8_c16")}
    sim = {r["name"]: r["metrics"]["gpu__time_duration.sum"] for r in C.simulated(list(rows.values()))}
    hw = {n: r["metrics"]["gpu__time_duration.sum"] for n, r in rows.items()}
    for name in rows:
        assert sim[name] == pytest.approx(hw[name], rel=0.06), name
    assert sim["b8_g16"] - sim["b8_c16"] == pytest.approx(hw["b8_g16"] - hw["b8_c16"], rel=0.25)


_FENCE = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "fence_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_fence_costs_its_scope_and_waits_for_the_sms_stores_as_on_the_h200():
    """benchmarks/fence_hw.py, docs/hardware/fence_hw.md: cycles per loop iteration with a fence, at one warp an
    SM (its latency: 280 for threadfence, 1269 for threadfence_system, after a store L2 must have first 552) and
    at 64 (the SM's fence unit: 10.8 cycles a GPU-scope fence, 4.3 a block-scope one), each within 10% (a
    block-scope fence after a store, which does not wait for L2, 41.4 cycles, within 15%); a
    load of what hit L1 hits no more after a GPU-scope fence (0% on the H200, 95% without it)."""
    from benchmarks import fence_hw as F
    names = ("fma_fence_w1", "fma_fence_w64", "fma_fence_sys_w1", "fma_fence_cta_w64", "st_fence_w1",
             "st_fence_cta_w1", "ld_l1_w1", "ld_l1_fence_w1")
    rows = [r for r in _FENCE["rows"] if r["name"] in names]
    sim_rows = F.simulated(rows)
    hw, sim = (F.hw_probe.per_step(rs, F.STEPS, fields=("name",)) for rs in (rows, sim_rows))
    for (name,) in hw:
        if name.startswith("ld_"):
            continue
        # a block-scope fence after a store waits for it to leave the SM, not for L2 (41.4 against 552.3)
        assert sim[(name,)] == pytest.approx(hw[(name,)], rel=0.15 if name == "st_fence_cta_w1" else 0.10), name
    hit = {r["name"]: r["metrics"]["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]
           for r in sim_rows if r["n"] == F.STEPS[1]}
    assert hit["ld_l1_w1"] > 90 and hit["ld_l1_fence_w1"] < 5


_BLOCK_LAUNCH = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "block_launch_hw.json")
                           .read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_refill_starts_the_h200s_launch_time_after_its_slots_block_retires():
    """benchmarks/block_launch_hw.py, docs/hardware/block_launch_hw.md: 16 M elements written by 256-thread blocks
    that 224 KB of dynamic shared memory keeps one to an SM (496.5 blocks in turn, 410 cycles each on the H200)
    take 102.9 us; launch.block_launch_cycles (288) gives them within 4% (330 gave 1.13)."""
    from benchmarks import block_launch_hw as B
    row = next(r for r in _BLOCK_LAUNCH["rows"] if (r["mix"], r["threads"], r["shared"]) == ("write", 256, 224 << 10))
    sim = B.simulated([row])[0]["metrics"]["gpu__time_duration.sum"]
    assert sim == pytest.approx(row["metrics"]["gpu__time_duration.sum"], rel=0.04)


_WARP_SLOT = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "warp_slot_hw.json").read_text())


def test_the_h200_puts_its_resident_blocks_warp_0s_on_its_sub_partitions_in_turn():
    """benchmarks/warp_slot_hw.py's %warpid record: on every SM the warp 0s of its eight 8-warp blocks ran two on
    each sub-partition, block k's warp w on (k + w) % 4, the rule smsim.sm.SM places warps by."""
    assert _WARP_SLOT["warp0_histogram"] == {"[2, 2, 2, 2]": 132}
    by_sm: dict = {}
    for sm, wid, block, w in _WARP_SLOT["where"]["records"]:
        by_sm.setdefault(sm, {}).setdefault(block, {})[w] = wid
    for blocks in by_sm.values():
        for k, block in enumerate(sorted(blocks)):          # blocks in the order they took their slots
            assert [blocks[block][w] % 4 for w in range(8)] == [(k + w) % 4 for w in range(8)]


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_eight_blocks_whose_warp_0_alone_works_run_almost_as_fast_as_one_as_on_the_h200():
    """warp_slot_hw.py's chains: warp 0 (or 3) of each 256-thread block runs two chains of 4096 dependent FMAs,
    the rest exit; one block an SM takes 44.3 us, eight 50.1-50.3 on the H200. With every block's warp 0 on one
    sub-partition (a warp's slot % 4, as smsim placed them before) eight took 161.7 us."""
    from benchmarks import warp_slot_hw as W
    rows = [r for r in _WARP_SLOT["rows"] if r["name"] in ("chain_b1_w0", "chain_b8_w0", "chain_b8_w3")]
    for hw, sim in zip(rows, W.simulated(rows)):
        assert sim["metrics"]["gpu__time_duration.sum"] == pytest.approx(hw["metrics"]["gpu__time_duration.sum"],
                                                                          rel=0.07)


_HOT_LINES = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "hot_lines_hw.json").read_text())


def test_the_h200_looks_up_a_line_every_sm_reads_in_one_slice_of_each_of_two_partitions():
    """benchmarks/hot_lines_hw.py's strong loads of one word from every SM: the busiest slice has half the word's
    read requests (l2.partitions = 2) beside its share of the stream's; 64 bins in two chunks take as long as
    one word, in one chunk twice as long (each line a slice's lookup, the chunk's slice for all SMs)."""
    by = {r["name"]: r["metrics"] for r in _HOT_LINES["rows"]}
    one, plain = by["atomic_above_k1_rand_o0"], by["plain_above_k64_rand_o0"]
    stream = plain["lts__t_requests_srcunit_tex_op_read.sum"]       # the values' and indices' loads alone
    hot = one["lts__t_requests_srcunit_tex_op_read.sum"] - stream
    busiest = one["lts__t_requests_srcunit_tex_op_read.max"] - stream / 96
    assert busiest / hot == pytest.approx(0.5, abs=0.03)
    t = {k: by[f"atomic_above_{k}"]["gpu__time_duration.sum"] for k in ("k1_rand_o0", "k64_rand_o0", "k64_rand_o96")}
    assert t["k64_rand_o96"] == pytest.approx(t["k1_rand_o0"], rel=0.03)
    assert t["k64_rand_o0"] == pytest.approx(2 * t["k1_rand_o0"], rel=0.03)


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_strong_loads_of_lines_every_sm_reads_take_their_slices_time_as_on_the_h200():
    """hot_lines_hw.py: 16 M strong loads (numba's float atomic.max, no swap) of one word 162.0 us on the H200, of
    64 bins in one 512-byte chunk 318.6, in two 163.9. smsim read them from L1 (68.5 us each) until a strong load
    went to L2 and a slice looked up the lines of every SM of its partition."""
    from benchmarks import hot_lines_hw as H
    rows = [r for r in _HOT_LINES["rows"]
            if r["name"] in ("atomic_above_k1_rand_o0", "atomic_above_k64_rand_o0", "atomic_above_k64_rand_o96")]
    for hw, sim in zip(rows, H.simulated(rows)):
        assert sim["metrics"]["gpu__time_duration.sum"] == pytest.approx(hw["metrics"]["gpu__time_duration.sum"],
                                                                          rel=0.12)


_CAS = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "cas_hw.json").read_text())


def test_compare_and_swaps_on_several_words_of_a_sector_take_the_h200s_time():
    """benchmarks/cas_hw.py: swaps at a line's or a sector's words take the H200 1.6-2.05x the same adds' time,
    on one word the same, matched or not; smsim charges l2.cas_round_cycles for each operation that names more
    than one word (before, every swap row was its add's time: 0.49-0.62 of the H200's for patterns 0, 1, 7, 8).
    Pattern 10 (64 words hashed, as homework.atomic_max_f32's bins) was not used for the value."""
    from benchmarks import cas_hw
    for row, sim in zip(_CAS["rows"], cas_hw.simulated(_CAS["rows"])):
        assert sim["metrics"]["gpu__time_duration.sum"] == pytest.approx(row["metrics"]["gpu__time_duration.sum"],
                                                                          rel=0.07), (row["kernel"], row["args"])
    swap = {tuple(r["args"][:2]): r["metrics"]["gpu__time_duration.sum"] for r in _CAS["rows"]
            if r["kernel"] == "cas_lanes" and r["args"][2] == 0}
    add = {tuple(r["args"]): r["metrics"]["gpu__time_duration.sum"] for r in _CAS["rows"] if r["kernel"] == "add_lanes"}
    assert swap[(0, 8)] / add[(0, 8)] > 1.9 and swap[(3, 2)] / add[(3, 2)] == pytest.approx(1.0, abs=0.02)


def test_a_block_of_a_later_wave_sees_the_atomics_of_the_blocks_that_retired_before_it_started():
    """In a kernel with atomics the timed blocks run (on the interpreter) after the blocks that retire on the
    device before they start: a ticket taken by each block's first thread is at least its index less the
    device's resident blocks (DeviceL2.concurrent). Before, every timed block ran with the first ones and took
    tickets 0, 1, 2...: a swap loop's retries (homework.atomic_max_f32) were counted as the first wave's."""
    import smsim
    from smsim import cuda
    from smsim.single_sm import timed_blocks

    @cuda.jit
    def ticket(counter, out):
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = cuda.atomic.add(counter, 0, 1)

    blocks = 132 * 8 * 5
    out = np.zeros(blocks, np.int32)
    res = smsim.launch(ticket, blocks, 256, (np.zeros(1, np.int32), out), config="h200", complete=False)
    assert sorted(out.tolist()) == list(range(blocks))             # every block once
    concurrent = 132 * res.occupancy.blocks_per_sm
    timed = timed_blocks("share", blocks, 132)                     # a block of each 132
    late = [b for b in timed if b >= concurrent]
    assert late and all(out[b] >= b - concurrent for b in late)


_ATOMIC_DIRTY = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "atomic_dirty_hw.json")
                           .read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_an_atomics_lines_are_written_back_once_passed_as_on_the_h200_but_not_those_every_sm_keeps_taking():
    """benchmarks/atomic_dirty_hw.py: float adds into 64 MB in turn write 53 MB back on the H200 in 66.6 us (smsim
    30 MB in 61.0; 2.35 MB in 53.6 while atomics left nothing dirty), at random into 16 MB nothing but the 2.4 MB
    dirty at the start (the device's L2 keeps every line: smsim's share lets them go, the device's L2 decides)."""
    import smsim
    from benchmarks import atomic_dirty_hw as A
    from smsim import cuda
    for name, low, high in (("sorted_64mb", 0.5, 1.1), ("random_16mb", 0.9, 1.1)):
        hw = next(r for r in _ATOMIC_DIRTY["rows"] if r["name"] == name)
        res = smsim.launch(A._kernel(cuda), A.N // A.THREADS, A.THREADS, A._args(np, hw["y_mb"], hw["order"]),
                           config="h200", compiler="numba", overrides={"scheduler.stream": "sass"}, complete=False)
        written = res.metrics["dram__bytes_write.sum"] * res.blocks / res.blocks_timed
        assert low <= written / hw["metrics"]["dram__bytes_write.sum"] <= high, name
        assert res.metrics["gpu__time_duration.sum"] == pytest.approx(hw["metrics"]["gpu__time_duration.sum"],
                                                                       rel=0.1), name


_RED_STREAM = {r["name"]: r["metrics"] for r in json.loads(
    (Path(__file__).resolve().parents[1] / "docs" / "hardware" / "red_stream_hw.json").read_text())["rows"]}


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_one_words_adds_slow_a_read_stream_beside_them_as_on_the_h200_and_spread_adds_do_not():
    """red_stream_hw.py ([hw29]): a read stream of 16 M floats 41.9 us on the H200, one add a block into one word
    49.4, both 62.0; the adds spread over 4096 lines beside the stream 43.2. With read misses passing an atomic
    waiting for its slice (l1.atomic_holds_reads false) smsim took the larger of the two, 49.9 (0.80)."""
    import numpy as np

    import smsim
    from benchmarks import red_stream_hw as R
    from smsim import cuda
    kernels = R._kernels(cuda)

    def ratio(name, **over):
        res = smsim.launch(kernels[name], R.N // R.THREADS, R.THREADS, R._args(np), config="h200",
                           compiler="numba", overrides={"scheduler.stream": "sass", **over}, complete=False)
        return res.metrics["gpu__time_duration.sum"] / _RED_STREAM[name]["gpu__time_duration.sum"]

    assert ratio("read_red1") == pytest.approx(1.0, abs=0.12)
    assert ratio("read_redspread") == pytest.approx(1.0, abs=0.05)
    assert ratio("read_red1", **{"l1.atomic_holds_reads": False}) < 0.85


def test_a_probes_cases_launch_once_each_in_order_and_come_back_as_rows(monkeypatch, tmp_path, capsys):
    """benchmarks/hw_probe.launch_cases and profile_cases (cas_hw, atomic_lines_hw and load_batch_hw run
    through them on the GPU machine): every case's kernel launched once, in order, on the arrays made once,
    converted by to_numba; its ncu metrics come back as a row of kernel, grid, block and args, printed with
    the probe's line and its top stalls, and written."""
    from benchmarks import hw_probe
    from workloads import numba_bridge
    launched = []

    class Kernel:
        def __init__(self, name):
            self.name = name

        def __getitem__(self, shape):
            return lambda *args: launched.append((self.name, shape, args))

    class Cuda:
        synced = 0

        @staticmethod
        def to_device(a):
            return ("dev", len(a))

        @classmethod
        def synchronize(cls):
            cls.synced += 1

    monkeypatch.setattr(hw_probe, "numba_cuda", lambda: (Cuda, np))
    monkeypatch.setattr(numba_bridge, "to_numba", lambda f: Kernel(f))
    cases = [("a", 2, 32, (1, 5)), ("b", 4, 64, (7,)), ("a", 8, 32, (0, 0))]
    hw_probe.launch_cases({"a": "A", "b": "B"}, cases, lambda cuda, numpy: (cuda.to_device(numpy.zeros(3)),))
    assert launched == [("A", (2, 32), (("dev", 3), 1, 5)), ("B", (4, 64), (("dev", 3), 7)),
                        ("A", (8, 32), (("dev", 3), 0, 0))] and Cuda.synced == 3
    metrics = [{"gpu__time_duration.sum": 1000.0 * (k + 1), hw_probe.stall_metric("drain"): 2.0} for k in range(3)]
    seen = {}
    monkeypatch.setattr(hw_probe, "ncu_profile", lambda ncu, script, ms, n: seen.update(n=n, ms=ms) or metrics)
    monkeypatch.setattr(hw_probe, "write", lambda path, **data: seen.update(path=path, **data))
    hw_probe.profile_cases(str(tmp_path / "x.json"), "ncu", "probe.py", ("gpu__time_duration.sum",), cases,
                           lambda name, grid, args, m: f"{name} {grid} {m['gpu__time_duration.sum'] / 1e3:.1f} us, ")
    assert seen["n"] == 3 and seen["path"] == str(tmp_path / "x.json")
    assert seen["rows"] == [dict(kernel=n, grid=g, block=b, args=list(a), metrics=m)
                            for (n, g, b, a), m in zip(cases, metrics)]
    assert capsys.readouterr().out.splitlines() == [f"{n} {g} {k + 1:.1f} us, " + hw_probe.top_stalls(m)
                                                    for k, ((n, g, _, _), m) in enumerate(zip(cases, metrics))]
    assert hw_probe.top_stalls(metrics[0]).startswith("drain 2.0")


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_indexed_constant_loads_read_one_distinct_address_at_a_time_as_on_the_h200():
    """docs/hardware/const_spread_hw.md: a table in constant memory read at 1, 4 and 32 distinct addresses a warp
    load (SASS ``LDC R, c[0x3][R]``), one warp an SM and 32: smsim within 11% of the H200's time on each (0.90
    at 32 addresses and one warp, the rest 0.97-1.00; before, a zero-slot lookup whatever its addresses, 0.24
    and 0.07 at 32), and a load of 32 addresses costs 32 warps an SM 15x what one address does (the H200 14.9x:
    the port's 2 cycles an address)."""
    from benchmarks import const_spread_hw as probe
    rows = {r["name"]: r for r in json.loads((_HW_DIR / "const_spread_hw.json").read_text())["rows"]}
    names = ["spread1_w1", "spread4_w1", "spread32_w1", "spread1_w32", "spread4_w32", "spread32_w32"]
    sim = dict(zip(names, probe.simulated([rows[n] for n in names])))
    for n in names:
        hw = rows[n]["metrics"]["gpu__time_duration.sum"]
        assert sim[n]["metrics"]["gpu__time_duration.sum"] == pytest.approx(hw, rel=0.11), n
    ns = {n: sim[n]["metrics"]["gpu__time_duration.sum"] for n in names}
    assert 13.5 <= ns["spread32_w32"] / ns["spread1_w32"] <= 16.5


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_an_int64_atomic_add_costs_more_than_an_int32_one_as_on_the_h200():
    """validate_hw.json, mid size: the same histogram of 1 M values into 1024 bins takes the H200 90.7 us with
    int32 bins and 57.0 with int64 ones (their 8 KB over twice the slices of L2, 1.59x), an int64 add costing
    1.16x an int32 one at a slice's atomic unit (l2.atomic_wide_cycles): smsim within 6% of both and of the
    ratio (1.85x with one cost for both, the int64 one 0.84 of the H200's time)."""
    from smsim import validate as v
    data = v.load()["runs"]["mid"]
    ns = {}
    for case in ("classroom.hist1024_i32", "quiz.hist_i64_1024"):
        ns[case] = v.predict(case, "mid").metrics["gpu__time_duration.sum"]
        assert ns[case] == pytest.approx(data[case]["metrics"]["gpu__time_duration.sum"], rel=0.06), case
    hw = (data["classroom.hist1024_i32"]["metrics"]["gpu__time_duration.sum"]
          / data["quiz.hist_i64_1024"]["metrics"]["gpu__time_duration.sum"])
    assert ns["classroom.hist1024_i32"] / ns["quiz.hist_i64_1024"] == pytest.approx(hw, rel=0.06)


_FEW_SM = json.loads((Path(__file__).resolve().parents[1] / "docs" / "hardware" / "few_sm_loads_hw.json").read_text())


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed (the H200 ran numba's code)")
def test_a_loop_of_line_loads_with_few_sms_and_warps_takes_the_h200s_time():
    """Warps looping over 64 lines each, one load in flight (a chain) or four (ptxas's unrolling), a warp's own
    run of lines or the grid-stride order, 1-132 blocks of 1 or 8 warps (benchmarks/few_sm_loads_hw.py,
    docs/hardware/few_sm_loads_hw.md; smsim predicted them before the H200 ran them: all 32 within 10%, mean
    4.3%): the DRAM round trip at light load and with a few SMs reading is the H200's. Here one block of one
    warp and 132 of eight, each pattern, within 11%."""
    from benchmarks import few_sm_loads_hw as F
    rows = [r for r in _FEW_SM["rows"] if (r["blocks"], r["threads"]) in ((1, 32), (132, 256))]
    assert len(rows) == 8
    for hw, sim in zip(rows, F.simulated(rows)):
        h, s = hw["metrics"]["gpu__time_duration.sum"], sim["metrics"]["gpu__time_duration.sum"]
        assert s == pytest.approx(h, rel=0.11), hw["name"]
