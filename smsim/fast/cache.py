"""A sectored set-associative cache (the L1 and the L2): tags per line, valid bit and arrival time per sector.

Life of a request: the coalescer's distinct sector indices (``addr // sector_bytes``) reach
:meth:`SectorCache.lookup` at cycle ``now``. Each sector's line is ``sector // sectors_per_line``, its set
:func:`set_of` (``line % sets`` shifted by a hash of ``line // sets``: lines a power-of-two stride apart
spread over the sets, as in NVIDIA's caches; with plain modulo the 32 rows of a warp reading a 4096-float
matrix row by row share 4 sets of L1 and miss every time, where the H200's L1 keeps them all:
``ordinary.matvec_rows``, 87.8% hits), and the set's ways are searched for the line. A valid sector whose data
has arrived (``ready <= now``) is a :data:`HIT`; a valid sector whose fill is still in flight (``ready >
now``) is a :data:`PENDING` hit: the request merges into the outstanding miss (an MSHR merge) and gets the
data at ``ready``; an absent line or an invalid sector is a :data:`MISS`. Hits refresh the line's LRU stamp.
The caller sends the misses on (to L2 or DRAM), learns when their data will arrive, and calls
:meth:`SectorCache.fill` with those times: a line that is absent is allocated (an empty way first, else the
replacement policy's victim, whose sectors are all lost) and the sectors become valid, ready at the given
times. Lookups never allocate; fills never report hits.

Replacement: ``lru`` evicts the least recently used line (lookup hits and fills refresh it), ``fifo`` the
oldest allocation, ``random`` a way drawn from a xorshift64 generator seeded by ``seed`` (deterministic).
State lives in numpy arrays (``tags`` holds the whole line index, -1 for an empty way) updated in place
by ``@njit`` kernels; the tests compare against a pure-Python reference cache.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

if TYPE_CHECKING:
    from ..config import L1Spec, L2Spec

HIT, PENDING, MISS = 0, 1, 2
POLICIES = {"lru": 0, "fifo": 1, "random": 2}
_LRU, _RANDOM = 0, 2
_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """The xorshift64 state for ``seed``: splitmix64 of it (never 0)."""
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return (z ^ (z >> 31)) or 0x2545F4914F6CDD1D


@njit(cache=True)
def _way(tags, st, line):
    for w in range(tags.shape[1]):
        if tags[st, w] == line:
            return w
    return -1


@njit(cache=True)
def set_of(line, sets):
    """The set a line maps to: ``line % sets`` shifted by a hash of ``line // sets`` (Fibonacci hashing).
    Each aligned run of ``sets`` consecutive lines still fills every set once (a sequential stream the size
    of the cache fits it, as with plain modulo, and lines below ``sets`` map as plain modulo), while lines a
    power-of-two stride apart, which plain modulo piles into a few sets, spread over all of them."""
    k = np.uint64(line // sets)
    shift = (k * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)
    return np.int64((np.uint64(line % sets) + shift) % np.uint64(sets))


@njit(cache=True)
def _lookup(tags, stamp, valid, ready, clock, policy, sectors, now):
    spl = valid.shape[2]
    status = np.empty(sectors.size, np.int8)
    when = np.empty(sectors.size, np.float64)
    for i in range(sectors.size):
        line = sectors[i] // spl
        st = set_of(line, tags.shape[0])
        w = _way(tags, st, line)
        k = sectors[i] % spl
        if w < 0 or not valid[st, w, k]:
            status[i], when[i] = MISS, np.nan
            continue
        when[i] = ready[st, w, k]
        status[i] = HIT if when[i] <= now else PENDING
        if policy == _LRU:
            clock[0] += 1
            stamp[st, w] = clock[0]
    return status, when


@njit(cache=True)
def _victim(tags, stamp, st, policy, rng):
    for w in range(tags.shape[1]):
        if tags[st, w] < 0:
            return w
    if policy == _RANDOM:
        x = rng[0]
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        rng[0] = x
        return np.int64(x % np.uint64(tags.shape[1]))
    best = 0
    for w in range(1, tags.shape[1]):
        if stamp[st, w] < stamp[st, best]:
            best = w
    return best


@njit(cache=True)
def _fill(tags, stamp, valid, ready, clock, rng, policy, sectors, when, out):
    spl = valid.shape[2]
    evicted = 0
    for i in range(sectors.size):
        line = sectors[i] // spl
        st = set_of(line, tags.shape[0])
        w = _way(tags, st, line)
        if w < 0:
            w = _victim(tags, stamp, st, policy, rng)
            if tags[st, w] >= 0:
                out[evicted] = tags[st, w]
                evicted += 1
            tags[st, w] = line
            valid[st, w, :] = False
            clock[0] += 1
            stamp[st, w] = clock[0]
        elif policy == _LRU:
            clock[0] += 1
            stamp[st, w] = clock[0]
        valid[st, w, sectors[i] % spl] = True
        ready[st, w, sectors[i] % spl] = when[i] if when.size == sectors.size else when[0]
    return evicted


@njit(cache=True)
def _contains(tags, valid, sectors):
    spl = valid.shape[2]
    out = np.zeros(sectors.size, np.bool_)
    for i in range(sectors.size):
        line = sectors[i] // spl
        st = set_of(line, tags.shape[0])
        w = _way(tags, st, line)
        out[i] = w >= 0 and valid[st, w, sectors[i] % spl]
    return out


@njit(cache=True)
def _filling_until(tags, valid, ready, sectors, now):
    spl = valid.shape[2]
    last = -np.inf
    for i in range(sectors.size):
        line = sectors[i] // spl
        st = set_of(line, tags.shape[0])
        w = _way(tags, st, line)
        k = sectors[i] % spl
        if w >= 0 and valid[st, w, k] and ready[st, w, k] > now and ready[st, w, k] > last:
            last = ready[st, w, k]
    return last


@njit(cache=True)
def _lookup_filling(tags, stamp, valid, ready, clock, rng, policy, sectors, now, per, when):
    status, at = _lookup(tags, stamp, valid, ready, clock, policy, sectors, now)
    units = np.empty(sectors.size, np.int64)       # the accesses of ``per`` sectors the misses fall in, each once
    n = 0
    for i in range(sectors.size):
        if status[i] == MISS:
            u = sectors[i] // per
            if n == 0 or units[n - 1] != u:
                units[n] = u
                n += 1
    fetch = np.empty(n * per, np.int64)
    for j in range(n):
        for k in range(per):
            fetch[j * per + k] = units[j] * per + k
    todo = fetch[~_contains(tags, valid, fetch)]
    _fill(tags, stamp, valid, ready, clock, rng, policy, todo, when, np.empty(todo.size, np.int64))
    return status, at


@njit(cache=True)
def _lookup_filling_runs(tags, stamp, valid, ready, clock, rng, policy, sectors, cuts, nows, per, whens):
    for b in range(cuts.size - 1):
        _lookup_filling(tags, stamp, valid, ready, clock, rng, policy, sectors[cuts[b]:cuts[b + 1]], nows[b], per,
                        whens[b:b + 1])


@njit(cache=True)
def tally(status: np.ndarray, ready: np.ndarray) -> tuple[int, int, int, float]:
    """Of a lookup's ``(status, ready)``: ``(hits, pending, misses, latest pending arrival)`` (-inf if
    none is pending)."""
    hits = pending = 0
    latest = -np.inf
    for i in range(status.size):
        if status[i] == HIT:
            hits += 1
        elif status[i] == PENDING:
            pending += 1
            if ready[i] > latest:
                latest = ready[i]
    return hits, pending, status.size - hits - pending, latest


@njit(cache=True)
def missed(sectors: np.ndarray, status: np.ndarray) -> np.ndarray:
    """The sectors a lookup missed (status :data:`MISS`), in order."""
    out = np.empty(sectors.size, np.int64)
    n = 0
    for i in range(sectors.size):
        if status[i] == MISS:
            out[n] = sectors[i]
            n += 1
    return out[:n]


@njit(cache=True)
def arrivals(status: np.ndarray, ready: np.ndarray, back: float, miss_at: float) -> np.ndarray:
    """Each looked-up sector's arrival: ``back`` for a hit, ``max(ready, back)`` for a pending one,
    ``miss_at`` for a miss."""
    out = np.empty(status.size, np.float64)
    for i in range(status.size):
        if status[i] == HIT:
            out[i] = back
        elif status[i] == PENDING:
            out[i] = ready[i] if ready[i] > back else back
        else:
            out[i] = miss_at
    return out


class SectorCache:
    """A sectored set-associative cache of ``size_bytes`` in ``line_bytes`` lines of ``sector_bytes``
    sectors, ``assoc`` ways per set, evicting by ``replacement`` ("lru", "fifo" or "random")."""

    def __init__(self, size_bytes: int, line_bytes: int, sector_bytes: int, assoc: int,
                 replacement: str = "lru", seed: int = 0):
        if replacement not in POLICIES:
            raise ValueError(f"replacement {replacement!r}: choose one of {', '.join(POLICIES)}")
        if min(size_bytes, line_bytes, sector_bytes, assoc) < 1 or line_bytes % sector_bytes \
                or size_bytes % (line_bytes * assoc):
            raise ValueError(f"cache geometry: size_bytes={size_bytes} must be a positive multiple of "
                             f"line_bytes x assoc = {line_bytes} x {assoc}, line_bytes of sector_bytes={sector_bytes}")
        self.size_bytes, self.line_bytes, self.sector_bytes = size_bytes, line_bytes, sector_bytes
        self.assoc, self.replacement, self.seed = assoc, replacement, seed
        self.sets = size_bytes // (line_bytes * assoc)
        self.sectors_per_line = line_bytes // sector_bytes
        self._policy = POLICIES[replacement]
        self.tags = np.empty((self.sets, assoc), np.int64)
        self.stamp = np.empty((self.sets, assoc), np.int64)
        self.valid = np.empty((self.sets, assoc, self.sectors_per_line), np.bool_)
        self.ready = np.empty((self.sets, assoc, self.sectors_per_line), np.float64)
        self._clock = np.empty(1, np.int64)
        self._rng = np.empty(1, np.uint64)
        self.reset()

    @classmethod
    def from_spec(cls, spec: L1Spec | L2Spec, seed: int = 0) -> SectorCache:
        """A cache shaped by a config section (:class:`smsim.config.L1Spec` or ``L2Spec``)."""
        return cls(spec.size_bytes, spec.line_bytes, spec.sector_bytes, spec.assoc, spec.replacement, seed)

    def reset(self) -> None:
        """Empty every way and restart the replacement clock and random generator."""
        self.tags.fill(-1)
        self.stamp.fill(0)
        self.valid.fill(False)
        self.ready.fill(0.0)
        self._clock[0] = 0
        self._rng[0] = seed_state(self.seed)

    def invalidate(self) -> None:
        """Drop every sector's data (a fence's ``CCTL.IVALL``); lines keep their ways and replacement order."""
        self.valid.fill(False)

    def lookup(self, sectors: np.ndarray, now: float) -> tuple:
        """``(status, ready)`` per sector (int64 indices, distinct): status :data:`HIT`, :data:`PENDING` or
        :data:`MISS` (int8); ready the data's arrival cycle (NaN for a miss). Allocates nothing."""
        return _lookup(self.tags, self.stamp, self.valid, self.ready, self._clock, self._policy,
                       np.asarray(sectors, np.int64), float(now))

    def lookup_filling(self, sectors: np.ndarray, now: float, per: int, ready: float) -> tuple:
        """:meth:`lookup` of ``sectors`` (sorted, distinct), then :meth:`fill` (data at ``ready``) of every sector
        of the groups of ``per`` (DRAM accesses) the misses fall in that the cache does not hold, in one call."""
        return _lookup_filling(self.tags, self.stamp, self.valid, self.ready, self._clock, self._rng, self._policy,
                               np.asarray(sectors, np.int64), float(now), max(1, per),
                               np.full(1, ready, np.float64))

    def lookup_filling_runs(self, sectors: np.ndarray, cuts: np.ndarray, now: np.ndarray, per: int,
                            ready: np.ndarray) -> None:
        """:meth:`lookup_filling` of each run ``sectors[cuts[i]:cuts[i + 1]]`` in turn, at ``now[i]``, its fills'
        data at ``ready[i]``, in one call; the statuses are not kept."""
        _lookup_filling_runs(self.tags, self.stamp, self.valid, self.ready, self._clock, self._rng, self._policy,
                             np.asarray(sectors, np.int64), np.asarray(cuts, np.int64),
                             np.asarray(now, np.float64), max(1, per), np.asarray(ready, np.float64))

    def fill(self, sectors: np.ndarray, ready: float | np.ndarray) -> int:
        """Make ``sectors`` valid with data arriving at ``ready`` (one per sector, or one for all),
        allocating absent lines; the number of lines evicted to make room."""
        return len(self.fill_evicting(sectors, ready))

    def fill_evicting(self, sectors: np.ndarray, ready: float | np.ndarray) -> np.ndarray:
        """As :meth:`fill`; the lines (line numbers, ``sector // sectors_per_line``) evicted to make room."""
        sectors = np.asarray(sectors, np.int64)
        when = ready if isinstance(ready, np.ndarray) and ready.dtype == np.float64 \
            else np.atleast_1d(np.asarray(ready, np.float64))
        if when.size not in (1, sectors.size):
            raise ValueError(f"fill: {when.size} ready times for {sectors.size} sectors")
        out = np.empty(sectors.size, np.int64)
        n = _fill(self.tags, self.stamp, self.valid, self.ready, self._clock, self._rng, self._policy,
                  sectors, when, out)
        return out[:n]

    def filling_until(self, sectors: np.ndarray, now: float) -> float:
        """The latest cycle a fill of one of ``sectors`` that is on its way at ``now`` lands (-inf: none on its
        way); touches no replacement state."""
        return _filling_until(self.tags, self.valid, self.ready, np.asarray(sectors, np.int64), float(now))

    def contains(self, sectors: np.ndarray) -> np.ndarray:
        """Whether each sector is valid (arrived or in flight); touches no replacement state."""
        return _contains(self.tags, self.valid, np.asarray(sectors, np.int64))
