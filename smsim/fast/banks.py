"""Shared-memory bank arbitration: how many wavefronts (bank cycles) a warp's shared access needs.

Life of an access: a warp's ``ld.shared``/``st.shared`` gives one byte offset (into the block's shared
memory) per active lane. Each lane's access covers ``max(1, nbytes // bank_width)`` consecutive words
(word = offset // bank_width, bank = word % banks). The warp is served in phases: one phase of 32 lanes
for accesses of at most one word, two half-warp phases for two words (8-byte accesses on 4-byte banks),
four quarter-warp phases for four (16-byte): in general lanes ``32 // words`` at a time. In a phase, a
bank serves one distinct word per wavefront; lanes reading the same word share it (broadcast). So a phase
costs the largest number of distinct words any one bank holds, and :func:`wavefronts` is the sum over
phases that have an active lane. Nsight Compute reports ``bank_conflicts = wavefronts - instructions``.

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
def _wavefronts(offsets, lanes, nbytes, banks, bank_width):
    n = offsets.size
    words = max(1, nbytes // bank_width)
    per_phase = max(1, WARP // words)
    phase = np.empty(n, np.int64)
    for i in range(n):
        phase[i] = (np.int64(lanes[i]) % WARP) // per_phase
    count = np.zeros(banks, np.int64)
    total = 0
    for p in range((WARP + per_phase - 1) // per_phase):
        count[:] = 0
        best = 0
        for i in range(n):
            if phase[i] != p:
                continue
            w0 = np.int64(offsets[i]) // bank_width
            for word in range(w0, w0 + words):
                if not _seen(offsets, phase, i, p, word, bank_width, words):
                    b = word % banks
                    count[b] += 1
                    best = max(best, count[b])
        total += best
    return total


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


def wavefronts(offsets: np.ndarray, lanes: np.ndarray, nbytes: int, banks: int = 32, bank_width: int = 4) -> int:
    """Wavefronts of one warp's shared access: ``offsets`` (bytes, one per active lane) of lanes ``lanes``
    (0..31; taken modulo 32) each accessing ``nbytes`` bytes. 0 when no lane is active."""
    return _wavefronts(offsets, lanes, nbytes, banks, bank_width)


def atomic_wavefronts(offsets: np.ndarray, lanes: np.ndarray, nbytes: int, banks: int = 32,
                      bank_width: int = 4) -> int:
    """Wavefronts of one warp's shared atomic: max(:func:`wavefronts`, most lanes on one address)."""
    return max(_wavefronts(offsets, lanes, nbytes, banks, bank_width), _same_address(offsets))


# ------------------------------------------------------------------------------------------ numpy twins
def wavefronts_np(offsets: ArrayLike, lanes: ArrayLike, nbytes: int, banks: int = 32, bank_width: int = 4) -> int:
    """Numpy twin of :func:`wavefronts`: unique (phase, word) pairs, counted per (phase, bank)."""
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
    return int(counts.max(axis=1).sum())


def atomic_wavefronts_np(offsets: ArrayLike, lanes: ArrayLike, nbytes: int, banks: int = 32,
                         bank_width: int = 4) -> int:
    """Numpy twin of :func:`atomic_wavefronts`."""
    offsets = np.asarray(offsets, np.int64)
    same = int(np.unique(offsets, return_counts=True)[1].max()) if offsets.size else 0
    return max(wavefronts_np(offsets, lanes, nbytes, banks, bank_width), same)
