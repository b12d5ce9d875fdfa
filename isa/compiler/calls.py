"""Calls: casts, builtins, ``math`` functions, ``cuda`` intrinsics and inlined device functions.

Life of a call: the callee expression resolves to a compile-time object (a dtype, a builtin, a ``math``
function, a :class:`~.expr.CudaRef` such as ``cuda.atomic.add``, or a device function). Intrinsics map
to one or a few ISA instructions (``cuda.syncthreads()`` -> ``bar.sync 0``, ``cuda.atomic.add`` ->
``atom``/``red``, ``cuda.shfl_down_sync`` -> ``shfl.sync.down``); ``math`` functions on float32 use the
SFU approximations as nvcc's fast paths do (the interpreter computes them correctly rounded); device
functions are inlined: their body is lowered in a new :class:`~.scope.Scope` binding the parameters to the
argument values; a body whose only ``return`` ends it gives that value directly, otherwise each ``return``
moves its value into one result register and jumps to the end of the inlined body.
"""
from __future__ import annotations

import ast
import builtins
import math
from typing import Any, Callable

import numpy as np

from . import types as T
from .expr import ArrayVal, CudaRef, Lowered, Py, TupleVal, is_value
from .ir import Const, Reg, Value
from .scope import Scope
from .source import Source

LOG2E, LN2 = 1.4426950408889634, 0.6931471805599453
_ATOMIC_OPS = {"add": "add", "sub": "add", "max": "max", "min": "min", "exch": "exch", "inc": "inc", "dec": "dec",
               "and_": "and", "or_": "or", "xor": "xor"}
_MATH1 = ("sqrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "fabs", "floor", "ceil",
          "isnan", "isinf", "isfinite", "trunc", "expm1", "log1p")
#: intrinsics that are one lowering routine with a parameter: name -> (method, parameter)
_VARIANTS = {
    "grid": ("_grid", False), "gridsize": ("_grid", True),
    "syncthreads_count": ("_bar_red", "popc"), "syncthreads_and": ("_bar_red", "and"),
    "syncthreads_or": ("_bar_red", "or"),
    "threadfence": ("_fence", "gl"), "threadfence_block": ("_fence", "cta"), "threadfence_system": ("_fence", "sys"),
    "shfl_sync": ("_shfl", "idx"), "shfl_up_sync": ("_shfl", "up"), "shfl_down_sync": ("_shfl", "down"),
    "shfl_xor_sync": ("_shfl", "bfly"),
    "ballot_sync": ("_vote", "ballot"), "all_sync": ("_vote", "all"), "any_sync": ("_vote", "any"),
    "eq_sync": ("_vote", "uni"),
    "popc": ("_bits", "popc"), "clz": ("_bits", "clz"), "brev": ("_bits", "brev"), "ffs": ("_bits", "ffs"),
    **{f"atomic.{op}": ("_atomic", op) for op in _ATOMIC_OPS},
}
SUPPORTED_CUDA = ("grid, gridsize, syncthreads, syncthreads_count/and/or, syncwarp, threadfence(_block), atomic.*, "
                  "shfl_sync/up/down/xor, ballot_sync, all_sync, any_sync, activemask, shared.array, local.array, "
                  "const.array_like, popc, brev, clz, ffs, fma")


def dtype_of(obj: object) -> str | None:
    """The scalar type a dtype-like object names (np.float32, numba.float32, 'float32', int, float...)."""
    if obj is builtins.int:
        return "i64"
    if obj is builtins.float:
        return "f64"
    if obj is builtins.bool:
        return "b1"
    t = T.from_numpy(obj) if isinstance(obj, (type, np.dtype, str)) else None
    if t is None:
        try:
            t = T.from_numpy(str(obj))
        except TypeError:
            t = None
    return t


class Calls:
    """Mixin for the lowerer (calls)."""

    def e_Call(self, node: ast.Call, statement: bool = False) -> Lowered:
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error(node, "*args in calls are not supported")
        f = self.expr(node.func)
        if isinstance(f, CudaRef):
            return self.cuda_call(".".join(f.path), node, statement)
        if not isinstance(f, Py):
            raise self.error(node.func, f"{self.describe(f)} is not callable")
        obj = f.obj
        if obj in (builtins.min, builtins.max, builtins.abs, builtins.round, builtins.len):
            return self.builtin_call(obj.__name__, node)
        if getattr(obj, "__module__", None) == "math" or getattr(obj, "__self__", None) is math:
            name = obj.__name__
            if name not in _MATH1 + ("pow", "atan2", "copysign", "fmod", "hypot"):
                raise self.error(node, f"math.{name} is not supported",
                                 "math." + ", math.".join(_MATH1 + ("pow",)))
            return self.math_call(name, [self.value(a) for a in node.args], node)
        t = dtype_of(obj)
        if t is not None:
            if len(node.args) != 1 or node.keywords:
                raise self.error(node, f"a cast to {T.numpy_name(t)} takes one argument")
            return self.convert(self.value(node.args[0]), t)
        fn = getattr(obj, "py_func", obj)
        if callable(fn) and hasattr(fn, "__code__"):
            if getattr(obj, "device", True) is False or getattr(getattr(obj, "targetoptions", {}), "get",
                                                                  lambda k: True)("device") is False:
                raise self.error(node, f"{fn.__name__} is a kernel; only device functions can be called",
                                 "@cuda.jit(device=True)")
            return self.inline(fn, node)
        raise self.error(node.func, f"calling {getattr(obj, '__name__', repr(obj))} is not supported in kernels",
                         "casts, min/max/abs/round/len, math functions, cuda intrinsics, device functions")

    # ------------------------------------------------------------------ builtins and math
    def builtin_call(self, name: str, node: ast.Call) -> Value:
        if node.keywords:
            raise self.error(node, f"{name}() keyword arguments are not supported")
        if name == "len":
            a = self.expr(node.args[0]) if len(node.args) == 1 else None
            if isinstance(a, TupleVal):
                return Const(len(a.items), "i64")
            if not isinstance(a, ArrayVal):
                raise self.error(node, "len() takes one array")
            return self.dim(a, 0)
        args = [self.value(a) for a in node.args]
        if name in ("min", "max"):
            if len(args) < 2:
                raise self.error(node, f"{name}() needs at least two numbers")
            out = args[0]
            for v in args[1:]:
                t = T.promote(out.t, v.t)
                t = "i64" if t == "b1" else t
                x, y = self.convert(out, t), self.convert(v, t)
                if isinstance(x, Const) and isinstance(y, Const):
                    out = Const((builtins.min if name == "min" else builtins.max)(x.value, y.value), t)
                else:
                    a, b = sorted((self.opnd(x), self.opnd(y)))
                    out = self.b.op(f"{name}.{T.ptx(t)}", t, a, b)
            return out
        if len(args) != 1:
            raise self.error(node, f"{name}() takes one number here" + (" (round(x, ndigits) is not supported)"
                                                                        if name == "round" else ""))
        v = args[0]
        if name == "abs":
            t = "i64" if v.t == "b1" else v.t
            v = self.convert(v, t)
            if isinstance(v, Const):
                return Const(abs(v.value), t)
            return v if not T.is_signed(t) and T.is_int(t) else self.b.op(f"abs.{T.ptx(t)}", t, self.opnd(v))
        if T.is_int(v.t):                                # round
            return self.convert(v, "i64")
        if isinstance(v, Const):
            return Const(int(np.rint(v.value)), "i64")
        return self.b.op(f"cvt.rni.s64.{v.t}", "i64", self.opnd(v))

    def math_call(self, name: str, args: list[Value], node: ast.AST) -> Value:
        if name in ("isnan", "isinf", "isfinite"):
            v = args[0]
            if not T.is_float(v.t):
                return Const(name == "isfinite", "b1")
            if name == "isnan":
                return self.b.op(f"setp.nan.{v.t}", "b1", self.opnd(v), self.opnd(v))
            a = self.b.op(f"abs.{v.t}", v.t, self.opnd(v))
            inf = self.opnd(Const(math.inf, v.t))
            return self.b.op(f"setp.{'eq' if name == 'isinf' else 'lt'}.{v.t}", "b1", a.name, inf)
        want = 1 if name in _MATH1 else 2
        if len(args) != want:
            raise self.error(node, f"math.{name} takes {want} argument(s)")
        t = "f64"
        for v in args:
            t = v.t if v.t == "f32" and t != "f64x" and all(a.t == "f32" for a in args) else t
        args = [self.convert(v, t) for v in args]
        if name in ("floor", "ceil", "trunc"):
            rnd = {"floor": "rmi", "ceil": "rpi", "trunc": "rzi"}[name]
            return self.b.op(f"cvt.{rnd}.s64.{t}", "i64", self.opnd(args[0]))
        if name == "fabs":
            return self.b.op(f"abs.{t}", t, self.opnd(args[0]))
        if name == "sqrt":
            return self.b.op(f"sqrt.rn.{t}", t, self.opnd(args[0]))
        if name == "copysign":
            return self.b.op(f"copysign.{t}", t, self.opnd(args[1]), self.opnd(args[0]))
        if t == "f64":
            raise self.error(node, f"math.{name} on float64 is not supported by smsim's compiler",
                             f"math.{name} on float32 values (np.float32(x))")
        return self.sfu(name, [self.reg_of(a).name for a in args])

    def sfu(self, name: str, x: list[str]) -> Reg:
        """float32 transcendental functions from ex2/lg2/sin/cos.approx (nvcc's fast-math sequences)."""
        b = self.b

        def f(v: float) -> str:
            return self.opnd(Const(v, "f32"))
        if name in ("exp", "exp2", "expm1"):
            s = x[0] if name == "exp2" else b.op("mul.f32", "f32", x[0], f(LOG2E)).name
            e = b.op("ex2.approx.f32", "f32", s)
            return b.op("sub.f32", "f32", e.name, f(1.0)) if name == "expm1" else e
        if name in ("log", "log2", "log10", "log1p"):
            arg = b.op("add.f32", "f32", x[0], f(1.0)).name if name == "log1p" else x[0]
            l2 = b.op("lg2.approx.f32", "f32", arg)
            if name == "log2":
                return l2
            return b.op("mul.f32", "f32", l2.name, f(math.log10(2.0) if name == "log10" else LN2))
        if name in ("sin", "cos"):
            return b.op(f"{name}.approx.f32", "f32", x[0])
        if name == "tan":
            s, c = b.op("sin.approx.f32", "f32", x[0]), b.op("cos.approx.f32", "f32", x[0])
            return b.op("div.rn.f32", "f32", s.name, c.name)
        if name == "tanh":                       # (1 - e) / (1 + e) with e = exp(-2|x|), sign of x
            a = b.op("abs.f32", "f32", x[0])
            e = b.op("ex2.approx.f32", "f32", b.op("mul.f32", "f32", a.name, f(-2 * LOG2E)).name)
            r = b.op("div.rn.f32", "f32", b.op("sub.f32", "f32", f(1.0), e.name).name,
                     b.op("add.f32", "f32", e.name, f(1.0)).name)
            return b.op("copysign.f32", "f32", x[0], r.name)
        if name == "pow":
            l2 = b.op("lg2.approx.f32", "f32", x[0])
            return b.op("ex2.approx.f32", "f32", b.op("mul.f32", "f32", l2.name, x[1]).name)
        if name == "atan2" or name == "fmod" or name == "hypot":
            if name == "hypot":
                s = b.op("fma.rn.f32", "f32", x[0], x[0], b.op("mul.f32", "f32", x[1], x[1]).name)
                return b.op("sqrt.rn.f32", "f32", s.name)
            if name == "fmod":
                q = b.op("cvt.rzi.f32.f32", "f32", b.op("div.rn.f32", "f32", x[0], x[1]).name)
                return b.op("fma.rn.f32", "f32", b.op("neg.f32", "f32", q.name).name, x[1], x[0])
        raise RuntimeError(f"math.{name} is not supported")

    # ------------------------------------------------------------------ cuda intrinsics
    def cuda_call(self, name: str, node: ast.Call, statement: bool) -> Lowered:
        variant = _VARIANTS.get(name)
        if variant is not None:
            method, arg = variant
            m = lambda node, statement: getattr(self, method)(node, statement, arg)   # noqa: E731
        else:
            m = getattr(self, "cu_" + name.replace(".", "_"), None)
        if m is None:
            raise self.error(node, f"cuda.{name} is not supported", SUPPORTED_CUDA)
        if node.keywords and name not in ("shared.array", "local.array"):
            raise self.error(node, f"cuda.{name}: keyword arguments are not supported", "positional arguments")
        return m(node, statement)

    def args_of(self, node: ast.Call, n_min: int, n_max: int | None = None) -> list[ast.expr]:
        n_max = n_min if n_max is None else n_max
        if not n_min <= len(node.args) <= n_max:
            what = str(n_min) if n_min == n_max else f"{n_min} to {n_max}"
            raise self.error(node, f"expected {what} argument(s), got {len(node.args)}")
        return node.args

    def const_int(self, node: ast.expr) -> int:
        v = self.value(node, "a constant integer")
        if not isinstance(v, Const) or not T.is_int(v.t):
            raise self.error(node, "expected a constant integer (a literal or a module-level constant)")
        return int(v.value)

    def _grid(self, node, statement, size):
        (nd,) = self.args_of(node, 1)
        n = self.const_int(nd)
        if n not in (1, 2, 3):
            raise self.error(nd, "cuda.grid/gridsize take 1, 2 or 3")
        out = []
        for axis in "xyz"[:n]:
            a = self.b.entry(("sreg", f"ntid.{axis}"), "u32", "mov.u32", [f"%ntid.{axis}"])
            c = self.b.entry(("sreg", f"{'nctaid' if size else 'ctaid'}.{axis}"), "u32", "mov.u32",
                             [f"%{'nctaid' if size else 'ctaid'}.{axis}"])
            w = self.b.op("mul.wide.u32", "i64", a.name, c.name)
            if size:
                self.b.positive.add(w.name)
            else:
                t = self.b.entry(("sreg", f"tid.{axis}"), "u32", "mov.u32", [f"%tid.{axis}"])
                w = self.iadd(w, self.b.op("cvt.u64.u32", "i64", t.name), "i64")
            out.append(w)
        return out[0] if n == 1 else TupleVal(tuple(out))

    def _fence(self, node, statement, scope):
        self.args_of(node, 0)
        return self._sync(f"membar.{scope}", [])

    def _sync(self, op, srcs, clobber=True):
        self.b.emit(op, [], srcs)
        if clobber:
            self.b.vt.clobber("all")
        return Const(0, "i64")

    def cu_syncthreads(self, node: ast.Call, statement: bool) -> Const:
        self.args_of(node, 0)
        return self._sync("bar.sync", ["0"])

    def _bar_red(self, node, statement, mode):
        (p,) = self.args_of(node, 1)
        c = self.cond(p)
        pr = self.reg_of(c) if isinstance(c, Const) else c
        if mode == "popc":
            d = self.b.reg("i32")
            self.b.emit("bar.red.popc.u32", [d], ["0", pr.name])
        else:
            q = self.b.reg("b1")
            self.b.emit(f"bar.red.{mode}.pred", [q], ["0", pr.name])
            d = self.b.op("selp.s32", "i32", "1", "0", q.name, pure=False)
        self.b.vt.clobber("all")
        return d

    def cu_syncwarp(self, node: ast.Call, statement: bool) -> Const:
        args = self.args_of(node, 0, 1)
        mask = self.opnd(self.convert(self.value(args[0]), "u32")) if args else "-1"
        return self._sync("bar.warp.sync", [mask])

    # warp-level primitives
    def _shfl(self, node, statement, mode):
        mask, val, lane = self.args_of(node, 3)
        m = self.opnd(self.convert(self.value(mask), "u32"))
        v = self.value(val)
        ln = self.opnd(self.convert(self.value(lane), "u32"))
        c = "0" if mode == "up" else "31"
        t = "i64" if v.t == "b1" else v.t
        v = self.convert(v, t)
        if T.bits(t) <= 32:
            src = self.reg_of(v)
            d = self.b.reg(t)
            self.b.emit(f"shfl.sync.{mode}.b32", [d], [src.name, ln, c, m])
            return d
        src = self.reg_of(self.convert(v, "u64") if t == "i64" else v)
        lo, hi = self.b.reg("u32"), self.b.reg("u32")
        self.b.emit("mov.b64.unpack", [lo, hi], [src.name])       # 64-bit values shuffle as two halves
        outs = []
        for part in (lo, hi):
            d = self.b.reg("u32")
            self.b.emit(f"shfl.sync.{mode}.b32", [d], [part.name, ln, c, m])
            outs.append(d)
        d = self.b.reg(t)
        self.b.emit("mov.b64.pack", [d], [outs[0].name, outs[1].name])
        return d

    def _vote(self, node, statement, mode):
        mask, pred = self.args_of(node, 2)
        m = self.opnd(self.convert(self.value(mask), "u32"))
        c = self.cond(pred)
        p = self.reg_of(c) if isinstance(c, Const) else c
        if mode == "ballot":
            d = self.b.reg("u32")
            self.b.emit("vote.sync.ballot.b32", [d], [p.name, m])
            return d
        d = self.b.reg("b1")
        self.b.emit(f"vote.sync.{mode}.pred", [d], [p.name, m])
        return d

    def cu_activemask(self, node: ast.Call, statement: bool) -> Reg:
        self.args_of(node, 0)
        d = self.b.reg("u32")
        self.b.emit("activemask.b32", [d], [])
        return d

    # bit intrinsics
    def _bits(self, node, statement, op):
        (x,) = self.args_of(node, 1)
        v = self.value(x)
        if not T.is_int(v.t):
            raise self.error(x, f"cuda.{op} needs an integer")
        w = 64 if T.bits(v.t) == 64 else 32
        src = self.opnd(v)
        if op == "ffs":
            r = self.b.op(f"brev.b{w}", v.t, src)
            z = self.b.op(f"bfind.shiftamt.u{w}", "u32", r.name)
            nz = self.b.op(f"setp.ne.b{w}", "b1", src, "0")
            one = self.b.op("add.u32", "u32", z.name, "1")
            return self.b.op("selp.u32", "u32", one.name, "0", nz.name)
        if op == "brev":
            return self.b.op(f"brev.b{w}", v.t, src)
        return self.b.op(f"{op}.b{w}", "u32", src)

    def cu_fma(self, node: ast.Call, statement: bool) -> Reg:
        a, b, c = (self.value(x) for x in self.args_of(node, 3))
        t = T.promote(T.promote(a.t, b.t), c.t)
        if not T.is_float(t):
            raise self.error(node, "cuda.fma needs floating-point arguments")
        return self.b.op(f"fma.rn.{t}", t, *(self.opnd(self.convert(v, t)) for v in (a, b, c)))

    # atomics
    def _atomic(self, node, statement, op):
        a_node, *rest = node.args
        if len(node.args) != 3:
            raise self.error(node, f"cuda.atomic.{op}(array, index, value) takes 3 arguments")
        sub = ast.Subscript(value=a_node, slice=rest[0], ctx=ast.Load(), lineno=node.lineno,
                            col_offset=node.col_offset)
        arr, space, mem, dtype = self.element(sub)
        if space not in ("global", "shared"):
            raise self.error(a_node, "atomics work on global or shared arrays")
        v = self.convert(self.value(rest[1]), dtype)
        if op == "sub":
            v = self.convert(self.isub(Const(0, T.widen(dtype)), self.convert(v, T.widen(dtype)), T.widen(dtype)),
                             dtype)
        return self._atom(_ATOMIC_OPS[op], space, mem, dtype, [v], statement, a_node)

    def _atom(self, aop, space, mem, dtype, vals, statement, node):
        ptype = self._atom_type(aop, dtype, node)
        srcs = [mem] + [self.reg_of(v).name for v in vals]
        if statement and aop not in ("exch", "cas"):
            self.b.emit(f"red.{space}.{aop}.{ptype}", [], srcs)
            d = Const(0, dtype)
        else:
            d = self.b.reg(dtype)
            self.b.emit(f"atom.{space}.{aop}.{ptype}", [d], srcs)
        self.b.vt.clobber(space)
        return d

    def _atom_type(self, aop, dtype, node):
        if dtype == "b1" or T.bits(dtype) < 32:
            raise self.error(node, f"atomics need 32- or 64-bit elements, not {T.numpy_name(dtype)}")
        if aop in ("and", "or", "xor", "exch", "cas"):
            if T.is_float(dtype) and aop != "exch":
                raise self.error(node, f"atomic {aop} needs an integer array")
            return f"b{T.bits(dtype)}"
        if aop in ("max", "min") and T.is_float(dtype):
            raise self.error(node, f"atomic.{aop} on {T.numpy_name(dtype)} is not supported by smsim's compiler (PTX "
                             f"has no floating-point atom.{aop}: numba makes a compare-and-swap loop of it)",
                             f"atomic.{aop} on an integer array, or compiler=\"numba\"")
        if aop in ("inc", "dec"):
            if dtype != "u32":
                raise self.error(node, f"atomic.{aop} needs a uint32 array")
            return "u32"
        if aop == "add" and T.is_int(dtype):
            return f"u{T.bits(dtype)}"
        return T.ptx(dtype)

    def cu_atomic_compare_and_swap(self, node: ast.Call, statement: bool) -> Value:
        a_node, old, new = self.args_of(node, 3)
        return self._cas(a_node, ast.Constant(0, lineno=node.lineno, col_offset=node.col_offset), old, new, node)

    def cu_atomic_cas(self, node: ast.Call, statement: bool) -> Value:
        a_node, idx, old, new = self.args_of(node, 4)
        return self._cas(a_node, idx, old, new, node)

    def _cas(self, a_node, idx, old, new, node):
        sub = ast.Subscript(value=a_node, slice=idx, ctx=ast.Load(), lineno=node.lineno, col_offset=node.col_offset)
        arr, space, mem, dtype = self.element(sub)
        o, n = (self.convert(self.value(x), dtype) for x in (old, new))
        return self._atom("cas", space, mem, dtype, [o, n], False, a_node)

    # arrays on chip
    def _array_args(self, node, names):
        vals = list(node.args) + [None] * (len(names) - len(node.args))
        for kw in node.keywords:
            if kw.arg not in names:
                raise self.error(node, f"unknown keyword argument {kw.arg!r}", ", ".join(names))
            vals[names.index(kw.arg)] = kw.value
        if any(v is None for v in vals):
            raise self.error(node, f"expected arguments ({', '.join(names)})")
        return vals

    def _shape(self, node):
        v = self.expr(node)
        items = v.items if isinstance(v, TupleVal) else (v,)
        out = []
        for it in items:
            if isinstance(it, Py):
                it = self.py_value(it.obj, node)
            if not (isinstance(it, Const) and T.is_int(it.t)) or it.value < 0:
                raise self.error(node, "array shapes must be constant non-negative integers",
                                 "a literal, a module-level constant or a tuple of them")
            out.append(int(it.value))
        return tuple(out)

    def _dtype_arg(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            d = Py(node.value)
        else:
            d = self.expr(node)
        t = dtype_of(d.obj) if isinstance(d, Py) else None
        if t is None:
            raise self.error(node, f"not a supported dtype: {self.describe(d)}",
                             "np.float32, np.int32, ... (numba or smsim.cuda names work too)")
        return t

    def _onchip(self, node, space):
        key = (self.scope.key, id(node), space)
        hit = self.arrays.get(key)
        if hit is not None:
            return hit
        shape_n, dtype_n = self._array_args(node, ["shape", "dtype"])
        shape, t = self._shape(shape_n), self._dtype_arg(dtype_n)
        size = T.itemsize(t) * int(np.prod(shape)) if shape else 0
        dynamic = space == "shared" and (shape == (0,) or shape == ())
        if dynamic:
            sym, shape = "__smem_dynamic", None
            if sym not in [v[0] for v in self.shared_vars]:
                self.shared_vars.append((sym, "shared", None, 16, None))
        else:
            if size == 0:
                raise self.error(shape_n, "a local array needs a non-zero size")
            self.nsyms += 1
            sym = f"__{space}_{self.nsyms}"
            self.shared_vars.append((sym, space, size, max(T.itemsize(t), 4), None))
        a = ArrayVal(T.ArrayT(t, 1 if dynamic else len(shape), space, shape), sym=sym)
        self.arrays[key] = a
        return a

    def cu_shared_array(self, node: ast.Call, statement: bool) -> ArrayVal:
        return self._onchip(node, "shared")

    def cu_local_array(self, node: ast.Call, statement: bool) -> ArrayVal:
        return self._onchip(node, "local")

    def cu_const_array_like(self, node: ast.Call, statement: bool) -> ArrayVal:
        (arr_n,) = self.args_of(node, 1)
        v = self.expr(arr_n)
        if not (isinstance(v, Py) and isinstance(v.obj, np.ndarray)):
            raise self.error(arr_n, "cuda.const.array_like needs a module-level numpy array")
        arr = np.ascontiguousarray(v.obj)
        t = T.from_numpy(arr.dtype)
        if t is None or t == "b1":
            raise self.error(arr_n, f"constant arrays of {arr.dtype} are not supported")
        key = (self.scope.key, id(node), "const")
        if key not in self.arrays:
            self.nsyms += 1
            sym = f"__const_{self.nsyms}"
            self.shared_vars.append((sym, "const", arr.nbytes, max(arr.itemsize, 4), arr))
            self.arrays[key] = ArrayVal(T.ArrayT(t, arr.ndim, "const", arr.shape), sym=sym)
        return self.arrays[key]

    # ------------------------------------------------------------------ device functions
    def inline(self, fn: Callable[..., Any], node: ast.Call) -> Lowered:
        if node.keywords:
            raise self.error(node, "keyword arguments to device functions are not supported")
        if self.inline_depth > 16:
            raise self.error(node, f"device function {fn.__name__} calls itself (too deeply nested)",
                             "no recursion in device functions")
        src = Source.of(fn)
        fdef = src.fdef
        params = [a.arg for a in fdef.args.args]
        if fdef.args.vararg or fdef.args.kwarg or fdef.args.kwonlyargs:
            raise src.error(fdef, "device functions take positional parameters only")
        args = [self.expr(a) for a in node.args]
        defaults = fdef.args.defaults
        if len(args) < len(params) - len(defaults) or len(args) > len(params):
            raise self.error(node, f"{fn.__name__}() takes {len(params)} argument(s), got {len(args)}")
        if len(args) < len(params):
            d = fn.__defaults__[len(args) - (len(params) - len(defaults)):]
            args += [self.py_value(x, node) for x in d]
        types = tuple(a.t if is_value(a) or isinstance(a, ArrayVal) else repr(a) for a in args)
        key = (fn, types)
        end = self.b.label()
        outer = self.scope
        self.scope = Scope(fn, src, key, dict(zip(params, args)), ret=[None, end])
        self.inline_depth += 1
        snap = self.b.vt.snapshot()
        try:
            body = fdef.body
            last = body[-1] if body else None
            simple = isinstance(last, ast.Return) and not any(
                isinstance(n, ast.Return) for s in body[:-1] for n in ast.walk(s))
            if simple:
                self.block(body[:-1])
                self.at(last)
                result = self.expr(last.value) if last.value is not None else Const(0, "i64")
            else:
                self.block(body)
                self.b.place(end)
                self.b.vt.restore(snap)
                result = self.scope.ret[0] if self.scope.ret[0] is not None else Const(0, "i64")
        finally:
            self.inline_depth -= 1
            self.scope = outer
        return result
