// Floating-point math, conversions, 64-bit integers and double precision.

// Correctly rounded ops (exact vs numpy float32): sqrtf, division, fminf/fmaxf, fabsf, multiply.
__global__ void fmath_exact(float *out, const float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i], b = y[i];
        out[6 * i + 0] = sqrtf(fabsf(a));
        out[6 * i + 1] = a / b;
        out[6 * i + 2] = fminf(a, b);
        out[6 * i + 3] = fmaxf(a, b);
        out[6 * i + 4] = fabsf(a - b);
        out[6 * i + 5] = a * b;
    }
}

// Approximate (SFU) functions: rsqrtf, __expf, __logf, __sinf, __cosf, __fdividef.
__global__ void fmath_approx(float *out, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i];
        out[6 * i + 0] = rsqrtf(fabsf(a) + 1.0f);
        out[6 * i + 1] = __expf(a);
        out[6 * i + 2] = __logf(fabsf(a) + 0.5f);
        out[6 * i + 3] = __sinf(a);
        out[6 * i + 4] = __cosf(a);
        out[6 * i + 5] = __fdividef(1.0f, fabsf(a) + 2.0f);
    }
}

// float <-> int conversions with explicit rounding modes.
__global__ void fmath_convert(int *iout, unsigned *uout, float *fout, const float *x, const int *k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i];
        iout[5 * i + 0] = (int)a;                 // truncation
        iout[5 * i + 1] = __float2int_rn(a);      // nearest even
        iout[5 * i + 2] = __float2int_rd(a);      // floor
        iout[5 * i + 3] = __float2int_ru(a);      // ceil
        iout[5 * i + 4] = __float2int_rz(a);
        uout[i] = __float2uint_rz(fabsf(a));
        int m = k[i];
        fout[3 * i + 0] = (float)m;               // int -> float, nearest
        fout[3 * i + 1] = __int2float_rz(m);
        fout[3 * i + 2] = (float)(unsigned)m;
    }
}

// 64-bit integer arithmetic, shifts, division and a 64-bit atomicAdd.
__global__ void int64_ops(long long *out, unsigned long long *total, const long long *a, const long long *b,
                          const int *sh, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long x = a[i], y = b[i];
        int s = sh[i] & 63;
        out[8 * i + 0] = x + y;
        out[8 * i + 1] = x - 3 * y;
        out[8 * i + 2] = x * y;                              // wraps mod 2^64
        out[8 * i + 3] = x << s;
        out[8 * i + 4] = x >> s;                             // arithmetic
        out[8 * i + 5] = (long long)((unsigned long long)x >> s);   // logical
        out[8 * i + 6] = x / (y | 1);
        out[8 * i + 7] = (long long)__umul64hi((unsigned long long)x, (unsigned long long)y);
        atomicAdd(total, (unsigned long long)x);
    }
}

// Double precision: add/mul/div/sqrt and an explicit fma.
__global__ void double_ops(double *out, const double *x, const double *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double a = x[i], b = y[i];
        out[5 * i + 0] = a + b;
        out[5 * i + 1] = a * b;
        out[5 * i + 2] = a / b;
        out[5 * i + 3] = sqrt(fabs(a));
        out[5 * i + 4] = fma(a, b, -1.5);
    }
}

// float <-> double conversion and a mixed expression: (float)(a * (double)f) - f.
__global__ void double_convert(float *fout, double *dout, const float *f, const double *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double t = d[i] * (double)f[i];
        dout[i] = t;
        fout[i] = (float)t - f[i];
    }
}
