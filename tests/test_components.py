"""Unit tests of the timing model's components, one component at a time, each constructed directly (no
``smsim.launch``) with the constructor arguments of :mod:`smsim.contracts`. Every expected cycle is derived
by hand from the rules the component's module docstring states; the derivation is in the comments."""
from __future__ import annotations

import dataclasses
import math
import pathlib

import numpy as np
import pytest
import simpy

import isa
import smsim
from isa import sass
from smsim import cuda
from smsim.config import ConfigError, SpecialSpec, load
from smsim.fast import bank_lines, bank_lines_np, lines_of
from smsim.mem.dram import Dram
from smsim.mem.l1 import L1
from smsim.mem.l2 import L2
from smsim.mem.queue import BandwidthQueue, GapQueue, LoggedGapQueue, LoggedQueue
from smsim.mem.shared import SharedMemory
from smsim.registry import DRAM_MODELS, L1_MODELS, L2_MODELS, LAUNCH_MODELS, SCHEDULER_POLICIES, SHARED_MODELS
from smsim.scheduler import Clock
from smsim.single_sm import build_sm, device_share
from smsim.special import SerialUnit, SpecialRegisters
from smsim.warp import BRANCH, INF, LONG, MEMBAR, R, REASONS, SHORT, WAIT, Timeline, Warp
from workloads import case as cases

TINY = load("tiny")


def _sectors(*s: int) -> np.ndarray:
    return np.array(s, np.int64)


# ---------------------------------------------------------------------------------------- bandwidth queue
def test_special_register_unit_serves_s2ur_in_turn_behind_each_subpartitions_queue():
    """S2UR reads start one per interval whatever sub-partition issued them, each result a latency after its
    start; a sub-partition with as many reads waiting as its queue holds has room again when the oldest
    waiting one starts."""
    spec = SpecialSpec(latency_cycles=22, uniform_latency_cycles=28, uniform_interval_cycles=4)
    unit = SpecialRegisters(spec, 4, 2)
    assert unit.read(0, 10) == 38                 # the unit is idle: starts at once
    assert unit.read(1, 10) == 42                 # another sub-partition's, at the same cycle: next in turn
    assert unit.room_at(0, 10) == 10              # one waiting (it has started): room
    assert unit.read(0, 11) == 46                 # starts at 18
    assert unit.read(0, 11) == 50                 # starts at 22: sub-partition 0 has 18 and 22 waiting
    assert unit.room_at(0, 11) == 18 and unit.room_at(0, 18) == 18 and unit.room_at(0, 19) == 19
    assert unit.read(2, 100) == 128               # idle again


def test_a_serial_unit_takes_pieces_of_work_in_turn_each_interval_long():
    """The constant cache's port (smsim.sm.SM._const_load): an instruction of n pieces holds the unit n
    intervals; its result comes the latency (and what the caller adds) after it starts."""
    port = SerialUnit(2.0, 22, 4, 2)
    assert port.take(0, 10, 32, 31 * 2.76) == pytest.approx(10 + 22 + 85.56)   # 32 addresses: the port busy 64
    assert port.free == 74
    assert port.take(1, 20, 1) == 74 + 22          # another sub-partition's single address waits its turn
    assert port.room_at(1, 20) == 20               # one waiting there: room for another


@pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")
def test_an_indexed_constant_load_is_timed_by_its_distinct_addresses():
    """A table in constant memory read at each lane's own entry (SASS LDC R, c[0x3][R]) is a memory instruction
    of the SASS stream: 32 distinct addresses a load hold the constant cache's port 32 x 2 cycles, so 32 warps'
    loads take about 16x the time of loads at one address (docs/hardware/const_spread_hw.md); before, the PTX
    load was a zero-slot lookup at the block's start, whatever its addresses."""
    table = np.arange(1024, dtype=np.float32)

    @cuda.jit
    def k(out, spread):
        lut = cuda.const.array_like(table)
        base = (cuda.threadIdx.x % 32) % spread * 8
        acc = np.float32(0.0)
        for s in range(64):
            acc += lut[(base + s) & 1023]
        out[cuda.threadIdx.x] = acc

    cyc = {}
    for spread in (1, 32):
        res = smsim.launch(k, 1, 1024, (np.zeros(1024, np.float32), np.int64(spread)), config="h200",
                           complete=False)
        cyc[spread] = res.metrics["sm__cycles_elapsed.max"]
        assert res.metrics["smsim.launch.const_misses"] >= 1
    assert cyc[32] > 8 * cyc[1]


def test_bandwidth_queue_serves_fifo_and_counts_bytes_and_busy_cycles():
    q = BandwidthQueue(4.0)
    assert q.transfer(10.0, 8) == (10.0, 12.0)        # idle: starts at t, 8 B / 4 B per cycle = 2 cycles
    assert q.transfer(11.0, 4) == (12.0, 13.0)        # arrives while busy: starts when free (12)
    assert q.backlog(12.0) == 1.0                     # 13 - 12 cycles of queued work
    assert q.backlog(20.0) == 0.0
    assert q.transfer(20.0, 2) == (20.0, 20.5)        # idle again: starts at t
    assert q.free == 20.5
    assert q.bytes == 14
    assert q.busy == pytest.approx(3.5)               # 2 + 1 + 0.5 cycles of service, idle gaps not counted
    with pytest.raises(ValueError):
        BandwidthQueue(0)
    log: list = []
    lq = LoggedQueue(2.0, log)
    assert lq.transfer(0.0, 4) == (0.0, 2.0)
    assert lq.transfer(1.0, 2) == (2.0, 3.0)
    assert log == [(0.0, 4), (2.0, 2)]                # (start cycle, bytes), start not arrival
    assert lq.bytes == 6 and lq.busy == 3.0


def test_gap_queue_serves_a_transfer_in_the_free_cycles_from_its_arrival_before_later_bookings():
    q = GapQueue(4.0)
    assert q.transfer(100.0, 16) == (100.0, 104.0)    # a miss's data booked for 100..104
    assert q.transfer(10.0, 8) == (10.0, 12.0)        # a hit enqueued after it, back at 10: not behind it
    assert q.transfer(98.0, 16) == (98.0, 106.0)      # 98..100 free, 100..104 taken, then 104..106
    assert (q.starts, q.ends) == ([10.0, 98.0], [12.0, 106.0])     # busy intervals, merged
    assert q.transfer(0.0, 400, now=5.0) == (0.0, 110.0)   # 0..10, 12..98 (96 cycles), then 106..110
    assert q.free == 110.0 and q.bytes == 440 and q.busy == pytest.approx(110.0)
    q.transfer(200.0, 4, now=150.0)                   # enqueued at 150: what was busy before is forgotten
    assert (q.starts, q.ends) == ([200.0], [201.0])
    log: list = []
    lq = LoggedGapQueue(2.0, log)
    lq.transfer(50.0, 4)
    lq.transfer(0.0, 2)
    assert log == [(50.0, 4), (0.0, 2)]


def test_gap_queue_gives_back_booked_time_from_its_end_never_before_the_cycle_named():
    q = GapQueue(1.0)
    q.occupy(10.0, 5.0)
    q.occupy(40.0, 10.0)                              # busy 10..15 and 40..50
    q.release(0.0, 4.0)
    assert (q.starts, q.ends, q.free) == ([10.0, 40.0], [15.0, 46.0], 46.0)
    q.release(0.0, 8.0)                               # the later interval's 6, then 2 of the earlier one
    assert (q.starts, q.ends, q.free) == ([10.0], [13.0], 13.0) and q.busy == pytest.approx(3.0)
    q.release(12.0, 5.0)                              # not before 12
    assert (q.starts, q.ends, q.free) == ([10.0], [12.0], 12.0) and q.busy == pytest.approx(2.0)
    q.release(30.0, 5.0)                              # nothing booked after 30: nothing changes
    assert (q.starts, q.ends, q.free) == ([10.0], [12.0], 12.0)
    # up to a cycle: what was booked past it (later work's) stays, an interval across it is split
    q = GapQueue(1.0)
    q.occupy(0.0, 10.0)
    q.occupy(10.0, 10.0)                              # one interval 0..20: a store's 0..10, a fill's 10..20
    q.occupy(30.0, 5.0)
    q.release(0.0, 4.0, until=10.0)
    assert (q.starts, q.ends, q.free) == ([0.0, 10.0, 30.0], [6.0, 20.0, 35.0], 35.0)
    q.release(8.0, 4.0, until=35.0)                   # 30..35 less 4, nothing before 8
    assert (q.starts, q.ends) == ([0.0, 10.0, 30.0], [6.0, 20.0, 31.0]) and q.busy == pytest.approx(17.0)
    q.release(25.0, 4.0, until=25.0)                  # an empty span (a store done before its merge): nothing
    q.release(25.0, 4.0, until=5.0)
    assert (q.starts, q.ends, q.free) == ([0.0, 10.0, 30.0], [6.0, 20.0, 31.0], 31.0) and q.busy == pytest.approx(17)


# ---------------------------------------------------------------------------------------------------- DRAM
def _dram(rate: float = 32.0, **changes) -> Dram:
    spec = dataclasses.replace(TINY.dram, **{"loaded_latency_cycles": 0, **changes})
    return Dram(spec, BandwidthQueue(rate), 32)


def test_the_slowest_of_the_busy_sms_lags_by_the_interpolated_table():
    d = _dram(slowest_sm_busy=(1, 4, 132), slowest_sm_cycles=(0, 40, 400))
    assert d.slowest_sm_lag(1) == 0.0 and d.slowest_sm_lag(4) == 40.0
    assert d.slowest_sm_lag(68) == pytest.approx(220.0)  # halfway between 4 and 132 SMs
    assert d.slowest_sm_lag(200) == 400.0                # past the table: its last value
    assert _dram().slowest_sm_lag(132) == 0.0           # no table (tiny): no lag


def test_dram_writes_hold_the_bus_longer_by_the_write_turnaround():
    d = _dram(write_turnaround=0.5)
    d.write(_sectors(0, 1), 0.0)                     # 64 B written: 64 x 1.5 / 32 = 3 cycles of the bus
    assert d.queue.free == pytest.approx(3.0) and d.bytes_write == 64
    assert d.read(_sectors(64), 0.0) == pytest.approx(3 + 1 + 50)    # a read behind it: 32 B, row miss
    plain = _dram()
    plain.write(_sectors(0, 1), 0.0)
    assert plain.queue.free == pytest.approx(2.0)


def test_dram_a_lone_sector_holds_the_bus_for_its_whole_access_one_a_read_completed_for_itself():
    """docs/hardware/store_group_hw.md: a whole float64 sector into each of 2 M lines takes the H200 37.5 us,
    as 64 bytes a sector on the bus (22.4 us as 32); a completion moves its sector alone (scale_stride16)."""
    d = _dram(access_bytes=64, write_turnaround=0.5)
    d.write(_sectors(0, 2, 4), 0.0)                  # three whole sectors, three accesses: 192 B x 1.5 / 32 = 9
    assert d.queue.free == pytest.approx(9.0) and d.bytes_write == 96      # ... 96 B counted, as Nsight counts
    d.write(_sectors(6, 7), 9.0)                     # two sectors of one access: 64 B x 1.5 / 32 = 3
    assert d.queue.free == pytest.approx(12.0) and d.bytes_write == 160
    assert d.read(_sectors(200), 12.0) == pytest.approx(14.0 + 50)   # a lone sector read: 64 B of the bus
    assert d.bytes_read == 32                        # ... 32 counted
    # L2 completing a sector written in part reads that sector alone (32 B, 1 cycle) and writes it so (1.5)
    assert d.read(_sectors(400), 14.0, alone=True) == pytest.approx(15.0 + 50)
    assert d.bytes_read == 64
    d.write(_sectors(400), 15.0, ready=65.0)
    assert d.queue.free == pytest.approx(16.5)


def test_dram_rows_the_device_opens_are_limited_by_its_activation_rate():
    # tiny: rows of 1024 B (32 sectors), open 50 cycles; 32 B/cycle. Activations: 0.5 a cycle over 2 busy SMs
    d = Dram(dataclasses.replace(TINY.dram, loaded_latency_cycles=0, activations_per_cycle=0.5),
             BandwidthQueue(32.0), 32, busy=2)
    assert d.acts.rate == pytest.approx(0.25)
    # four sectors in four closed rows: the bus moves them in 4 cycles, the rows open one every 4: 16, + 50
    assert d.read(_sectors(0, 32, 64, 96), 0.0) == pytest.approx(16 + 50)
    assert d.row_misses == 1                      # one access (its latency a miss's), four rows opened
    # the same rows again, still open: nothing to open, only the bus (behind the first: 4 + 4), a row hit,
    # but not before the rows serve hits (their opener's 16 + 50 - 20): with the opener's data, 66
    assert d.read(_sectors(1, 33, 65, 97), 4.0) == pytest.approx(16 + 50)
    # four sectors of one row: one activation (after the queue's 16: 20), the bus is free long before
    assert d.read(_sectors(300, 301, 302, 303), 10.0) == pytest.approx(20 + 50)
    d.write(_sectors(2000), 100.0)                # a write opens its row too, holding nobody up
    assert d.acts.free == pytest.approx(104.0)
    assert _dram().acts is None                   # tiny: no limit


def test_dram_a_write_back_of_part_of_lines_other_sms_wrote_takes_that_part_of_the_activation_and_bus():
    # tiny rows (1024 B = 32 sectors), 64-byte accesses, 32 B/cycle; activations 0.5 a cycle over 2 busy SMs:
    # 4 cycles each, a write's 2 (8 cycles)
    def dram():
        return Dram(dataclasses.replace(TINY.dram, loaded_latency_cycles=0, activations_per_cycle=0.5,
                                        access_bytes=64, write_activation_cost=2.0),
                    BandwidthQueue(32.0), 32, busy=2)
    whole, half = dram(), dram()
    half.line_part = 0.5          # a 16-wide block's half rows: the other half of each line another SM's
    # a lone sector written back: its whole 64-byte access on the bus (2 cycles) and the row's 2 activations
    assert whole.write(_sectors(0), 0.0) == pytest.approx(8.0)
    assert whole.queue.free == pytest.approx(2.0)
    # the device's L2 writes the line back whole, the other SM's sectors with it: this SM's part of the
    # opening (1 activation, 4 cycles) and its own 32 bytes on the bus (1 cycle)
    assert half.write(_sectors(0), 0.0) == pytest.approx(4.0)
    assert half.queue.free == pytest.approx(1.0)
    # reads open their rows alone, whatever the line part: one activation, behind the write's
    assert half.read(_sectors(64), 5.0) == pytest.approx(9.0 + 50)
    assert whole.read(_sectors(64), 5.0) == pytest.approx(12.0 + 50)


def test_dram_a_row_a_write_opens_takes_write_activation_cost_activations_and_the_write_waits_for_it():
    # tiny rows (1024 B), 32 B/cycle; activations 0.5 a cycle over 2 busy SMs (0.25 this SM's), a write's 2
    spec = dataclasses.replace(TINY.dram, loaded_latency_cycles=0, activations_per_cycle=0.5,
                               write_activation_cost=2.0)
    d = Dram(spec, BandwidthQueue(32.0), 32, busy=2)
    assert d.write(_sectors(0), 0.0) == pytest.approx(8.0)     # its row takes 2 / 0.25 cycles to open
    assert d.write(_sectors(1), 1.0) == pytest.approx(1.0)     # the row is open: the bus starts on it at once
    assert d.write(_sectors(64), 2.0) == pytest.approx(16.0)   # another row: behind the first one's 8
    assert d.read(_sectors(128), 3.0) == pytest.approx(20 + 50)   # a read's row: one activation, 4 cycles
    # data a read completes (back at 300): HBM starts on it then, not before; its row, last touched at
    # 3, is closed by then (open 50 cycles) and takes its two activations
    assert d.write(_sectors(129), 4.0, ready=300.0) == pytest.approx(300.0)
    assert d.acts.free == pytest.approx(28.0)
    # a read of that row enqueued after it, in between, does not wait for the write: the row it opened at
    # 3 was open then (a row hit; the bus behind the writes, 3.5 cycles)
    assert d.read(_sectors(130), 5.0) == pytest.approx(20 + 50)
    plain = _dram(activations_per_cycle=0.5)
    plain.write(_sectors(0), 0.0)
    assert plain.acts.free == pytest.approx(2.0)            # cost 1 (the default): as a read's
    with pytest.raises(ConfigError, match="dram.write_activation_cost"):
        load("tiny", {"dram.write_activation_cost": -1})


def test_dram_read_is_queue_done_plus_row_hit_or_miss_latency():
    # tiny: latency 50 (row miss), row hit 20, rows of 1024 B = 32 sectors, open for 50 cycles; 32 B/cycle
    d = _dram()
    assert d.read(_sectors(0, 1), 0.0) == 2 + 50          # 64 B: done at 2; row 0 never opened: miss
    # row 0 touched at 0, 10 <= 50 cycles ago: a hit, but the row serves hits only once it is open (2 + 50
    # - 20 = 32): 32 + 20, with the access that opened it, not before
    assert d.read(_sectors(2), 10.0) == 32 + 20
    assert d.read(_sectors(3), 60.0) == 61 + 20           # touched at 10, exactly 50 cycles ago: still open
    assert d.read(_sectors(4), 111.0) == 112 + 50         # touched at 60, 51 cycles ago: closed, miss
    # rows 0 (open) and 1 (never touched): a miss unless every row is open
    assert d.read(_sectors(5, 32), 120.0) == 122 + 50
    # queueing: the queue is busy until 122, so a read at 121 starts at 122; row 1 opened at 120: hit
    # (row 1 serves hits from 122 + 50 - 20 = 152: this hit comes with its opener's data, at 172)
    assert d.read(_sectors(33), 121.0) == 152 + 20
    # a write takes bandwidth and opens its row (row 3), the bus starting on it at once; a read of that row
    # later hits
    assert d.write(_sectors(100), 200.0) == 200.0
    assert d.queue.free == 201.0
    assert d.read(_sectors(101), 210.0) == 200 + 30 + 20     # once its activation (from 200) is done
    assert (d.row_hits, d.row_misses) == (4, 4)           # the write's row miss counts too
    assert d.bytes_read == 32 * (2 + 1 + 1 + 1 + 2 + 1 + 1)
    assert d.bytes_write == 32
    m = d.metrics(1000.0)
    assert m["dram__bytes_read.sum"] == 288
    assert m["dram__bytes_write.sum"] == 32
    assert m["smsim.dram.bytes"] == 320
    assert m["smsim.dram.peak_bytes_per_cycle"] == 32.0
    assert m["smsim.dram.row_hits"] == 4 and m["smsim.dram.row_misses"] == 4
    assert m["dram__throughput.avg.pct_of_peak_sustained_elapsed"] == pytest.approx(100.0 * 10 / 1000)


def _mean_waits(d: Dram) -> Dram:
    """``d`` with every loaded wait at its mean, the ``m``-th harmonic number, instead of a draw (the draws:
    the test below)."""
    d._slowest = lambda m: sum(1.0 / i for i in range(1, m + 1))
    return d


def test_dram_loaded_waits_are_drawn_exponential_and_a_read_over_m_rows_waits_for_the_largest_of_m():
    d = _dram(loaded_latency_cycles=100)
    for m, harmonic in ((1, 1.0), (2, 1.5), (16, sum(1 / i for i in range(1, 17)))):
        draws = np.array([d._slowest(m) for _ in range(40000)])
        assert draws.mean() == pytest.approx(harmonic, rel=0.02)
        assert draws.min() >= 0.0
    ones = np.array([d._slowest(1) for _ in range(40000)])
    assert ones.std() == pytest.approx(1.0, rel=0.03)              # an exponential: its spread is its mean
    assert np.mean(ones > 3.0) == pytest.approx(math.exp(-3.0), rel=0.15)
    # a block of 8 warps that each read a row waits for the slowest: 2.7 times the mean wait
    assert np.mean([max(d._slowest(1) for _ in range(8)) for _ in range(5000)]) == pytest.approx(
        sum(1 / i for i in range(1, 9)), rel=0.03)
    # the same seed draws the same waits, another seed others
    a, b, c = (Dram(d.spec, BandwidthQueue(32.0), 32, seed=s) for s in (7, 7, 8))
    assert [a._slowest(1) for _ in range(5)] == [b._slowest(1) for _ in range(5)] != [c._slowest(1) for _ in range(5)]


def test_dram_loaded_latency_decays_with_its_window_and_is_capped_at_full_utilization():
    # test_timing covers growth with a busy share; here the exact decay and the cap, with the mean wait
    d = _mean_waits(_dram(loaded_latency_cycles=100, utilization_window_cycles=10))
    # 32 B at 32 B/cycle = 1 cycle of transfer over a 10-cycle window: u = 0.1
    assert d.read(_sectors(0), 0.0) == pytest.approx(1 + 50 + 100 * 0.1)
    # 10 cycles later u has decayed by e^-1, then this read adds 0.1
    u = 0.1 * math.exp(-1) + 0.1
    assert d.read(_sectors(3200), 10.0) == pytest.approx(11 + 50 + 100 * u)
    assert d.utilization == pytest.approx(u)
    # 320 sectors = 320 cycles of transfer, 32 windows' worth: the term is capped at loaded_latency_cycles,
    # times the slowest of the 11 rows (31..41) they lie in. The queue is busy until 11, so the transfer runs
    # 11..331; sectors 1000..1319 are in unopened rows.
    assert d.read(np.arange(1000, 1320), 10.0) == pytest.approx(331 + 50 + 100 * sum(1 / i for i in range(1, 12)))


def test_dram_a_read_over_many_rows_waits_for_the_slowest_of_their_queues():
    # the loaded term is a wait in a queue; m rows queue apart, and a read waits for the slowest of
    # them: as the largest of m exponential waits, on average the mean times the m-th harmonic number
    def spent(sectors):
        d = _mean_waits(_dram(rate=1e9, loaded_latency_cycles=100, utilization_window_cycles=10))
        d._load(0.0, 10 * 1e9)                      # a full share: u = 1 (capped)
        return d.read(sectors, 0.0) - 50
    one_row = spent(np.arange(0, 32))               # 32 sectors of one 1 KB row
    assert one_row == pytest.approx(100, abs=0.01)
    assert spent(np.array([0, 32])) == pytest.approx(150, abs=0.01)          # two rows: 1 + 1/2
    assert spent(np.arange(0, 16 * 32, 32)) == pytest.approx(100 * sum(1 / i for i in range(1, 17)), abs=0.01)
    assert spent(np.arange(0, 200 * 32, 32)) == pytest.approx(100 * (math.log(200) + 0.5772156649 + 1 / 400),
                                                             abs=0.01)


def test_dram_reads_wait_half_a_forced_write_drain_as_writes_and_the_bus_are_busy():
    d = _dram(write_drain_cycles=200, utilization_window_cycles=10, write_turnaround=0.5)
    assert d.read(_sectors(0), 0.0) == pytest.approx(1 + 50)           # no writes yet: no drain
    # 32 B written: 1.5 cycles of the bus over a 10-cycle window: writes' utilization 0.15
    assert d.write(_sectors(2000), 1.0) == pytest.approx(1.0)            # the bus starts on it at once
    assert d.writing == pytest.approx(0.15)
    # at 12 (sector 4000's row is another), 11 cycles later: writes 0.15 e^-1.1, all of the bus u (this read's
    # cycle included); half a drain of 200 cycles times both
    w = 0.15 * math.exp(-1.1)
    u = (0.1 * math.exp(-0.1) + 0.15) * math.exp(-1.1) + 0.1
    assert d.read(_sectors(4000), 12.0) == pytest.approx(13 + 50 + 0.5 * 200 * w * u)
    assert _dram(write_turnaround=0.5).writing == 0.0


# ------------------------------------------------------------------------------------------------------ L2
def _l2(size: int = 4096) -> L2:
    # tiny: 128 B lines of 32 B sectors, 8 ways, hit latency 20; port 64 B/cycle; DRAM 32 B/cycle
    return L2(TINY.l2, size, BandwidthQueue(64.0), _dram(), seed=0)


def test_l2_misses_go_to_dram_hits_take_hit_latency_and_pending_sectors_arrive_with_their_fill():
    l2 = _l2()
    # port: 128 B / 64 = 2 cycles, done 2; miss: to DRAM at 2 + 20 = 22; DRAM 128 B / 32 = 4: done 26,
    # row miss 50: the sectors arrive at 76
    assert l2.read(_sectors(0, 1, 2, 3), 0.0).tolist() == [76.0] * 4
    assert l2.dram.bytes_read == 128 and l2.fetched == 4         # all four fetched (L1 writes them: fetched)
    # sectors 2, 3 are pending (fill at 76); 4, 5 miss: port 10..12, DRAM at 32 (queue free at 26),
    # 64 B done 34, row 0 opened at 22: a hit, but not before the row is open (its opener's 26 + 50 - 20
    # = 56): 56 + 20 = 76, with the opener's data
    assert l2.read(_sectors(2, 3, 4, 5), 10.0).tolist() == [76.0, 76.0, 76.0, 76.0]
    assert l2.dram.bytes_read == 128 + 64                 # the pending sectors were not asked for again
    assert l2.fetched == 2                                # the pending ones were fetched (and written) once
    # all six valid and arrived: port 192 B = 3 cycles (100..103), + hit latency
    assert l2.read(_sectors(0, 1, 2, 3, 4, 5), 100.0).tolist() == [123.0] * 6
    assert l2.dram.bytes_read == 192 and l2.fetched == 0
    assert (l2.sectors_read, l2.sectors_read_hit) == (14, 6)     # a pending sector is not a lookup hit


def test_l2_write_allocates_and_writes_dram_and_atomics_are_counted():
    l2 = _l2()
    # port 64 B = 1 cycle: L2 has them at 201; the answer is 201 + 20
    assert l2.write(_sectors(64, 65), 200.0) == 221.0
    assert l2.dram.bytes_write == 64 and l2.dram.queue.free == 203.0   # written on to DRAM at 201
    assert l2.read(_sectors(64, 65), 300.0).tolist() == [321.0, 321.0]   # write-allocate: a hit
    assert l2.dram.bytes_read == 0
    m = l2.metrics(1000.0)
    assert m["lts__t_sectors_srcunit_tex_op_read.sum"] == 2
    assert m["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] == 2
    assert m["lts__t_sectors_srcunit_tex_op_write.sum"] == 2
    assert m["lts__t_sectors_srcunit_tex_op_atom.sum"] == 0
    assert m["lts__t_sector_op_read_hit_rate.pct"] == 100.0
    assert m["smsim.l2.size_bytes_seen"] == 4096
    assert m["smsim.l2.bytes"] == (2 + 2) * 32
    assert m["smsim.l2.peak_bytes_per_cycle"] == 64.0
    # an atomic reads its sectors (port 1 cycle, hit 20: there at 421), then each sector's operations run in
    # turn on its slice's unit (tiny: 1 cycle each): 2 and 3 of them, sectors 64 and 65 in one 512-byte chunk,
    # so one slice: 421..423, then 423..426
    assert l2.atomic(_sectors(64, 65), 400.0, np.array([2, 3])) == 426.0
    m = l2.metrics(1000.0)
    # counted per operation, as the H200 counts them, and not as reads (its op_read counts loads alone)
    assert m["lts__t_sectors_srcunit_tex_op_atom.sum"] == 5 and m["lts__t_sectors_srcunit_tex_op_red.sum"] == 0
    assert m["smsim.l2.atomic_ops"] == 5 and m["smsim.l2.atomic_sectors"] == 2
    assert m["lts__t_sectors_srcunit_tex_op_read.sum"] == 2
    l2.atomic(_sectors(64), 500.0, np.array([4]), red=True)          # a reduction: op_red
    m = l2.metrics(1000.0)
    assert m["lts__t_sectors_srcunit_tex_op_red.sum"] == 4 and m["lts__t_sectors_srcunit_tex_op_atom.sum"] == 5
    cold = _l2()
    cold.read(_sectors(0, 1, 2, 3), 0.0)
    cold.read(_sectors(0, 1), 100.0)
    assert cold.metrics(200.0)["lts__t_sector_op_read_hit_rate.pct"] == pytest.approx(100.0 * 2 / 6)
    assert _l2(5000).size_bytes == 4096                  # rounded down to whole sets (128 B x 8 ways)
    assert _l2(100).size_bytes == 1024                   # at least one set


def _lookups(partitions: int = 1, busy: int = 4) -> L2:
    # 4 slices each looking up a line in 2 cycles (slices / read_lines_per_cycle = 4 / 2)
    spec = dataclasses.replace(TINY.l2, read_lines_per_cycle=2.0, slices=4, slice_bytes=512, partitions=partitions)
    l2 = L2(spec, 1 << 20, BandwidthQueue(1024.0), _dram(), seed=0, busy=busy)
    l2.cache.fill(np.arange(0, 4096, dtype=np.int64), 0.0)        # every sector below is held: no DRAM
    return l2


def test_l2_read_lookups_serve_this_sms_share_of_the_slices():
    """A block's own lines, one sector each, are looked up at this SM's share of the device's rate (2 lines a
    cycle for 4 busy SMs: half a line a cycle), the other SMs' lookups spread over all slices."""
    l2 = _lookups()
    assert l2.line_cycles == 2.0 and l2.look_slices == 4
    last = 0.0
    for r in range(100):                                    # 4 lines a request, 400 lines: 800 cycles
        lines = (np.arange(4) + 4 * r) * 4 * 4               # one line in each of 4 chunks: sector 0 of each
        last = float(l2.read(lines.astype(np.int64), 0.0, block=7).max())
    assert l2.looked == 400 and l2.looked_shared == 0
    assert 800 <= last - 20 <= 880          # hit latency 20; the hash puts some requests' 4 chunks on fewer slices
    free = _l2()                                            # tiny: no limit, only the port (16 x 32 B / 64)
    lines = np.arange(0, 64, 4, dtype=np.int64)
    free.cache.fill(lines, 0.0)
    assert free.read(lines, 0.0).tolist() == [8.0 + 20] * 16 and free.line_cycles == 0


def test_a_line_every_block_reads_is_looked_up_at_its_slice_for_all_sms_of_a_partition():
    """The same line read by the blocks in turn (a histogram's bins by strong loads): the other SMs read it
    too, at its one slice: each lookup takes 2 cycles for each of the 4 busy SMs; with two partitions, each
    with a copy, for the 2 SMs of one."""
    def hot(l2: L2, blocks) -> float:
        t = 0.0
        for r in range(100):
            t = float(l2.read(np.array([8], np.int64), 0.0, block=blocks[r % len(blocks)]).max())
        return t - 20
    assert 760 <= hot(_lookups(), (0, 1)) <= 800    # shared from the second: about 100 x 4 x 2 (the first not)
    assert 380 <= hot(_lookups(partitions=2), (0, 1)) <= 400
    # one block's own line: 2 cycles each, and a quarter of the 3 other SMs' lookups (theirs are of other lines)
    assert hot(_lookups(), (3,)) == pytest.approx(100 * (2 + 3 * 2 / 4), abs=2)
    assert hot(_lookups(busy=1), (0, 1)) == 200              # no other SM


def test_the_device_l2_holds_what_earlier_blocks_brought_and_tells_waves_apart():
    from smsim.mem.l2 import DeviceL2
    dev = DeviceL2(dataclasses.replace(TINY.l2, usable_bytes=4096), access_bytes=64, concurrent=3)
    held, there, by = dev.touch(0, _sectors(0, 5))
    assert len(held) == 0 and by.tolist() == [0, 0]         # the first block brings its own
    # block 2 runs with block 0 (3 at once): what 0 brought is on its way, not there; sector 4 came with 5
    # (one 64-byte DRAM access), sector 1 with 0; 9 block 2 brings itself
    held, there, by = dev.touch(2, _sectors(1, 4, 9), mine=True)
    assert held.tolist() == [1, 4] and there.tolist() == [False, False] and by.tolist() == [0, 0, 2]
    held, there, by = dev.touch(3, _sectors(0, 9))         # 0 is a wave earlier: there; 9 is this SM's
    assert held.tolist() == [0] and there.tolist() == [True] and by.tolist() == [0, -1]
    # this SM's block 2 brought 8 and 9: its own share of L2 accounts for them, though block 3 touched 9 since
    held, _, by = dev.touch(6, _sectors(8, 9), mine=True)
    assert held.tolist() == [] and by.tolist() == [-1, -1]
    for b in range(7, 40):                                  # 33 blocks of 4 new lines: 4096 B hold 32 lines
        dev.touch(b, np.arange(b * 64, b * 64 + 16, dtype=np.int64))
    assert len(dev.touch(40, _sectors(0, 1))[0]) == 0     # long evicted


def test_the_device_l2_counts_the_blocks_that_touch_an_access_at_the_same_point_of_their_code():
    from smsim.mem.l2 import DeviceL2
    # tiny: 32 B sectors; 64-byte accesses (2 sectors); firsts: the global access that first touched each sector
    dev = DeviceL2(dataclasses.replace(TINY.l2, usable_bytes=1 << 16), access_bytes=64, concurrent=8)
    dev.touch(0, _sectors(0, 40), firsts=np.array([0, 0]))          # accesses 0 and 20, at its access 0
    dev.touch(1, _sectors(1, 64), firsts=np.array([0, 1]))          # access 0 at 0, access 32 at 1
    dev.touch(2, _sectors(2, 65, 70), firsts=np.array([0, 1, 0]))   # access 1 at 0, 32 at 1, 35 at 0
    dev.touch(3, _sectors(3, 64), firsts=np.array([0, 2]))          # access 1 at 0; 32, but later (at 2)
    dev.touch(5, _sectors(65, 71), firsts=np.array([1, 5]))         # access 32 at 1, 35 at 5
    units, k = dev.access_sharers(2, 1, 5)                          # block 0 is before the window
    assert units.tolist() == [1, 32, 35] and k.tolist() == [2, 3, 1]    # 1: with 3; 32: with 1 and 5
    assert dev.access_sharers(2, 1, 5, skip={3})[1].tolist() == [1, 3, 1]  # 3 is this SM's: not counted
    # the blocks that ask with the first asker: access 32 brought by block 1, with it those up to 1 + 2
    assert dev.access_sharers(2, 1, 5, until=np.array([5, 3, 5]))[1].tolist() == [2, 2, 1]   # 5 past 3
    assert dev.access_sharers(9, 1, 9)[0].tolist() == []           # a block it never saw
    # by sector: block 2's sector 65 with block 5 (both at their access 1); 2 and 70 alone (5 touches 71)
    sectors, k = dev.write_sharers(2, 1, 5)
    assert sectors.tolist() == [2, 65, 70] and k.tolist() == [1, 2, 1]
    # the global access at which a block first touched each sector's DRAM access (-1: never)
    assert dev.first_touch(2, _sectors(3, 64, 71, 90)).tolist() == [0, 1, 0, -1]
    assert dev.first_touch(4, _sectors(3)).tolist() == [-1]                # a block it never saw
    dev.forget(1)
    assert 0 not in dev.units and 0 not in dev.sector_keys and 1 in dev.units   # before the window: forgotten


def test_l2_others_asking_together_with_this_sm_arrive_as_its_own_read_would():
    l2 = _l2()
    l2.held_by_others(_sectors(8, 200), 0.0, np.array([False, False]), np.array([True, False]))
    # 200: asked by another SM at 0, back at 50; 8: asked when this SM asks, when L2 would send its miss
    # (port: 32 B / 64 = half a cycle, + hit latency 20 = 120.5): + row miss 50, though this SM moves no
    # DRAM bytes
    assert l2.read(_sectors(8), 100.0).tolist() == [170.5]
    assert l2.read(_sectors(200), 100.0).tolist() == [121.0]     # long back: a hit (port behind the first)
    assert l2.dram.bytes_read == 0


def test_l2_others_brought_long_before_are_hits_at_once():
    l2 = _l2()
    l2.held_by_others(_sectors(8, 9, 12), 90.0, np.array([True, True, False]))
    assert l2.read(_sectors(8, 9), 100.0).tolist() == [121.0, 121.0]      # no wait for another SM's fill
    assert l2.read(_sectors(12), 100.0).tolist() == [140.0]               # asked at 90: 90 + 50
    assert l2.dram.bytes_read == 0


def test_l2_serves_sectors_other_sms_brought_as_hits_that_wait_for_their_fill():
    l2 = _l2()
    l2.held_by_others(_sectors(8, 9), 90.0)
    # missed by this share, but another SM asked DRAM for them at 90: they arrive when its read does (90 +
    # row miss 50 = 140), with no DRAM bytes of this SM's. Port 64 B = 1 cycle (101), back at 121: at 140
    assert l2.read(_sectors(8, 9), 100.0).tolist() == [140.0, 140.0]
    assert l2.dram.bytes_read == 0 and l2.dram.queue.free == 0.0
    m = l2.metrics(1000.0)
    assert m["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] == 2
    assert m["smsim.l2.sectors_from_other_sms"] == 2
    assert l2.read(_sectors(8), 200.0).tolist() == [200.5 + 20]          # there since 140: a hit's time
    l2.held_by_others(_sectors(24), 0.0)                                 # long there: an L2 hit's time
    assert l2.read(_sectors(24), 250.0).tolist() == [250.5 + 20]
    # one from another SM, one this SM must fetch: the request waits for the later (its own DRAM read:
    # back at 321, DRAM 1 cycle, row miss 50: 372), and only its own sector is read
    l2.held_by_others(_sectors(40), 300.0)
    assert l2.read(_sectors(40, 80), 300.0).tolist() == [372.0, 372.0]
    assert l2.dram.bytes_read == 32
    # remembered as long as this share (4096 B: 128 sectors) would keep them: the oldest are forgotten
    l2.held_by_others(np.arange(1000, 1200), 400.0)
    assert len(l2.others) == 128 and 1071 not in l2.others and 1072 in l2.others


def test_l2_sectors_handed_over_for_a_running_block_are_held_until_it_retires():
    """With the device's L2 (``l2.sharing = "device"``) what it holds of a block's sectors when the block
    starts is handed over for that block, and held while it runs, whatever this SM's share holds: eight
    resident blocks of a 2048^2 matrix product read 2 MB of tiles the other SMs read too (326 KB of share a
    block), and forgotten as the share would forget them most were fetched again (17x the H200's DRAM reads)."""
    l2 = _l2()                                                            # 4096 B: 128 sectors
    a, b = np.arange(1000, 1200), np.arange(1100, 1400)                   # 100 sectors in both
    l2.held_by_others(a, 0.0, np.ones(len(a), bool), block=3)
    l2.held_by_others(b, 0.0, np.ones(len(b), bool), block=7)
    assert len(l2.others) == 400                                          # past the share's 128: all held
    l2.read(np.arange(1000, 1400), 100.0)
    assert l2.dram.bytes_read == 0                                        # every one a hit, no DRAM read
    l2.released(3)                                                        # block 3 retired
    assert len(l2.others) == 300 and 1099 not in l2.others and 1100 in l2.others   # 7's, with the shared
    l2.released(7)
    assert not l2.others and not l2.landing
    l2.read(np.arange(1000, 1004), 500.0)                                 # its own fetch now
    assert l2.dram.bytes_read == 4 * 32


def test_l2_sectors_other_sms_brought_take_none_of_this_shares_capacity():
    """A vector every SM gathers from is in the device's L2 once: reading it through this SM's share must not
    evict the share's own data (routine.spmv_csr read its matrix twice from DRAM when it did)."""
    l2 = _l2()                                                            # 4096 B: 128 sectors
    own = np.arange(0, 64)
    l2.read(own, 0.0)                                                     # this SM's own data, half the share
    l2.held_by_others(np.arange(4096, 4096 + 120), 0.0, np.ones(120, bool))
    l2.read(np.arange(4096, 4096 + 120), 500.0)                          # read, all of it: hits, no DRAM
    assert l2.dram.bytes_read == 64 * 32
    assert l2.cache.contains(own).all()                                  # the own data is still there
    again = l2.read(np.arange(4096, 4096 + 120), 900.0)                  # still remembered: hits again
    assert l2.dram.bytes_read == 64 * 32 and again.max() < 900 + 100
    assert l2.metrics(1000.0)["smsim.l2.sectors_from_other_sms"] == 240


def test_l2_atomic_backlog_spreads_unseen_operations_evenly_and_concentrates_repeated_ones():
    spec = dataclasses.replace(TINY.l2, atomic_op_cycles=2.0, slices=4, slice_bytes=512)
    # chunks 0, 4 and 1 (sectors 0, 64, 16): slices 0, 0 and 1 by the hash. Three chunks seen once each:
    # nothing says the other SMs pick the same ones (Good-Turing: none of the mass is on seen chunks), so
    # the 8 SMs' 3 operations x 2 cycles spread over the 4 slices: every backlog 8 x 3 x 2 / 4 = 12 cycles
    spread = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=8)
    spread.read(_sectors(0, 16, 64), 0.0)                  # warm: an atomic's read hits, 20 after the port
    # there at 121.5 (port 1.5, hit 20); this SM's own operations in turn on their slices: slice 0 121.5-123.5
    # and 123.5-125.5, slice 1 121.5-123.5
    assert spread.atomic(_sectors(0, 16, 64), 100.0, np.array([1, 1, 1])) == 125.5
    # then the 7 other SMs' 3 operations x 2 cycles, spread evenly: 10.5 cycles more on every slice
    assert spread.unit_free.tolist() == [125.5 + 10.5, 123.5 + 10.5, 121.5 + 10.5, 121.5 + 10.5]
    # one chunk, 4 operations on one word: it is seen again, so the other SMs' work lands there too
    hot = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=8)
    hot.read(_sectors(0), 0.0)
    assert hot.atomic(_sectors(0), 100.0, np.array([4])) == 120.5 + 8
    assert hot.unit_free.tolist() == [120.5 + 8 * 4 * 2, 120.5, 120.5, 120.5]
    assert hot.atomic(_sectors(0), 101.0, np.array([4])) == 120.5 + 64 + 8          # waits for the backlog


def test_device_share_divides_l2_and_hbm_among_the_busy_sms():
    # tiny: 4 SMs, L2 256 KB and 128 B/cycle, port 64 B/cycle, HBM 64 GB/s at 1 GHz = 64 B/cycle
    one = device_share(TINY, 1)
    assert (one.busy, one.l2_bytes, one.l2_bytes_per_cycle, one.dram_bytes_per_cycle) == (1, 262144, 64.0, 64.0)
    two = device_share(TINY, 2)                           # 128 / 2 = 64: the port is the limit anyway
    assert (two.busy, two.l2_bytes, two.l2_bytes_per_cycle, two.dram_bytes_per_cycle) == (2, 131072, 64.0, 32.0)
    full = device_share(TINY, 4)
    assert (full.busy, full.l2_bytes, full.l2_bytes_per_cycle, full.dram_bytes_per_cycle) == (4, 65536, 32.0, 16.0)
    assert device_share(TINY, 1000) == full              # busy SMs capped at num_sms
    h100 = load("h100")                 # 132 SMs, 34.2 of 50 MiB usable, 3725 B/cycle, 3080 GB/s at 1980 MHz
    alone, grid = device_share(h100, 1), device_share(h100, 10_000)
    assert alone.l2_bytes == 35826346 and alone.l2_bytes_per_cycle == 64.0
    assert alone.dram_bytes_per_cycle == pytest.approx(3080e9 / 1980e6)
    assert grid.busy == 132 and grid.l2_bytes == 35826346 // 132
    assert grid.l2_bytes_per_cycle == pytest.approx(3725 / 132)
    assert grid.dram_bytes_per_cycle == pytest.approx(3080e9 / 1980e6 / 132)
    assert grid.weight == 132.0
    # "share" times one block a wave, the short last one's too: 400 blocks, 4 timed, get 4/400 of the bandwidths
    short = device_share(h100, 400, 4)
    assert short.busy == 132 and short.l2_bytes == grid.l2_bytes and short.weight == 100.0
    assert short.dram_bytes_per_cycle == pytest.approx(3080e9 / 1980e6 / 100)
    assert short.l2_bytes_per_cycle == pytest.approx(3725 / 100)
    assert device_share(h100, 396, 3).weight == 132.0 and device_share(h100, 100, 1).weight == 100.0


EMPTY_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    ret;
}
"""


def test_build_sm_builds_each_level_with_this_sms_share():
    kernel = isa.parse(EMPTY_PTX)["k"]
    out = np.zeros(4, np.float32)
    for nblocks, l2_bytes, port, dram in ((2, 131072, 64.0, 32.0), (8, 65536, 32.0, 16.0)):
        built = build_sm(TINY, isa.interp.Launch(kernel, nblocks, 64, (out,)))
        l1, l2, hbm, shared, front = built.units
        assert type(l1) is L1_MODELS.get("sectored") and type(l2) is L2_MODELS.get("write_through")
        assert type(hbm) is DRAM_MODELS.get("hbm") and type(shared) is SHARED_MODELS.get("banked")
        assert type(front) is LAUNCH_MODELS.get("front_end") and built.sm.front is front
        assert l2.size_bytes == l2_bytes
        assert l2.port.rate == port
        assert l2.dram is hbm and hbm.queue.rate == dram
        assert l1.l2 is l2 and l1.data.rate == TINY.l1.data_bytes_per_cycle
        # "share": one block of each wave of num_sms (4), its place moving by share_step(4) = 3 a wave
        assert built.plan.blocks == {2: [0], 8: [0, 7]}[nblocks]
        policies = [sub.policy for sub in built.sm.subs]
        assert len(policies) == TINY.sm.subpartitions and policies[0] is not policies[1]
        assert all(type(p) is SCHEDULER_POLICIES.get("gto") for p in policies)


# ------------------------------------------------------------------------------------------------------ L1
class FakeL2:
    """An L2 of fixed latencies that records what it was asked."""
    size_bytes = 1 << 20
    now = 0.0

    def __init__(self):
        self.calls: list = []

    def read(self, sectors, t, block=-1):
        self.calls.append(("read", list(sectors), t))
        return np.full(len(sectors), t + 100.0)

    def write(self, sectors, t, written=None, narrow=True, part=None):
        self.calls.append(("write", list(sectors), t))
        self.narrow = narrow
        return t + 30.0

    atomic_taken = 0.0

    def atomic(self, sectors, t, ops, red=False, floating=False, whole=None, swap=False, wide=False):
        self.calls.append(("atomic", list(sectors), t))
        return t + 50.0 + int(ops.sum())

    paid_lines = np.zeros(0, np.int64)

    def merged(self, sectors, written, paid, whole, t):
        self.calls.append(("merged", list(sectors), t, list(whole)))

    def metrics(self, cycles):
        return {}


def _l1(**changes) -> tuple:
    # tiny: hit latency 8, one line per tag cycle, 128 B/cycle data path, 16 MSHRs, LSU queue of 4
    spec = dataclasses.replace(TINY.l1, **changes)
    l2 = FakeL2()
    return L1(spec, spec.size_bytes, BandwidthQueue(spec.data_bytes_per_cycle), l2, 0), l2


def _ld(l1, sectors, t, bypass=False, lines=1, space="global"):
    return l1.access("ld", space, np.array(sectors, np.int64), lines, bypass, 32, t)


def test_l1_load_miss_then_hit_and_mshr_merge_with_a_pending_fill():
    l1, l2 = _l1()
    # tag stage 0..1; miss: L2 asked at 1 + 8 = 9, data at 109; 128 B over the data path: 110
    assert _ld(l1, [0, 1, 2, 3], 0.0) == 110
    assert l2.calls == [("read", [0, 1, 2, 3], 9.0)]
    # hit: tag 200..201, + 8, 128 B: 210; L2 not asked
    assert _ld(l1, [0, 1, 2, 3], 200.0) == 210
    assert len(l2.calls) == 1
    # new sectors 4, 5: tag 300..301, L2 at 309, back 409, 64 B: 409.5, at a cycle boundary 410
    assert _ld(l1, [4, 5], 300.0) == 410
    # the same sectors while their fill is in flight: merge (no L2 call); data when the fill lands, then
    # 64 B behind the previous transfer (data path free at 409.5): 410
    assert _ld(l1, [4, 5], 302.0) == 410
    assert len(l2.calls) == 2
    c = l1.counts
    assert (c["requests_ld"], c["sectors_ld"], c["hit_ld"], c["miss_ld"]) == (4, 12, 6, 6)
    assert c["hit_ld"] + c["miss_ld"] == c["sectors_ld"]          # a merge counts as a hit, as on an H200
    m = l1.metrics(1000.0)
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 4
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 12
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] == 6
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"] == 6
    assert m["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"] == pytest.approx(100.0 * 6 / 12)
    assert m["smsp__sass_inst_executed_op_global_ld.sum"] == 4
    assert m["smsim.l1.bytes"] == 12 * 32
    assert m["smsim.l1.peak_bytes_per_cycle"] == 128
    assert m["smsim.l1.size_bytes"] == 16384


def test_l1_returns_a_hit_under_an_earlier_miss():
    spec = TINY.l1
    l1 = L1(spec, spec.size_bytes, GapQueue(spec.data_bytes_per_cycle), FakeL2(), 0)
    assert _ld(l1, [0, 1, 2, 3], 0.0) == 110          # line 0 now held
    assert _ld(l1, [8, 9, 10, 11], 200.0) == 310      # a miss: data back at 310
    # a hit behind it: tag 201..202, + 8, 128 B over the data path: 211, not after the miss's data
    assert _ld(l1, [0, 1, 2, 3], 201.0) == 211


def test_l1_without_free_mshrs_a_load_waits_beside_the_tag_stage_for_the_earliest_fill():
    """The H200 shows a load backlog behind its misses as long_scoreboard, not lg_throttle: a load with no
    MSHR free waits beside the tag stage, which goes on with the requests behind it."""
    l1, l2 = _l1(mshrs=4)
    assert _ld(l1, [0, 1, 2, 3], 0.0) == 110          # takes all 4 MSHRs until its data is back at 110
    # tag 2..3, 4 misses, no MSHR free: waits for the fill at 110; L2 at 118, back 218, data 219
    assert _ld(l1, [8, 9, 10, 11], 2.0) == 219
    assert l2.calls[-1] == ("read", [8, 9, 10, 11], 118.0)
    assert l1.tag_free == 3                           # the tag stage took it and goes on
    assert l1.space_at(4.0) == 4.0 and not l1.waiting  # nothing holds the LSU queue
    # a hit on line 0 arriving at 4 is looked up at once (its data over this FIFO data path after the load's)
    assert _ld(l1, [0], 4.0) == 220 and l1.tag_free == 5
    assert not l1.waiting


def test_l1_lsu_queue_space_and_tag_stage_cycles_per_line():
    l1, l2 = _l1(lsu_queue=2)
    # stores of 4 lines each take the tag stage 4 cycles: tags at 0, 4, 8; L2 has each 30 cycles after
    assert l1.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0) == 34
    assert l1.space_at(0.0) == 0.0
    assert l1.access("st", "global", _sectors(16, 20, 24, 28), 4, False, 32, 0.0) == 38
    assert l1.space_at(0.0) == 0.0                    # one waiting (from 4), room for two
    assert l1.access("st", "global", _sectors(32, 36, 40, 44), 4, False, 32, 0.0) == 42
    assert list(l1.waiting) == [4, 8]
    assert l1.space_at(0.0) == 4.0                    # full: room once the first waiting request starts
    assert l1.space_at(3.0) == 4.0
    assert l1.space_at(4.0) == 4.0
    assert l1.space_at(9.0) == 9.0
    assert [call[2] for call in l2.calls] == [4.0, 8.0, 12.0]


def test_l1_a_cached_loads_hits_take_the_tag_banks_and_data_wavefronts_its_misses_a_cycle_a_line():
    """l1.tag_banks / l1.data_banks (docs/hardware/l1_gather_hw.md): a cached load's lines are looked up a line
    of each tag bank a cycle and its words read in its data-array wavefronts, the longer of the two; its
    missed lines still leave one a cycle. Without them (tag_banks 1, data_banks 0) every line takes a cycle."""
    spread = [4 * line for line in range(8)]          # lines 0..7: two in each of 4 banks
    l1, l2 = _l1(tag_banks=4, data_banks=32, one_data_stage=False)
    _ld(l1, spread, 0.0, lines=8)                     # all 8 miss: held 8 cycles, L2 asked at 8 + 8
    assert l1.tag_free == 8.0 and l2.calls[-1][2] == 16.0
    _ld(l1, spread, 500.0, lines=8)                   # all 8 hit: 2 cycles
    assert l1.tag_free == 502.0
    done = l1.access("ld", "global", np.array(spread, np.int64), 8, False, 32, 600.0, waves=5, carried=128)
    assert l1.tag_free == 605.0                       # 5 data wavefronts outlast the 2 tag cycles
    assert done == 605 + 8 + 1                        # hit latency 8, then the lanes' 128 B over the data path
    # one data stage (l1.one_data_stage): the 5 wavefronts are also the data path's cycles once the data is read
    l1, _ = _l1(tag_banks=4, data_banks=32, one_data_stage=True)
    _ld(l1, spread, 0.0, lines=8)
    done = l1.access("ld", "global", np.array(spread, np.int64), 8, False, 32, 600.0, waves=5, carried=128)
    assert l1.tag_free == 605.0
    assert done == 605 + 8 + 5
    _ld(l1, spread, 0.0 + 700, lines=8, bypass=True)  # a bypassing load: its lines a cycle each, its sectors' bytes
    assert l1.tag_free == 708.0
    # a load that waits for a fill gets the fill's data forwarded as it lands: the lanes' bytes, no array reads
    l1, _ = _l1(tag_banks=4, data_banks=32, one_data_stage=True)
    assert _ld(l1, spread, 0.0, lines=8) == 118       # tags 0..8, fills land at 8 + 8 + 100 = 116, 256 B: 118
    done = l1.access("ld", "global", np.array(spread, np.int64), 8, False, 32, 9.0, waves=5, carried=128)
    assert done == 118 + 1                            # 128 B behind them (its 5 wavefronts read: 123)
    l1, _ = _l1()
    _ld(l1, spread, 0.0, lines=8)
    _ld(l1, spread, 500.0, lines=8)
    assert l1.tag_free == 508.0
    # stores and bypassing loads take a cycle a line whatever the banks
    l1, _ = _l1(tag_banks=4, data_banks=32)
    _ld(l1, spread, 0.0, lines=8, bypass=True)
    assert l1.tag_free == 8.0
    l1.access("st", "global", np.array(spread, np.int64), 8, False, 32, 100.0)
    assert l1.tag_free == 108.0


def test_bank_lines_spreads_regular_lines_evenly_over_the_tag_banks():
    per = 4
    consecutive = np.arange(32, dtype=np.int64) * per             # lines 0..31
    every_other = np.arange(32, dtype=np.int64) * 2 * per         # lines 0, 2, ..., 62 (rows of 64 floats)
    assert bank_lines(consecutive, per, 4) == 8 == bank_lines(every_other, per, 4)
    assert bank_lines(np.arange(8, dtype=np.int64) * per, per, 4) == 2
    assert bank_lines(np.array([0, 1, 2, 3], np.int64), per, 4) == 1   # four sectors of one line
    assert bank_lines(np.zeros(0, np.int64), per, 4) == 0
    rng = np.random.default_rng(3)
    for _ in range(200):
        s = np.unique(rng.integers(0, 1 << 20, int(rng.integers(1, 33))))
        banks = int(rng.choice([1, 2, 4, 8]))
        assert bank_lines(s, per, banks) == bank_lines_np(s, per, banks)
        assert bank_lines(s, per, 1) == lines_of(s, per)


def test_l1_reductions_leave_the_sm_once_few_enough_are_in_flight_beside_the_tag_stage():
    l1, l2 = _l1(reduction_credits=40)
    ops = np.array([32])
    # 32 operations: tag 0..1, out at 1; FakeL2 performs them at 1 + 8 + 50 + 32 = 91
    assert l1.access("red", "global", _sectors(0), 1, True, ops, 0.0) == 91
    assert l1.sent == 1
    # 32 more would make 64 in flight: this one leaves once the first is performed, at 91
    assert l1.access("red", "global", _sectors(4), 1, True, ops, 2.0) == 91 + 8 + 50 + 32
    assert l1.sent == 91 and l1.tag_free == 3         # the tag stage goes on with other requests
    assert _ld(l1, [8], 3.0) == 3 + 1 + 8 + 100 + 1   # a load right behind it is not held
    assert l1.sent == 4
    # an atomic whose result is read takes no credits: it leaves at once
    assert l1.access("atom", "global", _sectors(12), 1, True, ops, 10.0) == 11 + 8 + 50 + 32
    assert l1.sent == 11
    free, _ = _l1()                                   # tiny: 0, no limit
    free.access("red", "global", _sectors(0), 1, True, ops, 0.0)
    assert free.access("red", "global", _sectors(4), 1, True, ops, 2.0) == 3 + 8 + 50 + 32 and free.sent == 3
    with pytest.raises(ConfigError, match="l1.reduction_credits"):
        load("tiny", {"l1.reduction_credits": -1})


def test_l1_stores_leave_the_sm_once_few_enough_line_requests_are_in_flight_beside_the_tag_stage():
    l1, l2 = _l1(store_credits=6)
    # 4 lines: tag 0..4, out at 4; FakeL2 has them at 4 + 30 = 34
    assert l1.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0) == 34
    assert l1.sent == 4
    # 4 more would make 8 in flight: this one leaves once L2 has the first, at 34
    assert l1.access("st", "global", _sectors(16, 20, 24, 28), 4, False, 32, 1.0) == 34 + 30
    assert l1.sent == 34 and l1.tag_free == 8         # the tag stage goes on with other requests
    assert list(l1.waiting) == [34]                   # but it keeps its place in the LSU queue until it leaves
    assert _ld(l1, [40], 8.0) == 8 + 1 + 8 + 100 + 1  # a load right behind it is not held
    assert list(l1.waiting) == [34]                   # (looked up at once, it held no entry)
    # 8 sectors of 2 lines: 2 requests fit beside the 4 still in flight (until 64): out at once
    assert l1.access("st", "global", _sectors(*range(44, 52)), 2, False, 32, 40.0) == 42 + 30 and l1.sent == 42
    free, _ = _l1()                                   # tiny: 0, no limit
    free.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0)
    assert free.access("st", "global", _sectors(16, 20, 24, 28), 4, False, 32, 1.0) == 8 + 30 and free.sent == 8
    with pytest.raises(ConfigError, match="l1.store_credits"):
        load("tiny", {"l1.store_credits": -1})


def test_l1_stores_write_requests_hold_the_port_to_l2_a_line_at_a_time_and_a_loads_misses_go_out_behind_them():
    l1, l2 = _l1(write_request_cycles=2.0)
    # 4 lines: tag 0..4, through the port 4..12; FakeL2 has them at 12 + 30; the LSU-queue entry held until 12
    assert l1.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0) == 42
    assert l2.calls[-1][2] == 12.0 and l1.sent == 12 and list(l1.waiting) == [12]
    # one line right behind: tag 4..5, through the port behind the first, 12..14
    assert l1.access("st", "global", _sectors(16), 1, False, 32, 1.0) == 44 and l1.port_free == 14
    # a load's misses (tag 5..6) ask L2 once the writes before them are out (14), not at 6 + 8
    assert _ld(l1, [40], 2.0) == 14 + 8 + 100 + 1
    assert l2.calls[-1][0] == "read" and l2.calls[-1][2] == 14 + 8
    free, _ = _l1()                                   # tiny: no time on the port
    assert free.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0) == 4 + 30 and free.port_free == 0
    with pytest.raises(ConfigError, match="l1.write_request_cycles"):
        load("tiny", {"l1.write_request_cycles": -1})


def test_l1_a_store_holds_the_tag_stage_while_the_ports_backlog_is_past_its_buffer():
    l1, _ = _l1(write_request_cycles=2.0, write_buffer_cycles=4.0)
    # 4 lines: tag 0..4, through the port 4..12; the tag stage is free again once 4 cycles of it are left, at 8
    assert l1.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0) == 42 and l1.tag_free == 8
    assert _ld(l1, [40], 1.0) == 12 + 8 + 100 + 1     # a load behind it: tag 8..9, its miss out at 12 + 8
    free, _ = _l1(write_request_cycles=2.0)           # no buffer: the tag stage goes on at 4
    free.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0)
    assert free.tag_free == 4
    # a store waiting for credits does not hold it: 4 credits, the first store's until L2 has it at 42
    held, _ = _l1(write_request_cycles=2.0, write_buffer_cycles=4.0, store_credits=4)
    held.access("st", "global", _sectors(0, 4, 8, 12), 4, False, 32, 0.0)
    # tag 8..12, credits at 42, the port 42..50; the port's own backlog ends at 20: the tag stage free at 16
    assert held.access("st", "global", _sectors(16, 20, 24, 28), 4, False, 32, 1.0) == 50 + 30
    assert held.tag_free == 16
    with pytest.raises(ConfigError, match="l1.write_buffer_cycles"):
        load("tiny", {"l1.write_buffer_cycles": -1})


def test_l1_a_store_into_sectors_whose_fill_is_on_its_way_holds_the_tag_stage_until_it_lands():
    """docs/hardware/swap_hw.md: an in-place swap is slow where a store goes into the line of a load still on
    its way; the H200's L1 keeps the store (and what is behind it) until that fill lands."""
    l1, l2 = _l1(store_waits_fill=True)
    assert _ld(l1, [0, 1, 2, 3], 0.0) == 110             # the fill lands at 109 (asked at 9, L2 100 cycles)
    # a store into sector 2 at 5: the tag stage is held until 109, then 109..110; L2 has it 30 cycles later
    assert l1.access("st", "global", np.array([2], np.int64), 1, False, 32, 5.0) == 140
    assert l1.tag_free == 110 and l1.metrics(200.0)["smsim.l1.stores_held_for_fills"] == 1
    assert _ld(l1, [40], 6.0) == 111 + 8 + 100 + 1      # a load behind it: tag 110..111, its miss out at 119
    # a store into other sectors, or after the fill landed, does not wait
    assert l1.access("st", "global", np.array([4], np.int64), 1, False, 32, 300.0) == 331
    assert l1.access("st", "global", np.array([1], np.int64), 1, False, 32, 400.0) == 431
    assert l1.metrics(500.0)["smsim.l1.stores_held_for_fills"] == 1
    free, _ = _l1()                                      # not asked for: the store goes at once
    _ld(free, [0, 1, 2, 3], 0.0)
    assert free.access("st", "global", np.array([2], np.int64), 1, False, 32, 5.0) == 36
    with pytest.raises(ConfigError, match="l1.store_waits_fill must be true or false"):
        load("tiny", {"l1.store_waits_fill": 1})


def test_l1_tells_whether_a_load_waited_for_l2():
    l1, _ = _l1()
    _ld(l1, [0, 1, 2, 3], 0.0)
    assert l1.from_l2                                    # missed
    _ld(l1, [0, 1], 50.0)
    assert l1.from_l2                                    # merged with the fill on its way
    _ld(l1, [0, 1], 200.0)
    assert not l1.from_l2                                # hit
    l1.access("atom", "global", np.array([9], np.int64), 1, True, np.ones(1, np.int64), 300.0)
    assert l1.from_l2


def test_l1_another_warps_store_joins_a_write_still_waiting_to_leave_the_sm():
    """docs/hardware/store_cross_hw.md: different warps' stores into the same sectors merge on an H200 only
    while the first waits to leave the SM (a block's 8 warps each storing a word into the same 32 sectors,
    64 warps an SM: 0.21 of the L1 store sectors reach L2; one block an SM: none), never a warp's own."""
    l1, l2 = _l1(write_request_cycles=2.0, cross_merge_window=16)
    mine, half = _sectors(64, 68, 72, 76), np.full(4, 16)       # 4 lines, half of a sector in each
    # 8 lines of another warp: tag 0..8, through the port 8..24
    l1.access("st", "global", _sectors(*range(0, 32, 4)), 8, False, np.full(8, 4), 0.0, warp=9)
    # warp 1: tag 8..12, waits for the port until 24, through it 24..32; L2 has it at 62
    assert l1.access("st", "global", mine, 4, False, half, 0.0, warp=1) == 62
    # warp 2, the other halves: tag 12..16, while warp 1's write waits: joins it (no port, no write)
    assert l1.access("st", "global", mine, 4, False, half, 0.0, warp=2) == 62
    assert l2.calls[-1] == ("merged", [64, 68, 72, 76], 16.0, [16, 17, 18, 19])   # all four lines whole
    assert l1.port_free == 32 and l1.metrics(100.0)["smsim.l1.store_sectors_joined"] == 4
    # warp 1 again once its write is through the port (32), then warp 3 once the write has left (100): each a write
    l1.access("st", "global", mine, 4, False, half, 40.0, warp=1)
    l1.access("st", "global", mine, 4, False, half, 100.0, warp=3)
    assert [c[0] for c in l2.calls].count("write") == 4
    # the window counts lines: warp 4's 4 and 4 more after them fit in 8 (a join), 8 more do not
    for more, joined in ((4, 4), (8, 0)):
        small, _ = _l1(write_request_cycles=2.0, cross_merge_window=8)
        small.access("st", "global", _sectors(*range(0, 32, 4)), 8, False, np.full(8, 4), 0.0, warp=9)
        small.access("st", "global", mine, 4, False, half, 0.0, warp=4)
        small.access("st", "global", _sectors(*range(128, 128 + 4 * more, 4)), more, False, np.full(more, 4), 0.0,
                     warp=6)
        small.access("st", "global", mine, 4, False, half, 0.0, warp=5)
        assert small.joined == joined
    # two warps whose latest loads read other DRAM rows store apart in time on an H200 (seminar.transpose16_naive
    # merges 7% of its store sectors there, exercises.matadd_colmajor, whose partners load the same sectors, 45%):
    # no join; the same rows (or no loads): a join. A store L1 merges with its warp's next (here 4 sectors in
    # 4 lines, within l1.merge_sectors and l1.merge_lines) joins whatever rows the warps loaded
    # (size_sweep_hw.md: tutorial.transpose_8x32's two warps' halves of 8 sectors in 8 lines, 0.73-0.79 at L2)
    for merge, theirs, joined in (((0, 0), (3, 3), 0), ((0, 0), (2, 2), 4), ((0, 0), (2, 3), 0),
                                  ((16, 8), (3, 3), 4), ((16, 8), (2, 3), 4), ((16, 3), (3, 3), 0),
                                  ((3, 8), (3, 3), 0)):
        apart, _ = _l1(write_request_cycles=2.0, cross_merge_window=16, merge_sectors=merge[0], merge_lines=merge[1])
        apart.access("st", "global", _sectors(*range(0, 32, 4)), 8, False, np.full(8, 4), 0.0, warp=9)
        apart.access("st", "global", mine, 4, False, half, 0.0, warp=1, rows=(2, 2))
        apart.access("st", "global", mine, 4, False, half, 0.0, warp=2, rows=theirs)
        assert apart.joined == joined, (merge, theirs)
    off, l2off = _l1(write_request_cycles=2.0)          # tiny: none
    for w in (1, 2):
        off.access("st", "global", mine, 4, False, half, 0.0, warp=w)
    assert [c[0] for c in l2off.calls] == ["write", "write"]
    with pytest.raises(ConfigError, match="l1.cross_merge_window"):
        load("tiny", {"l1.cross_merge_window": -1})


def test_l1_a_warps_store_joins_its_own_write_until_that_is_through_the_port():
    """docs/hardware/store_resident_hw.md: a warp's second store into the sectors of its first merges on an H200
    when it reaches L1 before the first's write has gone through to L2 (one warp an SM, a chain of 16 multiply-adds
    between: none; the port backed up by a stream of stores: 86% of pairs), 32-sector stores in 8 lines too (one
    warp an SM, back to back: 0.50 of the L1 store sectors reach L2), unless more than the window's lines of other
    stores came between (8 warps an SM, whose sub-partitions' stores interleave: 0.995)."""
    mine, half = _sectors(64, 68, 72, 76), np.full(4, 16)           # 4 lines, half of a sector in each
    wide, quarter = _sectors(*range(64, 96)), np.full(32, 4)         # 32 sectors in 8 lines, a word in each

    def pair(second_at, sectors=mine, lines=4, ops=half, between=0, **spec) -> tuple:
        l1, l2 = _l1(write_request_cycles=2.0, cross_merge_window=16, **spec)
        l1.access("st", "global", sectors, lines, False, ops, 0.0, warp=1)
        through = l1.port_free
        if between:                                  # another warp's store of ``between`` lines
            l1.access("st", "global", _sectors(*range(512, 512 + 4 * between, 4)), between, False,
                      np.full(between, 4), 0.0, warp=2)
        l1.access("st", "global", sectors, lines, False, ops, second_at(through), warp=1)
        return l1.joined, [c[0] for c in l2.calls].count("write") - (1 if between else 0)

    narrow = {"merge_sectors": 16, "merge_lines": 8}
    assert pair(lambda through: through - 1, **narrow) == (4, 1)     # before its write is through: one write
    assert pair(lambda through: through, **narrow) == (0, 2)         # once it is: two
    assert pair(lambda through: 1.0, wide, 8, quarter) == (32, 1)    # a wide one as well
    assert pair(lambda through: 1.0, wide, 8, quarter, between=8) == (32, 1)    # 8 + 8 lines: in the window
    assert pair(lambda through: 1.0, wide, 8, quarter, between=9) == (0, 2)     # 8 + 9: out of it
    off, l2off = _l1(write_request_cycles=2.0)                       # tiny: no window, no merging
    for t in (0.0, 1.0):
        off.access("st", "global", mine, 4, False, half, t, warp=1)
    assert off.joined == 0 and [c[0] for c in l2off.calls] == ["write", "write"]


def test_l1_tells_l2_whether_a_store_is_one_it_could_merge():
    l1, l2 = _l1(merge_sectors=16, merge_lines=8)
    l1.access("st", "global", _sectors(*range(16)), 4, False, np.full(16, 4), 0.0)      # 16 sectors in 4 lines
    assert l2.narrow is True
    l1.access("st", "global", _sectors(*range(0, 128, 4)), 32, False, np.full(32, 4), 10.0)   # 32 in 32
    assert l2.narrow is False
    l1.access("st", "global", _sectors(*range(0, 32, 4)), 8, False, np.full(8, 4), 100.0)     # 8 in 8
    assert l2.narrow is True
    l1.access("st", "global", _sectors(*range(32)), 8, False, np.full(32, 4), 200.0)         # 32 in 8
    assert l2.narrow is False
    off, l2off = _l1()                                # tiny: no merging, so no store is narrow
    off.access("st", "global", _sectors(0), 1, False, np.full(1, 4), 0.0)
    assert l2off.narrow is False


def test_l1_cg_bypass_stores_write_through_atomics_and_local_counts():
    l1, l2 = _l1()
    assert _ld(l1, [0, 1, 2, 3], 0.0, bypass=True) == 110         # as a miss, but nothing allocated
    assert _ld(l1, [0, 1, 2, 3], 200.0) == 310                    # misses again: tag 201, L2 209..309
    assert [c[0] for c in l2.calls] == ["read", "read"]
    l1b, l2b = _l1()
    # store: tag 0..1, L2 has it at 31; not allocated, so a later load misses
    assert l1b.access("st", "global", _sectors(0, 1, 2, 3), 1, False, None, 0.0) == 31
    assert l2b.calls == [("write", [0, 1, 2, 3], 1.0)]
    assert _ld(l1b, [0, 1, 2, 3], 100.0) == 210
    assert l2b.calls[-1] == ("read", [0, 1, 2, 3], 109.0)
    # atomic: tag 300..301, at L2 from 301 + 8: 309 + 50 + 32 ops
    assert l1b.access("atom", "global", _sectors(64), 1, True, np.array([32]), 300.0) == 391
    assert l2b.calls[-1] == ("atomic", [64], 309.0)
    _ld(l1b, [1 << 20], 400.0, space="local")
    c = l1b.counts
    assert (c["requests_st"], c["sectors_st"]) == (1, 4)
    assert (c["requests_atom"], c["sectors_atom"]) == (1, 1)
    assert (c["requests_local"], c["sectors_local"]) == (1, 1)
    assert (c["requests_ld"], c["hit_ld"], c["miss_ld"]) == (1, 0, 4)    # local loads are not global lookups
    m = l1b.metrics(1000.0)
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 1
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 4
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 1
    assert m["l1tex__t_requests_pipe_lsu_mem_local.sum"] == 1
    assert m["smsim.l1.bytes"] == (4 + 4 + 1 + 1) * 32
    l1b.access("red", "global", _sectors(64), 1, True, np.array([3]), 500.0)     # a reduction: L2 performs it
    assert l2b.calls[-1][0] == "atomic"
    m = l1b.metrics(1000.0)
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 1
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 1


# ------------------------------------------------------------------------------------------- shared memory
LANES = np.arange(32)


def test_shared_memory_wavefronts_latency_and_pipe_occupancy():
    # tiny: 32 banks x 4 B, latency 4, +1 per extra wavefront, 1 wavefront per cycle
    s = SharedMemory(TINY.shared, 2)
    assert s.access(0, "ld", LANES * 4, LANES, 4, 0.0) == (1 + 4, 1, 0)          # conflict-free, starts at t+1
    assert s.access(0, "ld", LANES * 8, LANES, 4, 10.0) == (11 + 4 + 1, 2, 1)    # stride 2 words: 2-way
    assert s.access(0, "ld", LANES * 128, LANES, 4, 100.0) == (101 + 4 + 31, 32, 31)   # all in bank 0
    assert s.access(1, "ld", np.zeros(32, np.int64), LANES, 4, 200.0) == (205, 1, 0)  # broadcast
    assert s.access(1, "st", LANES * 8, LANES, 8, 300.0) == (305 + 1, 2, 0)      # 64-bit: 2 half-warp phases
    assert s.access(1, "atom", np.zeros(32, np.int64), LANES, 4, 400.0) == (401 + 4 + 31, 32, 31)
    # pipe occupancy: a 32-wavefront access holds the pipe 1..33; the next access (even from another
    # sub-partition) starts at 33
    p = SharedMemory(TINY.shared, 2)
    assert p.access(0, "ld", LANES * 128, LANES, 4, 0.0)[0] == 1 + 4 + 31
    assert p.access(1, "ld", LANES * 4, LANES, 4, 0.0)[0] == 33 + 4
    assert p.free == 34
    m = s.metrics(1000.0)
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 1 + 2 + 32 + 1
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == 2
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 1 + 31
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0
    assert m["smsp__sass_inst_executed_op_shared_ld.sum"] == 4
    assert m["smsp__sass_inst_executed_op_shared_st.sum"] == 1
    assert m["smsp__sass_inst_executed_op_shared_atom.sum"] == 1
    assert m["smsim.shared.bytes"] == (36 + 2 + 32) * 128
    assert m["smsim.shared.peak_bytes_per_cycle"] == 128.0


def test_a_global_stores_data_crosses_the_pipe_shared_wavefronts_take():
    """L1TEX's data stage serves shared-memory wavefronts and global stores' data (one wavefront per 128-byte
    line): a store behind a 32-way conflicted load leaves the SM when the load's wavefronts are through."""
    p = SharedMemory(TINY.shared, 2)
    assert p.store_data(1, 0.0) == 2                   # alone: the cycle after issue
    p.access(0, "ld", LANES * 128, LANES, 4, 10.0)    # 32 wavefronts hold the pipe 11..43
    assert p.store_data(4, 12.0) == 43 + 4             # four lines queue behind them
    assert p.access(1, "ld", LANES * 4, LANES, 4, 13.0)[0] == 47 + 4   # and a load behind the store
    m = p.metrics(100.0)                              # the store is no shared wavefront
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 33
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == 0


def test_shared_wavefronts_and_cached_loads_data_take_one_data_stage():
    """l1.one_data_stage (docs/hardware/data_stage_hw.md: an LDS.128 and four 4-line LDG hits take the H200 the
    sum of their 4 and 16 data wavefronts): built so, shared memory books its wavefronts on L1's data path,
    in its free cycles; a load's data booked for when it is read keeps its place, a shared access before it
    takes the cycles before, one after it waits for it."""
    spec = dataclasses.replace(TINY.l1, tag_banks=4, data_banks=32, one_data_stage=True)
    stage = GapQueue(spec.data_bytes_per_cycle)
    l1, s = L1(spec, spec.size_bytes, stage, FakeL2(), 0), SharedMemory(TINY.shared, 2, stage)
    spread = np.array([4 * line for line in range(8)], np.int64)
    l1.access("ld", "global", spread, 8, False, 32, 0.0)                  # fills land at 116
    done = l1.access("ld", "global", spread, 8, False, 32, 200.0, waves=16, carried=128)
    assert done == 216 + 8 + 16                        # tag stage 200..216, read at 224: the stage's 224..240
    assert s.access(0, "ld", LANES * 4, LANES, 4, 200.0) == (201 + 4, 1, 0)        # before it, in a free cycle
    # 4 wavefronts from 222: two before the load's data (222..224), two after it (240..242)
    assert s.access(0, "ld", LANES * 16, LANES, 4, 221.0) == (222 + 4 + 3 + 16, 4, 3)
    assert s.store_data(1, 222.0) == 243                # a store's data behind both
    # the pipe alone (no L1 given): the same access is not delayed by the load
    p = SharedMemory(TINY.shared, 2)
    assert p.access(0, "ld", LANES * 16, LANES, 4, 221.0) == (222 + 4 + 3, 4, 3)


def test_a_loads_sectors_from_dram_are_written_into_the_data_array_on_the_one_data_stage():
    """l1.fill_sector_cycles (docs/hardware/conflict_overlap_hw.md: short blocks that stage 4 KB from DRAM and
    then read shared memory in 8-way conflicts take the H200 5 data-stage cycles per 4-sector load, 1 when the
    same loads hit L2): a fill's sectors that L2 got from DRAM (``L2Model.fetched``) take the stage a cycle
    each, in its free cycles from the request on, ahead of shared wavefronts issued after it; the load's own
    data is still forwarded as it lands. L2 hits write nothing there."""
    spec = dataclasses.replace(TINY.l1, one_data_stage=True, fill_sector_cycles=1.0)
    for fetched, shared_start in ((4, 5), (0, 1)):
        stage = GapQueue(spec.data_bytes_per_cycle)
        l2 = FakeL2()
        l2.fetched = fetched                           # the FakeL2's read: all from DRAM, or all L2 hits
        l1, s = L1(spec, spec.size_bytes, stage, l2, 0), SharedMemory(TINY.shared, 2, stage)
        assert _ld(l1, [0, 1, 2, 3], 0.0) == 110       # tag 0..1, L2 at 9, back at 109: its data at 110
        assert stage.busy == fetched + 1               # the four sectors written, the lanes' bytes forwarded
        assert s.access(0, "ld", LANES * 4, LANES, 4, 0.0)[0] == shared_start + 4
    # without the one stage (the pipe apart) nothing is booked for the fill
    l2 = FakeL2()
    l2.fetched = 4
    l1 = L1(dataclasses.replace(spec, one_data_stage=False), spec.size_bytes, GapQueue(spec.data_bytes_per_cycle),
            l2, 0)
    assert _ld(l1, [0, 1, 2, 3], 0.0) == 110 and l1.data.busy == 1


def test_a_fence_takes_the_sms_fence_unit_in_turn_after_the_sms_stores_and_empties_l1():
    """l1.fence_* (docs/hardware/fence_hw.md): the SM's one fence unit takes a fence every
    ``fence_{scope}_interval_cycles`` and its warp goes on ``fence_{scope}_cycles`` later; a GPU- or system-scope
    fence waits for L2 to have every store the SM sent before it (any warp's; a block-scope one does not) and
    empties L1 (``CCTL.IVALL``), so a load of what hit before goes to L2 again."""
    l1, l2 = _l1(fence_cta_cycles=0.0, fence_gpu_cycles=250.0, fence_sys_cycles=1236.0,
                 fence_cta_interval_cycles=4.3, fence_gpu_interval_cycles=10.8, fence_sys_interval_cycles=33.2,
                 fence_invalidates=True)
    assert l1.fence(0.0, "gpu") == 250.0                    # the unit free: taken at once
    assert l1.fence(0.0, "gpu") == pytest.approx(260.8)     # the next in turn, 10.8 later
    assert l1.fence(100.0, "sys") == 1336.0                 # the unit free again by 21.6
    assert l1.fence(100.0, "cta") == pytest.approx(133.2)   # behind the system-scope one's 33.2
    # a store sent at 200 that L2 has at 231 (tag 200..201, FakeL2: +30): a GPU fence at 210 starts then, a
    # block-scope one does not wait for it
    assert l1.access("st", "global", np.array([64, 65, 66, 67], np.int64), 1, False, 32, 200.0) == 231
    assert l1.fence(210.0, "cta") == 210.0
    assert l1.fence(210.0, "gpu") == 231.0 + 250.0
    # what hit in L1 before a GPU fence misses after it; not after a block-scope one
    assert _ld(l1, [0, 1], 1000.0) == 1110 and _ld(l1, [0, 1], 1200.0) == 1210
    l1.fence(1300.0, "cta")
    assert _ld(l1, [0, 1], 1400.0) == 1410
    l1.fence(1500.0, "gpu")
    reads = len([c for c in l2.calls if c[0] == "read"])
    assert _ld(l1, [0, 1], 2000.0) == 2110 and len([c for c in l2.calls if c[0] == "read"]) == reads + 1
    # without fence_invalidates L1 keeps its data; with no costs a fence is free
    l1, _ = _l1()
    _ld(l1, [0, 1], 0.0)
    assert l1.fence(500.0, "gpu") == 500.0 and l1.fence(500.0, "sys") == 500.0
    assert _ld(l1, [0, 1], 600.0) == 610


@pytest.mark.parametrize("ptx, sass_opcode, scope", [
    (("gl",), "MEMBAR.SC.GPU", "gpu"), (("cta",), "MEMBAR.SC.CTA", "cta"), (("sys",), "MEMBAR.SC.SYS", "sys"),
    (("sc", "gpu"), "MEMBAR.ALL.GPU", "gpu"), (("acq_rel", "cluster"), "MEMBAR.ALL.GPU", "gpu"),
    (("proxy", "async"), "FENCE.VIEW.ASYNC.S", "cta")])
def test_a_fences_scope_comes_from_its_modifiers_in_ptx_and_sass(ptx, sass_opcode, scope):
    """What L1.fence is told: numba's threadfence is membar.gl (MEMBAR.SC.GPU), threadfence_block membar.cta,
    threadfence_system membar.sys; proxy fences order a thread's own accesses, as the block's scope does."""
    from isa.trace import fence_scope
    assert fence_scope(ptx) == scope
    assert fence_scope(sass_opcode.split(".")) == scope


@pytest.mark.parametrize("name, mods, op", [
    ("ld", ("global",), None), ("ld", ("global", "cg"), "cg"), ("ld", ("volatile",), "cv"),
    ("ld", ("volatile", "global"), "cv"), ("ld", ("relaxed", "gpu", "global"), "cv"),
    ("ld", ("acquire", "sys"), "cv"), ("ld", ("relaxed", "cta", "global"), None), ("st", ("volatile",), None),
    ("ld", ("global", "nc"), "nc")])
def test_a_strong_load_of_the_gpus_or_the_systems_scope_reads_l2_as_cv(name, mods, op):
    """numba's float atomic.max reads its word by ld.volatile (LDG.E.STRONG.SYS): every one reaches L2 on an H200
    (docs/hardware/hot_lines_hw.md); a block-scope strong load may be served by L1."""
    from isa.trace import cache_op
    assert cache_op(name, mods) == op


def test_shared_memory_mio_queue_fills_per_subpartition():
    s = SharedMemory(TINY.shared, 2)                  # mio_queue = 4
    s.access(0, "ld", LANES * 128, LANES, 4, 0.0)     # pipe busy 1..33: not queued (it starts at t + 1)
    assert not s.full(0, 0.0) and s.next_free(0) == 0.0
    for k in range(4):
        assert s.access(0, "ld", LANES * 4, LANES, 4, 0.0)[0] == 33 + k + 4
    assert list(s.queued[0]) == [33, 34, 35, 36]
    assert s.full(0, 0.0) and s.full(0, 32.0)
    assert not s.full(1, 0.0) and s.next_free(1) == 0.0      # the other sub-partition's queue is empty
    assert s.next_free(0) == 33
    assert not s.full(0, 33.0)                        # the first one has left the queue
    assert s.next_free(0) == 34


# ----------------------------------------------------------------------------------------- scheduler policies
class FakeWarp:
    def __init__(self, name: str):
        self.name, self.info, self.ready_at, self.reason = name, object(), 0.0, WAIT

    def __repr__(self):
        return self.name


def _warps(n: int) -> list:
    return [FakeWarp("abcdefgh"[i]) for i in range(n)]


def _distinct(order) -> list:
    return list(dict.fromkeys(order))


def test_lrr_rotates_to_start_after_the_last_issued():
    p = SCHEDULER_POLICIES.get("lrr")(TINY.scheduler)
    a, b, c, d = ws = _warps(4)
    assert list(p.order(ws, 0.0)) == [a, b, c, d]
    p.issued(ws, b)
    assert list(p.order(ws, 1.0)) == [c, d, a, b]
    p.issued(ws, d)
    assert list(p.order(ws, 2.0)) == [a, b, c, d]
    assert list(p.order([a], 3.0)) == [a]
    assert p.parked == ()


def test_gto_keeps_the_last_issued_first_while_it_has_an_instruction():
    p = SCHEDULER_POLICIES.get("gto")(TINY.scheduler)
    a, b, c, d = ws = _warps(4)
    assert list(p.order(ws, 0.0)) == ws
    p.issued(ws, c)
    assert _distinct(p.order(ws, 1.0)) == [c, a, b, d]
    assert _distinct(p.order(ws, 2.0)) == [c, a, b, d]      # greedy: still c
    c.info = None                                           # c has exited: oldest first
    assert list(p.order(ws, 3.0)) == ws
    p.issued(ws, a)
    assert list(p.order(ws, 4.0)) == ws                     # the last is the oldest anyway
    assert p.parked == ()


def test_oldest_block_takes_the_oldest_blocks_warps_in_turn_before_a_younger_blocks():
    p = SCHEDULER_POLICIES.get("oldest_block")(TINY.scheduler)
    a, b, c, d, e = ws = _warps(5)
    for w, blk in zip(ws, ("X", "X", "X", "Y", "Y")):      # block X (older): a, b, c; block Y: d, e
        w.block = blk
    assert list(p.order(ws, 0.0)) == [a, b, c, d, e]
    p.issued(ws, a)
    assert list(p.order(ws, 1.0)) == [b, c, a, d, e]         # round-robin within X, X still first
    p.issued(ws, c)
    assert list(p.order(ws, 2.0)) == [a, b, c, d, e]
    p.issued(ws, d)
    assert list(p.order(ws, 3.0)) == [a, b, c, e, d]         # Y's turn moves on; it stays behind X
    rest = [a, c, d, e]                                      # b exits
    assert list(p.order(rest, 4.0)) == [a, c, e, d]
    p.issued(rest, c)
    rest = [a, d, e]                                         # c, X's last issued, exits: X starts from its oldest
    assert list(p.order(rest, 5.0)) == [a, e, d]
    assert list(p.order([e], 6.0)) == [e]
    assert p.parked == ()


def test_two_level_parks_long_waiters_and_fills_the_active_set_from_the_oldest():
    spec = dataclasses.replace(TINY.scheduler, two_level_active=2)
    p = SCHEDULER_POLICIES.get("two_level")(spec)
    a, b, c, d, e = ws = _warps(5)
    assert _distinct(p.order(ws, 0.0)) == [a, b]
    assert p.parked == [c, d, e]
    a.reason, a.ready_at = LONG, 100.0                     # a waits on a global load
    assert _distinct(p.order(ws, 10.0)) == [b, c]           # a leaves, the oldest waiting (c) comes in
    assert p.parked == [a, d, e]
    p.issued(ws, c)
    assert _distinct(p.order(ws, 11.0)) == [c, b]           # greedy-then-oldest within the set
    b.reason, b.ready_at = SHORT, 50.0                      # a short wait keeps b in the set
    assert set(p.order(ws, 12.0)) == {b, c}
    b.info = None                                           # b exits: a is ready again at 100, the oldest
    assert set(p.order(ws, 100.0)) == {a, c}
    assert p.parked == [b, d, e]
    few = SCHEDULER_POLICIES.get("two_level")(spec)
    x, y = pair = _warps(2)
    x.reason, x.ready_at = LONG, 100.0
    few.order(pair, 0.0)
    assert few.parked == [x]                               # not ready: not taken into the set
    x.reason, x.ready_at = WAIT, 0.0
    assert set(few.order(pair, 1.0)) == {x, y}
    x.reason, x.ready_at = LONG, 100.0
    assert set(few.order(pair, 2.0)) == {x, y}              # no more warps than the set holds: stays


# --------------------------------------------------------------------------------------------------- clock
class FakeSub:
    """A sub-partition that asks for the cycles in ``plan`` (cycle called at t -> next cycle) and records
    (t, env.now) of each call."""

    def __init__(self, env, plan: dict, on_call=None):
        self.env, self.plan, self.on_call = env, plan, on_call
        self.calls: list = []
        self.idle_until = 0.0

    def cycle(self, t):
        self.calls.append((t, self.env.now))
        if self.on_call is not None:
            self.on_call(t)
        return self.plan.get(t, INF)


def test_clock_runs_subpartitions_at_the_cycles_they_ask_for_and_steps_over_idle_ones():
    env = simpy.Environment()
    sub = FakeSub(env, {0: 5, 5: 6, 6: 6, 7: 9.5})     # 6 -> 6: at least the next cycle; 9.5 -> 10
    clock = Clock(env, [sub])
    env.run()
    assert [t for t, _ in sub.calls] == [0, 5, 6, 7, 10]
    assert clock.t == 10
    assert env.now == 0                               # nothing else happened: it stepped without events

    env = simpy.Environment()
    a, b = FakeSub(env, {0: 5, 3: 5}), FakeSub(env, {0: 3, 3: 7, 5: 7})
    Clock(env, [a, b])
    env.process(_sleep(env, 4))                       # other events pending: the clock sleeps on alarms
    env.run()
    assert [t for t, _ in a.calls] == [t for t, _ in b.calls] == [0, 3, 5, 7]     # every sub, each cycle
    assert a.calls[2] == (5, 5.0)                     # woken by its alarm at 5, never before


def _sleep(env, dt):
    yield env.timeout(dt)


def test_clock_runs_the_subpartitions_from_its_lead():
    """Within a cycle the sub-partitions look in turn from Clock.lead (the SM hands it on past the one whose warp
    took an LSU-queue entry others waited for: docs/hardware/store_resident_hw.md)."""
    env = simpy.Environment()
    order: list = []
    holder: list = []

    def note(i):
        def call(t):
            order.append((t, i))
            if (t, i) == (0, 1):
                holder[0].lead = 2                   # sub-partition 1 took the entry: 2 looks first from now
        return call
    subs = [FakeSub(env, {0: 1, 1: 2}, on_call=note(i)) for i in range(3)]
    holder.append(Clock(env, subs))
    env.run()
    assert order == [(0, 0), (0, 1), (0, 2), (1, 2), (1, 0), (1, 1), (2, 2), (2, 0), (2, 1)]


def test_clock_poke_makes_it_look_again_at_the_next_cycle():
    env = simpy.Environment()
    sub = FakeSub(env, {})                            # idle for good
    clock = Clock(env, [sub])

    def poker():
        yield env.timeout(4.5)
        sub.idle_until = 99.0
        clock.poke()
        assert sub.idle_until == 0.0                  # every scheduler looks again

    env.process(poker())
    env.run()
    assert sub.calls == [(0, 0.0), (5, 5.0)]          # poked between cycles: runs at the next one

    env = simpy.Environment()
    holder: list = []
    sub = FakeSub(env, {}, on_call=lambda t: holder[0].poke() if t == 0 else None)
    holder.append(Clock(env, [sub]))                  # a poke during its own cycle: the next cycle too
    env.run()
    assert [t for t, _ in sub.calls] == [0, 1]


# ------------------------------------------------------------------------------------------ stall accounting
class Info:
    def __init__(self, srcs=(), dsts=(), fence=False):
        self.srcs, self.dsts, self.fence = srcs, dsts, fence


class Trace:
    index = 3
    pcs = [0, 1, 2]


class FakeBlock:
    index = 7


def test_warp_account_splits_cycles_by_reason_and_retire_counts_drain_and_the_timeline_tiles_them():
    infos = [Info(srcs=(0,), dsts=(1,)), Info(srcs=(1,), dsts=(2,)), Info(srcs=(2,), fence=True)]
    stalls = [[0.0] * len(REASONS) for _ in infos]
    tl = Timeline()
    w = Warp(Trace(), FakeBlock(), 5, 1, 4, 0.0, stalls, infos, tl)
    assert w.ready_at == 0.0 and w.reason == R["no_instruction"]
    w.results_at([0], 10.0, LONG)                     # its source register comes from a global load at 10
    w.refresh()
    assert (w.ready_at, w.reason) == (10.0, LONG)
    w.block_on(14.0, R["lg_throttle"])                # then the LSU queue was full until 14
    w.block_on(12.0, R["mio_throttle"])               # an earlier bound does not shorten it
    w.account(20.0, 2, 0)                             # issued at 20 for 2 slots
    assert stalls[0][LONG] == 10 and stalls[0][R["lg_throttle"]] == 4
    assert stalls[0][R["not_selected"]] == 6 and stalls[0][R["selected"]] == 2
    assert w.free_at == 22.0
    assert w.advance()                                # pc 1: its registers are ready, fetch too
    assert w.ready_at < w.free_at
    w.account(22.0, 1, 1)                             # back to back: selected only
    assert sum(stalls[1]) == 1 and stalls[1][R["selected"]] == 1
    w.results_at([2], 27.0, SHORT)                    # pc 1 writes reg 2 at 27 (short scoreboard),
    w.hold_fetch(25.0, BRANCH)                        # is a branch resolving at 25,
    w.memory_issued(33.0, store=False)                # and the warp's memory operations finish at 33
    assert w.advance()                                # pc 2 waits for fetch (25), reg 2 (27), the fence (33)
    assert (w.ready_at, w.reason) == (33.0, MEMBAR)
    w.account(40.0, 1, 2)
    assert stalls[2][MEMBAR] == 10 and stalls[2][R["not_selected"]] == 7 and stalls[2][R["selected"]] == 1
    w.memory_issued(60.0, store=True)                 # pc 2 also stored; L2 has it at 60
    assert not w.advance()
    assert w.exit(41.0) == 60.0                       # it may leave when its memory operations are done
    w.retire(60.0, 2)
    assert stalls[2][R["drain"]] == 60 - 41
    assert w.end == 60.0 and w.done
    totals = np.array(stalls).sum(axis=0)
    assert totals.sum() == w.end - w.start            # every cycle of the warp, once
    want = {"long_scoreboard": 10, "lg_throttle": 4, "not_selected": 13, "selected": 4, "membar": 10, "drain": 19}
    assert {REASONS[i]: v for i, v in enumerate(totals) if v} == want

    arr = tl.arrays()["warps"]
    starts, ends, states = arr["start"], arr["end"], arr["state"]
    assert starts[0] == 0.0 and ends[-1] == 60.0
    assert np.array_equal(starts[1:], ends[:-1])      # the intervals tile [0, 60)
    per_state = {REASONS[s]: float((ends - starts)[states == s].sum()) for s in set(states.tolist())}
    assert per_state == want
    assert [REASONS[s] for s in states] == ["long_scoreboard", "lg_throttle", "not_selected", "selected",
                                            "membar", "not_selected", "selected", "drain"]   # [20, 23) merged
    assert set(arr["slot"].tolist()) == {5} and set(arr["block"].tolist()) == {7}
    assert set(arr["warp"].tolist()) == {3}


class SassLike:
    """A SASS stream item as :meth:`Warp.next_memory` reads it: its waits (``srcs``), the scoreboards its result
    and its register read set (``results``, ``read_sb``)."""
    def __init__(self, mem=None, srcs=(), results=(), read_sb=None):
        self.mem, self.srcs, self.results, self.read_sb = mem, srcs, results, read_sb
        self.space, self.barrier, self.fence, self.dsts = "global", False, False, ()


def test_a_stores_look_ahead_passes_waits_on_register_reads_but_not_on_results():
    """ptxas's wait before a store's source registers are written again (a scoreboard last set for a register
    read) does not stop the warp's next store merging with this one; a wait on a variable-latency result does,
    and a PTX instruction's register reads always do."""
    infos = [SassLike("st", read_sb=10), SassLike(results=(11,)), SassLike("st", read_sb=10),
             SassLike(srcs=(10,)), SassLike("st"), SassLike(srcs=(11,)), SassLike("st")]
    trace = type("T", (), {"index": 0, "pcs": list(range(len(infos)))})()
    stalls = [[0.0] * len(REASONS) for _ in infos]
    w = Warp(trace, FakeBlock(), 0, 0, 2, 0.0, stalls, infos)
    assert w.next_memory(2) == (4, 4)                 # 3 waits on scoreboard 10, last set by 2's register read
    assert w.next_memory(4) is None                   # 5 waits on 11, last set by 1's result
    infos[1] = SassLike(read_sb=11)
    assert w.next_memory(4) == (6, 6)                 # now 11 was last set for a register read too
    ptx = [Info(), Info(srcs=(3,)), Info()]         # no read_sb: a PTX stream's OpInfo
    for i in ptx:
        i.mem, i.space, i.barrier = None, "global", False
    ptx[0].mem = ptx[2].mem = "st"
    w = Warp(type("T", (), {"index": 0, "pcs": [0, 1, 2]})(), FakeBlock(), 0, 0, 2, 0.0, stalls, ptx)
    assert w.next_memory(0) is None


def test_throttle_before_ready_counts_nothing_and_no_drain_without_late_stores():
    stalls = [[0.0] * len(REASONS)]
    w = Warp(type("T", (), {"index": 0, "pcs": [0]})(), FakeBlock(), 0, 0, 2, 100.0, stalls, [Info(srcs=(0,))])
    w.results_at([0], 110.0, WAIT)
    w.refresh()
    w.block_on(105.0, R["math_pipe_throttle"])        # ends before the warp is ready: hidden by the wait
    w.account(112.0, 1, 0)
    assert stalls[0][WAIT] == 10 and stalls[0][R["math_pipe_throttle"]] == 0
    assert stalls[0][R["not_selected"]] == 2 and stalls[0][R["selected"]] == 1
    assert not w.advance()
    assert w.exit(113.0) == 113.0
    w.retire(113.0, 0)
    assert stalls[0][R["drain"]] == 0 and w.end == 113.0


def test_a_warp_is_throttled_in_its_pipes_busy_cycles_and_not_selected_in_the_others():
    """Nsight counts a cycle in which the warp could issue but another did as ``not_selected``, and one in
    which its pipe is still busy after an issue as ``math_pipe_throttle``: waiting on a pipe of issue
    interval 2, the warp is throttled in the cycle after each issue to it and not selected in the others
    (another warp issuing there, to this pipe or another), whether or not the scheduler looked at it then
    (with the oldest block first, a younger block's warps are often not looked at)."""
    stalls = [[0.0] * len(REASONS)]
    w = Warp(type("T", (), {"index": 0, "pcs": [0]})(), FakeBlock(), 0, 0, 2, 100.0, stalls, [Info()])
    throttle = R["math_pipe_throttle"]
    sub = type("Sub", (), {})()
    sub.pipe_held, sub.pipe_free = {"alu": 5.0}, {"alu": 102.0}   # busy cycles so far; issued at 100
    w.block_on(102.0, throttle, (sub, "alu"), 101.0)  # found busy at 101 (not looked at in 100): free at 102
    sub.pipe_held["alu"] += 1                         # at 102 another warp took it: busy in 103
    sub.pipe_free["alu"] = 104.0
    w.block_on(104.0, throttle, (sub, "alu"), 103.0)  # (looked at again at 103)
    sub.pipe_held["alu"] += 1                         # and at 104, while the scheduler did not look at it
    sub.pipe_free["alu"] = 106.0
    sub.pipe_held["fma"] = 9.0                        # another pipe's busy cycles are not its
    # 106..109: the pipe free, other warps issue to other pipes; it issues at 110
    w.account(110.0, 1, 0)
    assert stalls[0][throttle] == 3 and stalls[0][R["not_selected"]] == 7 and stalls[0][R["selected"]] == 1
    w.block_on(112.0, R["mio_throttle"], now=111.0)   # a queue, not a pipe: its waits are all throttle
    w.block_on(113.0, R["mio_throttle"], now=112.0)
    w.account(113.0, 1, 0)
    assert stalls[0][R["mio_throttle"]] == 2 and stalls[0][R["not_selected"]] == 7


def test_warps_saturating_an_interval_2_pipe_split_their_waits_between_throttle_and_not_selected():
    @cuda.jit
    def alu(out, n):
        i = cuda.grid(1)
        x = i
        for k in range(n):
            x = (x ^ k) + (x >> 1)
        out[i] = x

    out = np.zeros(2048, np.int32)
    res = smsim.launch(alu, (2,), (1024,), (out, 64), config="h200", blocks="all", complete=False)
    st = res.stalls_per_instruction()
    throttle, not_selected = st.get("math_pipe_throttle", 0.0), st.get("not_selected", 0.0)
    assert throttle > 1.0 and not_selected > 1.0
    assert 0.5 < not_selected / throttle < 2.0, st


def test_what_a_blocks_grid_neighbours_on_other_sms_read_first_is_in_l2():
    @cuda.jit
    def smooth(out, inp, n):
        i = cuda.grid(1)
        if i > 0 and i < n - 1:
            out[i] = inp[i - 1] + inp[i] + inp[i + 1]

    def run(sharing):
        n = 16 * 32
        inp, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
        res = smsim.launch(smooth, (16,), (32,), (out, inp, n), config=load("tiny", overrides={"l2.sharing": sharing}))
        assert np.array_equal(out[1:-1], inp[:-2] + inp[1:-1] + inp[2:])
        return res

    private, shared = run("private"), run("neighbours")
    # tiny has 4 SMs: this one times blocks 0, 4, 8 and 12. Block b reads sectors 4b-1 .. 4b+4. Sector 4b-1
    # it touches with its first load (inp[i - 1]), as block b-1 does (lane 31): a tie, the lower block first;
    # 4b+4 only with its third (inp[i + 1]), after block b+1 read it with its first. Those two are in L2
    # already (block 0: sector 4 alone): 7 sectors this SM would have read from DRAM
    assert shared.metrics["smsim.l2.sectors_from_other_sms"] == 7
    assert private.metrics["smsim.l2.sectors_from_other_sms"] == 0
    assert private.metrics["dram__bytes_read.sum"] - shared.metrics["dram__bytes_read.sum"] == 7 * 32


@cuda.jit
def _bump(a):
    x, y = cuda.grid(2)
    a[y, x] += np.float32(1)


def test_blocks_run_for_their_neighbours_run_once():
    a = np.zeros((24, 32), np.float32)
    res = smsim.launch(_bump, (4, 3), (8, 8), (a,), config="tiny", overrides={"l2.sharing": "neighbours"})
    assert res.metrics["smsim.l2.sectors_from_other_sms"] == 0     # no sector of its own was touched first
    assert np.array_equal(a, np.ones_like(a))                      # every block ran once


def test_a_2d_blocks_neighbours_are_the_eight_around_it():
    launch = isa.interp.Launch(isa.parse(EMPTY_PTX)["k"], (4, 3), 64, (np.zeros(4, np.float32),))
    sm = build_sm(TINY, launch, blocks="share").sm          # tiny's 4 SMs: this one times blocks 0, 7 and 10
    assert sm.share_l2 is not None                           # tiny's l2.sharing is "neighbours"
    assert sorted(sm.timed) == [0, 7, 10]
    trace = isa.trace.trace_blocks(launch, [0, 7, 10])
    sm.neighbours(trace[:1], 8)            # (0, 0) of the 4 x 3 grid: (1, 0); (0, 1), (1, 1)
    assert sorted(sm.ran_ahead) == [1, 4, 5]
    sm.neighbours(trace[1:], 8)            # (3, 1): (2..3, 0), (2, 1), (2..3, 2); (2, 2): (1..3, 1), (1, 2), (3, 2)
    assert sorted(sm.ran_ahead) == [1, 2, 3, 4, 5, 6, 9, 11]  # each once; the timed 0, 7 (3, 1), 10 (2, 2) never
    assert not sm.near                     # an empty kernel touches no sector


def test_global_sectors_are_what_a_trace_touches():
    from isa.trace import global_sectors
    from smsim.launch import _compiled
    from smsim.sm import _first_touch
    for cid in ("stencil.sobel_naive", "transpose.naive", "everyday.gather_mod", "coalescing.copy_offset1"):
        case = cases.get(cid)
        runs = []
        for _ in range(2):                  # two launches on fresh arguments: each block runs once in each
            s = case.setup("test", 0)
            kernel, flatten = _compiled(case.load_kernel(), s.args)
            runs.append(isa.interp.Launch(kernel, s.grid, s.block, flatten(tuple(s.args)), s.shared_bytes))
        blocks = [0, 1, 2, 5]
        traces = isa.trace.trace_blocks(runs[0], blocks)
        want = [_first_touch(t, 32, 1, ordinal=True) for t in traces]
        s = case.setup("test", 0)                      # a third launch: the first touches too
        kernel, flatten = _compiled(case.load_kernel(), s.args)
        again = isa.interp.Launch(kernel, s.grid, s.block, flatten(tuple(s.args)), s.shared_bytes)
        got = global_sectors(runs[1], blocks, 32)
        assert [g.tolist() for g in got] == [w[0].tolist() for w in want], cid
        # each sector's first global access, counted alike by a warp of the trace and by the batch
        firsts = global_sectors(again, blocks, 32, firsts=True)
        assert [f[1].tolist() for f in firsts] == [w[1].tolist() for w in want], cid


def test_blocks_started_together_share_the_fetch_of_what_they_gather_at_once():
    # workloads.plain.gather_perm4k's kernel: 16 blocks in a row gather a permutation of one 16 KB window, at
    # the same point of their code. The H200 reads each byte once (its 134.2 MB at the full size); with the
    # first block of each 16 fetching all the window it touches, smsim read 1.8x that here (2.7x at full size)
    from workloads import plain
    n = 1 << 20
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    idx = np.concatenate([w + rng.permutation(4096) for w in range(0, n, 4096)]).astype(np.int32)
    out = np.zeros(n, np.float32)
    res = smsim.launch(plain.gather, n // 256, 256, (a, idx, out), config="h200", complete=False)
    read = res.metrics["dram__bytes_read.sum"] * res.blocks / res.blocks_timed
    assert read / (a.nbytes + idx.nbytes) == pytest.approx(1.0, abs=0.05)


def test_device_sharing_serves_a_table_every_block_reads_from_the_blocks_before():
    @cuda.jit
    def lookup(table, out):
        out[cuda.grid(1)] = table[cuda.blockIdx.x % 10 * 64 + cuda.threadIdx.x] + np.float32(1)

    table = np.arange(640, dtype=np.float32)
    want = table[np.arange(64)[:, None] % 10 * 64 + np.arange(64)].ravel() + 1
    res = {}
    for sharing in ("private", "device"):
        out = np.zeros(64 * 64, np.float32)
        res[sharing] = smsim.launch(lookup, 64, 64, (table, out), config="tiny", overrides={"l2.sharing": sharing})
        assert np.array_equal(out, want)                            # every block ran, once
    # tiny's 4 SMs: this one times blocks 0, 7, 10, 13, 16, 23, ... (chunks 0, 7, 0, 3, 6, 3, ...): of the
    # chunks they read, only 0 and 7 does one of its blocks read first; every other chunk a block of another
    # SM read before (13's chunk 3 block 3's, 16's chunk 6 block 6's): the device's L2 holds them, and this SM
    # reads them from DRAM only without it
    dev, own = res["device"].metrics, res["private"].metrics
    assert smsim.single_sm.timed_blocks("share", 64, 4)[:6] == [0, 7, 10, 13, 16, 23]
    assert dev["dram__bytes_read.sum"] == 2 * 8 * 32                 # chunks 0 and 7: 8 sectors each
    assert dev["smsim.l2.sectors_from_other_sms"] == own["dram__bytes_read.sum"] // 32 - 2 * 8


def test_device_sharing_runs_an_in_place_kernel_once_per_block():
    a = np.zeros((24, 32), np.float32)
    smsim.launch(_bump, (4, 3), (8, 8), (a,), config="tiny", overrides={"l2.sharing": "device"})
    assert np.array_equal(a, np.ones_like(a))
    b = np.zeros((40, 32), np.float32)
    smsim.launch(_bump, (4, 5), (8, 8), (b,), config="tiny", overrides={"l2.sharing": "device"}, complete=False)
    # tiny's 4 SMs: this one times blocks 0, 7, 10, 13 and 16; the blocks before the last timed one ran, and
    # those other SMs start with it: 17 and 18 (half of the 4 busy SMs' blocks after it), not 19
    ran = b[::8, ::8].ravel() == 1
    assert ran[:19].all() and not ran[19:].any()


# --------------------------------------------------------------------------------- a policy from outside
class YoungestFirst:
    """A toy policy: the youngest warp first."""
    parked = ()
    calls = 0

    def __init__(self, spec):
        self.spec = spec

    def order(self, warps, t):
        YoungestFirst.calls += 1
        return warps[::-1]

    def issued(self, warps, w):
        """Nothing to remember: the order does not depend on who issued."""


def test_a_policy_registered_by_a_test_runs_a_real_launch():
    SCHEDULER_POLICIES.register("youngest_first")(YoungestFirst)
    try:
        with pytest.raises(ValueError):
            SCHEDULER_POLICIES.register("youngest_first")(YoungestFirst)
        YoungestFirst.calls = 0
        _, res = cases.run_case(cases.get("vector.vec_add"), launch=smsim.launch, config="tiny",
                                overrides={"scheduler.policy": "youngest_first"})   # checks the outputs
        assert res.cycles > 0
        assert res.blocks_timed == 3                  # 12 blocks, every 4th timed
        assert YoungestFirst.calls > 0
        assert res.config.scheduler.policy == "youngest_first"
    finally:
        SCHEDULER_POLICIES.unregister("youngest_first")
    with pytest.raises(ConfigError, match="scheduler.policy"):
        load("tiny", {"scheduler.policy": "youngest_first"})


# ------------------------------------------------------------------------------------------------ front end
def test_front_end_spaces_first_wave_blocks_by_the_device_dispatch_rate_shared_among_busy_sms():
    from smsim.front_end import FrontEnd
    spec = dataclasses.replace(load("h200").launch, first_wave_blocks_per_cycle=0.5)
    fe = FrontEnd(spec, busy=4)                      # 0.5 blocks/cycle for 4 SMs: one every 8 cycles here
    assert [fe.dispatch_at(0.0) for _ in range(3)] == [0.0, 8.0, 16.0]
    assert fe.dispatch_at(100.0) == 100.0            # the dispatcher was idle: no wait
    assert fe.dispatch_at(101.0) == 108.0
    assert fe.blocks == 5 and fe.dispatch_wait == 8 + 16 + 7
    free = FrontEnd(dataclasses.replace(spec, first_wave_blocks_per_cycle=0), busy=4)   # 0: no limit
    assert [free.dispatch_at(3.0) for _ in range(3)] == [3.0, 3.0, 3.0]


def test_front_end_retires_blocks_at_the_device_rate_and_refills_a_slot_after_the_launch_latency():
    from smsim.front_end import FrontEnd
    spec = dataclasses.replace(load("h200").launch, first_wave_blocks_per_cycle=2.0, blocks_per_cycle=0.5,
                               block_launch_cycles=300)
    fe = FrontEnd(spec, busy=4)
    assert [fe.dispatch_at(0.0) for _ in range(3)] == [0.0, 2.0, 4.0]  # the first wave: one every 2 cycles
    assert [fe.retire_at(1000.0), fe.retire_at(1001.0), fe.retire_at(1100.0)] == [1000.0, 1008.0, 1100.0]
    assert fe.dispatch_at(1008.0, refill=True) == 1308.0                # 300 after its slot's retirement
    assert fe.dispatch_wait == 2 + 4 + 300 and fe.retire_wait == 7
    assert fe.metrics(2000.0)["smsim.launch.retire_wait_cycles"] == 7


def test_retirement_room_left_unused_takes_a_later_burst_of_up_to_the_resident_blocks():
    from smsim.front_end import FrontEnd
    spec = dataclasses.replace(load("h200").launch, blocks_per_cycle=0.5)
    fe = FrontEnd(spec, busy=4, resident=3)                              # one block every 8 cycles
    # the first retirements: every SM's first wave finishes at once, so one every 8 cycles
    assert [fe.retire_at(1000.0) for _ in range(3)] == [1000.0, 1008.0, 1016.0]
    # much later: the room the device had for this SM meanwhile takes up to 3 blocks at once, then 8 apart
    assert [fe.retire_at(2000.0) for _ in range(5)] == [2000.0, 2000.0, 2000.0, 2008.0, 2016.0]
    assert fe.retire_wait == 8 + 16 + 8 + 16
    unlimited = FrontEnd(dataclasses.replace(spec, blocks_per_cycle=0), busy=4, resident=3)
    assert [unlimited.retire_at(5.0) for _ in range(3)] == [5.0, 5.0, 5.0]


def test_front_end_cold_instruction_cache_and_constant_cache():
    from smsim.front_end import PARAM_BANK_OFFSET, FrontEnd
    spec = dataclasses.replace(load("h200").launch, icache_cold_cycles=100, const_miss_cycles=300,
                               const_line_bytes=64, const_miss_per_sm_cycles=0, const_line_cycles=0)
    fe = FrontEnd(spec, busy=1)
    assert fe.code_ready(10.0) == 110.0              # the first warp's fetch misses
    assert fe.code_ready(50.0) == 110.0              # warps starting before the code arrives wait for it
    assert fe.code_ready(500.0) == 500.0             # later ones find it
    params = np.array([0, 8], np.uint64)             # two parameters in one 64-byte line of bank 0
    assert fe.constant("param", params, 0.0) == 300.0
    assert fe.constant("param", params, 20.0) == 300.0           # its fill is on the way: wait for it
    assert fe.constant("param", params, 400.0) == 400.0          # a hit
    line_end = 64 - PARAM_BANK_OFFSET % 64                       # the first byte of the next line
    assert fe.constant("param", np.array([line_end], np.uint64), 400.0) == 700.0
    assert fe.constant("const", np.array([0], np.uint64), 400.0) == 700.0   # another bank: its own lines
    m = fe.metrics(1000.0)
    assert m["smsim.launch.const_misses"] == 3 and m["smsim.launch.overhead_ns"] == spec.overhead_ns
    # every busy SM misses on the same parameter lines at once and their requests queue: 132 busy SMs' misses
    # take 131 x const_miss_per_sm_cycles longer than one SM's
    queued = dataclasses.replace(spec, const_miss_per_sm_cycles=1.5, const_line_cycles=60)
    assert FrontEnd(queued, busy=1).constant("param", params, 0.0) == 300.0
    fe = FrontEnd(queued, busy=132)
    assert fe.constant("param", params, 0.0) == 300.0 + 131 * 1.5
    # the SM fetches one missed line at a time: two more lines asked for at once land 60 cycles apart
    assert fe.constant("param", np.array([line_end, line_end + 64], np.uint64), 10.0) == 300.0 + 131 * 1.5 + 120
    assert fe.constant("param", np.array([line_end + 128], np.uint64), 1000.0) == 1300.0 + 131 * 1.5  # long after
    # the H200's: a warp of a one-block kernel waits about 40 cycles for its parameters' one line, one of a
    # kernel of a wave 250 for one and 380 for three
    h200 = load("h200").launch
    assert 30 <= h200.const_miss_cycles <= 60
    assert 230 <= h200.const_miss_cycles + 127 * h200.const_miss_per_sm_cycles <= 270
    assert 340 <= h200.const_miss_cycles + 127 * h200.const_miss_per_sm_cycles + 2 * h200.const_line_cycles <= 400


def test_launch_costs_reach_the_duration_and_the_stall_reasons():
    """An (almost) empty kernel costs the launch overhead plus the cold code fetch and its one parameter's
    constant-cache miss; a kernel reading a parameter stalls on it as imc_miss; the first wave's blocks
    arrive together and all wait for the code; blocks of many waves wait for the device to retire blocks."""
    import workloads
    empty = workloads.get("streams.empty_1block")
    s = empty.setup("test")
    res = smsim.launch(empty.load_kernel(), s.grid, s.block, s.args, config="h200")
    spec = res.config.launch
    assert res.cycles >= spec.icache_cold_cycles + spec.const_miss_cycles       # then block 0's one store
    # only the writing warp reads the parameter, a few instructions in: it waits for what is left of the
    # miss, one SM's (the queue of 132 SMs' misses would be 218 cycles more)
    assert res.stalls["imc_miss"] <= spec.const_miss_cycles
    assert res.metrics["gpu__time_duration.sum"] == pytest.approx(spec.overhead_ns + res.cycles / 1.9788, rel=1e-3)
    assert res.stalls["no_instruction"] >= 4 * spec.icache_cold_cycles          # its four warps all waited
    copy = workloads.get("streams.launch_1block")
    s = copy.setup("test")
    res = smsim.launch(copy.load_kernel(), s.grid, s.block, s.args, config="h200")
    # each warp waits for the miss, less the part its first S2R's result takes anyway (short_scoreboard)
    assert res.stalls["imc_miss"] >= 4 * (spec.const_miss_cycles - res.config.special.latency_cycles - 10)
    many = workloads.get("streams.empty_128waves")
    s = many.setup("test")
    res = smsim.launch(many.load_kernel(), s.grid, s.block, s.args, config="h200")
    interval = 132 / spec.blocks_per_cycle
    assert res.blocks_timed == 128
    last_block = 127 * interval                                                 # when the 128th block retires
    assert last_block < res.cycles < last_block + spec.icache_cold_cycles + spec.const_miss_cycles + 200
    wave = workloads.get("streams.empty_16waves")                               # 16 blocks/SM, all resident
    s = wave.setup("test")
    res = smsim.launch(wave.load_kernel(), s.grid, s.block, s.args, config="h200")
    assert res.blocks_timed == 16 and res.cycles >= 15 * interval               # bound by their retirement
    apart = 132 / spec.first_wave_blocks_per_cycle                              # the first wave's blocks
    early = [k * apart for k in range(16) if k * apart < spec.icache_cold_cycles]   # start before the code
    assert len(early) >= 8                                                      # is there, and wait for it
    assert res.stalls["no_instruction"] >= 4 * sum(spec.icache_cold_cycles - t for t in early)


def test_l2_atomic_units_serialize_each_slice_and_share_it_with_the_busy_sms():
    spec = dataclasses.replace(TINY.l2, atomic_op_cycles=2.0, slices=4, slice_bytes=512)
    l2 = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=3)
    l2.read(_sectors(0, 1, 16, 17), 0.0)                  # warm: later reads hit, 20 cycles after the port
    # one sector, 4 operations: port 100..100.5 (32 B at 64 B/cycle), there at 120.5, done 120.5 + 4 x 2 =
    # 128.5; the unit, shared by 3 SMs, is free again at 120.5 + 3 x 8 = 144.5
    assert l2.atomic(_sectors(0), 100.0, np.array([4])) == 128.5
    assert l2.atomic(_sectors(1), 101.0, np.array([1])) == 146.5     # same chunk, same slice: waits until 144.5
    # sector 16 is in the next 512-byte chunk, another slice: no wait (port 102..102.5, there at 122.5)
    assert l2.atomic(_sectors(16), 102.0, np.array([1])) == 124.5


def test_float_adds_on_one_sector_wait_for_each_other_and_interleaved_sectors_hide_it():
    spec = dataclasses.replace(TINY.l2, atomic_op_cycles=2.0, float_atomic_cycles=5.0, slices=4, slice_bytes=512)
    l2 = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=1)
    l2.read(_sectors(0, 1, 2, 3, 4), 0.0)               # warm: the atomics' sectors hit, 20 cycles after the port
    # 32 lanes on a word of sector 0 in turn: the unit's float adds have named one sector, 5 each
    assert l2.atomic(_sectors(0), 100.0, np.array([32]), floating=True) == 120.5 + 32 * 5
    # an integer request of the same shape: 32 x 2
    ints = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=1)
    ints.read(_sectors(0, 1), 0.0)
    assert ints.atomic(_sectors(0), 100.0, np.array([32]), floating=False) == 120.5 + 32 * 2
    # once the unit has seen four sectors (all in one 512-byte chunk: one slice), an add waits max(2, 5 / 4)
    for k in (1, 2):
        l2.atomic(_sectors(k), 300.0, np.array([1]), floating=True)
    t = l2.unit_free.max()
    assert l2.atomic(_sectors(3), t, np.array([8]), floating=True) == t + 20.5 + 8 * 2.0
    # the blocks around this SM's add into other sectors of that slice: they hide the latency too
    fresh = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=1)
    fresh.read(_sectors(0, 1, 2, 3, 4), 0.0)
    fresh.atomics_by_others(_sectors(1, 2, 3), np.array([32, 32, 32]))
    assert fresh.atomic(_sectors(0), 100.0, np.array([32]), floating=True) == 120.5 + 32 * 2.0


def test_other_sms_atomics_load_the_slices_the_blocks_around_this_sms_add_into():
    """[hw19] a segmented sum's blocks add into their own words: the other SMs' adds fall on other slices (the
    H200's drills.segment_sum takes 8.9 us where spreading them as this SM's took 55)."""
    spec = dataclasses.replace(TINY.l2, atomic_op_cycles=2.0, slices=4, slice_bytes=512)

    def done(others=None):
        l2 = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=3)
        l2.read(_sectors(0, 16, 32, 48), 0.0)
        if others is not None:
            l2.atomics_by_others(*others)
        l2.atomic(_sectors(0), 100.0, np.array([4]))
        return l2.atomic(_sectors(0), 101.0, np.array([4]))       # waits for its unit's backlog

    chunk = 16                                                    # sectors a 512-byte chunk holds
    units = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0)._slices(np.arange(4) * chunk)
    other = int(np.flatnonzero(units != units[0])[0]) * chunk       # a sector on another slice than sector 0
    # unknown: the 2 other SMs' requests cost what this one did (4 x 2), on this SM's slice: 120.5 + 8 + 16,
    # then this request's 8
    assert done() == 120.5 + 8 + 2 * 8 + 8
    # their blocks add into another slice: nobody else's work on sector 0's
    assert done((_sectors(other), np.array([64]))) == 120.5 + 8 + 8
    # into the same sector: as unknown; none at all: nothing joins
    assert done((_sectors(0), np.array([64]))) == done()
    assert done((np.zeros(0, np.int64), np.zeros(0, np.int64))) == 120.5 + 8 + 8


def test_l2_atomics_done_is_the_busiest_slices_backlog_with_the_other_sms_work():
    """The kernel's end waits for every atomic the busy SMs sent (single_sm.py): the slices' backlog after
    the other SMs' operations joined, on slices this SM never named too (bootcamp.warp_atomic_same: a warp's
    32 lanes on one of 1024 words, 8 slices busy, this SM's block on one of them)."""
    spec = dataclasses.replace(TINY.l2, atomic_op_cycles=2.0, slices=4, slice_bytes=512)
    chunk = 16
    units = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0)._slices(np.arange(4) * chunk)
    other = int(np.flatnonzero(units != units[0])[0]) * chunk
    l2 = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=3)
    l2.read(_sectors(0, other), 0.0)
    assert l2.atomics_done == 0.0                                 # none yet
    l2.atomics_by_others(_sectors(other), np.array([64]))         # the blocks around add into another slice
    # this SM's 4 operations on sector 0: there at 120.5, done 128.5; the 2 other SMs' as many (2 x 8) on the
    # other slice, which starts on them when this request's data is there: 136.5, the busiest
    assert l2.atomic(_sectors(0), 100.0, np.array([4])) == 128.5
    assert l2.atomics_done == 120.5 + 2 * 8
    # spread as this SM's own (unknown): on its slice, after its own operations
    alone = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=3)
    alone.read(_sectors(0), 0.0)
    assert alone.atomic(_sectors(0), 100.0, np.array([4])) == 128.5
    assert alone.atomics_done == 128.5 + 2 * 8


def test_l2_takes_an_atomic_up_after_the_work_queued_at_its_slice_not_its_datas_fetch():
    """L2.atomic_taken: when a slice's unit takes a request up, the work before it done (this SM's operations
    and the other SMs', as if their data were there); L1 holds later read misses behind it (hw29)."""
    spec = dataclasses.replace(TINY.l2, atomic_op_cycles=2.0, slices=4, slice_bytes=512)
    l2 = L2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=3)
    l2.read(_sectors(0, 1), 0.0)
    l2.atomic(_sectors(0), 100.0, np.array([4]))
    assert l2.atomic_taken == 100.0                     # nothing queued before it
    # its 4 operations (8 cycles) and the 2 other SMs' as many (16) queued on its slice: the next request on
    # that slice (sector 1, the same 512-byte chunk) is taken up at 100 + 8 + 16
    l2.atomic(_sectors(1), 101.0, np.array([1]))
    assert l2.atomic_taken == 124.0
    # a sector of another chunk on another slice (not yet in L2: its fetch is not the queue's) at once
    chunk = 16
    units = l2._slices(np.arange(4) * chunk)
    other = int(np.flatnonzero(units != units[0])[0]) * chunk
    l2.atomic(_sectors(other), 102.0, np.array([1]))
    assert l2.atomic_taken == 102.0


def test_l1_holds_read_misses_behind_an_atomic_until_its_slice_takes_it_up():
    for holds, asked in ((True, 500.0), (False, 11.0 + TINY.l1.hit_latency_cycles)):
        l1, l2 = _l1(atomic_holds_reads=holds)
        l2.atomic_taken = 500.0                          # the slice's queue takes the reduction up at 500
        l1.access("red", "global", np.array([100], np.int64), 1, True, np.array([1]), 0.0)
        _ld(l1, [0, 1, 2, 3], 10.0)                      # a read miss after it: tag 10..11, L2 asked at 11 + 8
        assert l2.calls[-1][0] == "read" and l2.calls[-1][2] == asked, holds


def test_atomic_ops_per_sector_are_the_most_lanes_on_one_address():
    from smsim.fast.coalesce import atomic_ops
    same = np.zeros(32, np.uint64)                          # every lane on one word: 32 in turn
    assert atomic_ops(same, 32).tolist() == [32]
    spread = np.arange(32, dtype=np.uint64) * 4             # 32 words in 4 sectors: one each
    assert atomic_ops(spread, 32).tolist() == [1, 1, 1, 1]
    mixed = np.array([0, 0, 0, 4, 4, 32, 36, 36, 36, 36, 100], np.uint64)
    assert atomic_ops(mixed, 32).tolist() == [3, 4, 1]      # per sector, ascending, as coalesce.sectors


def test_multi_rounds_are_a_swaps_operations_that_name_more_than_one_word_of_the_sector():
    """A compare-and-swap's rounds that name several words of a sector cost l2.cas_round_cycles
    (docs/hardware/cas_hw.md): per sector, the second most lanes on one word."""
    from smsim.fast.coalesce import atomic_ops, multi_rounds
    assert multi_rounds(np.zeros(32, np.uint64), 32).tolist() == [0]                # one word: none
    assert multi_rounds(np.arange(32, dtype=np.uint64) * 4, 32).tolist() == [1, 1, 1, 1]
    assert multi_rounds(np.arange(32, dtype=np.uint64) // 4 * 4, 32).tolist() == [4]     # 8 words, 4 lanes each
    assert multi_rounds(np.arange(32, dtype=np.uint64) % 4 * 4, 32).tolist() == [8]      # 4 words, 8 lanes each
    mixed = np.array([0, 0, 0, 4, 40, 40, 44, 100], np.uint64)
    assert atomic_ops(mixed, 32).tolist() == [3, 2, 1] and multi_rounds(mixed, 32).tolist() == [1, 1, 0]
    assert multi_rounds(np.array([], np.uint64), 32).tolist() == []
    rng = np.random.default_rng(5)                      # against counting the lanes on each word
    for span in (8, 64, 1024):
        a = rng.integers(0, span, 32).astype(np.uint64) * 4
        words, lanes = np.unique(a, return_counts=True)
        want = [int(np.sort(lanes[words // 32 == s])[::-1][1:2].sum()) for s in np.unique(words // 32)]
        assert multi_rounds(a, 32).tolist() == want


def test_whole_rounds_are_the_operations_that_name_every_word_of_the_sector():
    from smsim.fast.coalesce import atomic_ops, whole_rounds, whole_rounds_np
    line = np.arange(32, dtype=np.uint64) * 4                          # 32 words: each sector's 8 words once
    assert whole_rounds(line, 4, 32).tolist() == [1, 1, 1, 1]
    four = np.arange(32, dtype=np.uint64) // 4 * 4                     # 8 words of a sector, 4 lanes each
    assert atomic_ops(four, 32).tolist() == [4] and whole_rounds(four, 4, 32).tolist() == [4]
    assert whole_rounds(np.zeros(32, np.uint64), 4, 32).tolist() == [0]             # one word: none
    # sector 0: all 8 words, word 0 three lanes, the others one or two: one operation names all 8, the
    # other two name part of it; sector 1: 2 of its 8 words
    mixed = np.array([0, 0, 0, 4, 4, 8, 12, 16, 20, 24, 28, 40, 40, 44], np.uint64)
    assert atomic_ops(mixed, 32).tolist() == [3, 2] and whole_rounds(mixed, 4, 32).tolist() == [1, 0]
    # 64-bit atomics: a sector has 4 words
    assert whole_rounds(np.arange(32, dtype=np.uint64) * 8, 8, 32).tolist() == [1] * 8
    assert whole_rounds(np.arange(32, dtype=np.uint64) * 8, 4, 32).tolist() == [0] * 8
    assert whole_rounds(np.array([], np.uint64), 4, 32).tolist() == []
    rng = np.random.default_rng(3)                      # the numba function against its numpy twin
    for nbytes in (4, 8):
        for span in (8, 32, 64, 1024):
            a = rng.integers(0, span, 32).astype(np.uint64) * nbytes
            assert whole_rounds(a, nbytes, 32).tolist() == whole_rounds_np(a, nbytes, 32).tolist()


def test_l2_atomic_operations_on_a_whole_sector_take_the_round_cost_and_on_part_of_it_the_operation_cost():
    # [hw12]: 32 lanes on 8 words of a sector, 4 rounds, take 1.16 cycles each on an H200; one word's adds
    # 1.45, random histogram bins (part of a sector each) 1.40-1.44
    spec = dataclasses.replace(TINY.l2, atomic_op_cycles=2.0, atomic_round_cycles=1.5, slices=4, slice_bytes=512)

    def took(ops, whole=None, floating=False, float_cycles=0.0):
        """Unit cycles of one request on a warm sector of an idle L2 (its arrival: a lone add's done less 2)."""
        cycles = []
        for o, k in (([1], None), (ops, whole)):
            l2 = L2(dataclasses.replace(spec, float_atomic_cycles=float_cycles), 4096, BandwidthQueue(64.0),
                    _dram(), seed=0, busy=1)
            l2.read(_sectors(0), 0.0)
            cycles.append(l2.atomic(_sectors(0), 100.0, np.array(o), floating=floating,
                                    whole=None if k is None else np.array(k)))
        return cycles[1] - (cycles[0] - 2.0)

    assert took([5], [3]) == 3 * 1.5 + 2 * 2        # 3 rounds over the whole sector, 2 over part of it
    assert took([4], [4]) == 4 * 1.5
    assert took([5]) == took([5], [0]) == 5 * 2     # without ``whole`` no round is taken to name all words
    # a float add over a whole sector takes the round cost, one over part of it the operation cost (the
    # adder's latency, 1, is below both)
    assert took([1], [1], True, 1.0) == 1.5 and took([1], [0], True, 1.0) == 2.0


def test_l2_reads_dram_in_whole_accesses_and_keeps_the_neighbours():
    hbm = Dram(dataclasses.replace(TINY.dram, loaded_latency_cycles=0, access_bytes=64), BandwidthQueue(32.0), 32)
    l2 = L2(TINY.l2, 4096, BandwidthQueue(64.0), hbm, seed=0)
    l2.read(_sectors(4), 0.0)                     # one sector missed: its 64-byte access brings sector 5 too
    assert hbm.bytes_read == 64
    assert l2.read(_sectors(5), 500.0).tolist() == [500.5 + 20]      # the neighbour is an L2 hit
    assert hbm.bytes_read == 64
    l2.read(_sectors(8, 9, 10, 11), 600.0)        # whole accesses: no extra bytes
    assert hbm.bytes_read == 64 + 128


def test_stores_count_the_sectors_they_write_in_part():
    from smsim.fast.coalesce import bytes_written, sectors
    full = np.arange(32, dtype=np.uint64) * 4            # 128 consecutive bytes: 4 whole sectors
    assert bytes_written(full, 4, 32).tolist() == [32, 32, 32, 32]
    stride2 = np.arange(32, dtype=np.uint64) * 8          # every other word: 8 sectors half written
    assert len(sectors(stride2, 4, 32)) == 8 and bytes_written(stride2, 4, 32).tolist() == [16] * 8
    same = np.zeros(32, np.uint64)                        # 32 lanes on one word: 4 bytes of one sector
    assert bytes_written(same, 4, 32).tolist() == [4]
    l2 = _l2()
    l2.write(sectors(stride2, 4, 32), 0.0, bytes_written(stride2, 4, 32))
    assert l2.metrics(100.0)["smsim.l2.partial_sector_writes"] == 8


def test_stores_name_the_words_they_write_in_part():
    from smsim.fast.coalesce import part_words
    column = np.arange(32, dtype=np.uint64) * 160         # a byte transpose's lanes: each in a word of its own
    assert part_words(column, 1).tolist() == (np.arange(32) * 40).tolist()
    assert part_words(np.arange(32, dtype=np.uint64), 1).tolist() == []          # 32 consecutive bytes: whole
    assert part_words(np.arange(32, dtype=np.uint64)[::-1] * 2, 2).tolist() == []  # 16-bit, consecutive
    assert part_words(np.arange(32, dtype=np.uint64) * 4, 2).tolist() == list(range(32))   # every other half
    pairs = np.array([0, 1, 1, 2, 4, 5, 6, 7, 9], np.uint64)  # word 0: bytes 0-2; word 1 whole; word 2: byte 9
    assert part_words(pairs, 1).tolist() == [0, 2]
    assert part_words(np.arange(32, dtype=np.uint64) * 8, 4).tolist() == []     # words and wider: never
    from smsim.fast.coalesce import part_sectors
    assert part_sectors(column, 1, 32).tolist() == (np.arange(32) * 5).tolist()  # 160-byte rows: sector 5k
    assert part_sectors(pairs, 1, 32).tolist() == [0]
    assert part_sectors(np.arange(32, dtype=np.uint64), 1, 32).tolist() == []


def test_l2_completes_a_partly_written_sector_from_dram_only_when_it_leaves_still_partial():
    hbm = _dram()
    l2 = L2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)      # one set of 8 lines of 4 sectors
    half = np.array([16])
    l2.write(_sectors(0), 0.0, half)                 # line 0, sector 0: half written, L2 did not hold it
    l2.write(_sectors(1), 1.0, half)                 # sector 1: half ...
    l2.write(_sectors(1), 2.0, half)                 # ... and the other half: whole, nothing to complete
    assert hbm.bytes_read == 0 and hbm.bytes_write == 3 * 32      # written through at once
    l2.write(_sectors(2), 3.0, np.array([32]))       # a whole sector: nothing to complete
    l2.read(_sectors(4, 5), 4.0)                     # line 1
    l2.write(_sectors(5), 5.0, half)                 # held by L2 (the read brought it): nothing owed
    assert hbm.bytes_read == 64
    for line in range(2, 9):                         # 7 more lines: line 0 (least recently used) leaves
        l2.read(_sectors(4 * line), 10.0 + line)
    assert hbm.bytes_read == 64 + 7 * 32 + 32        # ... and its half-written sector 0 is read
    m = l2.metrics(100.0)
    assert m["smsim.l2.partial_sector_writes"] == 4 and m["smsim.l2.partial_sectors_completed"] == 1


def test_l2_keeps_at_most_partial_lines_lines_holding_partly_written_sectors_the_oldest_completed_first():
    spec = dataclasses.replace(TINY.l2, partial_lines=2)             # two lines (of the whole L2)
    hbm = _dram()
    l2 = L2(spec, spec.size_bytes, BandwidthQueue(64.0), hbm, seed=0)
    half = np.array([16])
    l2.write(_sectors(0), 0.0, half)
    l2.write(_sectors(4), 1.0, half)
    assert hbm.bytes_read == 0                       # two kept
    l2.write(_sectors(8), 2.0, half)                 # a third: the oldest (line 0) is completed now
    assert hbm.bytes_read == 32 and l2.partial_filled == 1
    l2.write(_sectors(4), 3.0, half)                 # line 1's sector written whole: no longer owed
    l2.write(_sectors(12), 4.0, half)
    assert hbm.bytes_read == 32 and len(l2.partial) == 2
    # more sectors in part of a line L2 keeps cost no room: lines count, not sectors (streams.store_stride8)
    l2.write(_sectors(9, 10, 11), 5.0, np.array([16, 16, 16]))
    assert hbm.bytes_read == 32 and len(l2.partial) == 2 and len(l2.partial[2]) == 4
    l2.write(_sectors(16), 6.0, half)                # a third line: line 2, four sectors, completed
    assert hbm.bytes_read == 32 + 4 * 32 and l2.partial_filled == 5
    with pytest.raises(ConfigError, match="l2.partial_lines"):
        load("tiny", {"l2.partial_lines": -1})


def test_l2_slices_take_written_sectors_partial_ones_into_sectors_not_held_whole_dearer():
    from smsim.mem.l2_write_back import WriteBackL2
    # 4 slices shared by 2 busy SMs: this SM's written sectors are served at 4 / 2 per slice's cycles
    spec = dataclasses.replace(TINY.l2, slices=4, partial_write_cycles=4.0, write_sector_cycles=1.0)
    for model in (L2, WriteBackL2):
        l2 = model(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=2)
        half, whole = np.array([16, 16]), np.array([32, 32])
        # two whole sectors: port 0..1, slices 2 x 1 x 2 / 4 = 1 -> 2, acknowledged after the hit latency
        assert l2.write(_sectors(0, 1), 0.0, whole) == pytest.approx(2 + 20)
        # two half sectors L2 does not hold, in two lines: 2 x 4 x 2 / 4 = 4 cycles of the slices, from 11
        assert l2.write(_sectors(8, 12), 10.0, half) == pytest.approx(15 + 20)
        # the other halves of those: still held only in part, as dear; then the slices are free at 23
        assert l2.write(_sectors(8, 12), 12.0, half) == pytest.approx(19 + 20)
        # halves into sectors L2 holds whole (a read brought them, or a whole write), by a store L1 could
        # merge with its warp's next ones (narrow): the whole rate
        l2.read(_sectors(16, 17), 30.0)
        assert l2.write(_sectors(16, 1), 200.0, half) == pytest.approx(202 + 20)
        # by a wider store (the H200 merges none: prefix_row32's into sectors its loads brought take what
        # warp_k1_spread's into sectors L2 did not hold take): as dear as into any, 2 x 4 x 2 / 4 = 4
        l2.read(_sectors(20, 24), 230.0)
        assert l2.write(_sectors(20, 24), 300.0, half, narrow=False) == pytest.approx(305 + 20)
        assert l2.metrics(400.0)["smsim.l2.partial_sector_writes"] == 8
        # four half sectors of one line L2 does not hold: port 400..402, one merge for the line: (4 x 1 + 3)
        # x 2 / 4 = 3.5 cycles of the slices, not 4 x 4 x 2 / 4 = 8 as four lines' sectors (the H200's
        # store_merge_hw: 1.82 cycles a sector for 4 sectors a line, 3.12 for one)
        assert l2.write(_sectors(64, 65, 66, 67), 400.0, np.full(4, 16)) == pytest.approx(405.5 + 20)
    with pytest.raises(ConfigError, match="l2.partial_write_cycles"):
        load("tiny", {"l2.partial_write_cycles": 0.5, "l2.write_sector_cycles": 1.0})


def test_stores_into_part_of_a_sectors_words_take_turns_at_l2_for_every_block_storing_there():
    """docs/hardware/column_store_hw.md: a byte transpose's 32 one-byte stores into each output sector, from 32
    warps of four blocks, take the H200 2400-2600 cycles longer than float32's, in one wave of any size: a
    chain per sector (docs/hardware/subword_hw.md: four such stores a sector, 0-250 cycles)."""
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, subword_chain_cycles=100.0)
    for model in (L2, WriteBackL2):
        l2 = model(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=1)
        one = np.array([1])
        # port 0..0.5: the first store into part of sectors 10 and 11 waits for nothing
        assert l2.write(_sectors(10), 0.0, one, part=np.array([10, 11])) == pytest.approx(0.5 + 20)
        # the next into sector 10 begins 100 cycles after the first began (0.5); a third 100 after that
        assert l2.write(_sectors(10), 1.0, one, part=np.array([10])) == pytest.approx(100.5 + 20)
        assert l2.write(_sectors(10), 2.0, one, part=np.array([10, 12])) == pytest.approx(200.5 + 20)
        # sector 11's second waits for its first only; a store of whole words waits for none
        assert l2.write(_sectors(11), 3.0, one, part=np.array([11])) == pytest.approx(100.5 + 20)
        assert l2.write(_sectors(10), 4.0, np.array([4])) == pytest.approx(4.5 + 20)
        # long after: no wait
        assert l2.write(_sectors(10), 1000.0, one, part=np.array([10])) == pytest.approx(1000.5 + 20)
        m = l2.metrics(2000.0)
        assert m["smsim.l2.part_word_sector_writes"] == 7
        assert m["smsim.l2.part_word_wait_cycles"] == pytest.approx(99 + 198 + 97)
    # where blocks of three other SMs store into sector 40 at once, each of this SM's stores stands for four
    l2 = WriteBackL2(spec, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=4)
    l2.written_by_others(np.array([40]), np.array([4]))
    l2.write(_sectors(40), 0.0, np.array([1]), part=np.array([40]))
    assert l2.write(_sectors(40), 1.0, np.array([1]), part=np.array([40])) == pytest.approx(400.5 + 20)
    off = L2(TINY.l2, 4096, BandwidthQueue(64.0), _dram(), seed=0, busy=1)      # subword_chain_cycles 0: none
    off.write(_sectors(10), 0.0, np.array([1]), part=np.array([10]))
    assert off.write(_sectors(10), 1.0, np.array([1]), part=np.array([10])) == pytest.approx(1.5 + 20)


def test_l2_slices_write_dram_fills_into_their_data_arrays_in_the_cycles_stores_take():
    """docs/hardware/mid_stores_hw.md: a float64 stream that stores what it loaded, over arrays L2 holds, takes the
    H200 up to 1.5 us longer than reading alone, its loads waiting longer, while storing alone is no slower: the
    slices write DRAM's sectors into their data arrays in the cycles they take stores' sectors in."""
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, slices=4, write_sector_cycles=20.0, partial_write_cycles=20.0,
                               fill_sector_cycles=2.0)

    def run(model, fill: float, store: bool) -> tuple:
        """(when a read of two sectors from DRAM at 0 lands, the L2), after a store of 8 whole sectors at 0 (port
        0..4, then 8 x 20 x 2 / 4 = 80 cycles of this SM's share of the slices: 4..84)."""
        l2 = model(dataclasses.replace(spec, fill_sector_cycles=fill), 4096, BandwidthQueue(64.0), _dram(1e6),
                   seed=0, busy=2)        # HBM's bus all but free: the store written on does not hold the read up
        if store:
            assert l2.write(_sectors(*range(64, 72)), 0.0, np.full(8, 32)) == pytest.approx(84 + 20)
        return float(l2.read(_sectors(0, 1), 0.0).max()), l2

    for model in (L2, WriteBackL2):
        lands, _ = run(model, 0.0, False)       # DRAM's two sectors land, the slices idle
        # idle slices: the two fills take 2 x 2 x 2 / 4 = 2 cycles of this SM's share of them
        assert run(model, 2.0, False)[0] == pytest.approx(lands + 2)
        # the slices busy with the store's sectors as they land (without the fill cost they land before 84):
        # the fills after them
        assert run(model, 0.0, True)[0] < 84
        got, l2 = run(model, 2.0, True)
        assert got == pytest.approx(84 + 2) and l2.slice_writes.free == pytest.approx(got)
        # sectors L2 holds are not written again: a hit takes no slice time
        l2.read(_sectors(0, 1), 300.0)
        assert l2.slice_writes.busy == pytest.approx(80 + 2)


def test_l2_takes_bytes_l1_merged_into_a_waiting_write_without_time_and_gives_back_a_whole_lines_merge():
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, slices=4, partial_write_cycles=4.0, write_sector_cycles=1.0)
    for model in (L2, WriteBackL2):
        hbm = _dram()
        l2 = model(spec, 4096, BandwidthQueue(64.0), hbm, seed=0, busy=2)
        # four half sectors of line 16 and one of line 17: port 0..2.5, slices (5 + 2 x 3) x 2 / 4 = 5.5
        l2.write(_sectors(64, 65, 66, 67, 68), 0.0, np.full(5, 16))
        assert l2.paid_lines.tolist() == [16, 17] and l2.slice_writes.free == pytest.approx(8.0)
        # another warp's halves joined it in L1: line 16 whole, line 17 not: its merge (3 x 2 / 4) given back
        l2.merged(_sectors(64, 65, 66, 67, 68), np.full(5, 16), l2.paid_lines, np.array([16]), 3.0)
        assert l2.slice_writes.free == pytest.approx(6.5) and l2.sectors_write == 5
        # the five are whole now: nothing is read from DRAM to complete them when they leave L2
        held = l2._held_in_part(_sectors(64, 65, 66, 67, 68)).tolist()
        assert held == [False] * 5, model
        # what is given back is never work done before the merge (at 100 the slices were done at 6.5)
        l2.merged(_sectors(64), np.array([16]), np.array([16]), np.array([16]), 100.0)
        assert l2.slice_writes.free == pytest.approx(6.5)


def test_write_back_l2_writes_dirty_sectors_when_their_line_is_evicted():
    from smsim.mem.l2_write_back import WriteBackL2
    assert L2_MODELS.get("write_back") is WriteBackL2
    hbm = _dram()
    l2 = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
    full, half = np.array([32]), np.array([16])
    l2.write(_sectors(0), 0.0, full)                 # line 0: sector 0 whole
    l2.write(_sectors(1), 1.0, half)                 # line 0: sector 1 half written (L2 did not hold it)
    for line in range(1, 8):                         # fill the other 7 ways: nothing goes to DRAM
        l2.write(_sectors(4 * line), 10.0 + line, full)
    assert hbm.bytes_write == 0 and hbm.bytes_read == 0
    assert l2.metrics(100.0)["smsim.l2.dirty_sectors_at_end"] == 9
    l2.write(_sectors(32), 50.0, full)               # a 9th line evicts line 0 (least recently used)
    assert hbm.bytes_write == 2 * 32                 # its two dirty sectors
    assert hbm.bytes_read == 32                      # the half-written one completed from DRAM first
    m = l2.metrics(100.0)
    assert m["smsim.l2.sectors_written_back"] == 2 and m["smsim.l2.partial_sectors_completed"] == 1
    assert m["smsim.l2.partial_sector_writes"] == 1 and m["smsim.l2.dirty_sectors_at_end"] == 8
    l2.read(_sectors(64), 60.0)                      # a read miss evicts too: line 1's one dirty sector
    assert hbm.bytes_write == 3 * 32


def test_a_read_of_a_sector_l2_holds_only_in_part_waits_for_dram_and_completes_it():
    """docs/hardware/store_resident_hw.md: one warp an SM loading the sector it has just written 4 of 32 bytes
    of waits as long as a DRAM read on an H200 (442 us over 4 M records, smsim 177 as an L2 hit, 440 now)."""
    from smsim.mem.l2_write_back import WriteBackL2
    for model in (L2, WriteBackL2):
        hbm = _dram()
        l2 = model(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
        l2.write(_sectors(0), 0.0, np.array([32]))        # sector 0 whole
        l2.write(_sectors(1), 0.0, np.array([4]))         # sector 1: 4 bytes of 32 (L2 did not hold it)
        read = hbm.bytes_read
        whole = float(l2.read(_sectors(0), 100.0)[0])
        part = float(l2.read(_sectors(1), 100.0)[0])
        assert whole < 100.0 + TINY.l2.hit_latency_cycles + 1 and part > whole + 50, model   # a DRAM read
        assert hbm.bytes_read > read, model
        again = float(l2.read(_sectors(1), 1000.0)[0])    # complete now: a hit
        assert again - 1000.0 == whole - 100.0, model
    assert l2.n_part == 0 and l2.part_count == {} and l2.dirty[0] == {0: 32, 1: 32}


def test_an_atomics_line_is_written_back_when_the_share_lets_it_go_unless_the_devices_l2_still_holds_it():
    """docs/hardware/atomic_dirty_hw.md: float adds into y in turn write y back on an H200 (53 MB for 64), at
    random over 16 MB write nothing (every SM keeps taking its lines: the device's L2 keeps them)."""
    from smsim.mem.l2_write_back import WriteBackL2
    for device, written in ((None, 2), (lambda s: s == 4, 1), (lambda s: s >= 0, 0)):
        hbm = _dram()
        l2 = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
        l2.device_holds = None if device is None else (lambda s, f=device: np.array([f(x) for x in s.tolist()]))
        l2.atomic(_sectors(0), 0.0, np.array([1]))     # lines 0 and 1: an atomic's sector each, whole
        l2.atomic(_sectors(4), 1.0, np.array([1]))
        assert l2.n_dirty == 2 and l2.n_part == 0
        for line in range(2, 10):                     # the share lets lines 0 and 1 go
            l2.read(_sectors(4 * line), 10.0 + line)
        assert hbm.bytes_write == 32 * written and l2.written_back == written and l2.completed == 0
        assert l2.kept_by_device == 2 - written and l2.n_dirty == 0


def test_a_stored_line_other_sms_touched_stays_dirty_in_the_devices_l2_until_the_device_lets_it_go():
    """Mid-size validation (docs/hardware/validate_hw.md): words scattered at random into an 8 MB array L2
    holds, from every SM (streams.store_scatter), write 4.9 MB back on an H200, where one SM's share, letting
    the lines go as its own part of L2 fills, wrote 57 MB."""
    from smsim.mem.l2_write_back import WriteBackL2
    holds = {0, 1, 2, 3}                             # the device's L2 holds line 0's sectors
    hbm = _dram()
    l2 = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
    l2.device_holds = lambda s: np.array([x in holds for x in s.tolist()], bool)
    l2.held_by_others(_sectors(0), 0.0)              # another SM's block touched line 0's sector 0
    full = np.array([32])
    l2.write(_sectors(0), 1.0, full)                 # line 0: the device's; line 1: this share's alone
    l2.write(_sectors(4), 2.0, full)
    for line in range(2, 10):                        # the share lets lines 0 and 1 go
        l2.read(_sectors(4 * line), 10.0 + line)
    assert hbm.bytes_write == 32 and l2.written_back == 1 and list(l2.deferred) == [0]
    assert l2.metrics(100.0)["smsim.l2.dirty_sectors_at_end"] == 1       # line 0's: still dirty at the end
    holds.clear()                                    # the device lets line 0 go: the next fill writes it back
    l2.read(_sectors(40), 30.0)
    assert hbm.bytes_write == 2 * 32 and l2.written_back == 2 and not l2.deferred
    # a store into a line kept for the device brings it back into the share's dirty lines
    holds.update(range(44, 48))
    l2.held_by_others(_sectors(44), 31.0)
    l2.write(_sectors(44), 32.0, np.array([16]))     # into a sector another SM touched: whole
    l2.write(_sectors(46), 33.0, np.array([16]))     # half of one no other SM touched: in part
    assert l2.n_part == 1 and l2.part_count == {11: 1}
    for line in range(12, 20):
        l2.read(_sectors(4 * line), 40.0 + line)
    assert list(l2.deferred) == [11] and l2.n_part == 0 and l2.part_count == {} and l2.n_dirty == 0
    l2.write(_sectors(45), 70.0, full)
    assert not l2.deferred and l2.n_dirty == 3 and l2.n_part == 1 and l2.part_count == {11: 1}


def test_a_sector_blocks_of_several_sms_store_into_is_written_back_once_whole_by_one_of_them():
    from smsim.mem.l2_write_back import WriteBackL2
    hbm = _dram()
    l2 = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
    word = np.array([4])
    # lines 0 and 1's sector 0: 8 blocks store a word each (a reduction's partial sums), this SM's share
    # writes line 0's back; line 2's: 2 blocks of 8 words' room, 4 bytes each, left part-written
    l2.written_by_others(_sectors(0, 4, 8), np.array([8, 0, 2]))
    for line in range(3):
        l2.write(_sectors(4 * line), float(line), word)
    assert l2.n_dirty == 2 and l2.n_part == 1                   # line 1's is another SM's; line 2's in part
    assert l2._held_in_part(_sectors(0, 4, 8)).tolist() == [True, True, True]   # as the slices see it now
    for line in range(3, 11):                         # evict lines 0, 1 and 2 (least recently used)
        l2.write(_sectors(4 * line), 10.0 + line, np.array([32]))
    assert l2.written_back == 2                       # lines 0 and 2
    assert l2.completed == 1 and hbm.bytes_read == 32   # line 0's the 8 blocks filled; line 2's read first


def test_a_sector_written_in_part_that_later_blocks_of_other_sms_touch_is_completed_by_them_not_read():
    from smsim.mem.l2_write_back import WriteBackL2
    hbm = _dram()
    l2 = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
    l2.device_holds = lambda sectors: np.zeros(len(sectors), bool)    # the device lets every line go
    eight = np.array([8])
    l2.write(_sectors(0), 0.0, eight)                # lines 0 and 1: 8 bytes of a sector each, in part
    l2.write(_sectors(4), 1.0, eight)
    assert l2.n_part == 2 and set(l2.part_count) == {0, 1}
    l2.touched_by_others(np.array([0, 0, 8]))        # later blocks of other SMs touch line 0's sector (twice)
    assert l2.n_part == 1 and set(l2.part_count) == {1} and 0 in l2.shared_lines
    l2.write(_sectors(8), 2.0, eight)                # line 2: a sector they touched before this store
    assert l2.n_part == 1                            # whole as written: theirs complete it
    for line in range(3, 11):                        # evict lines 0, 1 and 2
        l2.write(_sectors(4 * line), 10.0 + line, np.array([32]))
    assert l2.written_back == 3 and l2.completed == 1 and hbm.bytes_read == 32   # only line 1's is read
    untouched = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), _dram(), seed=0)
    untouched.write(_sectors(0), 0.0, eight)
    untouched.touched_by_others(np.array([5, 9]))    # other sectors: line 0's stays in part
    assert untouched.n_part == 1


def test_a_store_that_writes_back_waits_until_hbm_takes_what_it_evicts():
    from smsim.mem.l2_write_back import WriteBackL2
    hbm = _dram(rate=1.0)                            # 1 B a cycle: each 32-byte sector holds the bus 32 cycles
    l2 = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
    full = np.array([32])
    for line in range(8):                            # 8 dirty lines: L2 takes each at once, port + 20
        assert l2.write(_sectors(4 * line), float(line), full) == pytest.approx(line + 0.5 + 20)
    hbm.queue.transfer(0.0, 1000)                    # HBM busy until 1000 (reads of other SMs' share)
    # a 9th line evicts line 0: its dirty sector waits for the bus until 1000, and so does the store
    assert l2.write(_sectors(32), 50.0, full) == pytest.approx(1000 + 20)
    # a store into a line L2 holds evicts nothing: taken at once
    assert l2.write(_sectors(33), 60.0, full) == pytest.approx(60.5 + 20)
    through = L2(TINY.l2, 1024, BandwidthQueue(64.0), _dram(rate=1.0), seed=0)   # written through: every store
    assert through.write(_sectors(0), 0.0) == pytest.approx(0.5 + 20)
    assert through.write(_sectors(4), 1.0) == pytest.approx(32.5 + 20)    # behind the first one (0.5..32.5)


def test_a_line_written_in_part_leaves_only_once_the_read_that_completes_it_is_back():
    from smsim.mem.l2_write_back import WriteBackL2
    hbm = _dram()                                    # tiny: row miss 50 cycles; 32 B a cycle
    l2 = WriteBackL2(TINY.l2, 1024, BandwidthQueue(64.0), hbm, seed=0)   # one set of 8 lines of 4 sectors
    full, half = np.array([32]), np.array([16])
    l2.write(_sectors(0), 0.0, half)                 # line 0: half a sector, owed a read when it leaves
    for line in range(1, 8):
        l2.write(_sectors(4 * line), 1.0 + line, full)
    # a 9th line evicts line 0: its sector is read (bus 100..101, a row miss: back at 151), then written;
    # the store that evicted it waits for that, and its L2 hit latency (20)
    assert l2.write(_sectors(32), 100.0, full) == pytest.approx(151 + 20)
    assert hbm.bytes_read == 32 and hbm.bytes_write == 32
    # a line written whole leaves at once: line 1's write starts on the bus, not held by any read
    assert l2.write(_sectors(36), 200.0, full) == pytest.approx(200.5 + 20)


def test_write_back_l2_writes_back_lines_with_partial_sectors_past_partial_lines():
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, partial_lines=2)             # two lines with partly written sectors
    hbm = _dram()
    l2 = WriteBackL2(spec, spec.size_bytes, BandwidthQueue(64.0), hbm, seed=0)
    half, full = np.array([16]), np.array([32])
    l2.write(_sectors(0), 0.0, half)
    l2.write(_sectors(4), 1.0, full)                 # whole sectors do not count
    l2.write(_sectors(8), 2.0, half)
    assert hbm.bytes_write == 0
    l2.write(_sectors(12), 3.0, half)                # a third line in part: line 0 (the oldest) goes back,
    assert hbm.bytes_read == 32 and hbm.bytes_write == 32            # completed from DRAM first
    l2.write(_sectors(8), 4.0, half)                 # line 2's sector now whole: one line in part left
    assert l2.part_count == {3: 1} and l2.partial_lines == {3: 1}
    l2.write(_sectors(16), 5.0, half)
    assert hbm.bytes_write == 32 and l2.n_part == 2
    l2.write(_sectors(17, 18, 19), 6.0, np.array([16, 16, 16]))     # line 4's other sectors: still two lines
    assert hbm.bytes_write == 32 and l2.n_part == 5 and l2.part_count == {3: 1, 4: 4}


def test_dram_moves_l2s_background_completions_in_idle_bus_cycles_and_past_the_backlog_at_once():
    d = _dram(write_turnaround=0.5)                  # 32 B a cycle; tiny: row miss 50 cycles
    # one sector completed (read, 32 B) and written back (32 x 1.5): 80 bus bytes owed, counted at once
    assert d.clean(_sectors(0), _sectors(0), 0.0, backlog=100) == pytest.approx(0.0)
    assert d.bytes_read == 32 and d.bytes_write == 32 and d.backlog == pytest.approx(80.0)
    assert d.queue.free == 0.0                       # nothing on the bus yet
    assert d.read(_sectors(64), 0.0) == pytest.approx(1 + 50)      # a read now is not held up by it
    d.read(_sectors(65), 10.0)                       # the bus was idle 1..10: the 80 bytes moved in 1..3.5
    assert d.backlog == pytest.approx(0.0) and d.queue.free == pytest.approx(11.0)
    assert d.queue.bytes == pytest.approx(32 + 80 + 32)
    # past the backlog allowed (2 sectors' 32 + 48), the excess takes the bus now: 4 sectors', 320 bytes
    assert d.clean(_sectors(1, 2, 3, 4), _sectors(1, 2, 3, 4), 20.0, backlog=2) == pytest.approx(20.0)
    assert d.backlog == pytest.approx(160.0) and d.queue.free == pytest.approx(25.0)
    assert d.read(_sectors(200), 21.0) == pytest.approx(26 + 50)   # behind the excess (a row miss)


def test_dram_a_completion_opens_its_row_twice_and_l2_keeps_the_line_until_it_is_open():
    # activations 0.5 a cycle over 2 busy SMs (0.25 this SM's); a write's 2
    spec = dataclasses.replace(TINY.dram, loaded_latency_cycles=0, activations_per_cycle=0.5,
                               write_activation_cost=2.0)
    d = Dram(spec, BandwidthQueue(32.0), 32, busy=2)
    # a sector in a closed row: the read opens it (1), the write, a row miss later, again (2): 3 / 0.25
    assert d.clean(_sectors(0), _sectors(0), 0.0, backlog=10 ** 6) == pytest.approx(12.0)
    # a whole dirty line (no read) in another closed row: 2 more activations, behind those: 20
    assert d.clean(_sectors(), _sectors(64, 65, 66, 67), 0.0, backlog=10 ** 6) == pytest.approx(20.0)


def test_write_back_l2_completes_lines_at_the_devices_completion_rate_and_the_store_waits_its_turn():
    from smsim.mem.l2_write_back import WriteBackL2
    # one partly written sector kept; the device completes 0.5 lines a cycle for 2 busy SMs: one each 4
    spec = dataclasses.replace(TINY.l2, partial_lines=4, completions_per_cycle=0.5)   # 1 of 4 SMs' share
    hbm = _dram()
    l2 = WriteBackL2(spec, spec.size_bytes // 4, BandwidthQueue(64.0), hbm, seed=0, busy=2)
    assert l2.partial_limit == 1 and l2.completing.rate == pytest.approx(0.25)
    half = np.array([16])
    assert l2.write(_sectors(0), 0.0, half) == pytest.approx(0.5 + 20)      # kept
    # each further line pushes the oldest out: completions at 1, 5, 9 (one each 4 cycles from the first)
    took = [l2.write(_sectors(4 * k), 1.0, half) for k in (1, 2, 3)]
    assert took == pytest.approx([1.5 + 20, 5 + 20, 9 + 20])
    assert l2.completed == 3 and hbm.bytes_read == 3 * 32 and hbm.bytes_write == 3 * 32
    assert l2.metrics(100.0)["smsim.l2.partial_sectors_completed"] == 3


def test_a_line_completed_takes_a_turn_at_the_completions_for_each_store_written_into_it():
    """docs/hardware/store_read_hw.md: a sector left half written by two warps' stores takes the H200 twice
    the completion time of one left so by one store (f32_l2_g2 against f32_l2_g1)."""
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, partial_lines=4, completions_per_cycle=0.5)   # as above
    l2 = WriteBackL2(spec, spec.size_bytes // 4, BandwidthQueue(64.0), _dram(), seed=0, busy=2)
    quarter = np.array([8])
    l2.write(_sectors(0), 0.0, quarter)
    l2.write(_sectors(0), 0.0, quarter)            # a second store into line 0's sector: still in part
    assert l2.partial_lines == {0: 2}
    took = [l2.write(_sectors(4 * k), 1.0, quarter) for k in (1, 2)]
    # line 0 goes first: two turns of 4 cycles (1 to 9), then line 1's one from 9
    assert took == pytest.approx([1.5 + 20, 9 + 20])
    assert l2.completed == 2 and l2.partial_lines == {2: 1}


def test_a_store_into_a_sector_other_sms_blocks_brought_into_l2_is_into_a_whole_sector():
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, partial_lines=1)           # one line in part kept
    hbm = _dram()
    l2 = WriteBackL2(spec, spec.size_bytes, BandwidthQueue(64.0), hbm, seed=0)
    l2.held_by_others(_sectors(4, 8), 0.0)         # another SM's blocks touched lines 1 and 2's sector 0
    half = np.array([16])
    for line in range(4):
        l2.write(_sectors(4 * line), float(line), half)
    # lines 0 and 3 hold sectors written in part (the older one completed); lines 1 and 2 whole sectors
    assert l2.completed == 1 and hbm.bytes_read == 32 and l2.n_part == 1
    assert l2.others == {}                         # this SM's share holds them now


def test_the_shares_divide_the_usable_l2_and_a_stream_leaves_its_written_share_of_it_dirty():
    """What the H200 shows (docs/hardware/l2_capacity_hw.md): a stream keeps about 41 of the 60 MiB, and what
    is dirty at its end is the written share of that, up to dirty_bytes (a copy half, out = a + b a third)."""
    from smsim.mem.l2_write_back import WriteBackL2
    h200 = load("h200")
    assert h200.l2.usable == 41 * 2**20 < h200.l2.size_bytes
    assert device_share(h200, 10_000).l2_bytes == 41 * 2**20 // 132
    left = {}
    for arrays in (1, 2, 3):                         # write_only, copy, add3: out is the last array
        spec = dataclasses.replace(TINY.l2, usable_bytes=TINY.l2.size_bytes // 2, dirty_bytes=96 * 1024)
        share = spec.usable // 4                     # one of tiny's 4 SMs: 32 KB, 256 lines
        hbm = _dram()
        l2 = WriteBackL2(spec, share, BandwidthQueue(64.0), hbm, seed=0)
        assert l2.dirty_limit == 96 * 1024 // 4 // 32                # this SM's share of dirty_bytes: 768
        lines = 4 * share // 128                     # each array 4x the share: a stream
        for i in range(lines):
            for a in range(arrays - 1):
                l2.read(_sectors(*range(4 * (a * lines + i), 4 * (a * lines + i) + 4)), float(i))
            out = (arrays - 1) * lines + i
            l2.write(_sectors(*range(4 * out, 4 * out + 4)), float(i), np.full(4, 32))
        left[arrays] = l2.metrics(1e6)["smsim.l2.dirty_sectors_at_end"] * 32
    assert left[1] == 96 * 1024 // 4                 # all written: the dirty cap (24 KB of the 32)
    assert left[2] == pytest.approx(share / 2, rel=0.1)              # half the share
    assert left[3] == pytest.approx(share / 3, rel=0.15)             # a third (3 of each set's 8 ways)


def test_a_share_whose_lines_are_half_its_own_holds_twice_the_lines_and_as_many_bytes_dirty():
    """Blocks 16 floats wide write half of each 128-byte line, their grid neighbours (on other SMs) the other
    half: in the device's L2 each line is one slot, half this SM's. Told so (``share_lines``), the share
    holds twice the lines, so as many written bytes stay dirty as a stream of whole lines leaves, not half."""
    from smsim.mem.l2 import residue_sectors
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, model="write_back", dirty_at_start_bytes=16384, dirty_bytes=0)
    share = spec.size_bytes // 4

    def left(sectors_a_line: int, fraction: float | None) -> int:
        l2 = WriteBackL2(spec, share, BandwidthQueue(64.0), _dram(), seed=0)
        if fraction is not None:
            l2.share_lines(fraction)
        start = residue_sectors(spec, share)
        assert len(start) and l2.cache.contains(start).all()              # what it held at the start, kept
        for line in range(8 * share // 128):                                # 8x the share's bytes
            l2.write(_sectors(*range(1000 + 4 * line, 1000 + 4 * line + sectors_a_line)), float(line),
                     np.full(sectors_a_line, 32))
        return l2.metrics(1e6)["smsim.l2.dirty_sectors_at_end"]

    whole, half, told = left(4, None), left(2, None), left(2, 0.5)
    assert half == pytest.approx(whole / 2, rel=0.05)
    assert told == pytest.approx(whole, rel=0.05)
    l2 = WriteBackL2(spec, share, BandwidthQueue(64.0), _dram(), seed=0)
    for fraction, size in ((1.0, share), (0.5, 2 * share), (0.05, 4 * share)):   # at most a sector a line
        l2.share_lines(fraction)
        assert l2.cache.size_bytes == size
        assert l2.dram.line_part == fraction       # HBM's write-backs take that part of their rows' openings


@pytest.mark.parametrize("block,fraction", [((16, 16), (0.5, 0.5)), ((32, 8), (1.0, 1.0)), ((8, 32), (0.25, 0.5))])
def test_the_first_blocks_tell_l2_what_part_of_their_lines_is_theirs(monkeypatch, block, fraction):
    """A 2-D write of float32 rows: 16-wide blocks own half of each line they write, the rest their x
    neighbours'; 32-wide blocks whole lines (the share is left as it is). 8-wide blocks own a quarter, but only
    the grid neighbours either side are run (:meth:`smsim.sm.SM.neighbours`): a third of what they see, a
    half at the grid's edge."""
    told = []
    monkeypatch.setattr(L2, "share_lines", lambda self, f: told.append(f))

    @cuda.jit
    def fill2d(out):
        x, y = cuda.grid(2)
        if y < out.shape[0] and x < out.shape[1]:
            out[y, x] = 1.0

    side = 256
    out = np.zeros((side, side), np.float32)
    smsim.launch(fill2d, (side // block[0], side // block[1]), block, (out,), config="h200", complete=False)
    assert len(told) == 1 and fraction[0] - 1e-9 <= told[0] <= fraction[1] + 1e-9


def test_lines_a_block_reads_whole_count_whole_in_what_part_of_its_lines_is_its_own(monkeypatch):
    """A 2x2 pooling in 16x16 blocks (``course.maxpool2x2``) reads two rows of 32 floats (whole lines, its own)
    for each row of 16 it writes (half a line, the other half its x neighbour's): two lines whole and one half,
    5/6 of its lines' slots, not the half its written lines alone say (with which L2's share held twice the
    lines and left 4.4 MB of the H200's 10.2 MB written back during the full-size case)."""
    from smsim.sm import _line_parts
    told = []
    monkeypatch.setattr(L2, "share_lines", lambda self, f: told.append(f))

    @cuda.jit
    def pool(img, out):
        x, y = cuda.grid(2)
        if y < out.shape[0] and x < out.shape[1]:
            out[y, x] = img[2 * y, 2 * x] + img[2 * y, 2 * x + 1] + img[2 * y + 1, 2 * x] + img[2 * y + 1, 2 * x + 1]

    side = 128
    img, out = np.ones((2 * side, 2 * side), np.float32), np.zeros((side, side), np.float32)
    smsim.launch(pool, (side // 16, side // 16), (16, 16), (img, out), config="h200", complete=False)
    assert told == [pytest.approx(5 / 6)]
    # a halo: sectors of a line the block touches only where a neighbour does too are the neighbour's line
    mine = np.array([3, 4, 5, 6, 7, 8])                  # line 1 (sectors 4-7) its own, 3 and 8 halo sectors
    left, right = np.array([0, 1, 2, 3, 4]), np.array([7, 8, 9, 10, 11])
    assert _line_parts(mine, [left, right], 4) == (1, 1.0)
    assert _line_parts(np.array([4, 5]), [np.array([6, 7])], 4) == (1, 0.5)


def test_a_read_only_stream_writes_back_what_l2_held_dirty_when_the_kernel_started_as_on_the_h200():
    """Under Nsight Compute's cache control the H200's L2 holds about 2.4 MB of dirty data when a kernel starts
    (docs/hardware/l2_capacity_hw.md, ``residue``): a read-only kernel writes none of it to DRAM while it reads
    24 MiB, all of it once it reads 48 MiB or more. One SM's share of the device, reading its part of each
    array, writes back its share of ``l2.dirty_at_start_bytes`` the same way."""
    import json
    from smsim.mem.l2 import RESIDUE_LINE
    from smsim.mem.l2_write_back import WriteBackL2
    data = pathlib.Path(__file__).parents[1] / "docs/hardware/l2_capacity_hw.json"
    rows = json.loads(data.read_text())["experiments"]["residue"]
    hw: dict = {}
    for r in rows[:-3]:                              # the last three: 1 GiB allocated, a write before
        hw.setdefault(int(r["mb"]), []).append(r["metrics"]["dram__bytes_write.sum"])
    h200 = load("h200")
    share = device_share(h200, 10_000)
    written = {}
    for mb in hw:
        hbm = Dram(h200.dram, BandwidthQueue(share.dram_bytes_per_cycle), 32, share.busy)
        l2 = WriteBackL2(h200.l2, share.l2_bytes, BandwidthQueue(share.l2_bytes_per_cycle), hbm, busy=share.busy)
        assert l2.n_dirty == len(l2.dirty) * 4 > 0 and min(l2.dirty) == RESIDUE_LINE
        for line in range(mb * 2**20 // 128 // share.busy):
            l2.read(_sectors(*range(4 * line, 4 * line + 4)), 10.0 * line)
        written[mb] = hbm.bytes_write * share.busy
    assert written[8] == written[16] == written[24] == 0 and max(hw[8] + hw[16] + hw[24]) < 0.01e6
    for mb in (48, 56, 64, 96, 128):                 # all of it: 2.17-2.51 MB on the H200
        assert written[mb] == pytest.approx(sum(hw[mb]) / len(hw[mb]), rel=0.1), mb
    assert written[32] <= written[40] <= written[48]                 # partly, from 32 MiB on (0.4 and 1.6 MB)
    assert written[40] == pytest.approx(sum(hw[40]) / 2, abs=0.5e6)


def test_write_back_l2_writes_back_its_oldest_dirty_lines_past_dirty_bytes():
    from smsim.mem.l2_write_back import WriteBackL2
    spec = dataclasses.replace(TINY.l2, dirty_bytes=96)              # three sectors dirty at most
    hbm = _dram()
    l2 = WriteBackL2(spec, spec.size_bytes, BandwidthQueue(64.0), hbm, seed=0)
    full = np.array([32, 32])
    l2.write(_sectors(0, 1), 0.0, full)              # line 0: two dirty sectors
    l2.write(_sectors(4), 1.0, full[:1])             # line 1: three dirty in all
    assert hbm.bytes_write == 0
    l2.write(_sectors(8), 2.0, full[:1])             # a fourth: line 0, the oldest, is written back
    assert hbm.bytes_write == 64 and l2.n_dirty == 2
    assert l2.metrics(10.0)["smsim.l2.dirty_sectors_at_end"] == 2


def test_share_blocks_move_through_their_waves():
    """blocks="share": one block a wave of num_sms, block 0 first, then the place moves by the step coprime
    to num_sms nearest num_sms / golden ratio, so an SM's blocks lie at every place modulo 4 of a grid row
    (every 132nd block would always be a multiple of 4)."""
    from smsim.single_sm import share_step, timed_blocks
    assert share_step(132) == 83 and share_step(114) == 71 and share_step(4) == 3 and share_step(1) == 1
    blocks = timed_blocks("share", 132 * 40, 132)
    assert blocks[:3] == [0, 132 + 83, 264 + 166 % 132]
    assert [b // 132 for b in blocks] == list(range(40))            # one in each wave
    assert sorted({b % 4 for b in blocks}) == [0, 1, 2, 3]
    counts = np.bincount([b % 4 for b in blocks], minlength=4)
    assert counts.max() - counts.min() <= 1                          # evenly
    assert timed_blocks("share", 132 + 5, 132) == [0, 132 + 83 % 5]   # a partial last wave: a place in it
    assert timed_blocks("share", 100, 132) == [0]
