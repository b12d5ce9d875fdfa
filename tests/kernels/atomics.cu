// Integer atomics. Each kernel touches a handful of counters from many threads.

// res[0..5]: max, min (signed), umax (unsigned), and, or, xor of all inputs; returns unused => red.*
__global__ void atomic_reduce_ops(int *res, unsigned *ures, const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i];
        atomicMax(&res[0], v);
        atomicMin(&res[1], v);
        atomicMax(&ures[0], (unsigned)v);
        atomicMin(&ures[1], (unsigned)v);
        atomicAnd(&ures[2], (unsigned)v | 0x80000001u);
        atomicOr(&ures[3], (unsigned)v & 0x0f0f0f0fu);
        atomicXor(&ures[4], (unsigned)v);
    }
}

// Same operations but with the old values used (atom.* with a destination).
__global__ void atomic_fetch_ops(int *res, int *old, const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i];
        int a = atomicMax(&res[0], v);
        int b = atomicMin(&res[1], v);
        int c = atomicAnd(&res[2], v | 0x40000001);
        int d = atomicOr(&res[3], v & 0x00ff00ff);
        int e = atomicXor(&res[4], v);
        // For every address the atomics form a chain: new = op(old, v) is the next thread's old.
        old[5 * i + 0] = a;
        old[5 * i + 1] = b;
        old[5 * i + 2] = c;
        old[5 * i + 3] = d;
        old[5 * i + 4] = e;
    }
}

// Every thread exchanges its id+1 into slot[i % nslots]; old values are collected.
__global__ void atomic_exch_ids(int *slot, int *old, int n, int nslots)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        old[i] = atomicExch(&slot[i % nslots], i + 1);
}

// Each thread tries to claim slot[i % nslots] (0 = free) with its id+1; won[i] = 1 if it did.
__global__ void atomic_cas_claim(int *slot, int *won, int n, int nslots)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        won[i] = (atomicCAS(&slot[i % nslots], 0, i + 1) == 0) ? 1 : 0;
}

// Increment counter[i % ncnt] with a CAS retry loop (lock-free, no locks held across iterations).
__global__ void atomic_cas_loop_add(int *counter, int n, int ncnt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int *addr = &counter[i % ncnt];
        int old = *addr, assumed;
        do {
            assumed = old;
            old = atomicCAS(addr, assumed, assumed + (i & 7) + 1);
        } while (old != assumed);
    }
}

// atomicInc / atomicDec with a wrap limit; old values are returned.
__global__ void atomic_inc_dec(unsigned *ctr, unsigned *old_inc, unsigned *old_dec, int n, unsigned limit)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        old_inc[i] = atomicInc(&ctr[0], limit);
        old_dec[i] = atomicDec(&ctr[1], limit);
    }
}

// Stream compaction: keep values > thr, order is arbitrary.
__global__ void atomic_compact(int *out, int *count, const int *in, int n, int thr)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > thr)
        out[atomicAdd(count, 1)] = in[i];
}
