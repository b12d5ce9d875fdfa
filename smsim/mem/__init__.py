"""The memory subsystem of one SM: shared memory, L1 (with its LSU queue and MSHRs), this SM's view of L2
and of HBM, and the bandwidth queue they are built of. Each module tells the life of a request through it
and registers its model in :mod:`smsim.registry`; importing this package registers them all (a new model
is one new module here plus one import line below). :mod:`smsim.single_sm` wires them."""
from __future__ import annotations

from . import dram, l1, l2, l2_write_back, shared  # noqa: F401  (each registers its model on import)
