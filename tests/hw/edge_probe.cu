// edge_probe.cu -- measure ground-truth results of PTX instructions on edge-case
// inputs on a real GPU, for the smsim PTX interpreter (isa/).
//
// Every probed instruction is written once, as an inline-asm template; the same
// text (with %0 -> d, %1 -> a, %2 -> b, %3 -> c, %4 -> e) is recorded in the JSON
// as "ptx". Inputs are loaded from global memory at run time, so ptxas cannot
// constant-fold them.
//
// Build:  nvcc -O3 -arch=sm_90 -o edge_probe tests/hw/edge_probe.cu
// Run:    ./edge_probe out.json
//
// JSON layout:
//   {"device", "cuda_runtime", "cuda_driver", "nvidia_smi",
//    "cases": [{"ptx", "asm", "sig", "inputs": [hex...], "outputs": [hex...]}],
//    "shfl": [{"ptx", "mode", "b0", "b_lane_mul", "c", "membermask", "active",
//              "a": [32], "b": [32], "d": [32 | null], "p": [32 | null]}],
//    "vote": [...], "approx_sweeps": [...]}
// "sig" is "<out>=<in...>" with letters r (32-bit int reg), l (64-bit int reg),
// h (16-bit reg), f (f32), d (f64); hex widths follow the register width.

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cfloat>
#include <climits>
#include <string>
#include <vector>
#include <chrono>
#include <thread>
#include <unistd.h>

typedef unsigned long long u64;
typedef std::vector<std::vector<u64>> Inputs;

#define CK(x)                                                                     \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_),       \
              __FILE__, __LINE__, cudaGetErrorString(e_));                        \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

// ---------------------------------------------------------------------------
// Operand-type plumbing for the op-definition macros
// ---------------------------------------------------------------------------
#define T_r uint32_t
#define T_l unsigned long long
#define T_h unsigned short
#define T_f float
#define T_d double
#define C_r "r"
#define C_l "l"
#define C_h "h"
#define C_f "f"
#define C_d "d"
#define OC_r "=r"
#define OC_l "=l"
#define OC_h "=h"
#define OC_f "=f"
#define OC_d "=d"
#define IN_r(i) ((uint32_t)in[i])
#define IN_l(i) ((unsigned long long)in[i])
#define IN_h(i) ((unsigned short)in[i])
#define IN_f(i) (__uint_as_float((uint32_t)in[i]))
#define IN_d(i) (__longlong_as_double((long long)in[i]))
#define OUT_r(x) ((u64)(x))
#define OUT_l(x) ((u64)(x))
#define OUT_h(x) ((u64)(x))
#define OUT_f(x) ((u64)__float_as_uint(x))
#define OUT_d(x) ((u64)__double_as_longlong(x))

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define OPS1(N, O, A, TEXT)                                                       \
  struct N {                                                                      \
    static constexpr const char *text = TEXT, *sig = #O "=" #A;                   \
    __device__ static void apply(const u64 *in, u64 *out) {                       \
      T_##O o;                                                                    \
      asm volatile(TEXT : OC_##O(o) : C_##A(IN_##A(0)));                          \
      out[0] = OUT_##O(o);                                                        \
    }                                                                             \
  };
#define OPS2(N, O, A, B, TEXT)                                                    \
  struct N {                                                                      \
    static constexpr const char *text = TEXT, *sig = #O "=" #A #B;                \
    __device__ static void apply(const u64 *in, u64 *out) {                       \
      T_##O o;                                                                    \
      asm volatile(TEXT : OC_##O(o) : C_##A(IN_##A(0)), C_##B(IN_##B(1)));        \
      out[0] = OUT_##O(o);                                                        \
    }                                                                             \
  };
#define OPS3(N, O, A, B, C, TEXT)                                                 \
  struct N {                                                                      \
    static constexpr const char *text = TEXT, *sig = #O "=" #A #B #C;             \
    __device__ static void apply(const u64 *in, u64 *out) {                       \
      T_##O o;                                                                    \
      asm volatile(TEXT : OC_##O(o)                                               \
                   : C_##A(IN_##A(0)), C_##B(IN_##B(1)), C_##C(IN_##C(2)));       \
      out[0] = OUT_##O(o);                                                        \
    }                                                                             \
  };
#define OPS4(N, O, A, B, C, E, TEXT)                                              \
  struct N {                                                                      \
    static constexpr const char *text = TEXT, *sig = #O "=" #A #B #C #E;          \
    __device__ static void apply(const u64 *in, u64 *out) {                       \
      T_##O o;                                                                    \
      asm volatile(TEXT : OC_##O(o)                                               \
                   : C_##A(IN_##A(0)), C_##B(IN_##B(1)), C_##C(IN_##C(2)),        \
                     C_##E(IN_##E(3)));                                           \
      out[0] = OUT_##O(o);                                                        \
    }                                                                             \
  };

// ---------------------------------------------------------------------------
// Registry of (op, input set) pairs, run in definition order
// ---------------------------------------------------------------------------
struct Reg {
  const char *text, *sig;
  void (*runner)(const Inputs &, std::string &, const char *, const char *);
  Inputs (*gen)();
};
static std::vector<Reg> &registry() {
  static std::vector<Reg> r;
  return r;
}
struct Registrar {
  Registrar(const char *t, const char *s,
            void (*run)(const Inputs &, std::string &, const char *, const char *),
            Inputs (*g)()) {
    registry().push_back({t, s, run, g});
  }
};

template <class Op>
__global__ void k_op(const u64 *in, u64 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Op::apply(in + 4 * i, out + 2 * i);
}

static int width_of(char c) {  // hex digits
  switch (c) {
    case 'l': case 'd': return 16;
    case 'h': return 4;
    default: return 8;
  }
}
static std::string hexv(u64 v, int digits) {
  char buf[40];
  snprintf(buf, sizeof buf, "\"0x%0*llx\"", digits, v);
  return buf;
}
static std::string display(const char *text) {
  std::string s;
  for (const char *p = text; *p; ++p) {
    if (*p == '%' && p[1] >= '0' && p[1] <= '4') {
      static const char names[] = {'d', 'a', 'b', 'c', 'e'};
      s += names[p[1] - '0'];
      ++p;
    } else if (*p == '"' || *p == '\\') {
      s += '\\';
      s += *p;
    } else {
      s += *p;
    }
  }
  // strip trailing ';'
  while (!s.empty() && (s.back() == ';' || s.back() == ' ')) s.pop_back();
  return s;
}
static std::string jstr(const std::string &x) {
  std::string s = "\"";
  for (char c : x) {
    if (c == '"' || c == '\\') { s += '\\'; s += c; }
    else if (c == '\n') s += "\\n";
    else if ((unsigned char)c < 0x20) s += ' ';
    else s += c;
  }
  return s + "\"";
}

static int g_ncases = 0;
template <class Op>
static void runner(const Inputs &ins, std::string &js, const char *text, const char *sig) {
  int n = (int)ins.size();
  std::vector<u64> hin(4 * n, 0), hout(2 * n, 0xDEADBEEFDEADBEEFull);
  for (int i = 0; i < n; ++i)
    for (size_t j = 0; j < ins[i].size() && j < 4; ++j) hin[4 * i + j] = ins[i][j];
  u64 *din, *dout;
  CK(cudaMalloc(&din, hin.size() * 8));
  CK(cudaMalloc(&dout, hout.size() * 8));
  CK(cudaMemcpy(din, hin.data(), hin.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dout, hout.data(), hout.size() * 8, cudaMemcpyHostToDevice));
  k_op<Op><<<(n + 127) / 128, 128>>>(din, dout, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), dout, hout.size() * 8, cudaMemcpyDeviceToHost));
  CK(cudaFree(din));
  CK(cudaFree(dout));
  const char *eq = strchr(sig, '=');
  int nin = (int)strlen(eq + 1);
  std::string disp = display(text);
  for (int i = 0; i < n; ++i) {
    if (g_ncases++) js += ",\n";
    js += "  {\"ptx\": \"" + disp + "\", \"sig\": \"" + sig + "\", \"inputs\": [";
    for (int j = 0; j < nin; ++j) {
      if (j) js += ", ";
      js += hexv(hin[4 * i + j], width_of(eq[1 + j]));
    }
    js += "], \"outputs\": [" + hexv(hout[2 * i], width_of(sig[0])) + "]}";
  }
}

#define REG(N, GEN) static Registrar CAT(reg_, N)(N::text, N::sig, runner<N>, GEN);
#define DEF1(O, A, TEXT, GEN) OPS1(CAT(Op_, __LINE__), O, A, TEXT) REG(CAT(Op_, __LINE__), GEN)
#define DEF2(O, A, B, TEXT, GEN) OPS2(CAT(Op_, __LINE__), O, A, B, TEXT) REG(CAT(Op_, __LINE__), GEN)
#define DEF3(O, A, B, C, TEXT, GEN) OPS3(CAT(Op_, __LINE__), O, A, B, C, TEXT) REG(CAT(Op_, __LINE__), GEN)
#define DEF4(O, A, B, C, E, TEXT, GEN) OPS4(CAT(Op_, __LINE__), O, A, B, C, E, TEXT) REG(CAT(Op_, __LINE__), GEN)

// ---------------------------------------------------------------------------
// Input sets
// ---------------------------------------------------------------------------
static u64 fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static u64 db(double d) { u64 u; memcpy(&u, &d, 8); return u; }
static u64 s32(int32_t v) { return (uint32_t)v; }
static u64 s64(int64_t v) { return (u64)v; }

static Inputs cart(const std::vector<u64> &a, const std::vector<u64> &b) {
  Inputs r;
  for (u64 x : a) for (u64 y : b) r.push_back({x, y});
  return r;
}
static Inputs single(const std::vector<u64> &a) {
  Inputs r;
  for (u64 x : a) r.push_back({x});
  return r;
}

// integer division
static Inputs in_div32() {
  Inputs r = cart({0, 1, 7, s32(-7), s32(INT_MIN), s32(INT_MAX), 0xFFFFFFFFu, 0x80000001u}, {0});
  Inputs extra = {{s32(INT_MIN), s32(-1)}, {s32(INT_MAX), s32(-1)}, {7, 2}, {s32(-7), 2},
                  {7, s32(-2)}, {s32(-7), s32(-2)}, {s32(-1), 2}, {s32(INT_MIN), 2},
                  {5, s32(INT_MIN)}, {s32(INT_MIN), s32(INT_MIN)}, {0, s32(-1)},
                  {s32(-8), 3}, {8, s32(-3)}, {0xFFFFFFFFu, 0xFFFFFFFFu}, {0xFFFFFFFFu, 1},
                  {1, 0xFFFFFFFFu}};
  r.insert(r.end(), extra.begin(), extra.end());
  return r;
}
static Inputs in_div64() {
  Inputs r = cart({0, 1, 7, s64(-7), s64(INT64_MIN), s64(INT64_MAX), ~0ull, 0x80000000ull,
                   0xFFFFFFFFull, 0x100000000ull, s64(-0x80000000ll)},
                  {0});
  Inputs extra = {{s64(INT64_MIN), s64(-1)}, {s64(INT64_MAX), s64(-1)}, {7, 2}, {s64(-7), 2},
                  {7, s64(-2)}, {s64(-7), s64(-2)}, {s64(-1), 2}, {s64(INT64_MIN), 2},
                  {5, s64(INT64_MIN)}, {s64(-8), 3}, {8, s64(-3)}, {~0ull, ~0ull},
                  {~0ull, 1}, {1, ~0ull}, {0x123456789abcdef0ull, 0x100000000ull},
                  {0x123456789abcdef0ull, 7}, {s64(-0x123456789abcdef0ll), 0x10001ull}};
  r.insert(r.end(), extra.begin(), extra.end());
  return r;
}
// shifts
static std::vector<u64> shamt() {
  return {0, 1, 31, 32, 33, 63, 64, 65, 255, 256, 257, 0x80000000u, 0xFFFFFFFFu};
}
static Inputs in_sh32() { return cart({1, 0x80000000u, s32(-5), 0x7fffffffu}, shamt()); }
static Inputs in_sh64() {
  return cart({1, 0x80000000ull, s64(-5), 0x7fffffffull, 0x8000000000000000ull,
               0x7fffffffffffffffull},
              shamt());
}
// float -> int
static std::vector<u64> fvals() {
  return {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fffffffu, fb(INFINITY), fb(-INFINITY),
          fb(3e9f), fb(-3e9f), fb(2.5f), fb(-2.5f), fb(0.5f), fb(-0.5f), fb(1.5f), fb(3.5f),
          fb(-0.0f), fb(0.0f), fb(1e20f), fb(-1e20f), fb(2147483520.0f), fb(2147483648.0f),
          fb(-2147483648.0f), fb(-2147483904.0f), fb(4294967040.0f), fb(4294967296.0f),
          fb(-1.0f), fb(-0.7f), fb(0.7f), 0x00000001u, 0x80000001u, fb(127.5f), fb(128.0f),
          fb(-128.5f), fb(-129.0f), fb(255.5f), fb(256.0f), fb(32767.5f), fb(-32769.0f),
          fb(65535.5f), fb(9.2233720e18f), fb(-9.2233720e18f), fb(1.8446744e19f)};
}
static Inputs in_f2i() { return single(fvals()); }
static Inputs in_d2i() {
  return single({0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                 db(INFINITY), db(-INFINITY), db(3e9), db(-3e9), db(2.5), db(-2.5), db(0.5),
                 db(-0.5), db(1.5), db(-0.0), db(1e20), db(-1e20), db(2147483647.4),
                 db(2147483647.5), db(2147483648.0), db(-2147483648.5), db(-2147483649.0),
                 db(4294967295.5), db(4294967296.0), db(-1.0), db(-0.7),
                 db(9223372036854775807.0), db(-9223372036854775808.0),
                 db(9223372036854774784.0), db(18446744073709551616.0),
                 db(18446744073709549568.0), 1ull, db(1e300)});
}
static Inputs in_f2f() {
  return single({0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u, fb(INFINITY),
                 fb(-INFINITY), fb(2.5f), fb(-2.5f), fb(0.5f), fb(-0.5f), fb(1.5f),
                 fb(-0.0f), fb(0.0f), fb(1.0f), fb(-1.0f), fb(0.3f), fb(1.0000001f),
                 fb(8388609.0f), fb(4194304.5f), fb(-4194304.5f), fb(1e20f), 0x00000001u,
                 0x80000001u, 0x007fffffu});
}
// int -> int cvt
static Inputs in_i32() {
  return single({0, 1, 127, 128, 255, 256, s32(-1), s32(-128), s32(-129), 0x7fff, 0x8000,
                 0xffff, 0x10000, s32(-32768), s32(-32769), s32(INT_MIN), s32(INT_MAX),
                 0x12345678, 0x876543f0u, 0x000000f0u, 0x0000ff80u});
}
static Inputs in_i64() {
  return single({0, 1, ~0ull, 0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull,
                 s64(INT64_MIN), s64(INT64_MAX), s64(-2147483648ll), s64(-2147483649ll),
                 0x123456789abcdef0ull, 0xfedcba9876543210ull});
}
static Inputs in_i16() {
  return single({0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x1234, 0xff80});
}
// int -> float
static Inputs in_i2f32() {
  return single({16777217, s32(-16777217), 0x7fffffff, s32(INT_MIN), 16777219,
                 s32(-16777219), 16777218, 0x7fffffc0, 0x7fffffbf, 1, 0, s32(-1),
                 0xffffffffu, 0x80000001u, 33554435});
}
static Inputs in_i2f64() {
  return single({(1ull << 53) + 1, ~0ull, 0x8000000000000001ull, s64(INT64_MIN),
                 s64(INT64_MAX), 0x0000000100000001ull, (1ull << 24) + 1,
                 0xffffff8000000000ull, 0xffffff7fffffffffull, s64(-(1ll << 53) - 1),
                 0x7fffff8000000000ull, 0x7fffff8000000001ull, 0, 1});
}
static Inputs in_d2f() {
  double fmax = (double)FLT_MAX;
  return single({db(0.1), db(-0.1), db(1e39), db(-1e39), db(fmax), db(fmax + ldexp(1.0, 103)),
                 db(fmax + ldexp(1.0, 102)), db(-(fmax + ldexp(1.0, 103))), db(1e-40),
                 db(-1e-40), db(1e-46), db(-1e-46), db(ldexp(1.0, -149)),
                 db(ldexp(1.0, -150)), db(ldexp(1.0, -150) * 1.0000001), db(ldexp(1.5, -150)),
                 db(ldexp(1.0, -151)), db(ldexp(3.0, -150)), db(ldexp(1.0, -126) * 0.99999999),
                 0x7ff8000000000000ull, 0x7ff8000000000001ull, 0x7ff0000000000001ull,
                 0xfff8000000000000ull, db(INFINITY), db(-INFINITY), 1ull, db(-0.0),
                 db(1.0 + ldexp(1.0, -24)), db(1.0 + ldexp(1.0, -24) + ldexp(1.0, -50))});
}
static Inputs in_f2d() {
  return single({0x7fc00000u, 0x7f800001u, 0x7fa00001u, 0xffc00001u, 0x00000001u,
                 0x80000001u, fb(INFINITY), fb(0.1f)});
}
// float min/max, compare
static std::vector<u64> fspecial() {
  return {0x7fc00000u, 0xffc00000u, 0x7f800001u, fb(1.0f), fb(-1.0f), fb(0.0f), fb(-0.0f),
          fb(INFINITY), fb(-INFINITY), 0x00000001u};
}
static Inputs in_fminmax() { return cart(fspecial(), fspecial()); }
static Inputs in_setp() {
  return cart({0x7fc00000u, fb(1.0f), fb(2.0f), fb(0.0f), fb(-0.0f), fb(-INFINITY), fb(INFINITY)},
              {0x7fc00000u, fb(1.0f), fb(2.0f), fb(-0.0f), fb(INFINITY)});
}
static Inputs in_dminmax() {
  std::vector<u64> v = {0x7ff8000000000000ull, 0x7ff0000000000001ull, db(1.0), db(0.0),
                        db(-0.0), db(-INFINITY), 1ull};
  return cart(v, v);
}
static Inputs in_iminmax32() {
  std::vector<u64> v = {0, 1, s32(-1), s32(INT_MIN), s32(INT_MAX)};
  return cart(v, v);
}
static Inputs in_iminmax64() {
  std::vector<u64> v = {0, 1, ~0ull, s64(INT64_MIN), s64(INT64_MAX), 0xffffffffull};
  return cart(v, v);
}
// bit-field
static std::vector<std::pair<u64, u64>> poslen32() {
  return {{0, 0},   {0, 8},   {4, 8},    {24, 8},   {28, 8},  {31, 1},  {31, 2},  {0, 31},
          {0, 32},  {0, 33},  {1, 32},   {32, 0},   {32, 1},  {33, 4},  {255, 4}, {256, 4},
          {260, 4}, {0, 255}, {0, 256},  {0, 260},  {4, 0},   {8, 40},  {16, 16}, {16, 17},
          {30, 3},  {4, 28},  {4, 29},   {0x104, 0x108}, {0xFFFFFFFF, 4}, {4, 0xFFFFFFFF},
          {27, 4},  {28, 4}};
}
static Inputs in_bfe32() {
  Inputs r;
  for (u64 a : {0x87654321ull, 0x12345678ull, 0xFFFFFFFFull})
    for (auto pl : poslen32()) r.push_back({a, pl.first, pl.second});
  return r;
}
static Inputs in_bfe64() {
  Inputs r;
  std::vector<std::pair<u64, u64>> pl = {{0, 0},   {0, 64},  {60, 8},  {63, 1},   {64, 1},
                                         {0, 65},  {32, 32}, {40, 32}, {56, 8},   {255, 1},
                                         {256, 8}, {0, 255}, {4, 0},   {31, 2},   {0, 32},
                                         {1, 64},  {62, 4},  {0, 256}, {0x1c0, 4}};
  for (u64 a : {0x8765432112345678ull, 0x0123456789abcdefull})
    for (auto p : pl) r.push_back({a, p.first, p.second});
  return r;
}
static Inputs in_bfe64_wide() {  // pos/len beyond 8 bits: is there any masking?
  Inputs r;
  std::vector<std::pair<u64, u64>> pl = {{0x1000, 4},      {4, 0x1000},       {0xFFFFFFFF, 4},
                                         {4, 0xFFFFFFFF},  {0x80000000, 4},   {4, 0x80000000},
                                         {0x10004, 8},     {4, 0x10008},      {0x104, 0x108},
                                         {0x140, 0x8},     {60, 0x104},       {0x7fffffff, 1}};
  for (u64 a : {0x8765432112345678ull})
    for (auto p : pl) r.push_back({a, p.first, p.second});
  return r;
}
static Inputs in_bfi64_wide() {
  Inputs r;
  std::vector<std::pair<u64, u64>> pl = {{0x1000, 4}, {4, 0x1000}, {0xFFFFFFFF, 4}, {4, 0xFFFFFFFF},
                                         {0x104, 0x108}, {60, 0x104}, {0x10004, 8}};
  for (auto p : pl) r.push_back({~0ull, 0x0123456789abcdefull, p.first, p.second});
  return r;
}
static Inputs in_dnan() {
  std::vector<u64> v = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                        0x7ff8000000000123ull, 0xfff0000000000456ull, db(1.0), db(-0.0)};
  return cart(v, v);
}
static Inputs in_fnan() {
  std::vector<u64> v = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fc00123u, 0xff800456u,
                        fb(1.0f), fb(-0.0f)};
  return cart(v, v);
}
static Inputs in_dun() {
  return single({0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                 0x7ff8000000000123ull, db(1.0), db(-0.0), db(0.0), db(-INFINITY), 1ull});
}
static Inputs in_bfi32() {
  Inputs r;
  for (auto pl : poslen32()) r.push_back({0x0000ABCDu, 0x12345678u, pl.first, pl.second});
  for (auto pl : poslen32()) r.push_back({0xFFFFFFFFu, 0x00000000u, pl.first, pl.second});
  return r;
}
static Inputs in_bfi64() {
  Inputs r;
  std::vector<std::pair<u64, u64>> pl = {{0, 0},  {0, 64}, {60, 8},  {63, 1},  {64, 1},
                                         {0, 65}, {32, 32}, {40, 32}, {255, 1}, {256, 8}};
  for (auto p : pl) r.push_back({~0ull, 0x0123456789abcdefull, p.first, p.second});
  return r;
}
static Inputs in_prmt() {
  Inputs r;
  for (u64 s : {0x3210ull, 0x0123ull, 0x8888ull, 0x7654ull, 0x9999ull, 0xBA98ull, 0xFEDCull,
                0x4321ull, 0x0000ull, 0xFFFFull, 0x12345678ull, 0x76543210ull, 0xCDEFull})
    r.push_back({0x807F01FFu, 0x55C33CAAu, s});
  return r;
}
static Inputs in_prmt_mode() {
  Inputs r;
  for (u64 s : {0ull, 1ull, 2ull, 3ull, 4ull, 7ull, 0xFFFFFFFCull})
    r.push_back({0x807F01FFu, 0x55C33CAAu, s});
  return r;
}
static Inputs in_bits32() {
  return single({0, 1, 0x80000000u, 0xFFFFFFFFu, 0x12345678u, 0x00010000u, 0x7fffffffu,
                 0x0000ffffu});
}
static Inputs in_bits64() {
  return single({0, 1, 0x8000000000000000ull, ~0ull, 0x0123456789abcdefull, 0x100000000ull,
                 0x00000000ffffffffull, 0x7fffffffffffffffull});
}
// mul.hi / mad.hi
static Inputs in_mul32() {
  return {{s32(INT_MIN), s32(INT_MIN)}, {s32(-1), s32(-1)}, {0xffffffffu, 0xffffffffu},
          {s32(INT_MAX), 2},           {s32(-3), 7},       {0x12345678u, 0x9abcdef0u},
          {s32(INT_MIN), s32(-1)},     {0x10000, 0x10000}, {s32(INT_MAX), s32(INT_MAX)}};
}
static Inputs in_mad32() {
  Inputs r;
  for (auto &ab : in_mul32())
    for (u64 c : {0ull, 1ull, 0xffffffffull, 0x80000000ull}) r.push_back({ab[0], ab[1], c});
  return r;
}
static Inputs in_mul64() {
  return {{s64(INT64_MIN), s64(INT64_MIN)}, {~0ull, ~0ull}, {s64(INT64_MAX), 2},
          {s64(-3), 7},                    {0x123456789abcdef0ull, 0xfedcba9876543210ull},
          {s64(INT64_MIN), s64(-1)},       {1ull << 32, 1ull << 32}};
}
static Inputs in_mad64() {
  Inputs r;
  for (auto &ab : in_mul64())
    for (u64 c : {0ull, 1ull, ~0ull}) r.push_back({ab[0], ab[1], c});
  return r;
}
static Inputs in_sat32() {
  std::vector<u64> v = {0, 1, s32(-1), s32(INT_MIN), s32(INT_MAX), 0x40000000u};
  return cart(v, v);
}
// IEEE rcp/sqrt/div and approximations
static std::vector<u64> ieee_vals() {
  return {0x00000001u, 0x00400000u, 0x007fffffu, 0x00800000u, 0x80000001u, fb(0.0f),
          fb(-0.0f),   fb(INFINITY), fb(-INFINITY), 0x7fc00000u, fb(-1.0f), 0x7f7fffffu,
          0x7f000000u, fb(3.0f), fb(4.0f), fb(2.0f), 0x3f800001u, 0x7e800000u, 0x7e7fffffu};
}
static Inputs in_ieee1() { return single(ieee_vals()); }
static Inputs in_ieee2() {
  std::vector<u64> a = {fb(1.0f), 0x00000001u, 0x00400000u, fb(0.0f), fb(-0.0f), fb(INFINITY),
                        0x7f7fffffu, fb(3.0f), 0x7fc00000u, fb(-1.0f)};
  std::vector<u64> b = {0x00000001u, fb(2.0f), fb(0.0f), fb(-0.0f), fb(INFINITY), 0x7f7fffffu,
                        fb(0.5f), fb(3.0f), 0x7fc00000u, 0x00800000u, fb(0.25f), 0x7e800000u};
  return cart(a, b);
}
static Inputs in_dieee1() {
  return single({1ull, 0x000fffffffffffffull, db(0.0), db(-0.0), db(INFINITY),
                 0x7ff8000000000000ull, db(-1.0), db(3.0), 0x7fefffffffffffffull, db(2.0),
                 db(1e-310), db(0.1)});
}
static Inputs in_dieee2() {
  std::vector<u64> a = {db(1.0), 1ull, db(0.0), db(INFINITY), db(3.0)};
  std::vector<u64> b = {1ull, db(0.0), db(-0.0), db(INFINITY), db(3.0), 0x7fefffffffffffffull};
  return cart(a, b);
}
static std::vector<u64> approx_vals() {
  return {fb(0.5f),  fb(1.0f),       fb(2.0f),    fb(10.0f),   fb(100.0f),   fb(-1.0f),
          fb(1e-30f), fb(INFINITY),  fb(-INFINITY), 0x7fc00000u, fb(0.0f),   fb(-0.0f),
          0x00000001u, 0x00400000u,  fb(-100.0f), fb(3.14159265f), fb(1e10f), fb(88.0f),
          fb(-126.5f), fb(-149.5f),  fb(-150.0f), fb(128.0f), fb(127.99f), fb(0.1f),
          fb(3.0f),  fb(1e30f),      fb(-0.5f),   fb(1.5707964f), fb(1e5f), fb(12345.678f),
          fb(0.7853982f), fb(6.2831855f), fb(1.0000001f), fb(0.99999994f), fb(9.0f),
          fb(-10.0f), fb(20.0f)};
}
static Inputs in_approx1() { return single(approx_vals()); }
static Inputs in_approx2() {
  return cart({fb(1.0f), fb(3.0f), fb(1e30f), 0x00000001u, fb(0.0f), fb(INFINITY), 0x7fc00000u},
              {fb(3.0f), fb(7.0f), fb(1e-30f), fb(1e38f), fb(0.0f), fb(INFINITY), 0x00800000u,
               0x7f7fffffu, fb(2.0f)});
}
static Inputs in_dapprox() {
  return single({db(1.0), db(3.0), db(0.1), db(1e300), db(1e-300), 1ull, db(0.0), db(-0.0),
                 db(INFINITY), 0x7ff8000000000000ull, db(-2.0), db(7.0)});
}

// ---------------------------------------------------------------------------
// Op table (one per line; order = JSON order)
// ---------------------------------------------------------------------------
// --- integer division / remainder
DEF2(r, r, r, "div.s32 %0, %1, %2;", in_div32)
DEF2(r, r, r, "div.u32 %0, %1, %2;", in_div32)
DEF2(r, r, r, "rem.s32 %0, %1, %2;", in_div32)
DEF2(r, r, r, "rem.u32 %0, %1, %2;", in_div32)
DEF2(l, l, l, "div.s64 %0, %1, %2;", in_div64)
DEF2(l, l, l, "div.u64 %0, %1, %2;", in_div64)
DEF2(l, l, l, "rem.s64 %0, %1, %2;", in_div64)
DEF2(l, l, l, "rem.u64 %0, %1, %2;", in_div64)
// --- shifts (amount is always a 32-bit operand)
DEF2(r, r, r, "shl.b32 %0, %1, %2;", in_sh32)
DEF2(r, r, r, "shr.u32 %0, %1, %2;", in_sh32)
DEF2(r, r, r, "shr.s32 %0, %1, %2;", in_sh32)
DEF2(r, r, r, "shr.b32 %0, %1, %2;", in_sh32)
DEF2(l, l, r, "shl.b64 %0, %1, %2;", in_sh64)
DEF2(l, l, r, "shr.u64 %0, %1, %2;", in_sh64)
DEF2(l, l, r, "shr.s64 %0, %1, %2;", in_sh64)
// --- float -> int conversion
DEF1(r, f, "cvt.rzi.s32.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rni.s32.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rmi.s32.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rpi.s32.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rzi.u32.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rni.u32.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rzi.s16.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rzi.u16.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rzi.s8.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rzi.u8.f32 %0, %1;", in_f2i)
DEF1(r, f, "cvt.rzi.ftz.s32.f32 %0, %1;", in_f2i)
DEF1(l, f, "cvt.rzi.s64.f32 %0, %1;", in_f2i)
DEF1(l, f, "cvt.rzi.u64.f32 %0, %1;", in_f2i)
DEF1(l, f, "cvt.rni.s64.f32 %0, %1;", in_f2i)
DEF1(l, d, "cvt.rzi.u64.f64 %0, %1;", in_d2i)
DEF1(l, d, "cvt.rzi.s64.f64 %0, %1;", in_d2i)
DEF1(r, d, "cvt.rni.s32.f64 %0, %1;", in_d2i)
DEF1(r, d, "cvt.rzi.s32.f64 %0, %1;", in_d2i)
DEF1(r, d, "cvt.rzi.u32.f64 %0, %1;", in_d2i)
// --- float -> float same size
DEF1(f, f, "cvt.sat.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "cvt.ftz.sat.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "cvt.rni.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "cvt.rzi.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "cvt.rmi.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "cvt.rpi.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "cvt.rni.sat.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "cvt.ftz.f32.f32 %0, %1;", in_f2f)
DEF1(f, f, "mov.f32 %0, %1;", in_f2f)
DEF1(f, f, "neg.f32 %0, %1;", in_f2f)
DEF1(f, f, "abs.f32 %0, %1;", in_f2f)
DEF2(f, f, f, "add.f32 %0, %1, %2;", in_fminmax)
DEF2(f, f, f, "add.sat.f32 %0, %1, %2;", in_fminmax)
// --- int -> int conversion (32-bit destination registers unless 'h')
DEF1(r, r, "cvt.sat.s8.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.s8.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.u8.u32 %0, %1;", in_i32)
DEF1(r, r, "cvt.u8.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.sat.u8.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.sat.u8.u32 %0, %1;", in_i32)
DEF1(r, r, "cvt.s16.s32 %0, %1;", in_i32)
DEF1(h, r, "cvt.s16.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.sat.s16.s32 %0, %1;", in_i32)
DEF1(h, r, "cvt.sat.s16.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.sat.u16.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.u16.u32 %0, %1;", in_i32)
DEF1(r, r, "cvt.sat.s32.u32 %0, %1;", in_i32)
DEF1(r, r, "cvt.sat.u32.s32 %0, %1;", in_i32)
DEF1(r, r, "cvt.u32.s8 %0, %1;", in_i32)
DEF1(r, r, "cvt.s32.s8 %0, %1;", in_i32)
DEF1(r, r, "cvt.u32.u8 %0, %1;", in_i32)
DEF1(r, r, "cvt.s32.u8 %0, %1;", in_i32)
DEF1(r, r, "cvt.u32.s16 %0, %1;", in_i32)
DEF1(r, r, "cvt.s32.s16 %0, %1;", in_i32)
DEF1(r, h, "cvt.u32.s16 %0, %1;", in_i16)
DEF1(r, h, "cvt.s32.s16 %0, %1;", in_i16)
DEF1(r, h, "cvt.u32.u16 %0, %1;", in_i16)
DEF1(r, h, "cvt.s32.u16 %0, %1;", in_i16)
DEF1(r, h, "cvt.u32.s8 %0, %1;", in_i16)
DEF1(r, h, "cvt.sat.u32.s16 %0, %1;", in_i16)
DEF1(h, h, "cvt.sat.s8.s16 %0, %1;", in_i16)
DEF1(r, l, "cvt.s32.s64 %0, %1;", in_i64)
DEF1(r, l, "cvt.u32.u64 %0, %1;", in_i64)
DEF1(r, l, "cvt.sat.s32.s64 %0, %1;", in_i64)
DEF1(r, l, "cvt.sat.u32.s64 %0, %1;", in_i64)
DEF1(r, l, "cvt.sat.s32.u64 %0, %1;", in_i64)
DEF1(r, l, "cvt.sat.u32.u64 %0, %1;", in_i64)
DEF1(l, l, "cvt.sat.s64.u64 %0, %1;", in_i64)
DEF1(l, l, "cvt.sat.u64.s64 %0, %1;", in_i64)
DEF1(l, r, "cvt.s64.s32 %0, %1;", in_i32)
DEF1(l, r, "cvt.u64.s32 %0, %1;", in_i32)
DEF1(l, r, "cvt.u64.u32 %0, %1;", in_i32)
DEF1(l, r, "cvt.s64.u32 %0, %1;", in_i32)
// --- int -> float with rounding
DEF1(f, r, "cvt.rn.f32.s32 %0, %1;", in_i2f32)
DEF1(f, r, "cvt.rz.f32.s32 %0, %1;", in_i2f32)
DEF1(f, r, "cvt.rm.f32.s32 %0, %1;", in_i2f32)
DEF1(f, r, "cvt.rp.f32.s32 %0, %1;", in_i2f32)
DEF1(f, r, "cvt.rn.f32.u32 %0, %1;", in_i2f32)
DEF1(f, r, "cvt.rz.f32.u32 %0, %1;", in_i2f32)
DEF1(f, r, "cvt.rm.f32.u32 %0, %1;", in_i2f32)
DEF1(f, r, "cvt.rp.f32.u32 %0, %1;", in_i2f32)
DEF1(f, l, "cvt.rn.f32.u64 %0, %1;", in_i2f64)
DEF1(f, l, "cvt.rz.f32.u64 %0, %1;", in_i2f64)
DEF1(f, l, "cvt.rn.f32.s64 %0, %1;", in_i2f64)
DEF1(f, l, "cvt.rz.f32.s64 %0, %1;", in_i2f64)
DEF1(f, l, "cvt.rm.f32.s64 %0, %1;", in_i2f64)
DEF1(f, l, "cvt.rp.f32.s64 %0, %1;", in_i2f64)
DEF1(d, l, "cvt.rn.f64.s64 %0, %1;", in_i2f64)
DEF1(d, l, "cvt.rn.f64.u64 %0, %1;", in_i2f64)
DEF1(d, l, "cvt.rz.f64.u64 %0, %1;", in_i2f64)
// --- f64 -> f32 / f32 -> f64
DEF1(f, d, "cvt.rn.f32.f64 %0, %1;", in_d2f)
DEF1(f, d, "cvt.rz.f32.f64 %0, %1;", in_d2f)
DEF1(f, d, "cvt.rm.f32.f64 %0, %1;", in_d2f)
DEF1(f, d, "cvt.rp.f32.f64 %0, %1;", in_d2f)
DEF1(f, d, "cvt.rn.ftz.f32.f64 %0, %1;", in_d2f)
DEF1(f, d, "cvt.rn.sat.f32.f64 %0, %1;", in_d2f)
DEF1(d, f, "cvt.f64.f32 %0, %1;", in_f2d)
DEF1(d, f, "cvt.ftz.f64.f32 %0, %1;", in_f2d)
// --- min / max
DEF2(f, f, f, "min.f32 %0, %1, %2;", in_fminmax)
DEF2(f, f, f, "max.f32 %0, %1, %2;", in_fminmax)
DEF2(f, f, f, "min.NaN.f32 %0, %1, %2;", in_fminmax)
DEF2(f, f, f, "max.NaN.f32 %0, %1, %2;", in_fminmax)
DEF2(f, f, f, "min.ftz.f32 %0, %1, %2;", in_fminmax)
DEF2(f, f, f, "max.xorsign.abs.f32 %0, %1, %2;", in_fminmax)
DEF2(d, d, d, "min.f64 %0, %1, %2;", in_dminmax)
DEF2(d, d, d, "max.f64 %0, %1, %2;", in_dminmax)
DEF2(d, d, d, "min.f64 %0, %1, %2;", in_dnan)
DEF2(d, d, d, "max.f64 %0, %1, %2;", in_dnan)
DEF2(d, d, d, "add.f64 %0, %1, %2;", in_dnan)
DEF2(f, f, f, "min.f32 %0, %1, %2;", in_fnan)
DEF2(f, f, f, "add.f32 %0, %1, %2;", in_fnan)
DEF2(f, f, f, "min.NaN.f32 %0, %1, %2;", in_fnan)
DEF1(d, d, "neg.f64 %0, %1;", in_dun)
DEF1(d, d, "abs.f64 %0, %1;", in_dun)
DEF1(d, d, "mov.f64 %0, %1;", in_dun)
DEF1(f, f, "neg.ftz.f32 %0, %1;", in_f2f)
DEF1(r, r, "{ .reg .f32 t; mov.b32 t, %1; neg.f32 t, t; mov.b32 %0, t; }", in_bits32)
DEF2(r, r, r, "min.s32 %0, %1, %2;", in_iminmax32)
DEF2(r, r, r, "max.s32 %0, %1, %2;", in_iminmax32)
DEF2(r, r, r, "min.u32 %0, %1, %2;", in_iminmax32)
DEF2(r, r, r, "max.u32 %0, %1, %2;", in_iminmax32)
DEF2(l, l, l, "min.s64 %0, %1, %2;", in_iminmax64)
DEF2(l, l, l, "max.u64 %0, %1, %2;", in_iminmax64)
// --- setp (predicate result returned as 0/1 via selp)
DEF2(r, f, f, "{ .reg .pred p; setp.eq.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.ne.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.lt.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.le.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.gt.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.ge.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.equ.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.neu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.ltu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.leu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.gtu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.geu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.num.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
DEF2(r, f, f, "{ .reg .pred p; setp.nan.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", in_setp)
// --- bit field / permute / bit counting
DEF3(r, r, r, r, "bfe.u32 %0, %1, %2, %3;", in_bfe32)
DEF3(r, r, r, r, "bfe.s32 %0, %1, %2, %3;", in_bfe32)
DEF3(l, l, r, r, "bfe.u64 %0, %1, %2, %3;", in_bfe64)
DEF3(l, l, r, r, "bfe.s64 %0, %1, %2, %3;", in_bfe64)
DEF4(r, r, r, r, r, "bfi.b32 %0, %1, %2, %3, %4;", in_bfi32)
DEF4(l, l, l, r, r, "bfi.b64 %0, %1, %2, %3, %4;", in_bfi64)
DEF3(l, l, r, r, "bfe.u64 %0, %1, %2, %3;", in_bfe64_wide)
DEF3(l, l, r, r, "bfe.s64 %0, %1, %2, %3;", in_bfe64_wide)
DEF4(l, l, l, r, r, "bfi.b64 %0, %1, %2, %3, %4;", in_bfi64_wide)
DEF3(r, r, r, r, "prmt.b32 %0, %1, %2, %3;", in_prmt)
DEF3(r, r, r, r, "prmt.b32.f4e %0, %1, %2, %3;", in_prmt_mode)
DEF3(r, r, r, r, "prmt.b32.b4e %0, %1, %2, %3;", in_prmt_mode)
DEF3(r, r, r, r, "prmt.b32.rc8 %0, %1, %2, %3;", in_prmt_mode)
DEF3(r, r, r, r, "prmt.b32.ecl %0, %1, %2, %3;", in_prmt_mode)
DEF3(r, r, r, r, "prmt.b32.ecr %0, %1, %2, %3;", in_prmt_mode)
DEF3(r, r, r, r, "prmt.b32.rc16 %0, %1, %2, %3;", in_prmt_mode)
DEF1(r, r, "brev.b32 %0, %1;", in_bits32)
DEF1(l, l, "brev.b64 %0, %1;", in_bits64)
DEF1(r, r, "clz.b32 %0, %1;", in_bits32)
DEF1(r, l, "clz.b64 %0, %1;", in_bits64)
DEF1(r, r, "popc.b32 %0, %1;", in_bits32)
DEF1(r, l, "popc.b64 %0, %1;", in_bits64)
DEF1(r, r, "bfind.u32 %0, %1;", in_bits32)
DEF1(r, r, "bfind.s32 %0, %1;", in_bits32)
DEF1(r, r, "bfind.shiftamt.u32 %0, %1;", in_bits32)
DEF1(r, l, "bfind.u64 %0, %1;", in_bits64)
DEF1(r, l, "bfind.s64 %0, %1;", in_bits64)
// --- integer multiply-high, saturating add, abs/neg
DEF2(r, r, r, "mul.hi.s32 %0, %1, %2;", in_mul32)
DEF2(r, r, r, "mul.hi.u32 %0, %1, %2;", in_mul32)
DEF2(r, r, r, "mul.lo.s32 %0, %1, %2;", in_mul32)
DEF2(l, r, r, "mul.wide.s32 %0, %1, %2;", in_mul32)
DEF2(l, r, r, "mul.wide.u32 %0, %1, %2;", in_mul32)
DEF2(l, l, l, "mul.hi.s64 %0, %1, %2;", in_mul64)
DEF2(l, l, l, "mul.hi.u64 %0, %1, %2;", in_mul64)
DEF3(r, r, r, r, "mad.hi.s32 %0, %1, %2, %3;", in_mad32)
DEF3(r, r, r, r, "mad.hi.u32 %0, %1, %2, %3;", in_mad32)
DEF3(r, r, r, r, "mad.hi.sat.s32 %0, %1, %2, %3;", in_mad32)
DEF3(l, l, l, l, "mad.hi.s64 %0, %1, %2, %3;", in_mad64)
DEF3(l, l, l, l, "mad.hi.u64 %0, %1, %2, %3;", in_mad64)
DEF2(r, r, r, "add.sat.s32 %0, %1, %2;", in_sat32)
DEF2(r, r, r, "sub.sat.s32 %0, %1, %2;", in_sat32)
DEF1(r, r, "abs.s32 %0, %1;", in_i32)
DEF1(r, r, "neg.s32 %0, %1;", in_i32)
// --- IEEE-rounded rcp / sqrt / div
DEF1(f, f, "rcp.rn.f32 %0, %1;", in_ieee1)
DEF1(f, f, "rcp.rn.ftz.f32 %0, %1;", in_ieee1)
DEF1(f, f, "sqrt.rn.f32 %0, %1;", in_ieee1)
DEF1(f, f, "sqrt.rn.ftz.f32 %0, %1;", in_ieee1)
DEF1(f, f, "rcp.rz.f32 %0, %1;", in_ieee1)
DEF2(f, f, f, "div.rn.f32 %0, %1, %2;", in_ieee2)
DEF2(f, f, f, "div.rn.ftz.f32 %0, %1, %2;", in_ieee2)
DEF2(f, f, f, "div.rz.f32 %0, %1, %2;", in_ieee2)
DEF1(d, d, "rcp.rn.f64 %0, %1;", in_dieee1)
DEF1(d, d, "sqrt.rn.f64 %0, %1;", in_dieee1)
DEF2(d, d, d, "div.rn.f64 %0, %1, %2;", in_dieee2)
// --- approximate functions (handful of values; see approx_sweeps for ulp stats)
DEF1(f, f, "rcp.approx.f32 %0, %1;", in_approx1)
DEF1(f, f, "rcp.approx.ftz.f32 %0, %1;", in_approx1)
DEF1(f, f, "sqrt.approx.f32 %0, %1;", in_approx1)
DEF1(f, f, "sqrt.approx.ftz.f32 %0, %1;", in_approx1)
DEF1(f, f, "rsqrt.approx.f32 %0, %1;", in_approx1)
DEF1(f, f, "rsqrt.approx.ftz.f32 %0, %1;", in_approx1)
DEF1(f, f, "ex2.approx.f32 %0, %1;", in_approx1)
DEF1(f, f, "ex2.approx.ftz.f32 %0, %1;", in_approx1)
DEF1(f, f, "lg2.approx.f32 %0, %1;", in_approx1)
DEF1(f, f, "lg2.approx.ftz.f32 %0, %1;", in_approx1)
DEF1(f, f, "sin.approx.f32 %0, %1;", in_approx1)
DEF1(f, f, "sin.approx.ftz.f32 %0, %1;", in_approx1)
DEF1(f, f, "cos.approx.f32 %0, %1;", in_approx1)
DEF1(f, f, "cos.approx.ftz.f32 %0, %1;", in_approx1)
DEF1(f, f, "tanh.approx.f32 %0, %1;", in_approx1)
DEF2(f, f, f, "div.approx.f32 %0, %1, %2;", in_approx2)
DEF2(f, f, f, "div.full.f32 %0, %1, %2;", in_approx2)
DEF1(d, d, "rcp.approx.ftz.f64 %0, %1;", in_dapprox)
DEF1(d, d, "rsqrt.approx.f64 %0, %1;", in_dapprox)

// ---------------------------------------------------------------------------
// Approximation sweeps: many inputs per function, ulp statistics vs the
// correctly rounded float of a double-precision reference
// ---------------------------------------------------------------------------
OPS1(Ap_rcp, f, f, "rcp.approx.f32 %0, %1;")
OPS1(Ap_sqrt, f, f, "sqrt.approx.f32 %0, %1;")
OPS1(Ap_rsqrt, f, f, "rsqrt.approx.f32 %0, %1;")
OPS1(Ap_ex2, f, f, "ex2.approx.f32 %0, %1;")
OPS1(Ap_ex2ftz, f, f, "ex2.approx.ftz.f32 %0, %1;")
OPS1(Ap_lg2, f, f, "lg2.approx.f32 %0, %1;")
OPS1(Ap_sin, f, f, "sin.approx.f32 %0, %1;")
OPS1(Ap_cos, f, f, "cos.approx.f32 %0, %1;")
OPS1(Ap_tanh, f, f, "tanh.approx.f32 %0, %1;")
OPS1(Ap_sqrtrn, f, f, "sqrt.rn.f32 %0, %1;")

template <class Op>
__global__ void k_sweep(const uint32_t *in, uint32_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    u64 a = in[i], o[2];
    Op::apply(&a, o);
    out[i] = (uint32_t)o[0];
  }
}

static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// all float bit patterns with magnitude in [lo, hi] (same sign), strided to at most maxn
static void range_vals(float lo, float hi, size_t maxn, std::vector<uint32_t> &v) {
  if (lo < 0 && hi > 0) {
    range_vals(lo, -0.0f, maxn / 2, v);
    range_vals(0.0f, hi, maxn / 2, v);
    return;
  }
  uint32_t sign = (hi <= 0 && lo < 0) ? 0x80000000u : 0;
  uint32_t a = f2u(fabsf(lo)) & 0x7fffffffu, b = f2u(fabsf(hi)) & 0x7fffffffu;
  if (a > b) std::swap(a, b);
  u64 cnt = (u64)b - a + 1;
  u64 stride = (cnt + maxn - 1) / maxn;
  for (u64 x = a; x <= b; x += stride) v.push_back((uint32_t)x | sign);
}

static double ulp_of(double r) {  // float ulp at the magnitude of r
  if (r == 0) return ldexp(1.0, -149);
  int e = ilogb(r);
  if (e < -126) e = -126;
  return ldexp(1.0, e - 23);
}
static int64_t ordered(uint32_t u) {
  return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

typedef double (*RefFn)(double);
static double ref_rcp(double x) { return 1.0 / x; }
static double ref_sqrt(double x) { return sqrt(x); }
static double ref_rsqrt(double x) { return 1.0 / sqrt(x); }
static double ref_ex2(double x) { return exp2(x); }
static double ref_lg2(double x) { return log2(x); }
static double ref_sin(double x) { return sin(x); }
static double ref_cos(double x) { return cos(x); }
static double ref_tanh(double x) { return tanh(x); }

static int g_nsweeps = 0;
template <class Op>
static void sweep(std::string &js, RefFn ref, float lo, float hi, size_t maxn,
                  const char *note, double min_abs_ref = 0.0) {
  std::vector<uint32_t> in;
  range_vals(lo, hi, maxn, in);
  int n = (int)in.size();
  std::vector<uint32_t> out(n);
  uint32_t *din, *dout;
  CK(cudaMalloc(&din, n * 4));
  CK(cudaMalloc(&dout, n * 4));
  CK(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0xAB, n * 4));
  k_sweep<Op><<<(n + 255) / 256, 256>>>(din, dout, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaFree(din));
  CK(cudaFree(dout));

  double max_ulp = -1, max_abs = -1, sum_ulp = 0, max_rel = -1;
  uint32_t arg_ulp = 0, out_ulp = 0, arg_abs = 0, out_abs = 0;
  int64_t max_int = -1;
  uint32_t arg_int = 0;
  u64 exact = 0, within1 = 0, compared = 0, special = 0;
  uint32_t special_in = 0, special_out = 0;
  for (int i = 0; i < n; ++i) {
    float x = u2f(in[i]);
    double r = ref((double)x);
    float g = u2f(out[i]);
    if (!std::isfinite(r) || fabs(r) > (double)FLT_MAX) continue;  // overflow / domain
    if (fabs(r) < min_abs_ref) continue;  // restrict stats to |ref| >= min_abs_ref
    if (!std::isfinite(g)) {
      if (!special) { special_in = in[i]; special_out = out[i]; }
      special++;
      continue;
    }
    compared++;
    float rf = (float)r;  // correctly rounded (double -> float, RN)
    double err = fabs((double)g - r);
    double eu = err / ulp_of(r);
    int64_t di = llabs(ordered(out[i]) - ordered(f2u(rf)));
    if (di == 0) exact++;
    if (di <= 1) within1++;
    sum_ulp += eu;
    if (eu > max_ulp) { max_ulp = eu; arg_ulp = in[i]; out_ulp = out[i]; }
    if (err > max_abs) { max_abs = err; arg_abs = in[i]; out_abs = out[i]; }
    if (r != 0 && err / fabs(r) > max_rel) max_rel = err / fabs(r);
    if (di > max_int) { max_int = di; arg_int = in[i]; }
  }
  char buf[2048];
  snprintf(buf, sizeof buf,
           "%s  {\"ptx\": \"%s\", \"note\": \"%s\", \"range\": [%.9g, %.9g], \"min_abs_ref\": %.9g, \"n\": %d, "
           "\"compared\": %llu, \"max_ulp\": %.4f, \"max_ulp_at\": \"0x%08x\", "
           "\"max_ulp_at_value\": %.9g, \"max_ulp_out\": \"0x%08x\", "
           "\"mean_ulp\": %.5f, \"max_int_ulp_vs_cr\": %lld, \"max_int_ulp_at\": \"0x%08x\", "
           "\"frac_exact_cr\": %.6f, \"frac_within_1ulp\": %.6f, "
           "\"max_abs_err\": %.6e, \"max_abs_err_log2\": %.3f, \"max_abs_at\": \"0x%08x\", "
           "\"max_abs_out\": \"0x%08x\", \"max_rel_err\": %.6e, \"max_rel_err_log2\": %.3f, "
           "\"nonfinite_where_ref_finite\": %llu, \"nonfinite_example\": [\"0x%08x\", "
           "\"0x%08x\"]}",
           g_nsweeps++ ? ",\n" : "", display(Op::text).c_str(), note, lo, hi, min_abs_ref, n,
           (unsigned long long)compared, max_ulp, arg_ulp, (double)u2f(arg_ulp), out_ulp,
           compared ? sum_ulp / compared : 0.0, (long long)max_int, arg_int,
           compared ? (double)exact / compared : 0.0,
           compared ? (double)within1 / compared : 0.0, max_abs,
           max_abs > 0 ? log2(max_abs) : -999.0, arg_abs, out_abs, max_rel,
           max_rel > 0 ? log2(max_rel) : -999.0, (unsigned long long)special, special_in,
           special_out);
  js += buf;
  fprintf(stderr, "sweep %-28s [%g, %g] n=%d max_ulp=%.3f max_abs=2^%.2f\n",
          display(Op::text).c_str(), lo, hi, n, max_ulp, max_abs > 0 ? log2(max_abs) : -999.0);
}

// ---------------------------------------------------------------------------
// shfl.sync and vote.sync (one warp)
// ---------------------------------------------------------------------------
#define SHFL_TEXT(MODE) \
  "{ .reg .pred p; shfl.sync." MODE ".b32 %0|p, %2, %3, %4, %5; selp.u32 %1, 1, 0, p; }"

template <int MODE>
__global__ void k_shfl(uint32_t b0, uint32_t bmul, uint32_t c, uint32_t mask, uint32_t active,
                       uint32_t *d, uint32_t *p) {
  uint32_t lane = threadIdx.x;
  d[lane] = 0xDEADBEEFu;
  p[lane] = 0xFFFFFFFFu;
  if (!((active >> lane) & 1)) {
    if (!(active & 0x80000000u) && (bmul & 0x100u)) {  // 'alive' variant: stay, don't exit
      asm volatile("nanosleep.u32 1000;");
      __syncwarp(~active);
    }
    return;
  }
  uint32_t a = 0x100u + lane;
  uint32_t b = b0 + (bmul & 0xff) * lane;
  uint32_t dv, pv;
  if (MODE == 0)
    asm volatile(SHFL_TEXT("idx") : "=r"(dv), "=r"(pv) : "r"(a), "r"(b), "r"(c), "r"(mask));
  else if (MODE == 1)
    asm volatile(SHFL_TEXT("up") : "=r"(dv), "=r"(pv) : "r"(a), "r"(b), "r"(c), "r"(mask));
  else if (MODE == 2)
    asm volatile(SHFL_TEXT("down") : "=r"(dv), "=r"(pv) : "r"(a), "r"(b), "r"(c), "r"(mask));
  else
    asm volatile(SHFL_TEXT("bfly") : "=r"(dv), "=r"(pv) : "r"(a), "r"(b), "r"(c), "r"(mask));
  d[lane] = dv;
  p[lane] = pv;
}

struct ShflCase {
  int mode;
  uint32_t b0, bmul, c, mask, active;
  const char *note;
};

static int g_nshfl = 0;
static void run_shfl(std::string &js, const ShflCase &sc) {
  static const char *modes[] = {"idx", "up", "down", "bfly"};
  uint32_t *dd, *dp;
  CK(cudaMalloc(&dd, 128));
  CK(cudaMalloc(&dp, 128));
  switch (sc.mode) {
    case 0: k_shfl<0><<<1, 32>>>(sc.b0, sc.bmul, sc.c, sc.mask, sc.active, dd, dp); break;
    case 1: k_shfl<1><<<1, 32>>>(sc.b0, sc.bmul, sc.c, sc.mask, sc.active, dd, dp); break;
    case 2: k_shfl<2><<<1, 32>>>(sc.b0, sc.bmul, sc.c, sc.mask, sc.active, dd, dp); break;
    default: k_shfl<3><<<1, 32>>>(sc.b0, sc.bmul, sc.c, sc.mask, sc.active, dd, dp); break;
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  uint32_t hd[32], hp[32];
  CK(cudaMemcpy(hd, dd, 128, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hp, dp, 128, cudaMemcpyDeviceToHost));
  CK(cudaFree(dd));
  CK(cudaFree(dp));
  std::string text = std::string("shfl.sync.") + modes[sc.mode] + ".b32 d|p, a, b, c, membermask";
  char buf[1024];
  snprintf(buf, sizeof buf,
           "%s  {\"ptx\": \"%s\", \"mode\": \"%s\", \"b0\": %u, \"b_lane_mul\": %u, "
           "\"c\": \"0x%08x\", \"membermask\": \"0x%08x\", \"active\": \"0x%08x\", "
           "\"note\": \"%s\",\n",
           g_nshfl++ ? ",\n" : "", text.c_str(), modes[sc.mode], sc.b0, sc.bmul, sc.c, sc.mask,
           sc.active, sc.note);
  js += buf;
  std::string a = "   \"a\": [", b = "   \"b\": [", d = "   \"d\": [", p = "   \"p\": [";
  for (int l = 0; l < 32; ++l) {
    const char *sep = l ? ", " : "";
    bool act = (sc.active >> l) & 1;
    snprintf(buf, sizeof buf, "%s%u", sep, 0x100u + l);
    a += buf;
    snprintf(buf, sizeof buf, "%s%u", sep, sc.b0 + (sc.bmul & 0xff) * l);
    b += buf;
    if (act) snprintf(buf, sizeof buf, "%s%u", sep, hd[l]);
    else snprintf(buf, sizeof buf, "%snull", sep);
    d += buf;
    if (act) snprintf(buf, sizeof buf, "%s%u", sep, hp[l]);
    else snprintf(buf, sizeof buf, "%snull", sep);
    p += buf;
  }
  js += a + "],\n" + b + "],\n" + d + "],\n" + p + "]}";
}

// vote.sync.ballot: lanes < 16 use maskLo, lanes >= 16 use maskHi (separate asm
// statements so that each half executes its own instruction); predicate lane%3==0.
__global__ void k_ballot(uint32_t maskLo, uint32_t maskHi, uint32_t active, int same_stmt,
                         uint32_t *d) {
  uint32_t lane = threadIdx.x;
  d[lane] = 0xDEADBEEFu;
  if (!((active >> lane) & 1)) return;
  uint32_t pr = (lane % 3) == 0;
  uint32_t r;
  if (same_stmt) {
    uint32_t m = lane < 16 ? maskLo : maskHi;
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, %2; }"
                 : "=r"(r) : "r"(pr), "r"(m));
  } else if (lane < 16) {
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, %2; }"
                 : "=r"(r) : "r"(pr), "r"(maskLo));
  } else {
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, %2; }"
                 : "=r"(r) : "r"(pr), "r"(maskHi));
  }
  d[lane] = r;
}

__global__ void k_activemask(uint32_t *d) {
  uint32_t lane = threadIdx.x, r = 0xDEADBEEFu;
  if (lane % 3 == 0) asm volatile("activemask.b32 %0;" : "=r"(r));
  d[lane] = r;
}

static int g_nvote = 0;
static std::string vote_json(const char *ptx, uint32_t lo, uint32_t hi, uint32_t active,
                             int same, const char *note, const uint32_t *hd,
                             const char *err) {
  char buf[512];
  snprintf(buf, sizeof buf,
           "%s  {\"ptx\": \"%s\", \"pred\": \"lane %% 3 == 0\", \"mask_lanes_0_15\": "
           "\"0x%08x\", \"mask_lanes_16_31\": \"0x%08x\", \"active\": \"0x%08x\", "
           "\"single_instruction\": %s, \"note\": \"%s\", \"error\": %s,\n   \"d\": [",
           g_nvote++ ? ",\n" : "", ptx, lo, hi, active, same ? "true" : "false", note,
           err ? jstr(err).c_str() : "null");
  std::string s = buf;
  for (int l = 0; l < 32; ++l) {
    if (l) s += ", ";
    if (!hd || !((active >> l) & 1)) s += "null";
    else { snprintf(buf, sizeof buf, "\"0x%08x\"", hd[l]); s += buf; }
  }
  return s + "]}";
}

static bool g_broken = false;  // set once a vote case hung or faulted
static std::string run_ballot(uint32_t lo, uint32_t hi, uint32_t active, int same,
                              const char *note) {
  const char *ptx = "vote.sync.ballot.b32 d, p, membermask";
  if (g_broken)
    return vote_json(ptx, lo, hi, active, same, note, nullptr,
                     "skipped: an earlier vote case hung or faulted");
  uint32_t *dd = nullptr;
  cudaError_t e = cudaMalloc(&dd, 128);
  if (e == cudaSuccess) {
    k_ballot<<<1, 32>>>(lo, hi, active, same, dd);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) {  // watchdog: don't let an ill-defined case hang the probe
    auto t0 = std::chrono::steady_clock::now();
    while ((e = cudaStreamQuery(0)) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(10)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (e == cudaErrorNotReady) {
      g_broken = true;
      return vote_json(ptx, lo, hi, active, same, note, nullptr,
                       "timeout after 10 s (kernel hung)");
    }
  }
  uint32_t hd[32];
  if (e == cudaSuccess) e = cudaMemcpy(hd, dd, 128, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    g_broken = true;
    return vote_json(ptx, lo, hi, active, same, note, nullptr, cudaGetErrorString(e));
  }
  cudaFree(dd);
  return vote_json(ptx, lo, hi, active, same, note, hd, nullptr);
}

// ---------------------------------------------------------------------------
static std::string g_head, g_cases, g_shfl, g_vote, g_sweeps;
static const char *g_path;

static void write_json(bool complete) {
  std::string s = g_head;
  s += "\"complete\": " + std::string(complete ? "true" : "false") + ",\n";
  s += "\"cases\": [\n" + g_cases + "\n],\n";
  s += "\"shfl\": [\n" + g_shfl + "\n],\n";
  s += "\"vote\": [\n" + g_vote + "\n],\n";
  s += "\"approx_sweeps\": [\n" + g_sweeps + "\n]\n}\n";
  FILE *f = fopen(g_path, "w");
  if (!f) { perror("fopen"); exit(1); }
  fwrite(s.data(), 1, s.size(), f);
  fclose(f);
}

int main(int argc, char **argv) {
  g_path = argc > 1 ? argv[1] : "ptx_hw_edge.json";
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int rt = 0, drv = 0;
  CK(cudaRuntimeGetVersion(&rt));
  CK(cudaDriverGetVersion(&drv));
  std::string smi;
  if (FILE *p = popen("nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv 2>&1",
                      "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) smi += buf;
    pclose(p);
  }
  while (!smi.empty() && smi.back() == '\n') smi.pop_back();
  std::string date;
  if (FILE *p = popen("date -u +%Y-%m-%dT%H:%M:%SZ", "r")) {
    char buf[128];
    if (fgets(buf, sizeof buf, p)) date = buf;
    pclose(p);
  }
  while (!date.empty() && date.back() == '\n') date.pop_back();
  char head[1024];
  snprintf(head, sizeof head,
           "{\n\"device\": %s,\n\"compute_capability\": \"%d.%d\",\n\"cuda_runtime\": "
           "\"%d.%d\",\n\"cuda_driver\": \"%d.%d\",\n\"nvcc_arch\": \"sm_90\",\n"
           "\"measured_utc\": %s,\n\"nvidia_smi\": %s,\n",
           jstr(prop.name).c_str(), prop.major, prop.minor, rt / 1000, (rt % 1000) / 10,
           drv / 1000, (drv % 1000) / 10, jstr(date).c_str(), jstr(smi).c_str());
  g_head = head;
  fprintf(stderr, "device %s  runtime %d driver %d\n", prop.name, rt, drv);

  // 1. scalar cases
  for (auto &r : registry()) r.runner(r.gen(), g_cases, r.text, r.sig);
  fprintf(stderr, "%d scalar cases from %zu instructions\n", g_ncases, registry().size());

  // 2. shfl
  std::vector<ShflCase> sh = {
      // idx
      {0, 0, 0, 0x1f, ~0u, ~0u, "width 32, b=0"},
      {0, 5, 0, 0x1f, ~0u, ~0u, "width 32, b=5"},
      {0, 31, 0, 0x1f, ~0u, ~0u, "width 32, b=31"},
      {0, 32, 0, 0x1f, ~0u, ~0u, "width 32, b=32 (b[4:0]=0)"},
      {0, 33, 0, 0x1f, ~0u, ~0u, "width 32, b=33"},
      {0, 40, 0, 0x1f, ~0u, ~0u, "width 32, b=40"},
      {0, 3, 1, 0x1f, ~0u, ~0u, "width 32, b=lane+3 (lanes>=29 out of range)"},
      {0, 3, 0, 0x101f, ~0u, ~0u, "width 16, b=3"},
      {0, 15, 0, 0x101f, ~0u, ~0u, "width 16, b=15"},
      {0, 16, 0, 0x101f, ~0u, ~0u, "width 16, b=16"},
      {0, 20, 0, 0x101f, ~0u, ~0u, "width 16, b=20"},
      {0, 3, 0, 0x181f, ~0u, ~0u, "width 8, b=3"},
      {0, 7, 0, 0x181f, ~0u, ~0u, "width 8, b=7"},
      {0, 8, 0, 0x181f, ~0u, ~0u, "width 8, b=8"},
      {0, 9, 0, 0x181f, ~0u, ~0u, "width 8, b=9"},
      {0, 1, 1, 0x181f, ~0u, ~0u, "width 8, b=lane+1"},
      {0, 5, 0, 0x0003, ~0u, ~0u, "clamp c=3, mask 0 (b=5 > clamp)"},
      {0, 2, 0, 0x1803, ~0u, ~0u, "width 8, clamp 3, b=2"},
      {0, 5, 0, 0x1803, ~0u, ~0u, "width 8, clamp 3, b=5 (> clamp)"},
      {0, 20, 0, 0x1f, 0x0000ffffu, 0x0000ffffu,
       "lanes 0-15 active, membermask 0xffff, b=20 (source lane not in mask)"},
      {0, 8, 1, 0x1f, 0x0000ffffu, 0x0000ffffu,
       "lanes 0-15 active, membermask 0xffff, b=lane+8 (lanes 8-15 read inactive lanes)"},
      {0, 8, 0x101, 0x1f, 0x0000ffffu, 0x0000ffffu,
       "lanes 0-15 active, lanes 16-31 alive in other branch (not exited), b=lane+8; b_lane_mul "
       "field 0x101 = mul 1 + alive flag"},
      {2, 4, 0, 0x1f, 0x0000ffffu, 0x0000ffffu,
       "down, lanes 0-15 active (others exited), membermask 0xffff, b=4"},
      // up
      {1, 0, 0, 0, ~0u, ~0u, "width 32, b=0"},
      {1, 1, 0, 0, ~0u, ~0u, "width 32, b=1"},
      {1, 5, 0, 0, ~0u, ~0u, "width 32, b=5"},
      {1, 31, 0, 0, ~0u, ~0u, "width 32, b=31"},
      {1, 32, 0, 0, ~0u, ~0u, "width 32, b=32"},
      {1, 33, 0, 0, ~0u, ~0u, "width 32, b=33"},
      {1, 1, 0, 0x1000, ~0u, ~0u, "width 16, b=1"},
      {1, 5, 0, 0x1000, ~0u, ~0u, "width 16, b=5"},
      {1, 16, 0, 0x1000, ~0u, ~0u, "width 16, b=16"},
      {1, 1, 0, 0x1800, ~0u, ~0u, "width 8, b=1"},
      {1, 3, 0, 0x1800, ~0u, ~0u, "width 8, b=3"},
      {1, 8, 0, 0x1800, ~0u, ~0u, "width 8, b=8"},
      {1, 1, 0, 0x1f, ~0u, ~0u, "c=0x1f (down-style c) with up, b=1"},
      {1, 1, 0, 0x1004, ~0u, ~0u, "width 16, c[4:0]=4, b=1"},
      // down
      {2, 0, 0, 0x1f, ~0u, ~0u, "width 32, b=0"},
      {2, 1, 0, 0x1f, ~0u, ~0u, "width 32, b=1"},
      {2, 5, 0, 0x1f, ~0u, ~0u, "width 32, b=5"},
      {2, 31, 0, 0x1f, ~0u, ~0u, "width 32, b=31"},
      {2, 32, 0, 0x1f, ~0u, ~0u, "width 32, b=32"},
      {2, 33, 0, 0x1f, ~0u, ~0u, "width 32, b=33"},
      {2, 1, 0, 0x101f, ~0u, ~0u, "width 16, b=1"},
      {2, 8, 0, 0x101f, ~0u, ~0u, "width 16, b=8"},
      {2, 16, 0, 0x101f, ~0u, ~0u, "width 16, b=16"},
      {2, 1, 0, 0x181f, ~0u, ~0u, "width 8, b=1"},
      {2, 3, 0, 0x181f, ~0u, ~0u, "width 8, b=3"},
      {2, 8, 0, 0x181f, ~0u, ~0u, "width 8, b=8"},
      {2, 1, 0, 0x0, ~0u, ~0u, "c=0 (up-style c) with down, b=1"},
      {2, 1, 0, 0x1809, ~0u, ~0u, "width 8, c[4:0]=9, b=1"},
      // bfly
      {3, 1, 0, 0x1f, ~0u, ~0u, "width 32, b=1"},
      {3, 2, 0, 0x1f, ~0u, ~0u, "width 32, b=2"},
      {3, 16, 0, 0x1f, ~0u, ~0u, "width 32, b=16"},
      {3, 31, 0, 0x1f, ~0u, ~0u, "width 32, b=31"},
      {3, 32, 0, 0x1f, ~0u, ~0u, "width 32, b=32"},
      {3, 1, 0, 0x101f, ~0u, ~0u, "width 16, b=1"},
      {3, 8, 0, 0x101f, ~0u, ~0u, "width 16, b=8"},
      {3, 16, 0, 0x101f, ~0u, ~0u, "width 16, b=16"},
      {3, 1, 0, 0x181f, ~0u, ~0u, "width 8, b=1"},
      {3, 4, 0, 0x181f, ~0u, ~0u, "width 8, b=4"},
      {3, 8, 0, 0x181f, ~0u, ~0u, "width 8, b=8"},
      {3, 9, 0, 0x181f, ~0u, ~0u, "width 8, b=9"},
      {3, 1, 1, 0x1f, ~0u, ~0u, "width 32, b=lane+1"},
  };
  for (auto &sc : sh) run_shfl(g_shfl, sc);
  fprintf(stderr, "%zu shfl cases\n", sh.size());

  // 3. approx sweeps
  const size_t M = 1u << 22;
  sweep<Ap_rcp>(g_sweeps, ref_rcp, 1.0f, 1.99999988f, 1u << 23, "exhaustive [1,2)");
  sweep<Ap_rcp>(g_sweeps, ref_rcp, 1e-37f, 1e37f, M, "strided");
  sweep<Ap_rcp>(g_sweeps, ref_rcp, 1e-45f, 1.1754942e-38f, M, "subnormal inputs");
  sweep<Ap_rcp>(g_sweeps, ref_rcp, 8.5070592e37f, FLT_MAX, M, "subnormal results");
  sweep<Ap_sqrt>(g_sweeps, ref_sqrt, 1.0f, 3.99999976f, 1u << 24, "exhaustive [1,4)");
  sweep<Ap_sqrt>(g_sweeps, ref_sqrt, 1e-45f, FLT_MAX, M, "strided, incl. subnormals");
  sweep<Ap_sqrtrn>(g_sweeps, ref_sqrt, 1e-45f, FLT_MAX, M, "control: sqrt.rn should be exact");
  sweep<Ap_rsqrt>(g_sweeps, ref_rsqrt, 1.0f, 3.99999976f, 1u << 24, "exhaustive [1,4)");
  sweep<Ap_rsqrt>(g_sweeps, ref_rsqrt, 1e-45f, FLT_MAX, M, "strided, incl. subnormals");
  sweep<Ap_ex2>(g_sweeps, ref_ex2, -1.0f, 1.0f, M, "[-1,1]");
  sweep<Ap_ex2>(g_sweeps, ref_ex2, -126.0f, 127.99999f, M, "normal results");
  sweep<Ap_ex2>(g_sweeps, ref_ex2, -149.0f, -126.0f, M, "subnormal results");
  sweep<Ap_ex2ftz>(g_sweeps, ref_ex2, -126.0f, 127.99999f, M, "normal results");
  sweep<Ap_lg2>(g_sweeps, ref_lg2, 1.0f, 1.99999988f, 1u << 23, "exhaustive [1,2)");
  sweep<Ap_lg2>(g_sweeps, ref_lg2, 0.5f, 2.0f, M, "[0.5,2] (abs-error region)");
  sweep<Ap_lg2>(g_sweeps, ref_lg2, 1.1754944e-38f, FLT_MAX, M, "all normals, strided");
  sweep<Ap_lg2>(g_sweeps, ref_lg2, 1e-45f, 1.1754942e-38f, M, "subnormal inputs");
  sweep<Ap_sin>(g_sweeps, ref_sin, -3.14159274f, 3.14159274f, M, "[-pi,pi]");
  sweep<Ap_sin>(g_sweeps, ref_sin, -100.0f, 100.0f, M, "[-100,100]");
  sweep<Ap_sin>(g_sweeps, ref_sin, -1e5f, 1e5f, M, "[-1e5,1e5]");
  sweep<Ap_cos>(g_sweeps, ref_cos, -3.14159274f, 3.14159274f, M, "[-pi,pi]");
  sweep<Ap_cos>(g_sweeps, ref_cos, -100.0f, 100.0f, M, "[-100,100]");
  sweep<Ap_cos>(g_sweeps, ref_cos, -1e5f, 1e5f, M, "[-1e5,1e5]");
  sweep<Ap_tanh>(g_sweeps, ref_tanh, -20.0f, 20.0f, M, "[-20,20]");
  // ulp statistics away from the zeros of the function (where ulp error is meaningful)
  sweep<Ap_lg2>(g_sweeps, ref_lg2, 1.1754944e-38f, FLT_MAX, M, "all normals, |ref|>=1", 1.0);
  sweep<Ap_lg2>(g_sweeps, ref_lg2, 2.0f, 4.0f, M, "[2,4]", 1.0);
  sweep<Ap_sin>(g_sweeps, ref_sin, -3.14159274f, 3.14159274f, M, "[-pi,pi], |ref|>=0.5", 0.5);
  sweep<Ap_cos>(g_sweeps, ref_cos, -3.14159274f, 3.14159274f, M, "[-pi,pi], |ref|>=0.5", 0.5);
  sweep<Ap_sin>(g_sweeps, ref_sin, -100.0f, 100.0f, M, "[-100,100], |ref|>=0.5", 0.5);
  sweep<Ap_cos>(g_sweeps, ref_cos, -100.0f, 100.0f, M, "[-100,100], |ref|>=0.5", 0.5);
  sweep<Ap_sin>(g_sweeps, ref_sin, 1e-30f, 1e-3f, M, "small arguments (relative error)");
  sweep<Ap_tanh>(g_sweeps, ref_tanh, 1e-30f, 0.01f, M, "small arguments");
  write_json(false);

  // 4. vote / activemask (each ballot case watchdog-guarded; JSON rewritten after each)
  {
    uint32_t *dd, hd[32];
    CK(cudaMalloc(&dd, 128));
    k_activemask<<<1, 32>>>(dd);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hd, dd, 128, cudaMemcpyDeviceToHost));
    CK(cudaFree(dd));
    g_vote += vote_json("activemask.b32 d", 0, 0, 0x49249249u, 0,
                        "executed only by lanes with lane%3==0", hd, nullptr);
  }
  g_vote += run_ballot(~0u, ~0u, ~0u, 1, "all lanes, full mask");
  write_json(false);
  g_vote += run_ballot(0x0000ffffu, 0, 0x0000ffffu, 0,
                       "only lanes 0-15 execute, membermask 0x0000ffff");
  write_json(false);
  g_vote += run_ballot(0x00000f0fu, 0x00000f0fu, 0x00000f0fu, 1,
                       "only lanes in mask 0x0f0f execute");
  write_json(false);
  g_vote += run_ballot(0x0000ffffu, 0xffff0000u, ~0u, 0,
                       "lanes 0-15 mask 0x0000ffff / lanes 16-31 mask 0xffff0000, separate "
                       "instructions in if/else");
  write_json(false);
  g_vote += run_ballot(0x0000ffffu, 0xffff0000u, ~0u, 1,
                       "lanes 0-15 mask 0x0000ffff / lanes 16-31 mask 0xffff0000, one "
                       "instruction, per-lane mask register");
  write_json(false);
  // Last: ill-defined per PTX (executing lane not in membermask).
  fprintf(stderr, "running ill-defined ballot case (all 32 lanes, membermask 0x0000ffff)\n");
  g_vote += run_ballot(0x0000ffffu, 0x0000ffffu, ~0u, 1,
                       "UNDEFINED per PTX: all 32 lanes execute with membermask 0x0000ffff");
  write_json(true);
  fprintf(stderr, "wrote %s\n", g_path);
  fflush(stderr);
  _exit(0);  // skip teardown in case the last kernel wedged the context
}
