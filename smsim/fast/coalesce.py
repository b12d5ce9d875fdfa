"""Coalescing: the distinct sectors (32 bytes on NVIDIA GPUs; the timing model passes the config's
``l1.sector_bytes``) one warp's global access touches.

Life of a request: a warp's ``ld``/``st``/``atom`` has one address per active lane, each covering ``nbytes``
bytes. :func:`sectors` turns them into the sorted distinct sector indices ``addr // sector_bytes`` over every
byte ``addr .. addr + nbytes - 1``: their number is what Nsight Compute counts as the request's
``l1tex__t_sectors``, and they are what the L1 (:class:`smsim.fast.cache.SectorCache`) looks up.
:func:`lines_of` then counts the distinct cache lines among them (the tag lookups the request needs).

Sector indices are absolute (``addr // sector_bytes``), so ``index // sectors_per_line`` is the line and
``index % sectors_per_line`` the sector within it, as the caches expect. ``*_np`` are the numpy twins.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _insert(out, n, s):
    """Insert ``s`` into the sorted distinct ``out[:n]``; the new length. O(1) for ascending input."""
    j = n
    while j > 0 and out[j - 1] > s:
        j -= 1
    if j > 0 and out[j - 1] == s:
        return n
    for k in range(n, j, -1):
        out[k] = out[k - 1]
    out[j] = s
    return n + 1


@njit(cache=True)
def _sectors(addr, nbytes, sector_bytes):
    per_lane = (nbytes - 1) // sector_bytes + 2           # most sectors one lane's bytes can span
    out = np.empty(addr.size * per_lane, np.int64)
    n = 0
    for i in range(addr.size):
        a = np.int64(addr[i])
        for s in range(a // sector_bytes, (a + nbytes - 1) // sector_bytes + 1):
            n = _insert(out, n, s)
    return out[:n]


def sectors(addr: np.ndarray, nbytes: int, sector_bytes: int = 32) -> np.ndarray:
    """Sorted distinct sector indices (int64) touched by ``nbytes``-byte accesses at ``addr`` (one address
    per active lane, any integer dtype; values below 2**63)."""
    if nbytes < 1 or sector_bytes < 1:
        raise ValueError(f"nbytes ({nbytes}) and sector_bytes ({sector_bytes}) must be positive")
    return _sectors(addr, nbytes, sector_bytes)


@njit(cache=True)
def tag_bank(line: int, banks: int) -> int:
    """The tag bank of a line (``banks`` a power of two): its index XOR-folded, ``log2(banks)`` bits at a time,
    so that consecutive or evenly strided lines spread over the banks evenly."""
    if banks <= 1:
        return 0
    mask = banks - 1
    bits = 0
    while (1 << bits) < banks:
        bits += 1
    b = 0
    x = line
    while x > 0:
        b ^= x & mask
        x >>= bits
    return b


@njit(cache=True)
def bank_lines(sectors: np.ndarray, sectors_per_line: int, banks: int) -> int:
    """The most distinct lines among ``sectors`` (sorted ascending) in one tag bank (:func:`tag_bank`, at most
    64 banks): the cycles a tag stage looking up one line of each bank a cycle takes."""
    count = np.zeros(64, np.int64)
    most = 0
    prev = -1
    for i in range(sectors.size):
        line = sectors[i] // sectors_per_line
        if line != prev:
            prev = line
            b = tag_bank(line, banks)
            count[b] += 1
            if count[b] > most:
                most = count[b]
    return most


@njit(cache=True)
def lines_of(sectors: np.ndarray, sectors_per_line: int) -> int:
    """Distinct lines among ``sectors``, which must be sorted ascending (as :func:`sectors` returns them)."""
    n = 0
    prev = 0
    for i in range(sectors.size):
        line = sectors[i] // sectors_per_line
        if n == 0 or line != prev:
            n += 1
            prev = line
    return n


@njit(cache=True)
def _per_sector(addr, sector_bytes, most):
    """Over the sorted addresses: per sector, the most lanes on one address (``most``) or the distinct
    addresses (otherwise)."""
    a = np.sort(addr.astype(np.int64))
    out = np.empty(a.size, np.int64)
    n = -1
    prev_sector = -1
    run = 0
    for i in range(a.size):
        s = a[i] // sector_bytes
        same_word = i > 0 and a[i] == a[i - 1]
        if s != prev_sector:
            n += 1
            out[n] = 1
            prev_sector = s
            run = 1
        elif same_word:
            run += 1
            if most and run > out[n]:
                out[n] = run
        else:
            run = 1
            if not most:
                out[n] += 1
    return out[:n + 1]


def atomic_ops(addr: np.ndarray, sector_bytes: int) -> np.ndarray:
    """For a warp's atomic (one address per active lane): per touched sector, in the order of :func:`sectors`
    (accesses within one sector), the operations L2 performs one after another: the most lanes that name one
    address in that sector (lanes on different words of a sector are served together, lanes on one word in
    turn: an H200's ``lts__t_sectors_srcunit_tex_op_red`` counts exactly this)."""
    return _per_sector(np.asarray(addr), sector_bytes, True)


@njit(cache=True)
def _whole_rounds(addr, nbytes, sector_bytes):
    a = np.sort(addr.astype(np.int64))
    out = np.zeros(a.size, np.int64)
    words = sector_bytes // nbytes
    n = -1
    prev_sector = -1
    run = least = named = 0          # lanes on the current word; the fewest on a word; words named
    for i in range(a.size + 1):
        s = a[i] // sector_bytes if i < a.size else -2
        if i > 0 and (s != prev_sector or a[i] != a[i - 1]):      # a word's run ended
            named += 1
            if named == 1 or run < least:
                least = run
            run = 0
        if s != prev_sector:
            if n >= 0 and named == words:
                out[n] = least
            n += 1
            prev_sector = s
            named = 0
        run += 1
    return out[:n]


def whole_rounds(addr: np.ndarray, nbytes: int, sector_bytes: int) -> np.ndarray:
    """For a warp's atomic of ``nbytes`` a lane: per touched sector, in the order of :func:`atomic_ops`, how
    many of its operations name every word of the sector (the fewest lanes on a word where the lanes name
    all ``sector_bytes // nbytes`` words, else none): a 32-lane request on 32 consecutive words has one such
    operation in each of its 4 sectors, 32 lanes on 8 words of a sector 4."""
    if nbytes < 1 or sector_bytes < nbytes:
        raise ValueError(f"nbytes ({nbytes}) must be positive and at most sector_bytes ({sector_bytes})")
    return _whole_rounds(np.asarray(addr), nbytes, sector_bytes)


@njit(cache=True)
def _multi_rounds(addr, sector_bytes):
    a = np.sort(addr.astype(np.int64))
    out = np.zeros(a.size, np.int64)
    n = -1
    prev_sector = -1
    run = most = second = 0          # lanes on the current word; the most and second most on a word
    for i in range(a.size + 1):
        s = a[i] // sector_bytes if i < a.size else -2
        if i > 0 and (s != prev_sector or a[i] != a[i - 1]):      # a word's run ended
            if run > most:
                most, second = run, most
            elif run > second:
                second = run
            run = 0
        if s != prev_sector:
            if n >= 0:
                out[n] = second
            n += 1
            prev_sector = s
            most = second = 0
        run += 1
    return out[:n]


def multi_rounds(addr: np.ndarray, sector_bytes: int) -> np.ndarray:
    """For a warp's atomic: per touched sector, in the order of :func:`atomic_ops`, how many of its operations
    (rounds: each takes one lane of every word still named) name more than one word (the second most lanes on
    a word of the sector): 32 lanes on one word none, four lanes on four words one, 32 lanes on a sector's 8
    words 4, 32 hashed over 64 words (two lines) mostly one or two a sector. A compare-and-swap's such round
    takes the H200's atomic unit longer than an add's (``docs/hardware/cas_hw.md``)."""
    return _multi_rounds(np.asarray(addr), sector_bytes)


def bytes_written(addr: np.ndarray, nbytes: int, sector_bytes: int) -> np.ndarray:
    """For a warp's store of ``nbytes`` per lane (aligned, so one sector each): per touched sector, in the order
    of :func:`sectors`, the distinct bytes it writes there (``sector_bytes`` for a full sector)."""
    return np.minimum(_per_sector(np.asarray(addr), sector_bytes, False) * nbytes, sector_bytes)


def part_words(addr: np.ndarray, nbytes: int, word_bytes: int = 4) -> np.ndarray:
    """For a warp's store of ``nbytes`` per lane (aligned): the ``word_bytes`` words (address // word_bytes,
    sorted) it writes only in part, bytes of a word other lanes do not write (none for stores of a word or
    wider; a byte transpose's 32 lanes, each in a word of its own, all 32)."""
    if nbytes >= word_bytes:
        return np.empty(0, np.int64)
    return sectors(addr, nbytes, word_bytes)[bytes_written(addr, nbytes, word_bytes) < word_bytes]


def part_sectors(addr: np.ndarray, nbytes: int, sector_bytes: int = 32, word_bytes: int = 4) -> np.ndarray:
    """The sectors (sorted, distinct, as :func:`sectors` numbers them) in which a warp's store of ``nbytes``
    per lane writes some ``word_bytes`` word only in part (:func:`part_words`)."""
    words = part_words(addr, nbytes, word_bytes)
    return np.unique(words // (sector_bytes // word_bytes)) if len(words) else words


# ------------------------------------------------------------------------------------------ numpy twins
def sectors_np(addr: np.ndarray, nbytes: int, sector_bytes: int = 32) -> np.ndarray:
    """Numpy twin of :func:`sectors`: every (lane, byte) pair's sector, then ``np.unique``."""
    a = np.asarray(addr).astype(np.int64)
    byte = a[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
    return np.unique(byte // sector_bytes)


def whole_rounds_np(addr: np.ndarray, nbytes: int, sector_bytes: int) -> np.ndarray:
    """Numpy twin of :func:`whole_rounds`: lanes per distinct word, grouped by sector."""
    words, lanes = np.unique(np.asarray(addr).astype(np.int64), return_counts=True)
    sector = words // sector_bytes
    out = []
    for s in np.unique(sector):
        here = lanes[sector == s]
        out.append(int(here.min()) if len(here) == sector_bytes // nbytes else 0)
    return np.array(out, np.int64)


def lines_of_np(sectors: np.ndarray, sectors_per_line: int) -> int:
    """Numpy twin of :func:`lines_of` (any order)."""
    return int(np.unique(np.asarray(sectors) // sectors_per_line).size)


def bank_lines_np(sectors: np.ndarray, sectors_per_line: int, banks: int) -> int:
    """Numpy twin of :func:`bank_lines` (any order)."""
    lines = np.unique(np.asarray(sectors, np.int64) // sectors_per_line)
    if not len(lines):
        return 0
    bank, x, bits = np.zeros_like(lines), lines.copy(), int(banks).bit_length() - 1
    while bits and x.any():
        bank ^= x & (banks - 1)
        x >>= bits
    return int(np.bincount(bank, minlength=banks).max())
