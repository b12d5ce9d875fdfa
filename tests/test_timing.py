"""The timing model: outputs, determinism, block dispatch, stall accounting, pipes and memory behaviour."""
import numpy as np
import pytest

import smsim
from smsim import cuda
from smsim.warp import REASONS
from workloads import case as cases
from workloads.microbench import ffma_chain


@cuda.jit
def copy_stride(out, inp, stride, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = inp[i * stride]


@cuda.jit
def block_sum(out, inp):
    buf = cuda.shared.array(256, np.float32)
    t = cuda.threadIdx.x
    buf[t] = inp[cuda.grid(1)]
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


def _copy(stride=1, n=8192, **kw):
    inp = np.arange(n * stride, dtype=np.float32)
    out = np.zeros(n, np.float32)
    res = smsim.launch(copy_stride, (n // 256,), (256,), (out, inp, stride, n), **kw)
    return res, out, inp


@pytest.mark.slow
@pytest.mark.parametrize("case", cases.all_cases(), ids=lambda c: c.id)
def test_every_workload_runs_timed_with_correct_outputs(case):
    _, res = cases.run_case(case, "test", timing=True, config="h100")
    assert res.cycles > 0 and res.issued_instructions > 0
    assert sum(res.stalls.values()) > 0


def test_timed_outputs_equal_functional_and_runs_are_deterministic():
    a, out_a, _ = _copy(stride=3, config="h200")
    b, out_b, _ = _copy(stride=3, config="h200")
    _, out_f, _ = _copy(stride=3, timing=False)
    assert np.array_equal(out_a, out_f) and np.array_equal(out_b, out_f)
    assert a.metrics == b.metrics and a.stalls == b.stalls and a.cycles == b.cycles


def test_a_warp_drains_until_its_stores_leave_the_sm_and_the_kernel_until_l2_has_them():
    """Stores hold an exiting warp only until they have left the SM (the H200 counts about 20 cycles of
    ``drain`` per warp of a coalesced copy), but the kernel is done only once L2 has taken the last one."""
    res, out, inp = _copy(n=2048, config="h200", blocks="all", timeline=True)
    assert np.array_equal(out, inp)
    warps = 2048 // 32
    assert res.stalls["drain"] / warps < 60                       # not the hundreds of an L2 acknowledgement
    last_warp = float(res.timeline["warps"]["end"].max())
    l2 = smsim.config.load("h200").l2
    assert res.cycles >= last_warp + l2.hit_latency_cycles        # the last stores still reach L2 in the kernel


def test_every_cycle_of_every_resident_warp_has_one_state():
    res, _, _ = _copy(stride=8, config="h100", blocks="all")
    m = res.metrics
    resident = m["sm__warps_active.avg.pct_of_peak_sustained_active"] / 100 * res.config.sm.max_warps * res.cycles
    assert set(res.stalls) == set(REASONS)
    assert sum(res.stalls.values()) == pytest.approx(resident, rel=1e-9)
    assert res.stalls["selected"] == res.issued_instructions
    per = res.stalls_per_instruction()
    assert per["selected"] == pytest.approx(1.0)


def test_blocks_modes_time_share_all_or_first_n_and_outputs_stay_complete():
    n = 132 * 4 * 256
    for mode, timed in (("share", 4), ("all", 528), (10, 10)):
        res, out, inp = _copy(n=n, config="h100", blocks=mode)
        assert res.blocks_timed == timed
        assert np.array_equal(out, inp[:n])
        assert res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == timed * 8
    res, out, _ = _copy(n=n, config="h100", blocks=10, complete=False)
    # only the timed blocks ran, and those other SMs start with the last (9): the next half of the busy SMs'
    # 132 blocks, 10-75 (element 0 is 0.0)
    assert np.count_nonzero(out) == 76 * 256 - 1
    res, out, _ = _copy(n=n, config="h100", blocks=10, complete=False, overrides={"l2.sharing": "private"})
    assert np.count_nonzero(out) == 10 * 256 - 1
    with pytest.raises(smsim.KernelError, match="blocks"):
        _copy(config="h100", blocks="some")


def test_time_scales_to_the_whole_grid():
    n = 132 * 4 * 256
    share, _, _ = _copy(n=n, config="h100", blocks="share")
    first, _, _ = _copy(n=n, config="h100", blocks=2)
    m = share.metrics
    launch_ns = share.config.launch.overhead_ns                   # added once, not scaled
    assert m["smsim.launch.overhead_ns"] == launch_ns > 0
    assert m["gpu__time_duration.sum"] == pytest.approx(share.cycles / share.config.gpu.clock_mhz * 1e3 + launch_ns)
    assert first.metrics["gpu__time_duration.sum"] == pytest.approx(first.cycles * 2 / first.config.gpu.clock_mhz
                                                                    * 1e3 + launch_ns)


def test_dependent_fma_latency_comes_from_the_pipe_config_when_ptx_is_issued():
    out = np.zeros(1, np.float32)
    cyc = {}
    for lat in (20, 24):
        r = [smsim.launch(ffma_chain, 1, 1, (out, np.float32(1.0), it), config="h200",
                          overrides={"pipes.fp32.latency_cycles": lat, "scheduler.stream": "ptx"}).cycles
             for it in (64, 128)]
        cyc[lat] = (r[1] - r[0]) / 64 / 8
    assert cyc[24] - cyc[20] == pytest.approx(4, abs=0.01)        # per dependent FMA (loop overhead hidden)


def test_sectors_per_request_and_l1_misses_follow_the_stride():
    for stride, per_req in ((1, 4), (2, 8), (4, 16), (8, 32), (32, 32)):
        res, _, _ = _copy(stride=stride, config="h100", blocks="all")
        m = res.metrics
        req = m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == per_req * req
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 4 * req
    slow, _, _ = _copy(stride=32, config="h100", blocks="all")
    fast, _, _ = _copy(stride=1, config="h100", blocks="all")
    assert slow.cycles > 2 * fast.cycles
    assert slow.stalls["long_scoreboard"] > fast.stalls["long_scoreboard"]


def test_barriers_hold_warps_and_shared_reduction_is_correct():
    inp = np.random.default_rng(0).random(256 * 8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    res = smsim.launch(block_sum, 8, 256, (out, inp), config="h100", blocks="all")
    assert np.allclose(out, inp.reshape(8, 256).sum(axis=1), rtol=1e-5)
    assert res.stalls["barrier"] > 0
    m = res.metrics
    assert m["smsp__sass_inst_executed_op_shared_st.sum"] > 0
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] >= m["smsp__sass_inst_executed_op_shared_ld.sum"]


@pytest.mark.parametrize("policy", ["oldest_block", "lrr", "gto", "two_level"])
def test_scheduler_policies_time_differently_but_compute_the_same(policy):
    inp = np.random.default_rng(1).random(256 * 16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    res = smsim.launch(block_sum, 16, 256, (out, inp), config="h100", blocks="all",
                       overrides={"scheduler.policy": policy})
    assert np.allclose(out, inp.reshape(16, 256).sum(axis=1), rtol=1e-5)
    assert res.cycles > 0


def test_policies_differ_on_a_memory_bound_kernel():
    cycles = {p: _copy(stride=4, config="h100", blocks="all", overrides={"scheduler.policy": p})[0].cycles
              for p in ("oldest_block", "lrr", "gto", "two_level")}
    assert len(set(cycles.values())) > 1


def test_l1_capacity_override_changes_hits():
    @cuda.jit
    def twice(out, inp, n):
        i = cuda.grid(1)
        if i < n:
            out[i] = inp[i]
        cuda.syncthreads()
        if i < n:
            out[i] += inp[(i + 4096) % n]
    n = 32768
    inp = np.ones(n, np.float32)
    out = np.zeros(n, np.float32)
    big = smsim.launch(twice, n // 1024, 1024, (out, inp, n), config="h100", blocks="all")
    small = smsim.launch(twice, n // 1024, 1024, (out, inp, n), config="h100", blocks="all",
                         overrides={"l1.size_bytes": 8192})
    hit = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"
    assert big.metrics[hit] > small.metrics[hit]
    assert small.metrics["smsim.l1.size_bytes"] == 8192


def test_bad_config_values_are_config_errors():
    with pytest.raises(smsim.config.ConfigError, match="l1.assoc"):
        _copy(config="h100", overrides={"l1.assoc": 3})
    with pytest.raises(smsim.config.ConfigError, match="nosuch"):
        _copy(config="nosuch")


@pytest.mark.slow
def test_every_load_sector_is_one_l1_lookup_hit_or_miss():
    # naive matmul re-reads rows of A from L1 while their first miss is still in flight: those merges are
    # hits (the H200 counts them so: its hit rate is 1 - L2 read sectors / load sectors), so hits + misses is
    # exactly the sectors, and the misses are the sectors L1 asked L2 for
    case = cases.get("matmul.naive")
    s = case.setup(128, 0)
    res = smsim.launch(case.kernel, s.grid, s.block, s.args, config="h100", blocks="all", complete=False)
    m = res.metrics
    hit = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"]
    miss = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"]
    assert hit > 0 and miss > 0
    assert hit + miss == m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert miss == m["lts__t_sectors_srcunit_tex_op_read.sum"]


def test_a_simulation_that_stops_early_is_an_error_not_a_result(monkeypatch):
    from smsim.scheduler import SubPartition
    monkeypatch.setattr(SubPartition, "select", lambda self, t: (None, float("inf")))   # never issues
    with pytest.raises(RuntimeError, match="timed blocks unfinished"):
        _copy(config="tiny")


def test_hbm_latency_grows_with_the_utilization_of_its_share():
    from smsim.config import load
    from smsim.mem.dram import Dram
    from smsim.mem.queue import BandwidthQueue
    spec = load("h200").dram

    def Dram_(*args):            # every loaded wait (a read of one row here) at its mean (the draws: test_components)
        d = Dram(*args)
        d._slowest = lambda m: 1.0
        return d
    a = float(spec.access_bytes)                  # a lone sector holds the bus for a whole access
    sector = np.array([1 << 20])
    idle = Dram_(spec, BandwidthQueue(32.0), 32)
    load = a / 32 / spec.utilization_window_cycles   # the utilization one lone access adds
    assert idle.read(sector, 0.0) == pytest.approx(a / 32 + spec.latency_cycles + spec.loaded_latency_cycles * load)
    busy = Dram_(spec, BandwidthQueue(a), 32)
    t = 0.0
    for k in range(5000):                         # one access per cycle: the share is fully used
        busy.read(np.array([k * 64]), t)
        t += 1.0
    assert busy.queue.free == t                   # no backlog: the extra latency is not queueing
    late = busy.read(np.array([1 << 30]), t) - t
    assert late == pytest.approx(1 + spec.latency_cycles + spec.loaded_latency_cycles, rel=0.01)
    half = Dram_(spec, BandwidthQueue(2 * a), 32)      # half as many bytes as it could move
    for k in range(5000):
        half.read(np.array([k * 64]), float(k))
    assert half.utilization == pytest.approx(0.5, rel=0.01)


def test_sector_size_from_the_config_is_honoured_at_every_level():
    """64-byte sectors (L1 and L2 alike): a coalesced float copy touches half as many sectors, and every
    level's byte count is its sectors times the configured size."""
    @cuda.jit
    def copy(out, inp, n):
        i = cuda.grid(1)
        if i < n:
            out[i] = inp[i]
    n = 8192
    inp = np.arange(n, dtype=np.float32)
    runs = {}
    for sb in (32, 64):
        out = np.zeros(n, np.float32)
        runs[sb] = smsim.launch(copy, n // 256, 256, (out, inp, n), config="h100", blocks="all",
                                overrides={"l1.sector_bytes": sb, "l2.sector_bytes": sb,
                                           "l2.model": "write_through"})     # every store byte to DRAM
        np.testing.assert_array_equal(out, inp)
    for sb, res in runs.items():
        m = res.metrics
        ld = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
        st = m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
        assert ld == st == n * 4 // sb
        assert m["smsim.l1.bytes"] == (ld + st) * sb == 2 * n * 4
        l2 = m["lts__t_sectors_srcunit_tex_op_read.sum"] + m["lts__t_sectors_srcunit_tex_op_write.sum"]
        assert m["smsim.l2.bytes"] == l2 * sb == 2 * n * 4
        assert m["dram__bytes_read.sum"] == n * 4 and m["dram__bytes_write.sum"] == n * 4
    with pytest.raises(smsim.config.ConfigError, match="l1.sector_bytes = 64 and l2.sector_bytes = 32"):
        smsim.config.load("h100", {"l1.sector_bytes": 64})


@cuda.jit
def _add_one(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] += np.float32(1.0)


@pytest.mark.parametrize("blocks", ["share", "all", 300])
def test_every_block_runs_once_whatever_the_blocks_timed(blocks):
    """A timed block's trace is the interpreter's run of it: blocks run ahead in a batch are never run
    again when a block dispatched later asks for its own batch (an in-place update ran up to four times)."""
    a = np.zeros(128 * 256, np.float32)
    smsim.launch(_add_one, 128, 256, (a,), config="h200", blocks=blocks)
    assert (a == 1).all()


def test_an_in_place_update_is_timed_on_the_data_it_reads_first():
    """everyday.relu_inplace rewrites its negative elements: each warp of random signs stores (4 sectors), as
    the H200 counts them (4079 at the test size for 128 blocks)."""
    case = cases.get("everyday.relu_inplace")
    s = case.setup("test")
    res = smsim.launch(case.load_kernel(), s.grid, s.block, s.args, config="h200", blocks="all", complete=False)
    assert res.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == pytest.approx(4079, rel=0.01)


@cuda.jit
def _pairs(out, n, v):
    i = cuda.grid(1)
    if i < n:
        out[2 * i] = v          # the even words of 8 sectors (2 lines) a warp
        out[2 * i + 1] = v      # then the odd ones: the same sectors, filled


@cuda.jit
def _strided_pairs(out, n, v):
    i = cuda.grid(1)
    if i < n:
        out[8 * i] = v          # a word of 32 sectors (8 lines) a warp: too many to merge
        out[8 * i + 1] = v


def test_a_warps_consecutive_stores_into_the_same_few_sectors_reach_l2_as_one_whole_write():
    """docs/hardware/store_merge_hw.md: on the H200 two stores of a warp that fill 8 sectors between them
    reach L2 as one write of whole sectors (half the L1 store sectors, no partial write); stores of 32
    sectors each, 8 warps a block whose sub-partitions' stores come between a warp's two, do not merge
    (store_resident_hw.md: 0.995 at 8 warps an SM). With l1.merge_sectors = 0 and l1.cross_merge_window = 0
    every store goes to L2 as it is."""
    n = 4096
    def run(kernel, words, **overrides):
        out = np.zeros(words, np.float32)
        r = smsim.launch(kernel, n // 256, 256, (out, n, np.float32(1.0)), config="h200", blocks="all",
                         complete=False, overrides=overrides)
        m = r.metrics
        return (m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"], m["lts__t_sectors_srcunit_tex_op_write.sum"],
                m["smsim.l2.partial_sector_writes"], r.cycles)
    l1, l2, partial, merged_cycles = run(_pairs, 2 * n)
    assert l1 == 2 * n // 4 and l2 == l1 // 2 and partial == 0
    l1, l2, partial, cycles = run(_pairs, 2 * n, **{"l1.merge_sectors": 0, "l1.cross_merge_window": 0})
    assert l2 == l1 and partial == l1 and cycles > merged_cycles
    l1, l2, partial, _ = run(_strided_pairs, 8 * n)
    assert l1 == 2 * n and l2 == l1 and partial == l1


def test_a_2d_stencil_reads_its_image_from_dram_once_through_the_devices_l2():
    """Each row of tiles shares its edge rows with the tiles above and below, which other SMs run at the
    same time: of a shared row, the block that reads it first (the one below, reading it as its halo before
    the one above reads it as its own last row) fetches it. With l2.sharing = "device" the blocks before a
    timed one are seen in block order; the shared rows above it were then the block above's, and those below
    the block below's (by step): 0.895 of the image read before SM._first_in_wave; 0.951 since the timed blocks
    lie anywhere in their waves (smsim.single_sm.timed_blocks), within 0.03 of 1 while they were every 132nd: 32 blocks
    of 4096 are a sample, and which edge rows fall to them moves with where they lie."""
    from workloads.ordinary import blur3x3
    img = np.random.default_rng(0).random((1024, 1024), dtype=np.float32)
    def read(sharing):
        r = smsim.launch(blur3x3, (64, 64), (16, 16), (img, np.zeros_like(img)), config="h200", complete=False,
                         overrides={"l2.sharing": sharing})
        return r.metrics["dram__bytes_read.sum"] * r.blocks / r.blocks_timed / img.nbytes
    assert read("neighbours") == pytest.approx(1.0, abs=0.005)
    assert read("device") == pytest.approx(1.0, abs=0.05)


@cuda.jit
def table_sum(table, out, skew, reps):
    """Each lane sums reps words of its own row of 32 floats of a 4 KB table: the same column as every other
    lane (skew 0: all 32 words in one bank of L1's data array) or its own (skew 1: 32 banks)."""
    t = cuda.grid(1)
    lane = cuda.threadIdx.x & 31
    s = np.float32(0.0)
    for i in range(reps):
        s += table[32 * lane + ((i + skew * lane) & 31)]
    out[t] = s


def test_a_loads_words_in_one_data_bank_take_a_wavefront_each_as_on_an_h200():
    """docs/hardware/l1_gather_hw.md: 32 lanes hitting 32 lines cost 32 cycles a request where they read one
    column (32 words in one bank: rows32, 32.4 on an H200) and 8 where each reads its own (rows32_skew: 32
    lines over 4 tag banks, 8.3); the same kernels cost alike without the banks modelled."""
    table = np.arange(1024, dtype=np.float32)
    want = np.tile(2 * table.reshape(32, 32).sum(axis=1), 8 * 256 // 32)    # 64 loads: each column twice

    def cycles(skew, **overrides):
        out = np.zeros(8 * 256, np.float32)
        res = smsim.launch(table_sum, (8,), (256,), (table, out, skew, 64), config="h200", blocks="all",
                           overrides=overrides)
        assert np.array_equal(out, want)
        return res.cycles, res.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    (same, n), (own, _) = cycles(0), cycles(1)
    assert n == 8 * 8 * 64
    assert 30 <= same / n <= 36 and 7 <= own / n <= 10
    (same0, _), (own0, _) = (cycles(s, **{"l1.tag_banks": 1, "l1.data_banks": 0}) for s in (0, 1))
    assert abs(same0 - own0) / same0 < 0.1


def _miss_then(second: str) -> str:
    """One warp: b's line read (``second``'s cache op) and waited for; then a[i] (a DRAM miss) and b[i] again
    with ``second`` ("cg": from L2, "ca": from L1), and only the latter's value used (stored plus one)."""
    return f"""
    ld.param.u64 %rd4, [a];
    cvta.to.global.u64 %rd4, %rd4;
    add.s64 %rd5, %rd4, %rd3;
    ld.param.u64 %rd6, [b];
    cvta.to.global.u64 %rd6, %rd6;
    add.s64 %rd7, %rd6, %rd3;
    ld.global.{second}.f32 %f1, [%rd7];
    st.global.f32 [%rd2], %f1;
    ld.global.f32 %f2, [%rd5];
    ld.global.{second}.f32 %f3, [%rd7];
    add.f32 %f4, %f3, 0f3F800000;
    st.global.f32 [%rd2], %f4;
    ret;"""


@pytest.mark.parametrize("second", ["cg", "ca"])
def test_a_warps_loads_from_l2_come_back_in_the_order_it_issued_them_its_l1_hits_do_not_wait(second):
    """docs/hardware/load_order_hw.md: on an H200 an L2 hit a warp issues after its DRAM miss is back with the
    miss (752 cycles against 336 alone); an L1 hit after it is back at once (139), in order or not."""
    from ptxutil import PROLOGUE, kernel
    k = kernel(PROLOGUE + _miss_then(second), params=".param .u64 out, .param .u64 a, .param .u64 b")
    cycles = {}
    for in_order in (True, False):
        out = np.zeros(32, np.float32)
        b = np.arange(32, dtype=np.float32)
        res = smsim.launch(k, 1, 32, (out, np.zeros(1 << 20, np.float32), b), config="h200",
                           overrides={"l1.in_order_fills": in_order, "scheduler.stream": "ptx"})
        assert np.array_equal(out, b + 1)
        cycles[in_order] = res.cycles
    # the kernel lasts until the miss is back (1693 cycles) and L2 has the last store; that store, of the L2
    # hit's value, leaves 4 cycles after the hit is back (1254) or, in order, after the miss (1697), and takes
    # 249 cycles to L2
    if second == "cg":
        assert cycles[True] - cycles[False] > 200
    else:
        assert cycles[True] == cycles[False]


@cuda.jit
def _column_store(out, w):
    i = cuda.grid(1)
    out[(i % 32) * w + i // 32] = np.float32(1.0)


def test_a_short_last_wave_costs_its_blocks_not_a_whole_waves_bandwidth():
    """blocks="share" times one block a wave, the short last wave's too; the device's L2 slices serve the
    grid's blocks alike, so 400 blocks of uncoalesced stores (L2-slice bound) take about what 396 do, not what
    528 do (docs/hardware/column_store_hw.md: float32 transposes of 400 blocks were 1.18 of the H200's time)."""
    cycles = {}
    for nb in (396, 400, 528):
        w = nb * 256 // 32
        out = np.zeros(32 * w, np.float32)
        cycles[nb] = smsim.launch(_column_store, nb, 256, (out, w), config="h200").cycles
        assert (out == 1).all()
    assert cycles[528] > 1.15 * cycles[396]                    # bound by the slices: more blocks take longer
    assert cycles[400] == pytest.approx(cycles[396] * 400 / 396, rel=0.02)


@cuda.jit
def _transpose(out, img):
    x, y = cuda.grid(2)
    if y < img.shape[0] and x < img.shape[1]:
        out[x, y] = img[y, x]


def test_a_byte_transposes_stores_take_turns_at_l2_thirty_two_a_sector():
    """docs/hardware/column_store_hw.md: a 160x160 transpose in 32x8 blocks takes the H200 2640 cycles more in
    bytes than in float32 (the same L2 write requests), 970 more in 16-bit values: each output sector's 32 (16)
    stores into part of its words, from warps of four (two) blocks on other SMs, take turns at L2
    (l2.subword_chain_cycles, for each block storing into the sector)."""
    cycles = {}
    for kind in (np.uint8, np.uint16, np.float32):
        img = (np.arange(160 * 160) % 251).astype(kind).reshape(160, 160)
        out = np.zeros_like(img)
        cycles[kind] = smsim.launch(_transpose, (5, 20), (32, 8), (out, img), config="h200").cycles
        assert np.array_equal(out, img.T)
    assert 2640 * 0.7 < cycles[np.uint8] - cycles[np.float32] < 2640 * 1.3
    assert 970 * 0.7 < cycles[np.uint16] - cycles[np.float32] < 970 * 1.3
