"""``smsim validate``: the error figures against the H200 data are pinned, so a model change that worsens
them fails; the summary's arithmetic is checked on rows made by hand."""
from __future__ import annotations

import math

import pytest

from isa import sass
from isa.errors import CompileError
from smsim import validate as v
from smsim.cli import main


def _row(case, hw, sim, hw_st=None, sim_st=None, size="test"):
    return v.Row(case, size, hw, sim, hw_st or {"long_scoreboard": 2.0}, sim_st or {"long_scoreboard": 1.0})


def test_stall_distance_and_top_stall():
    assert v.stall_distance({"a": 1.0, "b": 1.0}, {"a": 2.0, "b": 2.0}) == 0.0
    assert v.stall_distance({"a": 1.0}, {"b": 5.0}) == 1.0
    assert v.stall_distance({"a": 3.0, "b": 1.0}, {"a": 1.0, "b": 1.0}) == pytest.approx(0.25)
    assert v.top_stall({"selected": 9.0, "wait": 1.0, "barrier": 2.0}) == "barrier"
    assert v.top_stall({"selected": 1.0}) == ""
    metrics = {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 4.5,
               "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio": 1.0, "gpu__time_duration.sum": 3}
    assert v.hw_stalls(metrics) == {"long_scoreboard": 4.5, "imc_miss": 1.0}


def test_summary_figures_on_rows_made_by_hand():
    rows = [_row("fam.a", 100, 110), _row("fam.b", 200, 180), _row("fam.c", 300, 330, sim_st={"wait": 1.0}),
            _row("streams.copy_w4", 400, 300), _row("streams.copy", 100, 100)]
    s = v.summary(rows)
    assert s["cases"] == 5
    assert s["duration_mape_pct"] == pytest.approx(100 * (0.1 + 0.1 + 0.1 + 0.25 + 0.0) / 5)
    assert s["within_10pct"] == pytest.approx(4 / 5)
    assert s["worst_case"] == "streams.copy_w4@test" and s["worst_error_pct"] == pytest.approx(25)
    fam = s["variants"]["fam@test"]
    # ratios to fam.a: b 2.0 measured, 180/110 predicted; c 3.0 measured, 3.0 predicted
    assert fam["ratio_mape"] == pytest.approx(100 * (abs((180 / 110) / 2 - 1) + 0) / 2)
    assert fam["rank_kept"] == 1.0
    assert s["variants"]["streams@test"]["rank_kept"] == 1.0
    assert s["occupancy_curve_max_error_pct"] == {"test": pytest.approx(25)}
    assert s["top_stall_right"] == pytest.approx(4 / 5)
    assert math.isnan(s["dram_bytes_mape_pct"])            # no case moves 1 MB
    assert s["instructions_within_5pct"] == 0.0            # the rows made by hand carry no instruction counts


def test_rank_order_counts_swapped_pairs_and_ignores_ties():
    rows = [_row("f.a", 100, 100), _row("f.b", 200, 90), _row("f.c", 102, 50)]
    # pairs: a-b swapped (b slower measured, faster predicted), a-c within 5% measured (ignored), b-c kept
    kept = v.summary(rows)["variants"]["f@test"]["rank_kept"]
    assert kept == pytest.approx(0.5)


def _pinned(size: str = "test", **kw) -> dict:
    """The ``size`` summary of the H200 data for ``validate.rows(**kw)``, its case count checked: every case,
    but for smsim's own compiler the eight it cannot compile (float64 ``math.exp`` and ``math.log``, ``math.erf``,
    a float ``atomic.max``, loops over a tuple)."""
    left: list = []
    s = v.summary(v.rows(v.load(), (size,), uncompiled=left, **kw))
    names = ["bootcamp.csr_warp_row", "bootcamp.matvec_f64_warp", "classroom.exp_f64", "homework.atomic_max_f32",
             "homework.log_f64", "homework.pow_erf", "lessons.sigmoid_f64", "workshop.layernorm_warp"] \
        if kw.get("compiler") == "smsim" else []
    expected = [(c, size) for c in names]
    assert [(c, size) for c, size, _ in left] == expected
    assert s["cases"] == 376 - len(expected)
    return s


def _at_least_as_good(s: dict, mape: float, within: float, variants: float, rank: float, top: float,
                      inst: float, distance: float, size: str = "test") -> None:
    assert s["duration_mape_pct"] <= mape
    assert s["within_10pct"] >= within
    assert s["variant_ratio_mape_pct"] <= variants
    assert s["rank_order_kept"] >= rank
    assert s["occupancy_curve_max_error_pct"][size] <= 16.0
    assert s["top_stall_right"] >= top
    assert s["instructions_within_5pct"] >= inst
    assert s["stall_distance_mean"] <= distance


@pytest.mark.slow
@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
def test_validation_summary_on_the_h200_data_is_pinned():
    """Every case at its test size on the h200 config as users run it (the README's set-up: numba-cuda's NVVM
    compiles the Python, as on a GPU, and the SASS ptxas makes of it is timed; the figures
    docs/timing_model.md quotes). A model change may only improve these; tighten them when it does."""
    # measured on this model: 4.35%, 91.0%, 6.88%, 95.8%, 5.6%, 93.2%, 97.7%, stall distance 0.122, the worst
    # instruction count 7.9% off (worst duration: course.prefix_row32, 28% fast), with the 18 `lessons` kernels
    # (measured 2026-11-28 after this model was built, compared before it changed: 3.6% on their own, 4.44% on
    # all 177) since a wide shared load's phases share a wavefront where their banks differ or all their lanes
    # name one address, and an LDS.128 ptxas joined from two PTX loads is one access from the lower
    # (docs/hardware/shared_wide_hw.md: the matrix multiplies' wavefronts the H200's, a third too many before;
    # matmul.tiled32 1.100 -> 0.997, tiled32_bt_padded 1.038 -> 0.940, tiled16 0.995 -> 0.965: matmul's
    # variant ratios 10.3%, the figure that worsened, 6.70% -> 6.88% on all; on the 159 before `lessons`
    # 4.45% -> 4.40%); what the first blocks' x neighbours own of their lines (L2.share_lines) moves no
    # test-size case. Before, 4.45%, 90.6%, 6.70%, 95.9%, 5.6%, 93.1%, 97.5%, stall distance 0.122, the worst
    # instruction count 7.9% off (worst duration: course.prefix_row32, 28% fast), with the 18 `course` kernels
    # (measured 2026-11-28 after this model was built, compared before it changed: 4.91% on their own, 4.51%
    # on all 159, with course.collatz at 32768 elements; its test size is 8192 since, measured again, so that
    # the test sizes stay under a million warp-instructions) since the remainders ptxas unrolled after an
    # unrolled loop run only where the trip count needs them (isa.sass._plan: course.rowmax_block's
    # instructions 1.56x -> 0.99x the H200's, its time 0.975 -> 0.921) and a slice merges a store's partial
    # sectors once per line (l2.partial_write_cycles: streams.store_stride8 1.095 -> 1.057,
    # routine.scatter_perm 1.121 -> 1.105); the 141 before them 4.43%
    # -> 4.37%. Before, on 141 cases: 4.43%, 90.8%, 6.83%, 95.8%, 5.6%, 93.6%, 97.2%, stall distance 0.123, the
    # worst instruction count 7.9% off (worst duration: plain.stencil3d7, 16% slow) since a 64-bit integer
    # product holds its sub-partition's dispatch (scheduler.hi_dispatch_cycles 4, wide_dispatch_cycles 3,
    # docs/hardware/pipe_mix_hw.md's loops): at this size 21 cases move 0.5-2.2%, most toward 1
    # (transpose.naive_32x32 0.900 -> 0.912, streams.gs_write_w64 0.963 -> 0.984), matmul.tiled32 1.078 -> 1.100
    # out of 10% and out of rank with tiled32_bt_padded, transpose.tiled_padded_32x32's top stall not_selected
    # (long_scoreboard before, as on the H200); the full size is where it counts (docs/timing_model.md).
    # 4.46%, 91.5%, 7.08%, 96.3%, 5.6%, 94.3%, 97.2%, 0.123 before, with the 14 `routine`
    # kernels (measured 2026-11-28 after this model was built, compared before it changed: 4.53%, 90.8%,
    # 7.00%, 96.1%, 94.3%, 96.5%, 0.125 then, their own 4.9%) since a local array ptxas keeps in registers
    # accesses no memory (routine.sort4_local 1.15 -> 1.10), sectors other SMs brought take none of this SM's
    # share of L2, IMAD issues on a pipe of its own at half the FP32 rate (IMAD.WIDE/.HI a quarter:
    # docs/hardware/pipe_mix_hw.md) and a warp's back-to-back stores into the same few sectors reach L2 as one
    # write (docs/hardware/store_merge_hw.md: complex_mul 1.04 -> 0.99, sort4_local 1.10 -> 1.02); routine 4.9%
    # -> 3.8%, the 127 cases before it 4.49% -> 4.53% (histogram.global_atomics 0.944 -> 0.927,
    # transpose.naive_32x32 0.911 -> 0.900, matmul.naive_swapped 1.170 -> 1.151). Before `routine`, on 127 cases:
    # 4.49%, 91.3%, 7.09%, 96.3%, 5.6%, 94.5%, 96.9%, stall distance 0.124, the
    # worst instruction count 7.9% off (worst duration: matmul.naive_swapped, 17% slow) since a SASS branch
    # holds its warp scheduler.branch_resolve_cycles past its control code's stall and a BSYNC
    # reconverge_cycles, as branch_resolving (benchmarks/branch_fit.py: the H200's branch_resolving is time
    # on top of wait; chains.fma 0.975 -> 1.002, everyday.mandel32 0.973 -> 1.007, the reductions 2-3%
    # slower, softmax.thread_per_row 0.857 -> 0.894). Its variant ratios went 7.06% -> 7.09%, the one
    # figure that worsened: histogram's pair (shared_atomics 1.04 -> 1.06 of the H200's time against
    # global_atomics 0.95, whose time is L2's atomics) and everyday's, plain's and cuda_c's 0.2-0.4 points,
    # while chains, reduction, softmax, stencil and streams improved. 4.66%, 90.6%, 7.06%, 96.3%, 5.6%,
    # 93.7%, 96.9%, stall distance 0.127 before, since an atomic
    # operation on every word of a sector takes l2.atomic_round_cycles (docs/hardware/atomic_lines_hw.md:
    # plain.hist64_shared 1.06 -> 1.04, hist_bins16 1.006 -> 1.000) and the grid's instructions are counted
    # by stratum with the blocks the device's L2 ran (smsim/grid_count.py: plain.saxpy_gs512 0.83 -> 0.95,
    # ordinary.blur3x3 0.90 -> 1.00, the 2-D grids of everyday and plain 0.92-0.95 -> 0.99-1.00; no time
    # moves); 4.69%, 90.6%, 7.09%, 96.3%, 5.6%, 93.7%, 92.1%, stall distance 0.127 (worst:
    # matmul.naive_swapped, 17% slow) since blocks started together that touch a DRAM access at the same point
    # of their code share its fetch by lot (smsim.sm.SM._by_lot: plain.gather_perm4k 1.15 -> 1.08 and its
    # DRAM bytes 5.3x -> 1.1x the H200's, everyday.gather_mod 1.09 -> 0.96, everyday.outer 1.07 -> 0.98) and a
    # read over m DRAM rows waits the m-th harmonic number times the loaded latency (docs/hardware/
    # dram_pitch_hw.md; at this size HBM is seldom busy); 4.92%, 88.2%, 7.41%, 95.6%, 93.7%, 92.1%, 0.129 before
    # (worst: matmul.naive_swapped, 19% slow) since numba's code is link-time optimized as a GPU launch makes it and
    # assembled by CUDA 13.0's ptxas (the SASS the H200 ran, docs/hardware/numba_code_hw.md): 11 cases'
    # SASS changed, plain.stencil3d7 0.66 -> 1.15 (its GPU code waits twice an iteration), colsum64's and
    # matvec_cols' instructions now the H200's; 5.07%, 88.2%, 7.49%, 95.6%, 93.7%, 91.3%, 0.128 before (worst:
    # plain.stencil3d7, 34% fast). With the 12 `plain` kernels, measured after this model was built and compared
    # before it changed: 5.42%, 88.2%, 7.72%, 95.4%, 93.7%, 89.8%, 0.132 then (their own 10.9%, stencil3d7 0.18,
    # its instructions a fifth of the H200's). Two rules of isa/sass.py's mapping since: code ptxas sank into a
    # loop runs with the loop (stencil3d7 0.18 -> 0.66, instructions 0.21 -> 1.08), and a slow path's call
    # inside one PTX instruction is not taken (plain.ratio_div, ordinary.branchy, everyday.rgb_gray,
    # softmax.thread_per_row: instructions 1.15/1.07/1.05/1.04 -> 1.00; their times fall 0.4-3.5%,
    # thread_per_row 0.89 -> 0.86): on the 115 cases before `plain`, 4.84% -> 4.87%, ratios 7.27% -> 7.38%,
    # instructions within 5% 93.9% -> 94.8%. The worst instruction count, plain.saxpy_gs512 at 0.83, is the
    # grid estimate's (the timed blocks and their neighbours, scaled to the grid, are not its mix of blocks
    # that loop and blocks that do not): every block timed, 0.96. Before `plain`: 4.84%, 88.7%, 7.27%,
    # 95.7%, 94.8%, 93.9%, 0.129 (worst: matmul.naive_swapped, 19% slow; 4.85%, 89.6%, 7.19%, 93.0% and
    # 0.136 with S2R a 4-cycle ALU instruction and S2UR an 18-cycle one, before smsim/special.py: each warp's
    # wait for its indices is now the H200's
    # (streams.empty_16waves' top stall short_scoreboard, as measured), and the kernels move by 1% at most,
    # coalescing.copy_offset1 1.096 -> 1.100 past 10%, streams.copy_w4 1.011 -> 1.021; 4.81%, 7.15% and
    # distance 0.139 with an LSU queue of 16 that a load with no MSHR
    # free blocked: ordinary.rowsum64 0.984 -> 0.949 once its queue no longer fills, as the H200's does not
    # (lg_throttle 1.8 -> 0 warp-cycles per instruction, H200 0; its stall distance 0.197 -> 0.030), and the
    # full size goes 4.08% -> 4.06%, distance 0.141 -> 0.132; distance 0.145 while a warp waiting on a busy
    # pipe was throttled up to the pipe's last busy cycle, not only in its busy cycles; top stall 92.2% and
    # distance 0.146 before stores held their SM
    # (l1.store_credits: streams.store_scatter's top stall becomes drain, as on the H200); L2's background completions
    # and its completion rate move no case at this size by more than 1% (streams.store_scatter 0.957 -> 0.952);
    # 5.06% and 88.7% before L1's hits were served under its misses (the
    # data path was a FIFO: ordinary.matvec_rows 1.21 -> 0.94), rows served row hits only once open and chains
    # of DRAM reads lagged as their sum (streams.grid_stride_w4 0.91 -> 0.98); the write turnaround and drain
    # (docs/hardware/rw_mix_hw.md) move no case at this size, where L2 keeps every write; 5.04% and 89.6% before
    # the device's L2 (l2.sharing = "device"), its read
    # lookups and HBM's row activations (docs/hardware/l2_scatter_hw.md), which at this size move only
    # streams.hist_bins256 (0.996 -> 1.018) and hist_bins4096 (1.099 -> 1.107), and at the full size take the MAPE
    # from 6.8% to 6.0% (everyday.gather_mod 2.03 -> 0.89); 5.17% and 87.0% before the lag applied to kernels whose
    # every warp stores, 5.23% and 7.43% while it also delayed the reductions' backlog, which all SMs feed). Before
    # the slowest SM's lag (dram.slowest_sm_cycles, docs/hardware/sm_spread_hw.md) and float adds in turn on a word
    # (l2.float_atomic_cycles, docs/hardware/atomics_hw.md): 6.41%, 78.3%, 7.66%, 95.4%, 12.8%, with the 18
    # `everyday` kernels, measured after that model was built and compared before it changed (on the 97 cases before
    # them: 6.01%, 81.4%, 6.83%, 96.7%, 12.8%, 90.7%, 96.9%, 0.148). 5.67% and 84.5% with round-robin over all
    # warps, before the policy the H200 runs (scheduler.policy "oldest_block", docs/hardware/sched_order_hw.md): the
    # one-element streams at this size ended all their blocks together, whose retirements then queued at the
    # kernel's end, and they now come out 2-12% fast (streams.gs_write_w64 1.01 -> 0.89); at the full size the
    # policy takes the MAPE from 6.7% to 6.2% (streams.gs_read_w64 0.78 -> 0.92, stencil.stencil_1d 1.30 -> 1.19)
    # 4.35%, 6.88% before a store wider than L1 merges paid its partial sectors' read-modify-write into sectors
    # L2 holds whole (l2.py _merge_partial): course.prefix_row32 full 0.56 -> 1.007, at this size
    # routine.scatter_perm 1.105 -> 1.125 (full 0.86 -> 1.19)
    # 4.36%, 91.0%, 6.88%, 95.8%, 93.2%, stall distance 0.122 before the register file's two banks
    # (scheduler.register_banks, docs/hardware/fp64_rate_hw.md): at this size 4.39%, 91.5%, 6.86%, 96.2%, 92.7%
    # (transpose.tiled_32x32's top stall drain, a near tie with short_scoreboard; transpose.naive_32x32 0.912 ->
    # 0.903); the full size is where it counts: 4.35% -> 4.20%, 88.7% -> 90.5% within 10%, variant ratios 6.22%
    # -> 5.70%, course.newton_f64 0.85 -> 0.96 (docs/timing_model.md)
    # With the 16 `practice` kernels (measured 2026-11-29 after this model was built, compared before it
    # changed: 4.73% on their own, tile_sum_2d 0.82): 4.42%, 91.7%, 6.98%, 96.2%, 92.2%, 97.4%, 0.121 on 193;
    # then a SASS block holding a store or barrier runs no earlier than its PTX block (isa.sass.PINNED_OPS:
    # tile_sum_2d 0.82 -> 0.94, matmul.tiled16 0.97 -> 0.99, tiled32_bt_padded 0.95 -> 0.97, dgemm_tiled16 0.93
    # -> 0.96; worse: routine.blur_tile16 1.01 -> 1.04): 4.31%, 91.7%, 6.86%, 96.3%, 91.7%, 97.9%, 0.118 (tile_sum's
    # top stall long_scoreboard, the H200's barrier, a near tie there). Without the constant lookups of the PTX
    # block the SASS left (issued at its start since) the reductions came out 2-5% fast: 4.36%
    # Then a store's way out of the SM, measured (l1.write_request_cycles, write_data_cycles: a cycle a line and
    # a cycle a sector of a store's requests on the SM's port to L2; write_buffer_cycles: loads behind stores
    # wait for it; docs/hardware/store_port_hw.md, cold_rows_hw.md): 4.33%, 90.2%, 6.53%, 96.4%, 92.2%, 97.9%,
    # 0.116 against 4.31%, 91.7%, 6.86%, 96.3%, 91.7%, 97.9%, 0.118: the worst case 28% -> 17% off
    # (course.prefix_row32 0.72 -> 1.00), worse the naive transposes' one store a warp at the end
    # (transpose.naive 0.955 -> 1.067, naive_32x32 0.903 -> 1.071, cuda_c.transpose_naive 1.027 -> 1.118, whose
    # warp start was already long) and coalescing.particles_aos8 1.04 -> 1.15 (the H200 merges a third of its
    # stores' sectors in L1 at this size, smsim none); a float2 stored as two floats merges every pair (a wait
    # on an older store's register read no longer stops the look-ahead)
    # With the 16 `drills` kernels (measured 2026-11-29 after this model was built, compared before it changed:
    # 71.0% on their own, drills.segment_sum 6.15 and coo_spmv 6.48 of the H200's time, their float atomics'
    # other SMs put on this SM's own slices): 9.44%, 89.0%, 10.36%, 96.0%, 92.3%, 97.6%, 0.119 on 209; then
    # the other SMs' atomics spread as the device's resident blocks around a timed one spread theirs, a float
    # add's wait a sector's (docs/hardware/atomic_spread_hw.md; segment_sum 0.85, coo_spmv 0.92; worse
    # lessons.ballot_count 1.07 -> 1.10, routine.warp_sum_atomic 1.02 -> 1.08, whose first add had found the
    # other SMs' spread unseen; streams.hist_bins4096 1.09 -> 0.94): 4.50%, 89.5%, 6.56%, 96.2%, 92.3%,
    # 97.6%, 0.119 (on the 193 before drills 4.38%, 90.2%, 6.63%, 96.4%); then the copies of a loop body
    # without anchors told by its counter's step, and a one-copy SASS loop after an unrolled one run as a
    # remainder loop (isa.sass._step_copies, _plan: drills.bitrev_scatter's instructions 1.236 -> 1.005 of the
    # H200's, its time 0.952 -> 0.933): 4.51%, 89.5%, 6.59%, 96.2%, 92.3%, 98.1%, 0.118; then another warp's
    # store into the same sectors joins a write still waiting to leave the SM (l1.cross_merge_window,
    # docs/hardware/store_cross_hw.md: drills.stride_store16 1.169 -> 1.128, the only case that moves at this
    # size): 4.49%, 89.5%, 6.58%, 96.25%, 92.3%, 98.1%, 0.118; a partly written line's completion taking a turn
    # for each store into it (docs/hardware/store_read_hw.md) moves no test-size case. With the 16 `exercises`
    # kernels (measured 2026-11-29 after this model was built, compared before it changed: 6.9% on their own,
    # 14 within 10%, exercises.transpose_f64_32x8 1.20, gemv_thread_row 0.81): 4.66%, 89.3%, 6.57%, 96.0%,
    # 92.9%, 98.2%, 0.117 on 225. With the 16 `seminar` kernels (measured 2026-11-29 after this model was
    # built, compared before it changed: 4.95% on their own, 14 within 10%, row_sum_warp 0.84, dot_block_shared
    # 0.88; the block reductions issued 0.92-0.94 of the H200's instructions): 4.68%, 89.2%, 6.56%, 95.9%, 92.1%,
    # 97.1%, 0.118 on 241; then a store joining another warp's waiting write only where their latest loads read
    # the same DRAM rows (seminar.transpose16_naive 1.031 -> 1.066, the only case that moves at this size):
    # 4.70%, 89.2%, 6.56%, 95.9%, 92.1%, 97.1%, 0.118; then the BSYNC a warp that skips an if's body runs
    # counted (isa/sass.py: the reductions' instructions 0.92-0.96 -> 0.99-1.00 of the H200's): 4.70%, 89.2%,
    # 6.58%, 95.9%, 92.1%, 99.6%, 0.116; with benchmarks/branch_fit.py refitted on the 241 cases (a branch 2.63
    # -> 3.46 cycles, a BSYNC 8.57 -> 7.67): 4.70%, 89.2%, 6.61%, 95.9%, 92.1%, 99.6%, 0.117; then a
    # parameter's constant-cache miss growing with the SMs that miss together and the SM fetching its missed
    # lines one at a time (smsim/front_end.py, launch.const_miss_per_sm_cycles, const_line_cycles: kernels of
    # a few blocks 2-5% faster, copy_float4 1.106 -> 1.053, of a wave 1-3% slower, course.mix_u64 1.137 ->
    # 1.13, exercises.matadd_colmajor 1.094 -> 1.126): 4.63%, 90.5%, 6.64%, 95.7%, 92.9%, 99.6%, 0.102 (the
    # variant ratios and rank order a little worse: a family's few-block and one-wave kernels move apart).
    # With the 17 `tutorial` kernels (measured 2026-11-30 after this model was built, compared before it
    # changed: 5.35% on their own, 15 within 10%, tutorial.gather_rows_warp 0.85, hist2d_shared 1.11): 4.68%,
    # 90.3%, 6.64%, 95.7%, 92.2%, 99.6%, 0.101 on 258; then HBM's loaded waits drawn (an exponential of mean
    # loaded_latency_cycles x u, 300 -> 130 refitted), not the mean for every read (smsim/mem/dram.py): at this
    # size HBM is seldom busy, 4.67%, 90.3%, 6.65%, 95.7%, 92.2%, 99.6%, 0.101 (the variant ratios 0.01 points
    # worse); the full size 4.89% -> 4.70%, variants 7.03% -> 6.84%, stall distance 0.119 -> 0.113.
    # With the 16 `workshop` kernels (measured 2026-11-30 after this model was built, compared before it
    # changed: 4.0% on their own, 15 within 10%, layernorm_warp 0.89): 4.63%, 90.5%, 6.57%, 95.9%, 92.3%,
    # 99.3%, 0.101 on 274 (instructions worst 20.2%: transpose_inplace, its grid of 100 blocks counted at the
    # known blocks' mean); then L1's tag banks and data-array wavefronts for a cached load of several lines
    # (docs/hardware/l1_gather_hw.md: searchsorted 1.03 -> 1.01 here, 1.40 -> 0.98 at the full size) and a grid
    # of one stratum counted block by block (smsim/grid_count.py), and numba's dp4a run (workshop.dot4_i8 had
    # fallen back to smsim's compiler: 0.93 -> 0.96): 4.63%, 89.8%, 6.58%, 95.9%, 92.3%, 100%, 0.101,
    # instructions worst 4.8%. Then the timed blocks one of each wave at a place that moves from wave to wave
    # (smsim/single_sm.py timed_blocks: every 132nd block put them all at one place modulo 4 of a grid row;
    # practice.life_step read 2.0x the H200's DRAM bytes at its full size, 1.02x now) and the untimed blocks'
    # issue slots by a line through the traced blocks' (smsim/grid_count.py): 4.65%, 90.5%, 6.73%, 95.9%,
    # 92.0%, 99.6%, 0.100 (39 cases move, none past 3 points: course.transpose_f64 1.122 -> 1.092, ordinary.
    # blur3x3 1.045 -> 1.070); instructions worst 12.7%, workshop.grid_stride_2d, whose timed block of the
    # second wave is now one past its data: smsim's SASS for such a block's loop set-up is longer than the
    # H200's (1.157x with every block traced, blocks="all"; 0.966 before, by a block that ran the loop). Then
    # what another SM fetched for a block of this SM's (by lot) that SM's in the device's L2 from then on
    # (DeviceL2.disown: drills.matmul_tiled8's DRAM reads 2.45x -> 0.99x the H200's at its full size):
    # 4.67%, 90.5%, 6.71%, 95.9%, 92.0%, 99.6%, 0.100 (five cases move, practice.life_step 1.000 -> 0.981,
    # streams.hist_bins16 0.997 -> 0.969). Then shared wavefronts and a cached load's data-array wavefronts on
    # one data stage (l1.one_data_stage, docs/hardware/data_stage_hw.md): 4.64%, 90.9%, 6.63%, 95.9%, 92.0%,
    # 99.6%, 0.100 (six cases move, all toward 1: exercises.gemv_thread_row 0.797 -> 0.826, softmax.thread_per_row
    # 0.899 -> 0.923, ordinary.matvec_rows 0.946 -> 0.965). With the 17 `homework` kernels (measured 2026-11-30
    # after that model, compared before it changed for them: 4.42% on them, 17 of 17 within 10%): 4.63%, 91.4%,
    # 6.70%, 95.7%, 92.1%, 99.3%, 0.100 over 291 cases. Then a fill's sectors from DRAM written into the data
    # array on that stage (l1.fill_sector_cycles, docs/hardware/conflict_overlap_hw.md; at this size the stage
    # is seldom busy): 4.62%, 91.4%, 6.69%, 95.7%, 92.1%, 99.3%, 0.100. Then fences as measured (l1.fence_*,
    # docs/hardware/fence_hw.md; only homework.fence_store has one, 0.916 -> 0.968): 4.61%, 91.4%, 6.68%, 95.8%,
    # 92.1%, 99.3%, 0.0997. Then a refill's launch 288 cycles, not 330 (docs/hardware/block_launch_hw.md; at this
    # size only streams.copy_w4/_w8/_w16 move, 1.038/0.994/1.056 -> 1.014/0.979/1.049): 4.60%, 91.4%, 6.68%,
    # 95.8%, 92.1%, 99.3%, 0.0997, the occupancy curve's worst point 5.6% -> 4.9%. Then strong loads read from L2
    # and the slices' read lookups, a line every SM reads one slice's work (docs/hardware/hot_lines_hw.md; at this
    # size the gathers move by under 1%): 4.60%, 91.8%, 6.66%, 96.0%, 92.1%, 99.3%, 0.0996. Then the kernel's
    # end waits for the atomic units' backlog all busy SMs feed, less their lag (docs/timing_model.md): on the
    # same 291 4.60%, 91.8%, 6.90%, 96.0%, 92.1%, 99.3%, 0.0996 (streams.hist_bins1 0.908 -> 1.016,
    # drills.segment_sum 0.861 -> 0.938; worse lessons.atomic_max64 0.993 -> 1.110 and exercises.atomic_max_bins
    # 1.006 -> 1.126, the variant ratios of `lessons` 4.4% -> 10.8%). With the 16 `bootcamp` kernels (measured
    # 2026-12-01 before that change, compared before anything changed for them: 6.4% on them, 14 of 16 within
    # 10%; bootcamp.warp_atomic_same 0.675, 0.978 with it): 4.61%, 91.9%, 6.81%, 96.0%, 91.9%, 99.3%, 0.0993
    # over 307 cases. With the 16 `classroom` kernels (measured 2026-12-01 after the model of that day, compared
    # before anything changed for them: 5.2% on them, 15 of 16 within 10%, classroom.transpose_u8 0.74, a byte
    # image transposed naively): 4.64%, 92.0%, 6.82%, 95.96%, 92.3%, 99.4%, 0.0981 over 323 cases. Then a short
    # last wave's blocks given their part of the device's bandwidths (single_sm.device_share's weight) and the
    # stores into part of a sector's words taking turns at L2 (l2.subword_chain_cycles; classroom.transpose_u8
    # 0.741 -> 1.018, exercises.matadd_colmajor 1.084 -> 1.018): 4.50%, 92.3%, 6.74%, 96.2%, 92.3%, 99.4%,
    # 0.0981 on the 323. With the 12 `primer` kernels (measured 2026-12-01 after those models, compared before
    # anything changed for them: 7.1% on them, 9 of 12 within 10%, primer.laplace5_f64 0.86): 4.59%, 91.6%,
    # 6.77%, 95.96%, 92.5%, 99.4%, 0.0972 over 335 cases. The slices writing DRAM's fills in the cycles the stores
    # take (l2.fill_sector_cycles, docs/hardware/mid_stores_hw.md; 5.09% -> 4.55% at the mid size): 4.59%, 91.6%,
    # 6.76%, 95.98%, 92.5%, 99.4%, 0.0995 (the stall distance 0.0023 worse: every load from DRAM waits for its
    # fills, stores or not, so long_scoreboard grows a little where the H200's is smaller). A warp's next store
    # merging only if it issues before the first is through L1, a later one joining its warp's waiting write
    # (docs/hardware/store_resident_hw.md; 4.55% -> 4.50% at the mid size, full 4.74% -> 4.61%): 4.60%, 91.6%,
    # 6.77%, 95.82%, 92.5%, 99.4%, 0.0994 (coalescing.particles_aos4 0.88 -> 0.85, which puts it below a case it
    # ran slower than on the H200: the family's rank order 91% -> 87%). A wide store joining its warp's waiting
    # write and the LSU queue's entries going to the waiting sub-partitions in turn (store_resident_hw.md;
    # particles_aos8 1.12 -> 0.98; mid 4.50% -> 4.38%): 4.57%, 91.9%, 6.73%, 95.82%, 92.5%, 99.4%, 0.0993. A
    # compare-and-swap on several words of a sector taking l2.cas_round_cycles and, in a kernel with atomics, the
    # blocks that retire before a timed one starts running before it (docs/hardware/cas_hw.md; only
    # homework.atomic_max_f32 moves, 0.918 -> 1.218 here, where its one timed block, the first, retries more than
    # the H200's mean block; mid 1.468 -> 0.984, 4.38% -> 4.24%): 4.61%, 91.6%, 6.72%, 95.82%, 92.5%, 99.4%, 0.0993.
    # A narrow store joining another warp's waiting write whatever the two loaded (docs/hardware/size_sweep_hw.md;
    # tutorial.transpose_8x32 0.934 -> 0.917 here, mid 1.188 -> 1.043): 4.62%, the rest as before. With the 16
    # `recitation` kernels (measured 2026-12-02 after that model, compared before anything changed for them:
    # 5.0% on them, 15 of 16 within 10%, recitation.norm_rows16 0.85): 4.63%, 91.7%, 6.79%, 95.87%, 92.3%, 99.4%,
    # 0.0996 over 351 cases. Each read opening its DRAM rows alone and a write-back its SM's part of its lines'
    # openings (docs/hardware/block_shape_hw.md; no test-size case moves by 1%): 4.63%, 91.7%, 6.79%, 95.87%,
    # 92.3%, 99.4%, 0.09961 (0.00002 worse). With the 13 `quiz` kernels (measured 2026-12-02 after that model,
    # predicted first: 4.9% on them, 12 of 13 within 10%, quiz.pointer_jump4 1.27: its gathers read 9.3x the
    # H200's DRAM bytes), 364 cases: 4.64%, 91.8%, 6.90%, 95.92%, 91.5%, 99.5%, 0.1017. An indexed constant load
    # read one distinct address at a time by the constant cache's port (docs/hardware/const_spread_hw.md;
    # quiz.lut_const256 0.99 -> 1.01): 4.64%, 91.8%, 6.74%, 95.92%, 91.8%, 99.5%, 0.1005. An integer atomic on a
    # 64-bit word 1.16x an int32 one (l2.atomic_wide_cycles; quiz.hist_i64_1024 0.99 -> 1.05 here, 0.84 -> 0.97 at
    # the mid and full sizes): 4.66%, 91.8%, 6.76%, 95.92%, 91.8%, 99.5%, 0.1005. A sector written in part that
    # later blocks of other SMs touch completed by them in the device's L2 (WriteBackL2.touched_by_others; no
    # test-size case moves by 0.1%): 4.66%, 91.8%, 6.76%, 95.92%, 91.8%, 99.5%, 0.1005. With the 12 `midterm`
    # kernels (measured 2026-12-02 after that model, predicted first: 5.8% on them, 10 of 12 within 10%,
    # midterm.atomic_colsum 1.16, scan_kogge256 1.12), 376 cases: 4.69%, 91.5%, 6.99%, 95.80%, 92.0%, 99.5%,
    # 0.1004 (worse than over 364 because the new family is harder here, not because the model regressed)
    s = _pinned()
    _at_least_as_good(s, 4.70, 0.914, 7.00, 0.958, 0.920, 0.994, 0.1004)
    # the copy's occupancy curve (issue 12 asks within 10% at every point): 4.88% at worst, 5.23% since the
    # slices write DRAM's fills (its loads wait for them)
    assert s["occupancy_curve_max_error_pct"]["test"] <= 5.25
    # issue 13 asks within 15% on all: the worst is 21.2%, homework.atomic_max_f32 (numba's float atomic.max,
    # a strong load and a CAS loop whose retries depend on how the whole device's warps race for 64 bins; the
    # H200 issues 1.27x smsim's instructions); 12.7% before it (workshop.grid_stride_2d, above; 4.8% before,
    # streams.empty_1wave 7.9% before a grid of one stratum was counted block by block; drills.bitrev_scatter
    # 23.6% before the remainder loop above; plain.saxpy_gs512 16.6% while the timed blocks and their neighbours
    # were pooled)
    assert s["instructions_worst_pct"] <= 21.3


@pytest.mark.slow
@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
def test_validation_summary_at_the_mid_size_is_pinned():
    """Every case at the mid size (smsim.case.mid_size: 1 M elements for most, arrays L2 holds, about four waves
    of blocks), measured 2026-12-01 after the model was built and predicted first: 5.51%, 88.1% within 10%,
    variant ratios 8.08%, rank order 98.65%, top stall 94.0%, instructions within 5% 99.7%, stall distance
    0.1266, DRAM bytes 8.1% (drills.bitrev_scatter 1.95, streams.store_scatter 1.81: one SM's share of L2 let
    lines of an array every SM scatters into go as they came). Then L2 keeping l2.partial_lines lines with
    sectors in part and a stored line other SMs touched staying dirty in the device's L2: 5.09%, 88.1%, 6.78%,
    98.58%, 94.0%, 99.7%, 0.1264, DRAM bytes 2.5% (store_scatter 1.00, bitrev_scatter 1.17; worst
    homework.atomic_max_f32 1.47: its timed blocks' CAS loop sees only their own maxima, 3x the H200's CAS).
    Then the slices writing DRAM's fills in the cycles the stores take (l2.fill_sector_cycles,
    docs/hardware/mid_stores_hw.md: the streams that store what they load, 0.74-0.83 before, 0.93-1.02): 4.55%,
    91.0%, 5.94%, 98.82%, 94.0%, 99.7%, 0.1266, DRAM bytes 2.64% (the stall distance and the DRAM bytes a little
    worse: what L2 holds at the end moves with the timing). Then a warp's stores merging as they come in time
    (docs/hardware/store_resident_hw.md; particles_aos4 1.21 -> 1.06): 4.50%, 91.6%, 5.92%, 98.89%, 94.0%,
    99.7%, 0.1265, DRAM bytes 2.64%. Then a wide store joining its warp's waiting write and the LSU queue's
    entries going to the waiting sub-partitions in turn (particles_aos8 1.44 -> 0.94): 4.38%, 91.6%, 5.81%,
    98.92%, 94.0%, 99.7%, 0.1267, DRAM bytes 2.65% (both 0.0002 and 0.006 worse: the stores that now merge or
    reach L1 in another order move what L2 holds at the end and the drain of a few kernels). Then a swap on
    several words of a sector taking l2.cas_round_cycles and the blocks that retire before a timed one starts
    running before it in a kernel with atomics (docs/hardware/cas_hw.md; homework.atomic_max_f32 1.468 ->
    0.984, 571 K -> 276 K atomic sectors, the H200 180 K): 4.24%, 91.9%, 5.69%, 98.92%, 94.0%, 99.7%, 0.1267,
    DRAM bytes 2.65%. Then a store narrow enough for L1 to merge with its warp's next joining another warp's
    waiting write whatever the two loaded (docs/hardware/size_sweep_hw.md; tutorial.transpose_8x32 1.188 ->
    1.043, nothing else moves): 4.20%, 92.2%, 5.66%, 99.01%, 94.0%, 99.7%, 0.1266, DRAM bytes 2.65%. With the 16
    `recitation` kernels (measured 2026-12-02, predicted first: 4.3% on them, 14 of 16 within 10%,
    recitation.tile_rowsum16 0.87; DRAM bytes 15x the H200's writes for permute3d_zyx, a cube's axes reversed):
    4.20%, 92.0%, 5.63%, 99.01%, 94.3%, 99.7%, 0.1286, DRAM bytes 2.73% over 351. Then each read opening its
    DRAM rows alone and a write-back its SM's part of its lines' openings (docs/hardware/block_shape_hw.md;
    plain.matadd_2d16 0.936 -> 0.958, everyday.laplace5 0.888 -> 0.921; worse workshop.transpose_inplace 0.829
    -> 0.806, now faster here than conv1d_shared_k15 and rk4_pendulum, which the H200 runs 14-15% faster, and
    tutorial.transpose_8x32 1.043 -> 1.076, now slower than add3d_8x8x4; the variant ratios worse by
    histogram.shared_atomics 0.959 -> 0.989 against its family's first case, 0.96): 4.19%, 92.0%, 5.70%,
    98.96%, 94.3%, 99.7%, 0.1286, DRAM bytes 2.73%. With the 13 `quiz` kernels (measured 2026-12-02, predicted
    first: 11.7% on them, 8 of 13 within 10%: quiz.lut_const256 0.48, a constant table read at each lane's own
    entry; scan_blelloch512 0.72; hist_i64_1024 0.84), 364 cases: 4.46%, 90.9%, 5.94%, 98.83%, 93.4%, 99.7%,
    0.1318, DRAM bytes 3.01%. Then the constant cache's port reading an indexed load's distinct addresses one at
    a time (lut_const256 0.48 -> 0.90) and an int64 atomic costing 1.16x an int32 one (hist_i64_1024 0.84 ->
    0.97): 4.30%, 91.5%, 5.72%, 98.95%, 93.7%, 99.7%, 0.1304, DRAM bytes 3.01%. Then a sector written in part
    that later blocks of other SMs touch completed by them in the device's L2 (WriteBackL2.touched_by_others;
    drills.bitrev_scatter's DRAM reads the H200's, 1.162 -> 1.134; streams.store_scatter's 1.04x -> 0.88x):
    4.29%, 91.5%, 5.65%, 98.98%, 93.7%, 99.7%, 0.1304, DRAM bytes 2.80%. With the 12 `midterm` kernels
    (measured 2026-12-02, predicted first: 4.1% on them, 11 of 12 within 10%, midterm.jacobi_8x32 0.89), 376
    cases: 4.28%, 91.5%, 5.57%, 99.01%, 93.6%, 99.7%, 0.1293, DRAM bytes 2.71%."""
    s = _pinned("mid")
    _at_least_as_good(s, 4.29, 0.914, 5.57, 0.990, 0.936, 0.997, 0.1294, size="mid")
    assert s["dram_bytes_mape_pct"] <= 2.714


@pytest.mark.slow
@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
def test_validation_summary_with_smsims_compiler_is_pinned():
    """smsim's own compiler (``--compiler smsim``, where numba-cuda is missing), SASS timed."""
    # measured on this model: 8.07%, 78.4%, 30.13%, 86.6%, 5.6%, 90.9%, 51.1%, stall distance 0.146 on 176
    # cases, with the `lessons` kernels but sigmoid_f64 (float64 math.exp: this compiler has none) and wide
    # shared loads as the H200 serves them (above). Before, 8.58%, 77.4%, 32.63%, 86.2%, 5.6%, 91.2%, 51.6%,
    # stall distance 0.148 with the 18 `course` kernels and that session's two changes (above; their variant
    # ratios with this compiler 42%:
    # its collatz and rotate_sincos issue 0.59 of the H200's instructions and run 0.70 and 0.85 of its time). On
    # 141 cases before: 8.68%, 77.3%, 30.60%, 85.4%, 5.6%, 91.5%, 52.5%, stall distance 0.152 since a
    # 64-bit product holds its sub-partition's dispatch (above); 8.70% and 30.59% before, with the 14
    # `routine` kernels and this session's models (above; instructions within 5% and top stall lower on the
    # new mix of cases: this compiler's code for them differs more from the H200's). On 127 cases before:
    # 8.83%, 78.0%, 32.5%, 85.2%, 5.6%, 92.1%, 54.3%, stall distance 0.155 since
    # branches hold their warps scheduler.branch_resolve_cycles (above): the rank order went 92.3% -> 85.2%
    # because histogram's one pair flipped (shared_atomics 1.553 -> 1.558 of the H200's time with this
    # compiler, global_atomics 0.917: the coin toss described below; the families' rank figures are
    # averaged, so one pair of a two-case family moves it by 7 points); streams' rank 96.9% -> 97.2%.
    # 8.94%, 77.2%, 33.0%, 92.3%, 54.3%, 0.157 before (8.96%, 33.0%
    # and 51.2% before whole-sector atomics and the grid's instructions by stratum; 9.07%,
    # 74.8%, 33.3%, 91.8%, 0.158 before accesses blocks make together were fetched by lot, smsim.sm.SM._by_lot)
    # with `plain` (8.98%, 33.5%, 49.6% before the two mapping rules above; 9.06%, 75%, 35.2%, 92%, 93.0%, 51%,
    # 0.157 on the 115 before it: plain.stencil3d7 0.70, colsum64 and unravel3d a half of the H200's
    # instructions, dot_f64 1.5x; 9.05%, 76%,
    # 90.4% and 0.166 before smsim/special.py timed S2R and S2UR as measured; 8.99%, 35.1%,
    # 89.6% and 0.174 with an LSU queue of 16 that loads waiting for MSHRs blocked, and a warp throttled up to
    # its pipe's last busy cycle: ordinary.rowsum64 and matvec_rows a few % faster; 88.7% and 0.175
    # before stores held their SM, l1.store_credits; 9.15%, 90%, 0.173
    # before L1 served hits under misses: ordinary.matvec_rows, whose loop this compiler makes short, is then
    # bound by the LSU queue in front of its 32-line requests, lg_throttle, where the H200 shows long_scoreboard;
    # 9.14%, 77% before the device's L2, its read lookups and HBM's row activations); before the
    # slowest SM's lag and the float adds' chain, with `everyday`: 10.5%, 69%, 36.1%, 93%, 12.8% (on the 97
    # cases before them: 10.9%, 69%, 37.6%, 94%, 12.8%, 88%, 54%, 0.178; 10.7%, 37.4% with round-robin over
    # all warps, the policy before the H200's was measured; top stall 90% ->
    # 89% when stores stopped holding their warps until L2 took them: two store-bound kernels whose H200
    # drain comes from stores' back-pressure, not modelled, lost it; write_only gained; 89% -> 88% when the
    # first wave began to start together: smsim's compiler has every warp of streams.empty_16waves read a
    # parameter, which numba's SASS does not, so they all wait for it). The variant ratios
    # are worse than with numba's front end: smsim's compiler gives matmul.naive half the SASS numba's does,
    # so it runs 2.5x too fast against its tiled variants, and its loops (ordinary.matvec_rows, poly16) a
    # third to a half (benchmarks/front_ends.py); its histogram.shared_atomics is 1.57x too slow, within 1% of
    # global_atomics, so that pair's order (a family of its own) is a coin toss
    # (8.08%, 30.13% before wider stores paid their partial sectors into sectors L2 holds whole; with the register
    # file's banks 8.08%, 78.4%, 30.05%, 86.6%, 91.5%, 51.1%, 0.146; with `practice` and the pinned stores and
    # barriers 8.71%, 78.1%, 29.53%, 87.0%, 90.1%, 49.5%, 0.146 on 192: practice.col_cumsum 0.13 of the H200's
    # time with 0.05 of its instructions, the EXIT ptxas made of its loop's back branch read as exiting where the
    # branch was taken; exiting where it falls through to ret (Replay.exit_on_fall): 0.97, and 8.24%, 78.6%,
    # 29.23%, 87.1%, 90.1%, 49.5%, 0.145; ell_spmv 1.61 with 3.1x the instructions, not studied; with a store's
    # way out of the SM, measured (above): 8.25%, 77.1%, 29.29%, 87.2%, 90.6%, 49.5%, 0.144; with the 16 `drills`
    # kernels and the other SMs' atomics spread as the blocks around a timed one spread theirs (above): 8.19%,
    # 76.4%, 28.34%, 87.1%, 90.4%, 48.1%, 0.146 on 208; with the remainder loops above 8.06%, 76.4%, 28.25%,
    # 87.1%, 90.4%, 48.1%, 0.145; with a store joining another warp's waiting write (above) 8.04%, 76.4%,
    # 28.24%, 87.2%, 90.4%, 48.1%, 0.145; with the 16 `exercises` kernels 8.05%, 76.8%, 27.24%, 87.4%, 91.1%,
    # 46.4%, 0.142 on 224: this compiler's instruction counts of the new kernels are further from the H200's;
    # with the index wraparound LLVM proves away left out, 32-bit compares of widened values and the exit
    # branch kept, docs/compiler.md: 8.05%, 76.8%, 27.20%, 87.4%, 92.0%, 48.2%, 0.138; with the 16 `seminar`
    # kernels, the joins by DRAM rows, the BSYNC of a skipped if and the branch costs refitted (above): 7.87%,
    # 77.5%, 25.96%, 87.7%, 90.4%, 48.3%, 0.139 on 240; with a parameter's miss growing with the SMs and the
    # lines missed (above): 7.86%, 77.9%, 26.22%, 88.1%, 90.4%, 48.3%, 0.150: this compiler passes an array as
    # its pointer and shape, fewer parameter lines than numba's seven words an array, so its warps miss fewer
    # lines than the H200's did running numba's kernels and wait less, docs/timing_model.md "Cold starts")
    # With the 17 `tutorial` kernels: 7.77%, 77.8%, 25.43%, 88.2%, 89.5%, 48.6%, 0.151 on 257; HBM's loaded
    # waits drawn (above): 7.80%, 78.2%, 25.44%, 88.2%, 89.5%, 48.6%, 0.150. With the `workshop` kernels (15:
    # this compiler has no loop over a tuple, layernorm_warp's shuffle steps), L1's banks and the one-stratum
    # count: 8.11%, 76.8%, 24.97%, 88.2%, 89.3%, 48.9%, 0.152 on 272 (rk4_pendulum 0.64 of the H200's time, its
    # sines one instruction each where numba's are a libdevice routine; colmean_tile 1.64)
    # With the timed blocks' places moving from wave to wave and the line through the traced blocks' slots
    # (above): 8.11%, 77.2%, 25.02%, 88.2%, 89.3%, 48.9%, 0.152; with DeviceL2.disown (above): 8.15%, 76.8%,
    # 25.04%, 88.1%, 89.3%, 48.9%, 0.152; with one L1TEX data stage (above): 8.14%, 76.8%, 25.13%, 88.1%, 89.3%,
    # 48.9%, 0.152 (the variant ratios 0.09 points worse, the one figure that worsened; not taken apart case by
    # case). With the 14 `homework` kernels it compiles (not float64 log, erf, nor a float atomic.max, which
    # ptxas rejected as red.max.f32 and is now a compile error) and a fill's sectors from DRAM on L1's data
    # stage (above): 7.94%, 77.6%, 24.43%, 88.3%, 89.5%, 47.9%, 0.151 on 286 (instructions within 5% lower:
    # this compiler's counts of the new kernels are further from the H200's). The kernel's end waiting for the
    # atomic units' backlog (above): 7.91%, 77.6%, 24.66%, 88.6%, 89.5%, 47.9%, 0.151 on the 286 (the variant
    # ratios 0.23 points worse, as on the SASS stream of numba's front end). With the 14 `bootcamp` kernels it
    # compiles (not a loop over a tuple: csr_warp_row, matvec_f64_warp; 8.98% on them, top stall right on 10 of
    # 14): 7.96%, 77.7%, 24.11%, 88.9%, 88.7%, 47.0%, 0.153 on 300. With the 15 `classroom` kernels it compiles
    # (not float64 math.exp: exp_f64; col_sum256 0.69 and transpose_u8 0.73 of the H200's time): 7.94%, 77.8%,
    # 23.53%, 89.1%, 89.2%, 46.0%, 0.153 on 315. A short last wave's share and the stores into part of a sector's
    # words (above): 7.83%, 78.1%, 23.45%, 89.3%, 89.2%, 46.0%, 0.153 on the 315. With the 12 `primer` kernels (it
    # compiles all): 7.79%, 78.3%, 22.87%, 89.4%, 89.3%, 46.8%, 0.152 on 327. The slices writing DRAM's fills in
    # the cycles stores take (l2.fill_sector_cycles, docs/hardware/mid_stores_hw.md): 7.70%, 78.6%, 22.87%, 89.7%,
    # 89.0%, 46.8%, 0.154 (the top stall and stall distance a little worse: loads wait longer, stores or not).
    # A warp's stores merging as they come in time (docs/hardware/store_resident_hw.md): 7.72%, 78.6%, 22.87%,
    # 89.7%, 89.0%, 46.8%, 0.154. A wide store joining its warp's waiting write and the LSU queue's entries going
    # to the waiting sub-partitions in turn: 7.70%, 78.9%, 22.85%, 89.7%, 89.0%, 46.8%, 0.1543 (the stall
    # distance 0.0002 worse). A narrow store joining another warp's waiting write whatever the two loaded
    # (docs/hardware/size_sweep_hw.md): 7.70%, 78.6%, 22.86%, 89.7%, 89.0%, 46.8%, 0.1543 (tutorial.transpose_8x32,
    # already fast with this compiler, falls to 0.89 of the H200's time: one case fewer within 10%). With the 16
    # `recitation` kernels (it compiles all; matvec_cols 0.53 and collatz_steps 0.74 of the H200's time: this
    # compiler's loops shorter than NVVM's): 7.82%, 78.4%, 22.67%, 89.8%, 88.9%, 46.1%, 0.1538 on 343. Each read
    # opening its DRAM rows alone (docs/hardware/block_shape_hw.md): 7.82%, 78.4%, the others within these
    # pins but the stall distance, 0.153800 -> 0.153801. With the 13 `quiz` kernels (it compiles all; 11.1% on
    # them at this model, scan_blelloch512 1.33, pointer_jump4 1.26, nchw_to_nhwc 0.76) and the constant cache's
    # port and the int64 atomics' cost: 7.94%, 77.8%, 22.26%, 89.65%, 88.2%, 46.1%, 0.1552 on 356
    # with the 12 `midterm` kernels and the sectors later blocks of other SMs complete (above), 368 cases (this
    # compiler compiles all of them): 7.99%, 76.9%, 22.09%, 89.49%, 88.6%, 45.9%, 0.1556
    _at_least_as_good(_pinned(compiler="smsim", stream="sass"), 7.99, 0.769, 22.10, 0.894, 0.885, 0.459, 0.1557)


@pytest.mark.slow
def test_validation_summary_of_the_ptx_stream_is_pinned():
    """Neither extra installed: smsim's compiler, PTX timed with isa/cost.py's issue slots (before issue
    "Timing fidelity I": 57.4%, 8%, 34.4%, 79%, 75%, 78%, on 77 cases)."""
    # measured on this model: 13.47%, 67.6%, 25.93%, 83.6%, 5.5%, 88.6%, 33.0%, stall distance 0.203 on 176
    # cases, with the `lessons` kernels but sigmoid_f64 (above) and wide shared loads as the H200 serves them.
    # Before, 13.91%, 67.3%, 26.94%, 83.0%, 5.5%, 88.1%, 32.7%, stall distance 0.204 with the 18 `course`
    # kernels and that session's two changes (the course kernels' PTX is further from the SASS the
    # H200 ran: within 10% and instructions within 5% lower on the new mix). On 141 cases before: 14.27%,
    # 68.1%, 26.33%, 82.7%, 5.5%, 87.2%, 34.0%, stall distance 0.204 with the 14 `routine` kernels and that
    # session's models (the PTX stream knows no SASS: the IMAD pipe does not apply). On 127 cases before:
    # 14.27%, 66.9%, 27.43%, 82.1%, 5.5%, 86.6%, 34.6%, stall distance 0.207. The
    # instructions within 5% went 35.4% -> 34.6% (one case) when the grid's count took the blocks the device's
    # L2 ran, by stratum (smsim/grid_count.py): the PTX stream's everyday.outer, 5% longer than the SASS, had
    # come out 0.997 of the H200's count because the timed blocks' neighbours, pooled, were 5% short of the
    # grid's mix; it is 1.051 now, as are the other 2-D grids (matadd_2d16, transpose_add16 0.96 -> 1.04;
    # with numba's front end, SASS timed, they went to 0.99-1.00). (14.29%, 66.9%, 27.43%, 82.1%, 35.4% before
    # that and whole-sector atomics; 14.93%,
    # 63.0%, 27.83%, 81.4%, 0.208 before accesses blocks make together were fetched by lot) with the 12
    # `plain` kernels (the PTX stream knows no SASS; on the 115 before them: 14.08%, 62.6%, 25.19%, 81.1%, 87%,
    # 37%, 0.210; 84% and 0.216
    # before the two changes above; 83% and 0.217
    # before stores held their SM, l1.store_credits; 14.22%, 63.5%
    # before L1 served hits under misses and chains of DRAM reads lagged as their sum: one case fewer within 10%;
    # 14.20% before the device's L2, its read lookups and HBM's row activations; rank order
    # 81.1% -> 81.0% -> 81.1% as the slowest SM's lag stopped delaying the reductions' backlog, then applied
    # to kernels whose every warp stores: pairs of `everyday` kernels, 20% off on this stream, swap);
    # before the slowest SM's lag and the float adds' chain, with `everyday`: 15.0%, 58%, 26.1%, 82%, 12.7% (on the 97
    # cases before them: 15.8%, 58%, 26.4%, 82%, 12.7%, 81%, 36%, 0.226; 15.6%, 59% with round-robin over all
    # warps)
    # (13.48%, 25.93%, rank 83.5% before wider stores paid their partial sectors into sectors L2 holds whole;
    # with the 16 `practice` kernels 13.30%, 67.7%, 25.16%, 84.1%, 87.0%, 32.8%, 0.203 on 192; with a store's
    # way out of the SM, measured (above): 13.66%, 67.2%, 25.16%, 84.4%, 87.0%, 32.8%, 0.200; which cases moved
    # on this stream was not looked at; with the 16 `drills` kernels and the atomics' spread (above): 13.61%,
    # 67.8%, 24.70%, 84.7%, 87.5%, 32.2%, 0.202 on 208; with a store joining another warp's waiting write
    # (above) 13.59%, 67.8%, 24.69%, 84.8%, 87.5%, 32.2%, 0.202; with the 16 `exercises` kernels 13.48%, 67.9%,
    # 23.98%, 85.1%, 87.9%, 30.8%, 0.198 on 224; with the index wraparound LLVM proves away left out (above):
    # 13.41%, 67.4%, 23.91%, 84.9%, 88.8%, 31.7%, 0.195: one case fewer within 10% and a pair's order turned,
    # the cost table being fitted to this compiler's longer code; which ones was not looked at; with the 16
    # `seminar` kernels and the joins by DRAM rows: 13.53%, 67.5%, 23.52%, 85.1%, 88.8%, 31.7%, 0.196 on 240;
    # with a parameter's miss growing with the SMs and the lines missed (above; this compiler's fewer parameter
    # lines): 13.22%, 66.7%, 23.78%, 85.1%, 88.75%, 31.7%, 0.211)
    # With the 17 `tutorial` kernels: 12.83%, 66.9%, 23.14%, 85.4%, 88.3%, 31.5%, 0.210 on 257; HBM's loaded
    # waits drawn (above): 12.83%, 67.7%, 23.11%, 85.5%, 88.3%, 31.5%, 0.209. With the 15 `workshop` kernels it
    # compiles, L1's banks and the one-stratum count: 13.79%, 67.6%, 23.61%, 85.6%, 88.2%, 31.2%, 0.211 on 272
    # With the timed blocks' places moving from wave to wave and the line through the traced blocks' slots
    # (above): 13.77%, 66.9%, 23.65%, 85.6%, 88.2%, 31.2%, 0.211; with DeviceL2.disown (above): 13.75%, 67.3%,
    # 23.62%, 85.6%, 88.2%, 31.2%, 0.210; with one L1TEX data stage (above): 13.82%, 67.3%, 23.61%, 85.6%,
    # 88.2%, 31.2%, 0.212 (the duration MAPE 0.07 points and the stall distance 0.002 worse; not taken apart
    # case by case). With the 14 `homework` kernels it compiles (above) and a fill's sectors from DRAM on L1's
    # data stage: 13.96%, 66.4%, 23.31%, 85.5%, 88.5%, 30.4%, 0.212 on 286 (the PTX stream's instruction counts
    # of the new kernels are further from the H200's than the rest's; the two changes not taken apart). A block's
    # warp w on sub-partition (k + w) % 4 as measured (docs/hardware/warp_slot_hw.md): 13.96%, 66.8%, 23.32%,
    # 85.5%, 88.5%, 30.4%, 0.212 (variant ratios 0.01 points worse on this fallback stream, better on the SASS one).
    # Strong loads read from L2 and the slices' read lookups (docs/hardware/hot_lines_hw.md): 13.96%, 66.8%,
    # 23.331%, 85.5%, 88.5%, 30.4%, 0.212 (the variant ratios 0.01 points worse again). The kernel's end waiting
    # for the atomic units' backlog: 13.95%, 66.4%, 23.40%, 85.6%, 88.5%, 30.4%, 0.212 on the 286. With the 14
    # `bootcamp` kernels it compiles (25.7% on them: this stream's instruction counts of them 0.21 within 5%):
    # 14.50%, 66.7%, 23.81%, 85.6%, 88.3%, 30.0%, 0.214 on 300. With the 15 `classroom` kernels it compiles (the
    # PTX stream times this compiler's loops as written, where ptxas unrolls them: col_sum256 5.55 and gemm_k16
    # 2.55 of the H200's time, 0.69 and 1.14 on the SASS stream): 16.03%, 67.0%, 24.75%, 85.7%, 88.6%, 29.8%,
    # 0.212 on 315. A short last wave's share and the stores into part of a sector's words (above): 15.93%,
    # 67.6%, 24.76%, 85.9%, 88.6%, 29.8%, 0.212 on the 315. With the 12 `primer` kernels: 15.60%, 68.2%, 24.15%,
    # 86.1%, 88.7%, 30.3%, 0.211 on 327. The slices writing DRAM's fills in the cycles stores take: 15.57%, 68.5%,
    # 24.21%, 86.2%, 88.7%, 30.3%, 0.2125 (the variant ratios 0.06 points worse on this fallback stream, 0.01
    # better on the SASS one of this compiler). A warp's stores merging as they come in time: 15.57%, 68.5%,
    # 24.23%, 86.2%, 88.7%, 30.3%, 0.2124 (the variant ratios 0.02 points worse). A narrow store joining another
    # warp's waiting write whatever the two loaded: 15.57%, 68.2%, 24.23%, 86.2%, 88.7%, 30.3%, 0.2124
    # (tutorial.transpose_8x32 0.89: one case fewer within 10%). With the 16 `recitation` kernels: 15.62%, 67.6%,
    # 24.44%, 86.0%, 88.6%, 29.7%, 0.2123 on 343
    # With the 13 `quiz` kernels and the constant cache's port and the int64 atomics' cost (the PTX stream times
    # an ld.const as the SASS one's LDC: one distinct address at a time): 15.82%, 66.9%, 24.30%, 85.9%, 88.2%,
    # 29.2%, 0.2145 on 356. With the 12 `midterm` kernels and the sectors later blocks of other SMs complete:
    # 16.17%, 65.8%, 24.23%, 85.75%, 88.6%, 28.5%, 0.2158 on 368
    _at_least_as_good(_pinned(compiler="smsim", stream="ptx"), 16.17, 0.657, 24.24, 0.857, 0.885, 0.285, 0.2158)


def test_a_case_the_compiler_cannot_compile_is_left_out_and_named(capsys):
    assert main(["validate", "--case", "lessons.sigmoid_f64,lessons.horner8_f64", "--compiler", "smsim",
                 "--stream", "ptx", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "summary over 1 cases" in out
    assert "left out, lessons.sigmoid_f64@test:" in out and "math.exp on float64 is not supported" in out
    with pytest.raises(CompileError):
        v.rows(v.load(), ("test",), lambda c: c == "lessons.sigmoid_f64", compiler="smsim", stream="ptx")


def test_the_command_validates_a_family_and_rejects_unknown_sizes(capsys):
    assert main(["validate", "--family", "vector", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "vector.vec_add" in out and "summary over 2 cases: duration MAPE" in out
    assert main(["validate", "--sizes", "huge"]) == 2
    assert "no measurements at size 'huge'" in capsys.readouterr().err


@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
def test_both_streams_side_by_side(capsys):
    assert main(["validate", "--family", "vector", "--stream", "both", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "sass us" in out and "ptx us" in out
    assert "sass stream: duration MAPE" in out and "ptx  stream: duration MAPE" in out
    row = next(line for line in out.splitlines() if line.startswith("vector.vec_add") and len(line.split()) == 8)
    hw_us, sass_us, ptx_us = (float(x) for x in row.split()[2:5])
    assert hw_us > 0 and sass_us > 0 and ptx_us > 0


@pytest.mark.parametrize("case_id", ["coalescing.copy_offset1", "transpose.naive_strided_reads", "matmul.naive",
                                     "ordinary.matvec_rows", "ordinary.rowsum64", "coalescing.particles_aos8"])
def test_the_l1_load_hit_rate_is_the_h200s(case_id):
    """A load that finds its sector's fill still on the way counts as an L1 hit on the H200 (its hit rate is
    1 - L2 read sectors / load sectors): these cases' hits are mostly such merges."""
    hw = v.load()["runs"]["test"][case_id]["metrics"]
    res = v.predict(case_id, "test")
    rate = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"
    assert res.metrics[rate] == pytest.approx(hw[rate], abs=0.5)


@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
@pytest.mark.parametrize("case_id", ["streams.empty_1wave", "ordinary.blur3x3"])
def test_the_grids_instruction_count_takes_the_untimed_neighbours_blocks_too(case_id):
    """Blocks that differ (the empty kernel's block 0 alone writes; an image's edge tiles) make the timed blocks a
    poor sample of the grid: counting their neighbours' streams as well brings both within 15% of the H200's
    ``smsp__inst_executed`` (the timed blocks alone: 1.25x and 0.76x)."""
    hw = v.load()["runs"]["test"][case_id]["metrics"]["smsp__inst_executed.sum"]
    res = v.predict(case_id, "test", stream="sass")
    scaled = res.metrics["smsp__inst_executed.sum"] * res.blocks / res.blocks_timed
    grid = res.metrics["smsim.grid.inst_executed"]
    assert abs(grid / hw - 1) <= 0.15
    assert abs(grid / hw - 1) < abs(scaled / hw - 1)


@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
@pytest.mark.parametrize("case_id", ["streams.hist_bins1", "streams.hist_bins16", "streams.hist_bins4096"])
def test_reductions_are_counted_per_operation_and_not_as_reads_as_on_the_h200(case_id):
    """numba's atomic.add with its result unused is a reduction (REDG): the H200 counts it in ``op_red``, one
    per operation (per sector, the most lanes naming one address), and its ``op_read`` holds the loads alone."""
    hw = v.load()["runs"]["test"][case_id]["metrics"]
    res = v.predict(case_id, "test", stream="sass")
    scale = res.blocks / res.blocks_timed
    for m in ("lts__t_sectors_srcunit_tex_op_red.sum", "lts__t_sectors_srcunit_tex_op_read.sum"):
        assert res.metrics[m] * scale == pytest.approx(hw[m], rel=0.03), m
    assert res.metrics["lts__t_sectors_srcunit_tex_op_atom.sum"] == hw["lts__t_sectors_srcunit_tex_op_atom.sum"] == 0


@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
def test_the_other_sms_atomics_fall_where_the_blocks_around_a_timed_one_add():
    """``drills.segment_sum``: each block adds into its own segments' words (docs/hardware/atomic_spread_hw.md).
    With the device's L2 the resident blocks around the timed one run, and their adds spread the other SMs'
    over the slices they fall on: within 20% of the H200's time. With the grid neighbours alone nothing says
    where the other SMs add, and they are taken to add where this SM does, as into a histogram's shared
    bins: several times the H200's time (6.15x before the spread was modelled)."""
    import smsim
    from workloads import case as cases
    hw = v.load()["runs"]["test"]["drills.segment_sum"]["metrics"]["gpu__time_duration.sum"]
    assert 0.8 <= v.predict("drills.segment_sum", "test").metrics["gpu__time_duration.sum"] / hw <= 1.2
    case = cases.get("drills.segment_sum")
    s = case.setup("test", 0)
    alone = smsim.launch(case.load_kernel(), s.grid, s.block, s.args, config="h200", complete=False,
                         overrides={"l2.sharing": "neighbours"})
    assert alone.metrics["gpu__time_duration.sum"] / hw > 3.0
