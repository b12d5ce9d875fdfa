"""The grid's issued instructions estimated from the blocks one SM ran (smsim/grid_count.py)."""
import math

import numpy as np
import pytest

import isa
import smsim
from isa.trace import global_sectors
from smsim.grid_count import GridCount
from smsim.launch import _compiled
from workloads import case as cases


def test_known_blocks_count_as_counted_and_the_rest_at_their_strata_means():
    g = GridCount(10, 4)                 # strata 0-3, 4-7, 8-9
    g.traced(0, 30.0, 10.0)              # timed stream 3x the PTX slots
    g.traced(4, 6.0, 2.0)
    g.ran({1: 10.0, 2: 10.0, 5: 2.0})    # PTX slots only: scaled by the traced blocks' 36 / 12
    # stratum 0: 30 + 30 + 30 and block 3 at their mean 30; stratum 1: 6, 6 and two more at 6; stratum 2
    # has no known block: the mean of all five known, 102 / 5
    assert g.total() == pytest.approx(120 + 24 + 2 * 102 / 5)
    g.ran({0: 1000.0})                   # a traced block keeps its exact count
    assert g.total() == pytest.approx(120 + 24 + 2 * 102 / 5)
    assert GridCount(3, 4).total() == 0.0


def test_blocks_that_differ_are_counted_by_stratum_not_pooled():
    # block 0 works (100 slots), its neighbours 1 and 131 too and idle (10); every block of a stratum after
    # the first is idle: pooled, the first stratum's three blocks would stand for a third of the sample
    g = GridCount(264, 132)
    g.traced(0, 100.0, 100.0)
    g.traced(1, 100.0, 100.0)
    g.traced(131, 10.0, 10.0)
    g.traced(132, 10.0, 10.0)
    g.traced(133, 10.0, 10.0)
    assert g.total() == pytest.approx(132 * 70.0 + 132 * 10.0)


def test_the_interpreter_counts_each_blocks_ptx_issue_slots():
    case = cases.get("plain.saxpy_gs512")
    s = case.setup("test", 0)
    kernel, flatten = _compiled(case.load_kernel(), s.args)
    launch = isa.interp.Launch(kernel, s.grid, s.block, flatten(tuple(s.args)), s.shared_bytes)
    issued: dict = {}
    global_sectors(launch, [126, 127, 128, 129], 32, issued=issued)
    assert list(issued) == [126, 127, 128, 129]
    # blocks 0-127 of 512 cover the 32768 elements once: they loop, the rest only set up and leave
    assert issued[126] == issued[127] > 2 * issued[128] > 0 and issued[128] == issued[129]
    batch = launch.batch(130, 2)
    batch.run()
    assert batch.warp_issued.sum() == pytest.approx(batch.issued)


@pytest.mark.slow
def test_a_grid_whose_first_blocks_alone_loop_is_counted_within_6pct_of_the_h200():
    # plain.saxpy_gs512 at the test size: 128 of 512 blocks loop; the H200 issued 261120 instructions
    # (docs/hardware/validate_hw.json); the timed blocks and their neighbours, pooled, said 0.83 of it
    case = cases.get("plain.saxpy_gs512")
    s = case.setup("test", 0)
    res = smsim.launch(case.load_kernel(), s.grid, s.block, s.args, config="h200", complete=False)
    got = res.metrics["smsim.grid.inst_executed"] / 261120
    assert math.isclose(got, 1.0, abs_tol=0.06), got
    assert np.isfinite(got)


def test_a_grid_of_one_stratum_counts_every_block_and_runs_none_twice():
    """At most num_sms blocks (one stratum): the blocks no one ran are run and counted, not taken at the known
    ones' mean: a transpose in place, whose blocks below the diagonal idle while block 0's neighbours swap,
    counts what the functional run issues (its PTX stream timed), and its output is right (no block swapped
    twice)."""
    case = cases.get("workshop.transpose_inplace")
    s = case.setup("test", 0)
    assert s.grid[0] * s.grid[1] <= 132
    ref = case.setup("test", 0)
    fun = smsim.launch(case.load_kernel(), ref.grid, ref.block, ref.args, timing=False)
    res = smsim.launch(case.load_kernel(), s.grid, s.block, s.args, config="h200",
                       overrides={"scheduler.stream": "ptx"})
    assert res.metrics["smsim.grid.inst_executed"] == pytest.approx(fun.issued_instructions)
    assert np.array_equal(s.args[0], s.expected[0])


def test_sector_keys_and_first_touches_match_their_numpy_definitions():
    from isa.trace import _slot_sector_keys, first_per_key
    rng = np.random.default_rng(5)
    for lpb, sb in ((256, 32), (96, 32), (256, 24)):      # powers of two by shifts, the rest by division
        lanes = np.sort(rng.integers(0, 4 * lpb, 3000)).astype(np.int64)
        addr = rng.integers(0, 1 << 20, 3000).astype(np.uint64) // np.uint64(4) * np.uint64(4)
        addr[:1000] = np.sort(addr[:1000])                 # runs of equal sectors, as a coalesced warp makes
        key = (lanes // lpb << 44) | (addr // np.uint64(sb)).astype(np.int64)
        runs = key[np.r_[True, key[1:] != key[:-1]]]
        got = _slot_sector_keys(lanes, addr, lpb, lpb.bit_length() - 1 if lpb & (lpb - 1) == 0 else -1,
                                sb, sb.bit_length() - 1 if sb & (sb - 1) == 0 else -1)
        assert np.array_equal(got, runs)
    keys = rng.integers(0, 50, 2000).astype(np.int64)
    values = rng.integers(0, 1000, 2000).astype(np.int64)
    # any order; keys sorted (the least of each run); values not decreasing (a stable sort of the keys)
    for k, v, ordered in ((keys, values, False), (np.sort(keys), values, False), (keys, np.sort(values), True)):
        want = {x: v[k == x].min() for x in np.unique(k).tolist()}
        got_k, got_v = first_per_key(k, v, ordered=ordered)
        assert got_k.tolist() == sorted(want) and got_v.tolist() == [want[x] for x in sorted(want)]
