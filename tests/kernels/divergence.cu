// Control-flow divergence: nested if/else, data-dependent loops, early exit, local arrays, div/mod.

// Nested branches on the lane index and on the data.
__global__ void diverge_nested(int *out, const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int r;
    if (lane < 16) {
        if (v > 0) {
            if (lane & 1)
                r = v * 3;
            else
                r = v + 100;
        } else {
            r = -v;
        }
    } else {
        if ((v & 3) == 0)
            r = v >> 2;
        else if ((v & 3) == 1)
            r = v ^ 0x5a5a;
        else
            r = lane - v;
    }
    out[i] = r;
}

// Collatz steps (capped): a while loop whose trip count depends on the data.
__global__ void diverge_collatz(int *steps, const unsigned *in, int n, int cap)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = in[i];
        int s = 0;
        while (x != 1 && s < cap) {
            if (x & 1)
                x = 3 * x + 1;
            else
                x >>= 1;
            s++;
        }
        steps[i] = s;
    }
}

// Per-lane trip count: out[i] = sum_{k<cnt[i]} (k * k) ^ i, with a break when the sum gets big.
__global__ void diverge_loop_break(int *out, const int *cnt, int n, int limit)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int sum = 0;
        for (int k = 0; k < cnt[i]; k++) {
            sum += (k * k) ^ i;
            if (sum > limit)
                break;
        }
        out[i] = sum;
    }
}

// Early return for negative data, then a tail without barriers.
__global__ void diverge_early_return(int *out, const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    if (v < 0) {
        out[i] = -1;
        return;
    }
    int acc = v;
    for (int k = 0; k < (v & 7); k++)
        acc = acc * 5 + k;
    out[i] = acc;
}

// A per-thread array indexed by data forces .local memory.
__global__ void local_array(int *out, const int *in, const int *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int buf[16];
        for (int k = 0; k < 16; k++)
            buf[k] = in[i] * (k + 1) + k;
        buf[idx[i] & 15] += 1000;         // dynamic store
        int a = buf[idx[i] >> 4 & 15];    // dynamic load
        int b = buf[(i * 7) & 15];
        out[i] = a - b;
    }
}

// Integer division and remainder by runtime values (signed and unsigned).
__global__ void int_divmod(int *q, int *r, unsigned *uq, unsigned *ur, const int *a, const int *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        q[i] = x / y;
        r[i] = x % y;
        uq[i] = (unsigned)x / (unsigned)y;
        ur[i] = (unsigned)x % (unsigned)y;
    }
}
