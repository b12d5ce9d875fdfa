"""Vector family: the elementwise "hello world" kernels, memory-bound by construction.

``vec_add`` (c = a + b) and ``saxpy`` (y = a*x + y) do one or two flops per 12 bytes moved: their speed is
the DRAM bandwidth, and every warp's loads and stores are perfectly coalesced (one request, 4 sectors of
32 bytes, per warp instruction). They are the baseline every other family is compared with.

Life of a case: ``build(n, rng)`` draws float32 inputs of length ``n``, computes the expected output with
the numpy reference (``ref_vec_add``/``ref_saxpy``), and returns a 1D launch of ``ceil(n / 256)`` blocks of
256 threads; each thread handles one element and threads past ``n`` do nothing.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup


BLOCK = 256


@cuda.jit
def vec_add(a, b, c):
    """c = a + b: two coalesced loads and one coalesced store per thread (4 sectors per request)."""
    i = cuda.grid(1)
    if i < c.shape[0]:
        c[i] = a[i] + b[i]


@cuda.jit
def saxpy(a, x, y):
    """y = a*x + y with a float32 scalar: coalesced read-modify-write of y (4 sectors per request)."""
    i = cuda.grid(1)
    if i < y.shape[0]:
        y[i] = a * x[i] + y[i]


def ref_vec_add(a, b):
    return a + b


def ref_saxpy(a, x, y):
    return (a * x + y).astype(np.float32)


def _blocks(n):
    return ((n + BLOCK - 1) // BLOCK,)


def build_vec_add(n, rng):
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, b, c), expected={2: ref_vec_add(a, b)})


def build_saxpy(n, rng):
    a = np.float32(2.5)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    want = ref_saxpy(a, x, y)
    return Setup(_blocks(n), (BLOCK,), (a, x, y), expected={2: want})


SIZES = {"test": 3000, "full": 1 << 24}

CASES = [
    Case("vector", "vec_add", vec_add, build_vec_add, sizes=SIZES,
         description="c = a + b, float32, one element per thread: coalesced, DRAM-bandwidth bound"),
    Case("vector", "saxpy", saxpy, build_saxpy, sizes=SIZES,
         description="y = a*x + y (float32 scalar a), one element per thread: coalesced read-modify-write"),
]
