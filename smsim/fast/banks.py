"""Shared-memory bank arbitration: how many wavefronts (bank cycles) a warp's shared access needs.

Life of an access: a warp's ``ld.shared``/``st.shared`` gives one byte offset (into the block's shared
memory) per active lane. Each lane's access covers ``max(1, nbytes // bank_width)`` consecutive words
(word = offset // bank_width, bank = word % banks). The warp is served in phases: one phase of 32 lanes
for accesses of at most one word, two half-warp phases for two words (8-byte accesses on 4-byte banks),
four quarter-warp phases for four (16-byte): in general lanes ``32 // words`` at a time. In a phase, a
bank serves one distinct word per wavefront; lanes reading the same word share it (broadcast). So a phase
costs the largest number of distinct words any one bank holds, and :func:`wavefronts` is the sum over
phases that have an active lane. Loads (``pair``) of 8 and 16 bytes are served two phases at a time (a
wavefront carries at most 256 bytes to the lanes): a pair of phases costs the largest number of words any
one bank holds for the two together (a word both phases read counts twice: no broadcast across phases), or
one wavefront where every lane of the pair names one address. Measured on an H200
(``docs/hardware/shared_wide_hw.md``, wavefronts per ``LDS.64``/``LDS.128``): a float64 per lane, two
half-warps on different banks (lane ``l`` reading double ``l // 2`` or ``l // 16``) 1, on the same 16
doubles (``l % 16``) 2, one address 1; 16 bytes a lane, one address or four in different banks 2, the
same 8 pairs in every quarter 4. Stores keep one wavefront per phase at least (not measured).
Nsight Compute reports ``bank_conflicts = wavefronts - instructions`` for 4-byte accesses, and never less
than none.

Shared atomics also serialize lanes on the same address: :func:`atomic_wavefronts` is the larger of the
bank wavefronts and the most lanes on one address. ``*_np`` are the numpy twins.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

WARP = 32


@njit(cache=True)
def _seen(offsets, phase, i, p, word, bank_width, words):
    """Whether an earlier lane of phase ``p`` than position ``i`` covers ``word``."""
    for j in range(i):
        if phase[j] == p:
            w0 = np.int64(offsets[j]) // bank_width
            if w0 <= word < w0 + words:
                return True
    return False


@njit(cache=True)
def _wavefronts(offsets, lanes, nbytes, banks, bank_width, pair):
    n = offsets.size
    words = max(1, nbytes // bank_width)
    per_phase = max(1, WARP // words)
    phases = (WARP + per_phase - 1) // per_phase
    phase = np.empty(n, np.int64)
    for i in range(n):
        phase[i] = (np.int64(lanes[i]) % WARP) // per_phase
    count = np.zeros((phases, banks), np.int64)      # distinct words per phase and bank
    for i in range(n):
        p = phase[i]
        w0 = np.int64(offsets[i]) // bank_width
        for word in range(w0, w0 + words):
            if not _seen(offsets, phase, i, p, word, bank_width, words):
                count[p, word % banks] += 1
    step = 2 if pair and phases > 1 else 1
    total = 0
    for p in range(0, phases, step):
        best = 0
        for b in range(banks):
            c = 0
            for q in range(p, p + step):
                c += count[q, b]
            best = max(best, c)
        if step == 2 and best > 1 and _one_address(offsets, phase, p):
            best = 1
        total += best
    return total


@njit(cache=True)
def _one_address(offsets, phase, p):
    """Whether every active lane of phases ``p`` and ``p + 1`` names one address."""
    first = -1
    for i in range(offsets.size):
        if phase[i] == p or phase[i] == p + 1:
            if first < 0:
                first = np.int64(offsets[i])
            elif np.int64(offsets[i]) != first:
                return False
    return True


@njit(cache=True)
def _same_address(offsets):
    best = 0
    for i in range(offsets.size):
        c = 1
        for j in range(i + 1, offsets.size):
            if offsets[j] == offsets[i]:
                c += 1
        best = max(best, c)
    return best


def wavefronts(offsets: np.ndarray, lanes: np.ndarray, nbytes: int, banks: int = 32, bank_width: int = 4,
               pair: bool = False) -> int:
    """Wavefronts of one warp's shared access: ``offsets`` (bytes, one per active lane) of lanes ``lanes``
    (0..31; taken modulo 32) each accessing ``nbytes`` bytes. 0 when no lane is active. ``pair`` (loads):
    8- and 16-byte accesses' phases are served two at a time (see the module docstring)."""
    return _wavefronts(offsets, lanes, nbytes, banks, bank_width, pair)


def atomic_wavefronts(offsets: np.ndarray, lanes: np.ndarray, nbytes: int, banks: int = 32,
                      bank_width: int = 4) -> int:
    """Wavefronts of one warp's shared atomic: max(:func:`wavefronts`, most lanes on one address)."""
    return max(_wavefronts(offsets, lanes, nbytes, banks, bank_width, False), _same_address(offsets))


# ------------------------------------------------------------------------------------------ numpy twins
def wavefronts_np(offsets: ArrayLike, lanes: ArrayLike, nbytes: int, banks: int = 32, bank_width: int = 4,
                  pair: bool = False) -> int:
    """Numpy twin of :func:`wavefronts`: unique (phase, word) pairs, counted per (phase, bank), phases
    summed per pair where ``pair``."""
    offsets, lanes = np.asarray(offsets, np.int64), np.asarray(lanes, np.int64) % WARP
    if not offsets.size:
        return 0
    words = max(1, nbytes // bank_width)
    per_phase = max(1, WARP // words)
    word = (offsets // bank_width)[:, None] + np.arange(words)[None, :]
    phase = np.broadcast_to((lanes // per_phase)[:, None], word.shape)
    pairs = np.unique(np.stack([phase.ravel(), word.ravel()]), axis=1)
    counts = np.zeros((WARP, banks), np.int64)
    np.add.at(counts, (pairs[0], pairs[1] % banks), 1)
    if not (pair and words > 1):
        return int(counts.max(axis=1).sum())
    group = lanes // (2 * per_phase)
    cost = counts.reshape(WARP // 2, 2, banks).sum(axis=1).max(axis=1)
    for g in np.unique(group):
        if cost[g] > 1 and np.unique(offsets[group == g]).size == 1:
            cost[g] = 1
    return int(cost.sum())


def atomic_wavefronts_np(offsets: ArrayLike, lanes: ArrayLike, nbytes: int, banks: int = 32,
                         bank_width: int = 4) -> int:
    """Numpy twin of :func:`atomic_wavefronts`."""
    offsets = np.asarray(offsets, np.int64)
    same = int(np.unique(offsets, return_counts=True)[1].max()) if offsets.size else 0
    return max(wavefronts_np(offsets, lanes, nbytes, banks, bank_width), same)
