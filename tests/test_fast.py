"""smsim.fast: numba hot loops of the memory system against their numpy twins, a pure-Python reference
cache, and the H200 facts in shared/hardware/README.md ("Facts these numbers show")."""

import numpy as np
import pytest

from isa.memory import GLOBAL_BASE
from smsim import config
from smsim.fast import (HIT, MISS, PENDING, SectorCache, atomic_wavefronts, atomic_wavefronts_np, lines_of,
                        lines_of_np, sectors, sectors_np, wavefronts, wavefronts_np)
from smsim.fast.cache import seed_state, set_of

LANES = np.arange(32, dtype=np.int64)


def warp_addr(byte_offsets) -> np.ndarray:
    return np.uint64(GLOBAL_BASE) + np.asarray(byte_offsets, np.uint64)


# ------------------------------------------------------------------------------------------ coalescing
@pytest.mark.parametrize("stride,expected", [(1, 4), (2, 8), (4, 16), (8, 32), (16, 32), (32, 32), (1024, 32)])
def test_sectors_float_stride(stride, expected):
    s = sectors(warp_addr(LANES * stride * 4), 4)
    assert s.size == expected
    assert np.array_equal(s, sectors_np(warp_addr(LANES * stride * 4), 4))


@pytest.mark.parametrize("offset", range(0, 25))
def test_sectors_float_offset(offset):
    assert sectors(warp_addr((LANES + offset) * 4), 4).size == (4 if offset % 8 == 0 else 5)


@pytest.mark.parametrize("nbytes,expected_sectors,expected_lines", [(4, 4, 1), (8, 8, 2), (16, 16, 4)])
def test_sectors_vector_copies(nbytes, expected_sectors, expected_lines):
    s = sectors(warp_addr(LANES * nbytes), nbytes)
    assert s.size == expected_sectors
    assert lines_of(s, 4) == expected_lines == lines_of_np(s, 4)


def test_sectors_hand_made():
    base = GLOBAL_BASE // 32
    # an unaligned 8-byte access straddles two sectors; a 64-byte one covers two or three
    assert list(sectors(warp_addr([28]), 8)) == [base, base + 1]
    assert list(sectors(warp_addr([0]), 64)) == [base, base + 1]
    assert list(sectors(warp_addr([16]), 64)) == [base, base + 1, base + 2]
    # reversed lanes and duplicates: sorted and distinct
    assert list(sectors(warp_addr([96, 0, 64, 0, 96]), 4)) == [base, base + 2, base + 3]
    assert sectors(np.zeros(0, np.uint64), 4).size == 0
    assert lines_of(np.zeros(0, np.int64), 4) == 0
    assert list(sectors(np.array([0, 130, 31]), 4, sector_bytes=64)) == [0, 2]
    with pytest.raises(ValueError):
        sectors(warp_addr([0]), 0)


def test_sectors_random_against_twin():
    rng = np.random.default_rng(1)
    for _ in range(400):
        nbytes = int(rng.choice([1, 2, 4, 8, 12, 16, 32, 64]))
        n = int(rng.integers(0, 33))
        span = int(rng.choice([64, 1024, 1 << 20]))
        addr = warp_addr(rng.integers(0, span, n))
        sb = int(rng.choice([32, 64, 128]))
        s = sectors(addr, nbytes, sb)
        assert s.dtype == np.int64
        assert np.array_equal(s, sectors_np(addr, nbytes, sb))
        spl = int(rng.choice([1, 4, 8]))
        assert lines_of(s, spl) == lines_of_np(s, spl)


# ------------------------------------------------------------------------------------------ shared banks
@pytest.mark.parametrize("stride,expected", [(1, 1), (3, 1), (33, 1), (2, 2), (4, 4), (8, 8), (16, 16),
                                             (32, 32), (64, 32), (0, 1)])
def test_bank_strides(stride, expected):
    off = LANES * stride * 4
    assert wavefronts(off, LANES, 4) == expected == wavefronts_np(off, LANES, 4)


@pytest.mark.parametrize("nbytes,expected", [(8, 2), (16, 4)])
def test_bank_vector_lane_consecutive(nbytes, expected):
    off = LANES * nbytes
    assert wavefronts(off, LANES, nbytes) == expected == wavefronts_np(off, LANES, nbytes)


def test_bank_hand_made():
    # only the first half-warp of a float2 access, only the first quarter of a float4 access: one phase
    assert wavefronts(LANES[:16] * 8, LANES[:16], 8) == 1
    assert wavefronts(LANES[:8] * 16, LANES[:8], 16) == 1
    # lanes 0 and 16 of a float2 access: two phases, one wavefront each
    assert wavefronts(np.array([0, 128]), np.array([0, 16]), 8) == 2
    # float2 at stride 2 (lane*16): each half-warp's words 4i, 4i+1 put two in a bank -> 2 + 2
    assert wavefronts(LANES * 16, LANES, 8) == 4
    # stores' phases are served one after the other: the same float2 for every lane is one wavefront per
    # half-warp, and two-way conflicts in different banks of the two halves add up
    assert wavefronts(np.zeros(32, np.int64), LANES, 8) == 2
    half = np.where(LANES % 2 == 0, 0, 256) + np.where(LANES < 16, 0, 8)
    assert wavefronts(half, LANES, 8) == 4 == wavefronts_np(half, LANES, 8)
    # loads' phases pair up: those two halves' conflicts are in different banks (0 and 2), so together
    # still two-way
    assert wavefronts(half, LANES, 8, pair=True) == 2 == wavefronts_np(half, LANES, 8, pair=True)
    # two broadcast groups in one bank: words 0 and 32
    assert wavefronts(np.where(LANES < 16, 0, 128), LANES, 4) == 2
    # bytes and halves of shared words: same word is a broadcast
    assert wavefronts(LANES, LANES, 1) == 1
    assert wavefronts(LANES * 2, LANES, 2) == 1
    assert wavefronts(LANES * 8, LANES, 2) == 2
    # lane ids beyond 31 are taken modulo 32; no active lane costs nothing
    assert wavefronts(LANES * 8, LANES + 32, 8) == 2
    assert wavefronts(np.zeros(0, np.int64), np.zeros(0, np.int64), 4) == 0
    # 8-byte banks: lane-consecutive floats share a bank word
    assert wavefronts(LANES * 4, LANES, 4, banks=32, bank_width=8) == 1
    assert wavefronts(LANES * 8 * 32, LANES, 8, banks=32, bank_width=8) == 32


# The H200's wavefronts per shared load (docs/hardware/shared_wide_hw.json, benchmarks/shared_wide_hw.py): a
# double a lane (LDS.64) and a pair of doubles (LDS.128), lanes naming these doubles / pairs
SHARED_WIDE_HW = [(8, LANES, 2), (8, LANES % 16, 2), (8, LANES // 16, 1), (8, 0 * LANES, 1), (8, LANES % 8, 2),
                  (8, 2 * LANES, 4), (8, LANES // 2, 1),
                  (16, LANES, 4), (16, LANES // 16, 2), (16, 0 * LANES, 2), (16, LANES % 8, 4), (16, LANES % 16, 4),
                  (16, LANES // 8, 2), (16, LANES // 2, 2)]


@pytest.mark.parametrize("nbytes,index,expected", SHARED_WIDE_HW)
def test_wide_loads_as_measured(nbytes, index, expected):
    off = index * nbytes
    assert wavefronts(off, LANES, nbytes, pair=True) == expected == wavefronts_np(off, LANES, nbytes, pair=True)


def test_wide_loads_table_is_the_measured_one():
    import json
    import pathlib
    rows = json.loads((pathlib.Path(__file__).resolve().parent.parent / "docs/hardware/shared_wide_hw.json")
                      .read_text())["rows"]
    per = {(r["kernel"], r["pattern"]): r["metrics"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
           / r["metrics"]["smsp__sass_inst_executed_op_shared_ld.sum"] for r in rows}
    got = [per[("lds64" if nb == 8 else "lds128", i % 7)] for i, (nb, _, _) in enumerate(SHARED_WIDE_HW)]
    assert got == [e for _, _, e in SHARED_WIDE_HW]


def test_atomic_wavefronts():
    assert atomic_wavefronts(np.zeros(32, np.int64), LANES, 4) == 32          # one address: serial
    assert atomic_wavefronts(LANES * 4, LANES, 4) == 1
    assert atomic_wavefronts(LANES * 8, LANES, 4) == 2                         # bank conflicts dominate
    assert atomic_wavefronts((LANES // 4) * 4, LANES, 4) == 4                  # 4 lanes per address
    assert atomic_wavefronts((LANES % 3) * 128, LANES, 4) == 11                # 11, 11, 10 lanes; bank 0: 3
    assert atomic_wavefronts(np.zeros(0, np.int64), np.zeros(0, np.int64), 4) == 0


def test_banks_random_against_twin():
    rng = np.random.default_rng(2)
    for _ in range(400):
        nbytes = int(rng.choice([1, 2, 4, 8, 16]))
        n = int(rng.integers(0, 33))
        lanes = np.sort(rng.choice(32, n, replace=False)).astype(np.int64)
        span = int(rng.choice([8, 64, 1024, 48 * 1024]))
        off = rng.integers(0, span, n).astype(np.int64) // nbytes * nbytes
        banks, width = [(32, 4), (32, 8), (16, 4)][int(rng.integers(0, 3))]
        assert wavefronts(off, lanes, nbytes, banks, width) == wavefronts_np(off, lanes, nbytes, banks, width)
        assert (wavefronts(off, lanes, nbytes, banks, width, True)
                == wavefronts_np(off, lanes, nbytes, banks, width, True))
        assert (atomic_wavefronts(off, lanes, nbytes, banks, width)
                == atomic_wavefronts_np(off, lanes, nbytes, banks, width))


# ------------------------------------------------------------------------------------------ caches
class RefCache:
    """Pure-Python reference: per set a list of ways, each None or [line, last_event, {sector: ready}]."""

    def __init__(self, size_bytes, line_bytes, sector_bytes, assoc, replacement, seed=0):
        self.nsets, self.spl = size_bytes // (line_bytes * assoc), line_bytes // sector_bytes
        self.assoc, self.policy = assoc, replacement
        self.ways = [[None] * assoc for _ in range(self.nsets)]
        self.events, self.rng = 0, seed_state(seed)

    def _find(self, line):
        ways = self.ways[set_of(line, self.nsets)]
        return next((w for w in ways if w is not None and w[0] == line), None)

    def _touch(self, way):
        self.events += 1
        way[1] = self.events

    def lookup(self, secs, now):
        out = []
        for s in secs:
            way = self._find(s // self.spl)
            if way is None or s % self.spl not in way[2]:
                out.append((MISS, None))
                continue
            r = way[2][s % self.spl]
            out.append((HIT if r <= now else PENDING, r))
            if self.policy == "lru":
                self._touch(way)
        return out

    def _random_way(self):
        x = self.rng
        x ^= (x << 13) & (2**64 - 1)
        x ^= x >> 7
        x ^= (x << 17) & (2**64 - 1)
        self.rng = x
        return x % self.assoc

    def fill(self, secs, ready):
        evicted = 0
        for s, r in zip(secs, ready):
            line = s // self.spl
            way = self._find(line)
            if way is None:
                ways = self.ways[set_of(line, self.nsets)]
                if None in ways:
                    i = ways.index(None)
                elif self.policy == "random":
                    i = self._random_way()
                else:
                    i = min(range(self.assoc), key=lambda k: ways[k][1])
                evicted += ways[i] is not None
                way = ways[i] = [line, 0, {}]
                self._touch(way)
            elif self.policy == "lru":
                self._touch(way)
            way[2][s % self.spl] = r
        return evicted


def line_sectors(line, spl=4):
    return np.arange(line * spl, (line + 1) * spl, dtype=np.int64)


def lines_in_set(c: SectorCache, line: int, n: int) -> list:
    """The first ``n`` lines (``line`` first) that share ``line``'s set: one in each later run of ``sets``
    lines (each run fills every set once, shifted: the start of run ``k`` is in set ``set_of(k * sets)``)."""
    want, sets = set_of(line, c.sets), c.sets
    out = [line]
    k = line // sets + 1
    while len(out) < n:
        x = k * sets + (want - set_of(k * sets, sets)) % sets
        assert set_of(x, sets) == want
        out.append(x)
        k += 1
    return out


def line_elsewhere(c: SectorCache, line: int) -> int:
    """The first line after ``line`` in another set."""
    return next(x for x in range(line + 1, line + 1000) if set_of(x, c.sets) != set_of(line, c.sets))


def test_sets_are_hashed_so_power_of_two_strides_spread():
    c = SectorCache(256 * 1024, 128, 32, 4)                     # 512 sets
    assert all(0 <= set_of(x, c.sets) < c.sets for x in range(5000))
    rows = [r * 128 for r in range(32)]                         # 32 rows of 4096 floats: 16 KB apart
    assert len({set_of(x, c.sets) for x in rows}) >= 28         # modulo would put them in 4 sets
    for x in rows:
        c.fill(line_sectors(x), 0.0)
    assert c.contains(np.concatenate([line_sectors(x) for x in rows])).all()


def test_direct_mapped_conflict():
    c = SectorCache(4 * 128, 128, 32, 1)
    assert c.sets == 4 and c.assoc == 1 and c.size_bytes == 512
    other, same = line_elsewhere(c, 0), lines_in_set(c, 0, 2)[1]
    assert c.fill(line_sectors(0), 0.0) == 0
    assert c.fill(line_sectors(other), 0.0) == 0                # another set
    assert c.fill(line_sectors(same), 0.0) == 1                 # line 0's set: evicts line 0
    assert list(c.lookup(line_sectors(0), 1.0)[0]) == [MISS] * 4
    assert list(c.lookup(line_sectors(same), 1.0)[0]) == [HIT] * 4
    assert c.contains(line_sectors(other)).all()


@pytest.mark.parametrize("assoc", [2, 4])
def test_set_associative_conflict(assoc):
    c = SectorCache(2 * assoc * 128, 128, 32, assoc)            # two sets
    lines = lines_in_set(c, 0, assoc + 1)                       # all in line 0's set
    assert sum(c.fill(line_sectors(ln), 0.0) for ln in lines[:assoc]) == 0     # empty ways first
    assert all(c.contains(line_sectors(ln)).all() for ln in lines[:assoc])
    assert c.fill(line_sectors(lines[assoc]), 0.0) == 1
    present = [bool(c.contains(line_sectors(ln)).all()) for ln in lines]
    assert present == [False] + [True] * assoc                  # the oldest (least recently used) left
    assert c.fill(line_sectors(line_elsewhere(c, 0)), 0.0) == 0     # the other set untouched


@pytest.mark.parametrize("policy,survivor,victim", [("lru", 0, 1), ("fifo", 1, 0)])
def test_lru_versus_fifo(policy, survivor, victim):
    c = SectorCache(2 * 128, 128, 32, 2, policy)                # one set of two ways
    c.fill(line_sectors(0), 0.0)
    c.fill(line_sectors(1), 0.0)
    assert list(c.lookup(line_sectors(0), 1.0)[0]) == [HIT] * 4  # refreshes line 0 under LRU only
    assert c.fill(line_sectors(2), 0.0) == 1
    assert c.contains(line_sectors(survivor)).all() and not c.contains(line_sectors(victim)).any()


def stream(c: SectorCache, nbytes: int, now: float) -> int:
    """One pass over ``nbytes`` bytes a line (4 sectors) per request; hits counted, misses filled."""
    hits = 0
    for line in range(nbytes // 128):
        secs = line_sectors(line)
        status, _ = c.lookup(secs, now)
        hits += int((status == HIT).sum())
        miss = secs[status == MISS]
        c.fill(miss, now)
    return hits


@pytest.mark.parametrize("fraction", [0.25, 0.5, 1.0, 1.25, 2.0, 4.0])
def test_capacity_sweep_lru(fraction):
    c = SectorCache(4096, 128, 32, 4)
    n = int(4096 * fraction)
    assert stream(c, n, 0.0) == 0
    assert stream(c, n, 1.0) == (n // 32 if n <= c.size_bytes else 0)


def test_pending_hit():
    c = SectorCache(1024, 128, 32, 2)
    secs = np.array([8, 9], np.int64)
    c.fill(secs, np.array([100.0, 120.0]))
    status, ready = c.lookup(np.array([8, 9, 10], np.int64), 110.0)
    assert list(status) == [HIT, PENDING, MISS]
    assert ready[0] == 100.0 and ready[1] == 120.0 and np.isnan(ready[2])
    assert list(c.lookup(secs, 120.0)[0]) == [HIT, HIT]


def test_sector_granularity():
    c = SectorCache(1024, 128, 32, 2)
    assert c.fill(np.array([1], np.int64), 5.0) == 0
    assert list(c.lookup(line_sectors(0), 10.0)[0]) == [MISS, HIT, MISS, MISS]
    assert c.fill(np.array([2], np.int64), 5.0) == 0            # the line is there: no allocation
    assert list(c.contains(line_sectors(0))) == [False, True, True, False]
    # an evicted line loses every sector; refilling one sector brings back only that one
    for x in lines_in_set(c, 0, 3)[1:]:                         # 2 ways: the second evicts line 0
        c.fill(line_sectors(x), 0.0)
    c.fill(np.array([3], np.int64), 0.0)
    assert list(c.contains(line_sectors(0))) == [False, False, False, True]


def test_lookup_does_not_allocate_and_reset():
    c = SectorCache(1024, 128, 32, 2)
    assert list(c.lookup(line_sectors(3), 0.0)[0]) == [MISS] * 4
    assert not c.contains(line_sectors(3)).any()
    c.fill(line_sectors(3), 0.0)
    c.reset()
    assert not c.contains(line_sectors(3)).any() and (c.tags == -1).all()
    with pytest.raises(ValueError):
        c.fill(line_sectors(3), np.zeros(3))
    with pytest.raises(ValueError):
        SectorCache(1000, 128, 32, 2)
    with pytest.raises(ValueError):
        SectorCache(1024, 128, 32, 2, "plru")


def run_random(c, ref, rng, steps=300, lines=48):
    """Random lookups and fills on both caches; every answer compared."""
    spl = c.sectors_per_line
    for step in range(steps):
        k = int(rng.integers(1, 9))
        secs = np.unique(rng.integers(0, lines * spl, k)).astype(np.int64)
        now = float(step)
        status, ready = c.lookup(secs, now)
        expect = ref.lookup([int(s) for s in secs], now)
        assert list(status) == [e[0] for e in expect]
        assert [None if st == MISS else r for st, r in zip(status, ready)] == [e[1] for e in expect]
        miss = secs[status == MISS]
        when = now + rng.integers(1, 20, miss.size).astype(np.float64)
        assert c.fill(miss, when) == ref.fill([int(s) for s in miss], list(when))
    every = np.arange(lines * spl, dtype=np.int64)
    assert list(c.contains(every)) == [e[0] != MISS for e in ref.lookup(every, 1e9)]


@pytest.mark.parametrize("policy", ["lru", "fifo", "random"])
@pytest.mark.parametrize("geometry", [(2048, 128, 32, 4), (1024, 128, 32, 1), (3 * 1024, 128, 32, 2),
                                      (4096, 64, 16, 8)])
def test_cache_random_against_reference(policy, geometry):
    c = SectorCache(*geometry, policy, seed=7)
    run_random(c, RefCache(*geometry, policy, seed=7), np.random.default_rng(3))


def test_random_policy_deterministic_per_seed():
    def evictions(seed):
        c = SectorCache(1024, 128, 32, 4, "random", seed)
        rng = np.random.default_rng(4)
        out = [c.fill(line_sectors(int(ln)), 0.0) for ln in rng.integers(0, 64, 200)]
        return out, c.tags.copy()
    a, b, other = evictions(5), evictions(5), evictions(6)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[1], other[1])
    c = SectorCache(1024, 128, 32, 4, "random", 5)
    c.fill(line_sectors(0), 0.0)
    c.reset()                                                   # reset restarts the generator
    first = [c.fill(line_sectors(int(ln)), 0.0) for ln in np.random.default_rng(4).integers(0, 64, 200)]
    assert first == a[0]


def test_from_h200_spec_sets_hashed():
    cfg = config.load("h200")
    l1, l2 = SectorCache.from_spec(cfg.l1), SectorCache.from_spec(cfg.l2)
    assert l1.sets == cfg.l1.size_bytes // (cfg.l1.line_bytes * cfg.l1.assoc)
    assert l2.sets == 30720 and l2.sectors_per_line == 4       # 60 MiB / (128 B x 16): not a power of two
    spl = l2.sectors_per_line
    lines = lines_in_set(l2, 0, l2.assoc + 1)                   # all in line 0's set
    evicted = [l2.fill(np.array([ln * spl], np.int64), 0.0) for ln in lines]
    assert evicted == [0] * l2.assoc + [1]
    present = l2.contains(np.array(lines, np.int64) * spl)
    assert list(present) == [False] + [True] * l2.assoc         # the least recently used line left


@pytest.mark.parametrize("policy", ["lru", "random"])
@pytest.mark.parametrize("per", [1, 2])
def test_lookup_filling_is_lookup_then_fill_of_the_missed_accesses(policy, per):
    # the device's L2 (smsim.mem.l2.DeviceL2.touch) in one call: what a lookup, then a fill of every sector
    # of the DRAM accesses (per sectors) the misses fall in that the cache does not hold, does
    one, two = SectorCache(2048, 128, 32, 2, policy, seed=9), SectorCache(2048, 128, 32, 2, policy, seed=9)
    rng = np.random.default_rng(11)
    for step in range(400):
        secs = np.unique(rng.integers(0, 64 * 4, int(rng.integers(1, 12)))).astype(np.int64)
        status, ready = one.lookup_filling(secs, float(step - 3), per, float(step))
        want_status, want_ready = two.lookup(secs, float(step - 3))
        miss = secs[want_status == MISS]
        if len(miss):
            fetch = (np.unique(miss // per * per)[:, None] + np.arange(per)).ravel()
            two.fill(fetch[~two.contains(fetch)], float(step))
        assert np.array_equal(status, want_status)
        assert np.array_equal(ready, want_ready, equal_nan=True)
        for a in ("tags", "stamp", "valid", "ready"):
            assert np.array_equal(getattr(one, a), getattr(two, a)), (step, a)
    assert one.contains(np.arange(4, dtype=np.int64)).dtype == bool
