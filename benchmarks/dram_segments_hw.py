"""How fast an H200 reads DRAM when the addresses it reads together are short segments far apart, as a 2-D
tile of an image reads them: achieved bandwidth by segment length and the distance between segments.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/dram_segments_hw.py --out $OUT/dram_segments_hw.json

Why: 2-D kernels that read an image in tiles of 16x16 or 32x8 threads (``everyday.laplace5``,
``affine_2d``, ``stencil.sobel_naive``) run 10-16% slower on the H200 than smsim predicts at their full
size, while moving DRAM bytes at well under the bandwidth a stream reaches. A tile reads 64 or 128 bytes of
each of 8 or 16 image rows, 16 KB apart: if HBM pays for each short segment (a row activation for a few
bytes), such reads reach less bandwidth than a stream.

Each kernel sums a 512 MiB float32 array ``PASSES`` times (it does not fit in L2), tile by tile: a tile
is 4 KB, ``4096 / seg`` segments of ``seg`` bytes, ``pitch`` bytes apart (one column band of an image whose
rows are ``pitch`` apart), its elements taken by the block's threads in row-major order as a 2-D block's
threads take them (a warp reads 32 consecutive elements: ``128 / seg`` segments when they are shorter than
128 bytes), four loads a thread in flight together (shifts, not divisions: the kernel is bound by DRAM, not
by its index arithmetic). 132 x 8 blocks of 256 threads take the tiles in turn (a grid-stride loop), so
tiles side by side run at the same time, as a 2-D grid's blocks do. ``seg`` 32-2048 bytes, ``pitch`` the
segment itself (a stream) or 16 KB (an image row of 4096 floats). Timed with CUDA events around launches of about
a millisecond (numba's ~25 us of host-side launch work, inside such a timing, is 2-3% of it), the median of
three after a warm-up, each after L2 was cleared by reading another 512 MiB.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

ARRAY_BYTES = 512 << 20
SEGMENTS = (32, 64, 128, 256, 512, 2048)
TILE_WORDS = 1024         # a tile: 4 KB, 1024 // seg_words segments
ROW_PITCH = 16384
ROUNDS = 3
BLOCKS = 132 * 8            # 8 blocks of 256 threads on each of an H200's 132 SMs
PASSES = 8                # the array is read this many times a launch (512 MiB does not fit in L2)
THREADS = 256


def _kernels():
    cuda, np = hw_probe.numba_cuda()

    @cuda.jit
    def tiles(a, out, seg_log, rows_log, pitch_words, ntiles, passes):
        """Tile ``k`` (``2**rows_log`` segments of ``2**seg_log`` floats, ``pitch_words`` apart) for k = this
        block, + the grid, ... (consecutive tiles run at the same time, as a 2-D grid's blocks do); the
        block's 256 threads take the tile's 1024 elements in row-major order, four each, all four loads in
        flight together."""
        t = cuda.threadIdx.x
        bands_log = 0
        while (1 << (bands_log + seg_log)) < pitch_words:
            bands_log += 1
        mask = (1 << seg_log) - 1
        acc = np.float32(0.0)
        for _ in range(passes):
            for k in range(cuda.blockIdx.x, ntiles, cuda.gridDim.x):
                band, col = k >> bands_log, k & ((1 << bands_log) - 1)
                base = (band << rows_log) * pitch_words + (col << seg_log)
                e0, e1, e2, e3 = t, t + 256, t + 512, t + 768
                v0 = a[base + (e0 >> seg_log) * pitch_words + (e0 & mask)]
                v1 = a[base + (e1 >> seg_log) * pitch_words + (e1 & mask)]
                v2 = a[base + (e2 >> seg_log) * pitch_words + (e2 & mask)]
                v3 = a[base + (e3 >> seg_log) * pitch_words + (e3 & mask)]
                acc += (v0 + v1) + (v2 + v3)
        if acc == np.float32(-1.0):
            out[0] = acc

    return cuda, np, tiles, hw_probe.clear_kernel()


def run(out_path: str) -> None:
    cuda, np, tiles, clear = _kernels()
    n = ARRAY_BYTES // 4
    a = cuda.to_device(np.ones(n, np.float32))
    other = cuda.to_device(np.ones(n, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    rows_out = []
    for seg in SEGMENTS:
        for pitch in (seg, ROW_PITCH):
            seg_words, pitch_words = seg // 4, pitch // 4
            rows = TILE_WORDS // seg_words
            ntiles = n // TILE_WORDS
            args = (a, sink, seg_words.bit_length() - 1, rows.bit_length() - 1, pitch_words, ntiles, PASSES)
            times = hw_probe.event_ns(tiles[BLOCKS, THREADS], args, ROUNDS, before=(clear[BLOCKS, 256], (other, sink)))
            ns = float(np.median(times))
            nbytes = ntiles * rows * seg * PASSES
            rows_out.append(dict(seg=seg, pitch=pitch, rows=rows, blocks=BLOCKS, tiles=ntiles, bytes=nbytes, ns=times,
                                 ns_median=ns, gbps=nbytes / ns))
            print(f"seg {seg:4d} pitch {pitch:6d}: {ns / 1e3:8.0f} us, {nbytes / ns:7.0f} GB/s", flush=True)
    hw_probe.write(out_path, array_bytes=ARRAY_BYTES, rows=rows_out)


if __name__ == "__main__":
    sys.exit(hw_probe.main(__doc__, run))
