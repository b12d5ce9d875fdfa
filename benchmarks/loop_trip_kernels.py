"""The kernels of ``benchmarks/loop_trip_hw.py``: loops over ``z`` of a ``(nz, ny, nx)`` float32 volume, one
thread an ``(x, y)`` column in 32x8 blocks, each iteration one DRAM round trip (plane ``z + 1`` is new).

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device). They differ in what else an iteration does:

* ``next_sum``: ``acc += u[z + 1, y, x]``, stored once after the loop (no store in the loop);
* ``next_copy``: ``out[z, y, x] = u[z + 1, y, x]`` (a store each iteration, after its load);
* ``next_copy_same``: ``out[0, y, x] = u[z + 1, y, x]`` (a store each iteration, always to the same word);
* ``next_copy2``: ``out[z, y, x] = u[z + 1, y, x] + u[z, y, x]`` (and a load L1 holds);
* ``five_copy``: the stencil without its ``y - 1`` and ``y + 1`` loads (five loads, a store);
* ``ypm_copy``: ``out[z, y, x] = u[z + 1, y, x] + u[z, y - 1, x] + u[z, y + 1, x]``: with the lines of plane
  ``z`` the warps beside it loaded in the iteration before (as their ``u[z + 1]``);
* ``ypm_prev_copy``: as ``ypm_copy`` with plane ``z - 1``'s lines (loaded two iterations before);
* ``seven_own``: seven loads and a store, the six besides ``u[z + 1]`` in lines this warp loaded itself
  (``x - 1, x, x + 1`` of planes ``z`` and ``z - 1``);
* ``six_copy``: the stencil without ``u[z, y + 1, x]``;
* ``nine_copy``: the stencil and ``u[z - 1, y - 1, x]``, ``u[z - 1, y + 1, x]``;
* ``seven_sum``: the 7-point stencil's seven loads, summed into ``acc``, stored once after the loop;
* ``seven_copy``: the 7-point stencil, ``workloads/plain.py``'s ``stencil3d7`` itself: seven loads and a
  store each iteration.
"""
import numpy as np

from smsim import cuda
from workloads.plain import stencil3d7 as seven_copy


@cuda.jit
def next_sum(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        acc = np.float32(0.0)
        for z in range(1, nz - 1):
            acc += u[z + 1, y, x]
        out[0, y, x] = acc


@cuda.jit
def next_copy(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = u[z + 1, y, x]


@cuda.jit
def next_copy_same(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[0, y, x] = u[z + 1, y, x]


@cuda.jit
def next_copy2(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = u[z + 1, y, x] + u[z, y, x]


@cuda.jit
def five_copy(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = (u[z, y, x - 1] + u[z, y, x + 1] + u[z - 1, y, x] + u[z + 1, y, x]
                            - np.float32(6.0) * u[z, y, x])


@cuda.jit
def ypm_copy(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = u[z + 1, y, x] + u[z, y - 1, x] + u[z, y + 1, x]


@cuda.jit
def ypm_prev_copy(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = u[z + 1, y, x] + u[z - 1, y - 1, x] + u[z - 1, y + 1, x]


@cuda.jit
def seven_own(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = (u[z, y, x - 1] + u[z, y, x + 1] + u[z - 1, y, x - 1] + u[z - 1, y, x + 1]
                            + u[z - 1, y, x] + u[z + 1, y, x] - np.float32(6.0) * u[z, y, x])


@cuda.jit
def six_copy(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x]
                            + u[z - 1, y, x] + u[z + 1, y, x] - np.float32(6.0) * u[z, y, x])


@cuda.jit
def nine_copy(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x] + u[z, y + 1, x]
                            + u[z - 1, y, x] + u[z + 1, y, x] - np.float32(6.0) * u[z, y, x]
                            + u[z - 1, y - 1, x] + u[z - 1, y + 1, x])


@cuda.jit
def seven_sum(u, out):
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        acc = np.float32(0.0)
        for z in range(1, nz - 1):
            acc += (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x] + u[z, y + 1, x]
                    + u[z - 1, y, x] + u[z + 1, y, x] - np.float32(6.0) * u[z, y, x])
        out[0, y, x] = acc


KERNELS = {"next_sum": next_sum, "next_copy": next_copy, "next_copy_same": next_copy_same, "next_copy2": next_copy2,
           "five_copy": five_copy, "ypm_copy": ypm_copy, "ypm_prev_copy": ypm_prev_copy, "seven_own": seven_own,
           "six_copy": six_copy, "nine_copy": nine_copy, "seven_sum": seven_sum, "seven_copy": seven_copy}
