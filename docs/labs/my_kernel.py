"""A workload of your own: two cases of a scaling kernel, run with ``smsim run docs/labs/my_kernel.py``.

Each thread scales one float by ``alpha``; ``stride`` spaces the elements it reads so that the two cases
differ only in coalescing. ``build(n, rng)`` makes the inputs for ``n`` outputs, the expected output (the
numpy reference) and the launch (blocks of 256 threads); smsim launches it, checks the output against the
reference and prints the report.
"""
import numpy as np

from smsim import Case, Setup, cuda

BLOCK = 256


@cuda.jit
def scale(out, inp, alpha, stride):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = alpha * inp[i * stride]


def build(stride):
    def setup(n, rng):
        inp = rng.standard_normal(n * stride, dtype=np.float32)
        out = np.zeros(n, np.float32)
        alpha = np.float32(3.0)
        want = alpha * inp[::stride]
        grid = ((n + BLOCK - 1) // BLOCK,)
        return Setup(grid, (BLOCK,), (out, inp, alpha, np.int32(stride)), expected={0: want})
    return setup


SIZES = {"test": 4096, "full": 1 << 22}

CASES = [
    Case("mine", "scale_coalesced", scale, build(1), sizes=SIZES, description="out[i] = alpha * inp[i]"),
    Case("mine", "scale_stride4", scale, build(4), sizes=SIZES, description="out[i] = alpha * inp[4 * i]"),
]
