// Deliberately buggy kernels for the interpreter's error reporting. Each bug line carries a BUG marker.

// Writes out[n] (one past the end) from the thread with i == n.
__global__ void bug_oob_write(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        out[i] = i;  // BUG:oob
}

// A barrier reached by only some threads of the block while the others go on to a different one.
__global__ void bug_divergent_barrier(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    if (threadIdx.x < 16) {
        __syncthreads();  // BUG:barrier
        out[t] = s[63 - t];
    }
    // the other threads go on (they have not exited, so the first barrier waits for them in vain)
    __syncthreads();
    if (t >= 16) out[t] = s[t];
}

// Spins forever when flag[0] == 0.
__global__ void bug_infinite_loop(volatile int *flag, int *out)
{
    int i = threadIdx.x;
    while (flag[0] == 0) {}  // BUG:loop
    out[i] = 1;
}

// An int store through a char pointer offset by one byte.
__global__ void bug_misaligned(char *buf, int off)
{
    int *p = (int *)(buf + off);
    p[threadIdx.x] = 0x01020304;  // BUG:misaligned
}
