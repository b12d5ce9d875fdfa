"""Numba hot loops of the memory system, each with a plain-numpy twin that the tests compare against.

A warp's memory instruction passes through them in this order: :mod:`.coalesce` turns a global access's
per-lane addresses into the distinct sectors it touches (``l1.sector_bytes``, 32 on NVIDIA GPUs) and the
lines holding them (and the most of those in one bank of L1's tag stage); :mod:`.cache` looks those sectors
up in a sectored set-associative cache (L1, then L2) and fills the ones that missed; :mod:`.banks` counts the
wavefronts a shared-memory access (or shared atomic, or a cached load in L1's data array) needs.

Every compiled function is ``@njit(cache=True)``: the first call in a fresh checkout compiles (seconds),
later runs load the cache.
"""
from .banks import atomic_wavefronts, atomic_wavefronts_np, wavefronts, wavefronts_np
from .cache import HIT, MISS, PENDING, SectorCache
from .coalesce import bank_lines, bank_lines_np, lines_of, lines_of_np, sectors, sectors_np

__all__ = ["sectors", "sectors_np", "lines_of", "lines_of_np", "bank_lines", "bank_lines_np", "wavefronts",
           "wavefronts_np", "atomic_wavefronts", "atomic_wavefronts_np", "SectorCache", "HIT", "PENDING", "MISS"]
