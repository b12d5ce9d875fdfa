"""The kernels of ``benchmarks/dram_pitch_hw.py``: 16x16 tiles of ``n x n`` float32 matrices whose rows are
``pitch`` floats apart (``n`` of them used), read along rows or down columns, and the 7-point stencil.

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device):

* ``add1d``: ``out[i] = a[i] + b[i]`` over flat arrays (the stream to compare with);
* ``add_rows``: ``out[y, x] = a[y, x] + b[y, x]``, a 2-D grid of 16x16 blocks (``workloads.plain``'s
  ``matadd_2d16``): the 32 blocks that read one 2 KB stretch of a matrix row start one after another;
* ``add_cols``: the same sum with a 1-D grid whose consecutive blocks take tiles one below the other: the
  blocks reading one 2 KB stretch of a row start ``n / 16`` blocks apart;
* ``tadd``: ``out[y, x] = a[y, x] + b[x, y]`` (``plain.transpose_add16``): ``b`` read down its columns,
  64 bytes of each of 16 rows a block, the blocks that read the rest of those rows ``n / 16`` apart;
* ``tcopy``: ``out[y, x] = b[x, y]`` (the strided read alone);
* ``stencil``: ``workloads.plain.stencil3d7`` (32x8 blocks over ``x, y``, a loop over ``z``).
"""
from smsim import cuda
from workloads.plain import stencil3d7 as stencil

TILE = 16


@cuda.jit
def add1d(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] + b[i]


@cuda.jit
def add_rows(a, b, out, n):
    x, y = cuda.grid(2)
    if y < n and x < n:
        out[y, x] = a[y, x] + b[y, x]


@cuda.jit
def add_cols(a, b, out, n):
    tiles = n // 16
    x = cuda.blockIdx.x // tiles * 16 + cuda.threadIdx.x
    y = cuda.blockIdx.x % tiles * 16 + cuda.threadIdx.y
    if y < n and x < n:
        out[y, x] = a[y, x] + b[y, x]


@cuda.jit
def tadd(a, b, out, n):
    x, y = cuda.grid(2)
    if y < n and x < n:
        out[y, x] = a[y, x] + b[x, y]


@cuda.jit
def tcopy(b, out, n):
    x, y = cuda.grid(2)
    if y < n and x < n:
        out[y, x] = b[x, y]


KERNELS = {"add1d": add1d, "add_rows": add_rows, "add_cols": add_cols, "tadd": tadd, "tcopy": tcopy,
           "stencil": stencil}
