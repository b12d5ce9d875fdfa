// Calibration kernels: CUDA C versions of the microbenchmarks behind /work/shared/hardware/h200_microbench.json
// (the original .cu sources are not available; these are written from its README's descriptions and checked
// on an H100/H200 by benchmarks/calib_hw.py). workloads/calib.py runs them in smsim; results in
// docs/hardware/calib_kernels.md.
//
// Every timed kernel takes an iteration count, so a model can difference two runs (N and 2N iterations) to
// remove start-up. None reads the clock in its timed path; each has a twin NAME_clk with one more parameter,
// `long long *clk`, which is the same body with clock64() read before and after the timed loop
// (clk[0] = cycles, written by thread 0). Bodies are templates so that both share one loop.
//
// Build: workloads/cuda/build.sh calib.cu  (nvcc -ptx -arch=sm_90 -lineinfo -O3 -> workloads/ptx/calib.ptx)

#define BANK_WORDS 2048          // 8 KB: room for stride 64 (lane 31 reads word 1984)
#define SHARED_CHASE_WORDS 4096  // 16 KB shared chase array

template <bool CLK>
__device__ __forceinline__ long long clk_start()
{
    return CLK ? clock64() : 0;
}

template <bool CLK>
__device__ __forceinline__ void clk_stop(long long *clk, long long t0)
{
    if (CLK && threadIdx.x == 0)
        clk[0] = clock64() - t0;
}

// ---------------------------------------------------------------------------------------------- ffma_dep
// One thread, x = fmaf(x, a, 1) sixteen times per loop trip, the loop itself not unrolled further: the FMA
// chain is the critical path, the loop's counter and branch ride along (H200: 4.5 cycles per FMA; this
// body 4.44 on an H200, where 8 per trip gives 4.88 and the compiler's own unrolling 4.22).
template <bool CLK>
__device__ __forceinline__ void ffma_dep_body(float *out, float a, int iters, long long *clk)
{
    float x = 0.0f;
    long long t0 = clk_start<CLK>();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 16; ++k)
            x = fmaf(x, a, 1.0f);
    }
    clk_stop<CLK>(clk, t0);
    out[0] = x;
}

extern "C" __global__ void ffma_dep(float *out, float a, int iters)
{
    ffma_dep_body<false>(out, a, iters, nullptr);
}

extern "C" __global__ void ffma_dep_clk(float *out, float a, int iters, long long *clk)
{
    ffma_dep_body<true>(out, a, iters, clk);
}

// ------------------------------------------------------------------------------------------------- chase
// One thread, j = a[j] (unsigned 32-bit index: one 64-bit multiply-add forms each address). The host builds
// the chain (a[k] = (k + stride) mod n). Warm-up first, in the kernel: `warm` untimed steps from word 0,
// whose end goes to out[1]; then the timed chase starts again at word 0, so with warm >= iters it revisits
// only warmed lines (the last ones the warm-up touched: the reuse distance is the chase, not the array).
// warm = 0 for a cold DRAM chase. Default loads (ld.global, i.e. .ca: L1 then L2) or __ldcg (L2 only).
template <bool CG>
__device__ __forceinline__ unsigned chase_load(const unsigned *p)
{
    return CG ? __ldcg(p) : *p;
}

template <bool CG, bool CLK>
__device__ __forceinline__ void chase_body(const unsigned *a, unsigned *out, int iters, int warm, long long *clk)
{
    unsigned j = 0;
    for (int i = 0; i < warm; ++i)
        j = chase_load<CG>(a + j);
    out[1] = j;
    j = 0;
    long long t0 = clk_start<CLK>();
    for (int i = 0; i < iters; ++i)
        j = chase_load<CG>(a + j);
    clk_stop<CLK>(clk, t0);
    out[0] = j;
}

extern "C" __global__ void chase(const unsigned *a, unsigned *out, int iters, int warm)
{
    chase_body<false, false>(a, out, iters, warm, nullptr);
}

extern "C" __global__ void chase_cg(const unsigned *a, unsigned *out, int iters, int warm)
{
    chase_body<true, false>(a, out, iters, warm, nullptr);
}

extern "C" __global__ void chase_clk(const unsigned *a, unsigned *out, int iters, int warm, long long *clk)
{
    chase_body<false, true>(a, out, iters, warm, clk);
}

extern "C" __global__ void chase_cg_clk(const unsigned *a, unsigned *out, int iters, int warm, long long *clk)
{
    chase_body<true, true>(a, out, iters, warm, clk);
}

// ------------------------------------------------------------------------------------------ shared_chase
// The block copies a 16 KB chain (a[0..4095], each word the index of the next) into shared memory; after a
// barrier thread 0 chases j = buf[j] (H200: 28.7 cycles per step).
template <bool CLK>
__device__ __forceinline__ void shared_chase_body(const unsigned *a, unsigned *out, int iters, long long *clk)
{
    __shared__ unsigned buf[SHARED_CHASE_WORDS];
    for (int k = threadIdx.x; k < SHARED_CHASE_WORDS; k += blockDim.x)
        buf[k] = a[k];
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned j = 0;
        long long t0 = clk_start<CLK>();
        for (int i = 0; i < iters; ++i)
            j = buf[j];
        clk_stop<CLK>(clk, t0);
        out[0] = j;
    }
}

extern "C" __global__ void shared_chase(const unsigned *a, unsigned *out, int iters)
{
    shared_chase_body<false>(a, out, iters, nullptr);
}

extern "C" __global__ void shared_chase_clk(const unsigned *a, unsigned *out, int iters, long long *clk)
{
    shared_chase_body<true>(a, out, iters, clk);
}

// ------------------------------------------------------------------------------------------- smem_bank
// One block of W warps; lane l re-reads shared word l * stride (stride 0: all lanes one word, a broadcast)
// in a dependent loop: v = buf[l * stride + (int)v]. Every word holds k / 4096 (< 0.5), so (int)v is 0 and
// the index never moves, but a float-to-int conversion (F2I) and an IMAD sit on the dependent path next to
// the load; with this body the GPU reproduces the H200 table (50.7 cycles per step with one warp, where a
// bare j = buf[j] takes 29: docs/hardware/calib_kernels.md). The float2 / float4 versions: lane l re-reads
// element l (v = buf[l + (int)v.x]); x holds l / 64, the other components (float) l, summed off the path.
// Only the block's last thread stores its result (one 4-byte store, as in the Nsight Compute rows); the
// others store only if a load returned a negative value (never), which keeps their loops live.
template <bool CLK>
__device__ __forceinline__ void smem_bank_body(float *out, int stride, int iters, long long *clk)
{
    __shared__ float buf[BANK_WORDS];
    for (int k = threadIdx.x; k < BANK_WORDS; k += blockDim.x)
        buf[k] = k * (1.0f / 4096.0f);
    __syncthreads();
    int base = (threadIdx.x & 31) * stride;
    float v = 0.0f;
    long long t0 = clk_start<CLK>();
    for (int i = 0; i < iters; ++i)
        v = buf[base + (int)v];
    clk_stop<CLK>(clk, t0);
    if (threadIdx.x == blockDim.x - 1 || v < 0.0f)
        out[0] = v;
}

extern "C" __global__ void smem_bank(float *out, int stride, int iters)
{
    smem_bank_body<false>(out, stride, iters, nullptr);
}

extern "C" __global__ void smem_bank_clk(float *out, int stride, int iters, long long *clk)
{
    smem_bank_body<true>(out, stride, iters, clk);
}

template <bool CLK>
__device__ __forceinline__ void smem_bank_v2_body(float *out, int iters, long long *clk)
{
    __shared__ float2 buf2[32];
    int lane = threadIdx.x & 31;
    if (threadIdx.x < 32)
        buf2[lane] = make_float2(lane * (1.0f / 64.0f), (float)lane);
    __syncthreads();
    float2 v = make_float2(0.0f, 0.0f);
    float acc = 0.0f;
    long long t0 = clk_start<CLK>();
    for (int i = 0; i < iters; ++i) {
        v = buf2[lane + (int)v.x];
        acc += v.y;
    }
    clk_stop<CLK>(clk, t0);
    if (threadIdx.x == blockDim.x - 1 || acc < 0.0f)
        out[0] = acc;
}

extern "C" __global__ void smem_bank_v2(float *out, int iters)
{
    smem_bank_v2_body<false>(out, iters, nullptr);
}

extern "C" __global__ void smem_bank_v2_clk(float *out, int iters, long long *clk)
{
    smem_bank_v2_body<true>(out, iters, clk);
}

template <bool CLK>
__device__ __forceinline__ void smem_bank_v4_body(float *out, int iters, long long *clk)
{
    __shared__ float4 buf4[32];
    int lane = threadIdx.x & 31;
    if (threadIdx.x < 32)
        buf4[lane] = make_float4(lane * (1.0f / 64.0f), (float)lane, (float)lane, (float)lane);
    __syncthreads();
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float acc = 0.0f;
    long long t0 = clk_start<CLK>();
    for (int i = 0; i < iters; ++i) {
        v = buf4[lane + (int)v.x];
        acc += (v.y + v.z) + v.w;
    }
    clk_stop<CLK>(clk, t0);
    if (threadIdx.x == blockDim.x - 1 || acc < 0.0f)
        out[0] = acc;
}

extern "C" __global__ void smem_bank_v4(float *out, int iters)
{
    smem_bank_v4_body<false>(out, iters, nullptr);
}

extern "C" __global__ void smem_bank_v4_clk(float *out, int iters, long long *clk)
{
    smem_bank_v4_body<true>(out, iters, clk);
}

// ---------------------------------------------------------------------------------------------- stream
// Occupancy sweep: grid-stride float4 read (ld.global.v4.f32) of n4 vectors, blocks of 128 threads, the
// launch's dynamic shared memory (unused here) limiting blocks per SM. ILP independent loads per loop trip;
// the trip loop is not unrolled, so exactly ILP loads are in flight per thread (each trip's adds wait for
// its loads before the next trip's loads issue). Each thread stores its sum.
template <int ILP>
__device__ __forceinline__ void stream_body(const float4 *a, float *out, size_t n4)
{
    size_t t = (size_t)gridDim.x * blockDim.x;
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i = g;
    float acc = 0.0f;
#pragma unroll 1
    for (; i + (ILP - 1) * t < n4; i += ILP * t) {
        float4 v[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k)
            v[k] = a[i + k * t];
#pragma unroll
        for (int k = 0; k < ILP; ++k)
            acc += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
#pragma unroll 1
    for (; i < n4; i += t) {
        float4 v = a[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    out[g] = acc;
}

extern "C" __global__ void stream_ilp1(const float4 *a, float *out, size_t n4)
{
    stream_body<1>(a, out, n4);
}

extern "C" __global__ void stream_ilp4(const float4 *a, float *out, size_t n4)
{
    stream_body<4>(a, out, n4);
}

// ------------------------------------------------------------------------------------- stream_single_sm
// One block of W warps (one SM). Each thread makes `iters` float4 loads with __ldcg (ld.global.cg.v4.f32),
// one in flight: the sum that uses a load comes before the next load. Trip k reads vector
// (k * step4 + threadIdx.x) mod n4: with step4 = blockDim.x the block sweeps the region contiguously
// (a 2 MB region is L2-resident after the first lap), with a larger step4 it jumps.
template <bool CLK>
__device__ __forceinline__ void single_sm_body(const float4 *a, float *out, unsigned n4, unsigned step4, int iters,
                                               long long *clk)
{
    unsigned i = threadIdx.x;
    float acc = 0.0f;
    long long t0 = clk_start<CLK>();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        float4 v = __ldcg(a + i);
        acc += (v.x + v.y) + (v.z + v.w);
        i += step4;
        if (i >= n4)
            i -= n4;
    }
    clk_stop<CLK>(clk, t0);
    out[threadIdx.x] = acc;
}

extern "C" __global__ void stream_single_sm(const float4 *a, float *out, unsigned n4, unsigned step4, int iters)
{
    single_sm_body<false>(a, out, n4, step4, iters, nullptr);
}

extern "C" __global__ void stream_single_sm_clk(const float4 *a, float *out, unsigned n4, unsigned step4, int iters,
                                                long long *clk)
{
    single_sm_body<true>(a, out, n4, step4, iters, clk);
}

// ------------------------------------------------------------------------------------------------ copies
// The coalescing / Nsight Compute copy kernels: one element per thread, blocks of 256.
extern "C" __global__ void copy_stride(float *out, const float *in, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i * stride];
}

extern "C" __global__ void copy_offset(float *out, const float *in, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + offset];
}

extern "C" __global__ void copy_f2(float2 *out, const float2 *in, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2)
        out[i] = in[i];
}

extern "C" __global__ void copy_f4(float4 *out, const float4 *in, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4)
        out[i] = in[i];
}

// ------------------------------------------------------------------------------------------------ probes
// Alternative loop bodies, compiled only with -DCALIB_PROBES (benchmarks/calib_hw.py builds them on the GPU
// machine; the checked-in PTX leaves them out). They were timed next to the kernels above to tell which
// instruction mix the H200 table's kernels had: docs/hardware/calib_kernels.md.
#ifdef CALIB_PROBES
// j = buf[j] with byte offsets in the words: the loaded value is the address (no shift on the path)
extern "C" __global__ void probe_bank_off_clk(unsigned *out, int stride, int iters, long long *clk)
{
    __shared__ unsigned buf[BANK_WORDS];
    for (int k = threadIdx.x; k < BANK_WORDS; k += blockDim.x) buf[k] = 4 * k;
    __syncthreads();
    unsigned j = 4 * ((threadIdx.x & 31) * stride);
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) j = *(const unsigned *)((const char *)buf + j);
    long long t1 = clock64();
    if (threadIdx.x == 0) clk[0] = t1 - t0;
    if (threadIdx.x == blockDim.x - 1 || j == ~0u) out[0] = j;
}
// lane l holds its lane number; each step reads word j * stride (a multiply on the path)
extern "C" __global__ void probe_bank_mul_clk(unsigned *out, int stride, int iters, long long *clk)
{
    __shared__ unsigned buf[BANK_WORDS];
    if (threadIdx.x < 32) buf[threadIdx.x * stride] = threadIdx.x;
    __syncthreads();
    unsigned j = threadIdx.x & 31;
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) j = buf[j * stride];
    long long t1 = clock64();
    if (threadIdx.x == 0) clk[0] = t1 - t0;
    if (threadIdx.x == blockDim.x - 1 || j == ~0u) out[0] = j;
}
// float words of 0: next index = l*stride + (int)v (a float-to-int conversion on the path)
extern "C" __global__ void probe_bank_f2i_clk(unsigned *out, int stride, int iters, long long *clk)
{
    __shared__ float buf[BANK_WORDS];
    for (int k = threadIdx.x; k < BANK_WORDS; k += blockDim.x) buf[k] = 0.0f;
    __syncthreads();
    int base = (threadIdx.x & 31) * stride;
    float v = 0.0f;
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) v = buf[base + (int)v];
    long long t1 = clock64();
    if (threadIdx.x == 0) clk[0] = t1 - t0;
    if (threadIdx.x == blockDim.x - 1 || v != 0.0f) out[0] = (unsigned)v;
}
// j = buf[j] through a generic pointer (LD instead of LDS)
extern "C" __global__ void probe_bank_generic_clk(unsigned *out, int stride, int iters, long long *clk)
{
    __shared__ unsigned buf[BANK_WORDS];
    for (int k = threadIdx.x; k < BANK_WORDS; k += blockDim.x) buf[k] = k;
    __syncthreads();
    unsigned *p = iters >= 0 ? buf : out;
    unsigned j = (threadIdx.x & 31) * stride;
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) j = p[j];
    long long t1 = clock64();
    if (threadIdx.x == 0) clk[0] = t1 - t0;
    if (threadIdx.x == blockDim.x - 1 || j == ~0u) out[0] = j;
}
// j = buf[j], loop not unrolled
extern "C" __global__ void probe_bank_nounroll_clk(unsigned *out, int stride, int iters, long long *clk)
{
    __shared__ unsigned buf[BANK_WORDS];
    for (int k = threadIdx.x; k < BANK_WORDS; k += blockDim.x) buf[k] = k;
    __syncthreads();
    unsigned j = (threadIdx.x & 31) * stride;
    long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) j = buf[j];
    long long t1 = clock64();
    if (threadIdx.x == 0) clk[0] = t1 - t0;
    if (threadIdx.x == blockDim.x - 1 || j == ~0u) out[0] = j;
}
// the FMA chain with the compiler's own unrolling
extern "C" __global__ void probe_ffma_unrolled_clk(float *out, float a, int iters, long long *clk)
{
    float x = 0.0f;
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) {
        x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f);
        x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f);
    }
    long long t1 = clock64();
    clk[0] = t1 - t0;
    out[0] = x;
}
// the FMA chain, 8 per loop trip, not unrolled further (ffma_dep's first version)
extern "C" __global__ void probe_ffma8_clk(float *out, float a, int iters, long long *clk)
{
    float x = 0.0f;
    long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
        x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f);
        x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f); x = fmaf(x, a, 1.0f);
    }
    long long t1 = clock64();
    clk[0] = t1 - t0;
    out[0] = x;
}
// chase variants (same arguments and warm-up as chase_clk): a generic pointer (LD, not LDG) ...
template <bool CG>
__device__ __forceinline__ void probe_chase_generic(const unsigned *a, unsigned *out, int iters, int warm,
                                                    long long *clk)
{
    __shared__ unsigned dummy[1];
    const unsigned *p = iters >= 0 ? a : dummy;
    unsigned j = 0;
    for (int i = 0; i < warm; ++i) j = p[j];
    out[1] = j;
    j = 0;
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) j = p[j];
    clk[0] = clock64() - t0;
    out[0] = j;
}
extern "C" __global__ void probe_chase_generic_clk(const unsigned *a, unsigned *out, int iters, int warm,
                                                   long long *clk)
{ probe_chase_generic<false>(a, out, iters, warm, clk); }
// ... 64-bit words and index (a chain of unsigned long long) ...
template <bool CG>
__device__ __forceinline__ void probe_chase_u64(const unsigned long long *a, unsigned long long *out, int iters,
                                                int warm, long long *clk)
{
    unsigned long long j = 0;
    for (int i = 0; i < warm; ++i) j = CG ? __ldcg(a + j) : a[j];
    out[1] = j;
    j = 0;
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) j = CG ? __ldcg(a + j) : a[j];
    clk[0] = clock64() - t0;
    out[0] = j;
}
extern "C" __global__ void probe_chase_u64_clk(const unsigned long long *a, unsigned long long *out, int iters,
                                               int warm, long long *clk)
{ probe_chase_u64<false>(a, out, iters, warm, clk); }
extern "C" __global__ void probe_chase_u64_cg_clk(const unsigned long long *a, unsigned long long *out, int iters,
                                                  int warm, long long *clk)
{ probe_chase_u64<true>(a, out, iters, warm, clk); }
// ... and the loop not unrolled
template <bool CG>
__device__ __forceinline__ void probe_chase_nounroll(const unsigned *a, unsigned *out, int iters, int warm,
                                                     long long *clk)
{
    unsigned j = 0;
    for (int i = 0; i < warm; ++i) j = chase_load<CG>(a + j);
    out[1] = j;
    j = 0;
    long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) j = chase_load<CG>(a + j);
    clk[0] = clock64() - t0;
    out[0] = j;
}
extern "C" __global__ void probe_chase_nounroll_clk(const unsigned *a, unsigned *out, int iters, int warm,
                                                    long long *clk)
{ probe_chase_nounroll<false>(a, out, iters, warm, clk); }
extern "C" __global__ void probe_chase_nounroll_cg_clk(const unsigned *a, unsigned *out, int iters, int warm,
                                                       long long *clk)
{ probe_chase_nounroll<true>(a, out, iters, warm, clk); }
// single-SM stream variants (same arguments as stream_single_sm_clk): each warp sweeps its own region ...
extern "C" __global__ void probe_ssm_warpseq_clk(const float4 *a, float *out, unsigned n4, unsigned step4, int iters,
                                                 long long *clk)
{
    unsigned i = ((threadIdx.x >> 5) * (unsigned)iters * 32u + (threadIdx.x & 31)) % n4;
    float acc = 0.0f;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        float4 v = __ldcg(a + i);
        acc += (v.x + v.y) + (v.z + v.w);
        i += 32;
        if (i >= n4) i -= n4;
    }
    if (threadIdx.x == 0) clk[0] = clock64() - t0;
    out[threadIdx.x] = acc;
}
// ... and the components summed in C order into the accumulator (4 dependent adds)
extern "C" __global__ void probe_ssm_seqsum_clk(const float4 *a, float *out, unsigned n4, unsigned step4, int iters,
                                                long long *clk)
{
    unsigned i = threadIdx.x;
    float acc = 0.0f;
    long long t0 = clock64();
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        float4 v = __ldcg(a + i);
        acc = acc + v.x + v.y + v.z + v.w;
        i += step4;
        if (i >= n4) i -= n4;
    }
    if (threadIdx.x == 0) clk[0] = clock64() - t0;
    out[threadIdx.x] = acc;
}
#endif  // CALIB_PROBES
