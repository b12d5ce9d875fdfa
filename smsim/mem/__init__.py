"""The memory subsystem of one SM: shared memory, L1 (with its LSU queue and MSHRs), this SM's view of L2
and of HBM. :mod:`smsim.gpu` wires them; each module tells the life of a request through it."""
