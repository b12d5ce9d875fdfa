"""Coalescing family: how the addresses of one warp's 32 loads decide the memory traffic.

A warp instruction to global memory is one request; the memory system moves the distinct 32-byte sectors
it touches. Thirty-two consecutive floats are 128 bytes = 4 sectors (coalesced). The cases here change only
the addressing and show the cost: a stride of 2, 4, 8+ floats touches 8, 16, 32 sectors per request for the
same 128 useful bytes; an offset that is not a multiple of 8 floats straddles one more sector (5); a random
gather touches ~32; an array of structures reads each field with a stride of the record size while a
structure of arrays reads every field coalesced; float2/float4 copies (PTX text, ``ptx/vector_copy.ptx``)
move 8 or 16 sectors per request with half or a quarter of the instructions. The full sizes match the H200
measurements in /work/shared/hardware (n = 2^24 floats, block 256).

Life of a case: ``build(n, rng)`` draws float32 inputs for ``n`` outputs (``n`` particles for the particle
cases), computes the expected output with the numpy reference, and returns a 1D launch of blocks of 256
threads, one output element (or particle, or vector) per thread.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from .case import PtxKernel

BLOCK = 256
N_TEST = 4096
N_FULL = 1 << 24
PARTICLES_TEST = 2048
PARTICLES_FULL = 1 << 22
DT = np.float32(0.01)


@cuda.jit
def copy_stride(out, inp, stride):
    """out[i] = inp[i*stride]: stride 1 → 4 sectors per load request, 2 → 8, 4 → 16, ≥8 → 32 (uncoalesced)."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = inp[i * stride]


@cuda.jit
def copy_offset(out, inp, offset):
    """out[i] = inp[i+offset]: offset not a multiple of 8 floats → 5 sectors per load request (misaligned)."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = inp[i + offset]


@cuda.jit
def gather(out, inp, perm):
    """out[i] = inp[perm[i]] through a random permutation: coalesced perm read, ~32 sectors per inp request."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = inp[perm[i]]


@cuda.jit
def particles_aos4(p, dt):
    """Array of structures, records (x, y, vx, vy) of 16 bytes: each field access strides 16 bytes
    (16 sectors per request for 4 useful sectors)."""
    i = cuda.grid(1)
    if i < p.shape[0]:
        p[i, 0] += p[i, 2] * dt
        p[i, 1] += p[i, 3] * dt


@cuda.jit
def particles_soa4(x, y, vx, vy, dt):
    """Structure of arrays, same update as particles_aos4: every field access coalesced (4 sectors per request)."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += vx[i] * dt
        y[i] += vy[i] * dt


@cuda.jit
def particles_aos8(p, dt):
    """Array of structures, records (x, y, z, vx, vy, vz, mass, charge) of 32 bytes: each field access strides
    32 bytes (32 sectors per request, one useful float per sector; mass and charge ride along)."""
    i = cuda.grid(1)
    if i < p.shape[0]:
        p[i, 0] += p[i, 3] * dt
        p[i, 1] += p[i, 4] * dt
        p[i, 2] += p[i, 5] * dt


@cuda.jit
def particles_soa8(x, y, z, vx, vy, vz, dt):
    """Structure of arrays, same update as particles_aos8: coalesced, and the unused fields are never touched."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += vx[i] * dt
        y[i] += vy[i] * dt
        z[i] += vz[i] * dt


def ref_copy_stride(inp, n, stride):
    return inp[: n * stride: stride].copy()


def ref_copy_offset(inp, n, offset):
    return inp[offset: offset + n].copy()


def ref_gather(inp, perm):
    return inp[perm]


def ref_particles_aos4(p, dt):
    q = p.copy()
    q[:, 0:2] += p[:, 2:4] * dt
    return q


def ref_particles_soa4(x, y, vx, vy, dt):
    return x + vx * dt, y + vy * dt


def ref_particles_aos8(p, dt):
    q = p.copy()
    q[:, 0:3] += p[:, 3:6] * dt
    return q


def ref_particles_soa8(x, y, z, vx, vy, vz, dt):
    return x + vx * dt, y + vy * dt, z + vz * dt


def _blocks(n):
    return ((n + BLOCK - 1) // BLOCK,)


def _floats(rng, n):
    return rng.standard_normal(n, dtype=np.float32)


def build_copy_stride(stride):
    def build(n, rng):
        inp = _floats(rng, n * stride)          # the strided reads span n*stride floats (2 GiB at full, stride 32)
        out = np.zeros(n, np.float32)
        return Setup(_blocks(n), (BLOCK,), (out, inp, np.int32(stride)),
                     expected={0: ref_copy_stride(inp, n, stride)})
    return build


def build_copy_offset(offset):
    def build(n, rng):
        inp = _floats(rng, n + offset)
        out = np.zeros(n, np.float32)
        return Setup(_blocks(n), (BLOCK,), (out, inp, np.int32(offset)),
                     expected={0: ref_copy_offset(inp, n, offset)})
    return build


def build_gather(n, rng):
    inp = _floats(rng, n)
    perm = rng.permutation(n).astype(np.int32)
    out = np.zeros(n, np.float32)
    return Setup(_blocks(n), (BLOCK,), (out, inp, perm), expected={0: ref_gather(inp, perm)})


def build_particles_aos4(n, rng):
    p = _floats(rng, n * 4).reshape(n, 4)
    want = ref_particles_aos4(p, DT)
    return Setup(_blocks(n), (BLOCK,), (p, DT), expected={0: want})


def build_particles_soa4(n, rng):
    x, y, vx, vy = (_floats(rng, n) for _ in range(4))
    wx, wy = ref_particles_soa4(x, y, vx, vy, DT)
    return Setup(_blocks(n), (BLOCK,), (x, y, vx, vy, DT), expected={0: wx, 1: wy})


def build_particles_aos8(n, rng):
    p = _floats(rng, n * 8).reshape(n, 8)
    want = ref_particles_aos8(p, DT)
    return Setup(_blocks(n), (BLOCK,), (p, DT), expected={0: want})


def build_particles_soa8(n, rng):
    x, y, z, vx, vy, vz = (_floats(rng, n) for _ in range(6))
    wx, wy, wz = ref_particles_soa8(x, y, z, vx, vy, vz, DT)
    return Setup(_blocks(n), (BLOCK,), (x, y, z, vx, vy, vz, DT), expected={0: wx, 1: wy, 2: wz})


def build_copy_vec(width):
    """float copy through ``copy_float{width}`` (PTX): ``n`` floats as ``n / width`` vectors, one per thread."""
    def build(n, rng):
        if n % width:
            raise ValueError(f"n = {n} is not a multiple of the vector width {width}")
        inp = _floats(rng, n)
        out = np.zeros(n, np.float32)
        n_vec = n // width
        return Setup(_blocks(n_vec), (BLOCK,), (out, inp, np.int32(n_vec)), expected={0: inp.copy()})
    return build


SIZES = {"test": N_TEST, "full": N_FULL}
PARTICLE_SIZES = {"test": PARTICLES_TEST, "full": PARTICLES_FULL}
PTX = "ptx/vector_copy.ptx"

CASES = [
    *[Case("coalescing", f"copy_stride{s}", copy_stride, build_copy_stride(s), sizes=SIZES,
           description=f"out[i] = in[i*{s}]: {min(4 * s, 32)} sectors per load request")
      for s in (1, 2, 4, 8, 32)],
    *[Case("coalescing", f"copy_offset{o}", copy_offset, build_copy_offset(o), sizes=SIZES,
           description=f"out[i] = in[i+{o}]: " + ("aligned, 4 sectors per load request" if o % 8 == 0
                                                  else "misaligned, 5 sectors per load request"))
      for o in (0, 1, 8)],
    Case("coalescing", "gather_random", gather, build_gather, sizes=SIZES,
         description="out[i] = in[perm[i]], random permutation: ~32 sectors per gathered load request"),
    Case("coalescing", "particles_aos4", particles_aos4, build_particles_aos4, sizes=PARTICLE_SIZES,
         description="position += velocity*dt on (n, 4) float32 records: 16-byte-strided field accesses"),
    Case("coalescing", "particles_soa4", particles_soa4, build_particles_soa4, sizes=PARTICLE_SIZES,
         description="position += velocity*dt on 4 separate float32 arrays: coalesced"),
    Case("coalescing", "particles_aos8", particles_aos8, build_particles_aos8, sizes=PARTICLE_SIZES,
         description="3D position += velocity*dt on (n, 8) float32 records: 32-byte-strided, 32 sectors/request"),
    Case("coalescing", "particles_soa8", particles_soa8, build_particles_soa8, sizes=PARTICLE_SIZES,
         description="3D position += velocity*dt on 6 separate float32 arrays: coalesced"),
    Case("coalescing", "copy_float", PtxKernel(PTX, "copy_float"), build_copy_vec(1), sizes=SIZES,
         description="PTX float copy (ld/st.global.f32): 4 sectors per request, the baseline for float2/float4"),
    Case("coalescing", "copy_float2", PtxKernel(PTX, "copy_float2"), build_copy_vec(2), sizes=SIZES,
         description="PTX float2 copy (ld/st.global.v2.f32): 8 sectors per request, half the requests"),
    Case("coalescing", "copy_float4", PtxKernel(PTX, "copy_float4"), build_copy_vec(4), sizes=SIZES,
         description="PTX float4 copy (ld/st.global.v4.f32): 16 sectors per request, a quarter of the requests"),
]
