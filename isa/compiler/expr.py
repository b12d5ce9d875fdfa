"""Expressions: names, constants, attributes, array elements, operators, comparisons and conditions.

An expression lowers to a value (:mod:`.ir`: constant, register or register+offset) or to a compile-time
object: :class:`ArrayVal` (an array and where its data lives), :class:`TupleVal`, :class:`Py` (a Python
object from the kernel's globals: a module, a dtype, a device function) or :class:`CudaRef` (a name under
``cuda.``). Array elements become loads and stores whose address is ``base + linear index * itemsize``
with constant parts folded into the instruction's offset; shared, local and constant arrays use 32-bit
addresses, global arrays 64-bit ones.
"""
from __future__ import annotations

import ast
import builtins
import operator
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import types as T
from .ir import Const, Mem, Off, Reg, Value
from .values import pow2, wrap


@dataclass(frozen=True)
class ArrayVal:
    t: T.ArrayT
    param: str | None = None        # kernel parameter holding the data pointer (global arrays)
    sym: str | None = None          # symbol (shared/local/const arrays)

    @property
    def kind(self) -> str:
        return "array"


@dataclass(frozen=True)
class TupleVal:
    items: tuple


@dataclass(frozen=True)
class Py:
    obj: object


@dataclass(frozen=True)
class CudaRef:
    path: tuple


@dataclass(frozen=True)
class ParamRef:
    name: str
    t: str


#: what lowering an expression gives: a value, or a compile-time object
Lowered = Union[Const, Reg, Off, ArrayVal, TupleVal, Py, CudaRef]

CUDA_MODULES = ("smsim.cuda", "numba.cuda", "numba.cuda.stubs", "numba_cuda.numba.cuda")
SPECIAL = {f"{a}.{x}": f"%{r}.{x}" for a, r in (("threadIdx", "tid"), ("blockIdx", "ctaid"), ("blockDim", "ntid"),
                                                 ("gridDim", "nctaid")) for x in "xyz"}
_CMP = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_PYCMP = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq,
          "ne": operator.ne}
_OPNAME = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
           ast.MatMult: "@"}


def is_value(v: object) -> bool:
    return isinstance(v, (Const, Reg, Off))


class Expr:
    """Mixin for the lowerer (expressions)."""

    # ------------------------------------------------------------------ dispatch
    def expr(self, node: ast.AST, statement: bool = False) -> Lowered:
        m = getattr(self, "e_" + type(node).__name__, None)
        if m is None:
            raise self.error(node, f"{type(node).__name__} expressions are not supported in kernels",
                             "numbers, variables, array elements, arithmetic, comparisons, calls of cuda/math "
                             "functions and device functions")
        if isinstance(node, ast.Call):
            return m(node, statement)
        return m(node)

    def value(self, node: ast.AST, what: str = "a number") -> Value:
        v = self.expr(node)
        if isinstance(v, Py):
            v = self.py_value(v.obj, node)
        if not is_value(v):
            raise self.error(node, f"expected {what} here, got {self.describe(v)}")
        return v

    def describe(self, v: object) -> str:
        if isinstance(v, ArrayVal):
            return f"an {v.t}"
        if isinstance(v, TupleVal):
            return "a tuple"
        if isinstance(v, CudaRef):
            return "cuda." + ".".join(v.path)
        if isinstance(v, Py):
            return f"the Python object {v.obj!r}"
        return "a value"

    def e_Constant(self, node: ast.Constant) -> Const:
        v = node.value
        if isinstance(v, bool):
            return Const(v, "b1")
        if isinstance(v, int):
            if -(1 << 63) <= v < 1 << 63:
                return Const(v, "i64")
            if v < 1 << 64:
                return Const(v, "u64")
            raise self.error(node, f"integer constant {v} does not fit in 64 bits")
        if isinstance(v, float):
            return Const(v, "f64")
        raise self.error(node, f"{type(v).__name__} constants are not supported in kernels", "numbers")

    def py_value(self, obj: object, node: ast.AST) -> Const | TupleVal | CudaRef | Py:
        """A Python object from the globals as a compile-time value."""
        if isinstance(obj, (bool, np.bool_)):
            return Const(bool(obj), "b1")
        if isinstance(obj, (int, float)):
            return self.e_Constant(ast.Constant(obj, lineno=node.lineno, col_offset=node.col_offset))
        if isinstance(obj, np.generic):
            t = T.from_numpy(obj.dtype)
            if t is None:
                raise self.error(node, f"numpy {obj.dtype} constants are not supported")
            return Const(obj.item(), t)
        if isinstance(obj, tuple):
            return TupleVal(tuple(self.py_value(x, node) for x in obj))
        if getattr(obj, "__name__", None) in CUDA_MODULES:
            return CudaRef(())
        return Py(obj)

    # ------------------------------------------------------------------ names
    def e_Name(self, node: ast.Name) -> Lowered:
        return self.name_value(node.id, node)

    def name_value(self, name: str, node: ast.AST) -> Lowered:
        env = self.scope.env
        if name in env:
            v = env[name]
            if isinstance(v, ParamRef):
                v = env[name] = self.load_param(v)
            if hasattr(v, "message") and hasattr(v, "hint"):
                raise self.error(node, v.message, v.hint)
            return v
        if name in self.scope.src.local_names and name not in self.scope.src.global_names:
            raise self.error(node, f"variable '{name}' is used before it is assigned (on this path)")
        return self.py_value(self.lookup_global(name, node), node)

    def lookup_global(self, name: str, node: ast.AST) -> Any:
        g = self.scope.func.__globals__
        if name in g:
            return g[name]
        closure = self.scope.src.closure
        if name in closure:
            return closure[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(node, f"name '{name}' is not defined")

    def param_value(self, name: str, t: str | T.ArrayT) -> ArrayVal | ParamRef:
        if isinstance(t, T.ArrayT):
            return ArrayVal(t, param=name)
        return ParamRef(name, t)

    def resolved(self, v: Any) -> Any:
        """``v`` with a not-yet-loaded scalar parameter loaded (in the prologue)."""
        return self.load_param(v) if isinstance(v, ParamRef) else v

    def load_param(self, p: ParamRef) -> Reg:
        if p.t == "b1":
            r = self.b.entry(("param", p.name), "u32", "ld.param.u8", [Mem(f"p_{p.name}")])
            return self.b.entry(("param?", p.name), "b1", "setp.ne.s32", [r.name, "0"])
        return self.b.entry(("param", p.name), p.t, f"ld.param.{T.mem(p.t)}", [Mem(f"p_{p.name}")])

    # ------------------------------------------------------------------ attributes
    def e_Attribute(self, node: ast.Attribute) -> Lowered:
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, CudaRef):
            path = base.path + (attr,)
            key = ".".join(path)
            if key in SPECIAL:
                r = self.b.entry(("sreg", key), "u32", "mov.u32", [SPECIAL[key]])
                if path[0] in ("blockDim", "gridDim"):
                    self.b.positive.add(r.name)
                return r
            if key == "laneid":
                return self.b.entry(("sreg", key), "u32", "mov.u32", ["%laneid"])
            if key == "warpsize":
                return Const(32, "i32")
            if len(path) == 1 and T.from_numpy(attr) is not None and attr not in ("b", "h", "l", "q"):
                return Py(T.np_dtype(T.from_numpy(attr)).type)      # cuda.float32 and friends
            return CudaRef(path)
        if isinstance(base, ArrayVal):
            return self.array_attr(base, attr, node)
        if isinstance(base, Py):
            obj = base.obj
            if not hasattr(obj, attr):
                raise self.error(node, f"{getattr(obj, '__name__', repr(obj))} has no attribute '{attr}'")
            return self.py_value(getattr(obj, attr), node)
        raise self.error(node, f"unknown attribute '{attr}' of {self.describe(base)}",
                         "arrays have .shape, .size and .ndim")

    def array_attr(self, a: ArrayVal, attr: str, node: ast.AST) -> TupleVal | Value:
        if attr == "shape":
            return TupleVal(tuple(self.dim(a, i) for i in range(a.t.ndim)))
        if attr == "ndim":
            return Const(a.t.ndim, "i64")
        if attr == "size":
            v = Const(1, "i64")
            for i in range(a.t.ndim):
                v = self.imul(v, self.dim(a, i), "i64")
            return v
        raise self.error(node, f"unknown attribute '{attr}' of an array", "arrays have .shape, .size and .ndim")

    def dim(self, a: ArrayVal, i: int) -> Const | Reg:
        if a.t.shape is not None:
            return Const(a.t.shape[i], "i64")
        if a.param is None:
            raise KeyError(i)
        return self.b.entry(("param", f"{a.param}_shape{i}"), "i64", "ld.param.s64", [Mem(f"p_{a.param}_shape{i}")])

    # ------------------------------------------------------------------ tuples and subscripts
    def e_Tuple(self, node: ast.Tuple) -> TupleVal:
        return TupleVal(tuple(self.expr(e) for e in node.elts))

    def unpack(self, v: Lowered, n: int, node: ast.AST) -> tuple:
        if isinstance(v, Py) and isinstance(v.obj, tuple):
            v = self.py_value(v.obj, node)
        if not isinstance(v, TupleVal):
            raise self.error(node, f"cannot unpack {self.describe(v)} into {n} variables",
                             "x, y = cuda.grid(2) or a tuple")
        if len(v.items) != n:
            raise self.error(node, f"cannot unpack {len(v.items)} values into {n} variables")
        return v.items

    def e_Subscript(self, node: ast.Subscript) -> Lowered:
        base = self.expr(node.value)
        if isinstance(base, TupleVal):
            k = self.value(node.slice, "a constant index")
            if not isinstance(k, Const) or not T.is_int(k.t):
                raise self.error(node.slice, "tuples (such as arr.shape) need a constant integer index")
            if not -len(base.items) <= k.value < len(base.items):
                raise self.error(node.slice, f"index {k.value} out of range for a tuple of {len(base.items)}")
            return base.items[k.value]
        _, space, mem, dtype = self.element(node, base)
        return self.load_element(space, mem, dtype)

    def element(self, node: ast.Subscript, base: Lowered | None = None) -> tuple[ArrayVal, str, Mem, str]:
        """(array, space, address operand, element type) of ``a[i, j, ...]``."""
        a = self.expr(node.value) if base is None else base
        if not isinstance(a, ArrayVal):
            raise self.error(node.value, f"cannot index {self.describe(a)}", "index arrays")
        idx_nodes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(n, ast.Slice) for n in idx_nodes):
            raise self.error(node.slice, "slices are not supported", "index every dimension with integers")
        if len(idx_nodes) != a.t.ndim:
            raise self.error(node.slice, f"{len(idx_nodes)} index(es) for a {a.t.ndim}-dimensional array",
                             f"index all {a.t.ndim} dimensions: a[i{', j' * (a.t.ndim - 1)}]")
        idx = []
        for n in idx_nodes:
            v = self.value(n, "an integer index")
            if not T.is_int(v.t):
                raise self.error(n, f"array index must be an integer, got {T.numpy_name(v.t)}",
                                 "convert with int(...) or np.int64(...)")
            if isinstance(v, Const) and v.value < 0:
                raise self.error(n, f"negative index {v.value}", "index from 0 (a[n - 1], not a[-1])")
            if T.is_signed(v.t) and not self.nonneg(v):
                k = self.b.multiple.get(v.reg.name, 0) if isinstance(v, Off) and T.bits(v.t) == 64 \
                    else 0
                if isinstance(v, Off) and 0 < v.c < k:   # k i + c has the sign of k i: wrap that (as LLVM)
                    v = Off(self.wraparound(Reg(v.reg.name, "i64"), self.dim_or_none(a, len(idx))), v.c, "i64")
                else:
                    v = self.wraparound(self.convert(v, "i64"), self.dim_or_none(a, len(idx)))
            idx.append(self.convert(v, "i64") if T.bits(v.t) < 64 or v.t == "u64" else v)
        lin = idx[0]
        for k in range(1, a.t.ndim):
            lin = self.iadd(self.imul(lin, self.dim(a, k), "i64"), idx[k], "i64")
        size = T.itemsize(a.t.dtype)
        if a.t.space == "global":
            base_reg = self.b.entry(("param", a.param), "u64", "ld.param.u64", [Mem(f"p_{a.param}")])
            addr = self.iadd(base_reg, self.imul(self.convert(lin, "u64"), Const(size, "u64"), "u64"), "u64")
        else:
            base_reg = self.b.entry(("sym", a.sym), "u32", "mov.u32", [a.sym])
            off = self.imul(self.convert(self.convert(lin, "u64"), "u32"), Const(size, "u32"), "u32")
            addr = self.iadd(base_reg, off, "u32")
        if isinstance(addr, Off):
            bits = T.bits(addr.t)
            c = int(addr.c) & ((1 << bits) - 1)
            mem = Mem(addr.reg.name, c - (1 << bits) if c >= 1 << (bits - 1) else c)
        elif isinstance(addr, Const):
            mem = Mem(self.reg_of(addr).name)
        else:
            mem = Mem(addr.name)
        return a, a.t.space, mem, a.t.dtype

    def dim_or_none(self, a: ArrayVal, k: int) -> Const | Reg | None:
        if a.t.shape is None and a.param is None:
            return None                       # dynamic shared memory: no length to wrap around
        return self.dim(a, k)

    def wraparound(self, v: Value, dim: Value | None) -> Value:
        """numba's negative-index rule: ``i + (dim if i < 0 else 0)`` as ``i + (dim & (i >> 63))``."""
        if dim is None:
            return v
        r = self.reg_of(v)
        sign = self.b.op("shr.s64", "i64", r.name, "63")
        m = self.b.op("and.b64", "i64", sign.name, self.opnd(dim))
        return self.b.op("add.s64", "i64", m.name, r.name)

    def load_element(self, space: str, mem: Mem, dtype: str) -> Reg:
        if dtype == "b1":
            r = self.b.load(space, "u8", "u32", mem)
            return self.b.op("setp.ne.s32", "b1", r.name, "0")
        return self.b.load(space, T.mem(dtype), dtype, mem)

    def store_item(self, node: ast.Subscript, v: Lowered) -> None:
        a, space, mem, dtype = self.element(node)
        if not is_value(v):
            v = self.value(node, "a number to store")
        self.write_element(space, mem, dtype, v, a)

    def write_element(self, space: str, mem: Mem, dtype: str, v: Value, a: ArrayVal) -> None:
        if space == "const":
            raise RuntimeError("const arrays are read-only")
        v = self.convert(v, dtype)
        if dtype == "b1":
            src = self.b.op("selp.u32", "u32", "1", "0", self.reg_of(v).name) if not isinstance(v, Const) \
                else self.reg_of(Const(int(v.value), "u32"))
            self.b.emit(f"st.{space}.u8", [], [mem, src.name])
        else:
            self.b.emit(f"st.{space}.{T.mem(dtype)}", [], [mem, self.reg_of(v).name])
        self.b.vt.clobber(space)

    # ------------------------------------------------------------------ operators
    def e_BinOp(self, node: ast.BinOp) -> Value:
        return self.binop(node.op, self.value(node.left), self.value(node.right), node)

    def binop(self, op: ast.operator, a: Value, b: Value, node: ast.AST) -> Value:
        kind = type(op)
        if kind is ast.MatMult:
            raise self.error(node, "the @ operator is not supported", "write the loops")
        if kind is ast.Div:
            t = T.truediv(a.t, b.t)
        else:
            t = T.arith(a.t, b.t)
            if kind in (ast.BitAnd, ast.BitOr, ast.BitXor) and a.t == b.t == "b1":
                return self.pred_logic({ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}[kind], a, b)
            if kind in (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift) and T.is_float(t):
                raise self.error(node, f"operator {_OPNAME[kind]} needs integers, got {T.numpy_name(a.t)} and "
                                       f"{T.numpy_name(b.t)}")
        if kind is ast.Pow:
            return self.power(a, b, node)
        if kind in (ast.LShift, ast.RShift):
            return self.shift(kind is ast.LShift, self.convert(a, t), b, t)
        a, b = self.convert(a, t), self.convert(b, t)
        if T.is_int(t):
            return self.int_binop(kind, a, b, t, node)
        return self.float_binop(kind, a, b, t)

    def int_binop(self, kind: type, a: Value, b: Value, t: str, node: ast.AST | None) -> Value:
        if kind is ast.Add:
            return self.iadd(a, b, t)
        if kind is ast.Sub:
            return self.isub(a, b, t)
        if kind is ast.Mult:
            return self.imul(a, b, t)
        if kind in (ast.FloorDiv, ast.Mod):
            return self.floordiv_mod(kind is ast.FloorDiv, a, b, t)
        name = {ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}[kind]
        if isinstance(a, Const) and isinstance(b, Const):
            f = {"and": operator.and_, "or": operator.or_, "xor": operator.xor}[name]
            return Const(wrap(f(a.value, b.value), t), t)
        x, y = sorted((self.opnd(a), self.opnd(b)))
        r = self.b.op(f"{name}.b{T.bits(t)}", t, x, y)
        if (self.nonneg(a) or self.nonneg(b)) if name == "and" else (self.nonneg(a) and self.nonneg(b)):
            self.b.nonneg.add(r.name)         # a mask that is not negative clears the sign
        return r

    def floordiv_mod(self, is_div: bool, a: Value, b: Value, t: str) -> Value:
        if isinstance(a, Const) and isinstance(b, Const):
            if b.value == 0:
                return Const(0, t)
            return Const(wrap(a.value // b.value if is_div else a.value % b.value, t), t)
        if isinstance(b, Const):
            k = pow2(b.value)
            if k is not None:              # floor division / Python modulo by 2**k: a shift / a mask
                if is_div:
                    if k == 0:
                        return a
                    q = self.b.op(f"shr.{'s' if T.is_signed(t) else 'u'}{T.bits(t)}", t, self.opnd(a), str(k))
                    if self.nonneg(a):
                        self.b.nonneg.add(q.name)
                    return q
                return self.int_binop(ast.BitAnd, a, Const(b.value - 1, t), t, None)
        pt = T.ptx(t)
        q = self.b.op(f"div.{pt}", t, self.opnd(a), self.opnd(b))
        r = self.b.op(f"rem.{pt}", t, self.opnd(a), self.opnd(b))
        if not T.is_signed(t) or self.nonneg(a) and self.nonneg(b):
            self.b.nonneg.update((q.name, r.name))
            return q if is_div else r          # truncation is the floor where neither is negative
        # Python semantics: when the remainder is non-zero and its sign differs from the divisor's
        nz = self.b.op(f"setp.ne.{pt}", "b1", r.name, "0")
        x = self.b.op(f"xor.b{T.bits(t)}", t, r.name, self.opnd(b))
        fix = self.b.op(f"setp.lt.and.{pt}", "b1", x.name, "0", nz.name)
        if is_div:
            return self.b.op(f"sub.{pt}", t, q.name, self.b.op(f"selp.{pt}", t, "1", "0", fix.name).name)
        return self.b.op(f"add.{pt}", t, r.name, self.b.op(f"selp.{pt}", t, self.opnd(b), "0", fix.name).name)

    def shift(self, left: bool, a: Value, b: Value, t: str) -> Value:
        if isinstance(a, Const) and isinstance(b, Const):
            n = b.value
            if n < 0 or n >= T.bits(t):
                return Const(0, t)
            return Const(wrap(a.value << n if left else a.value >> n, t), t)
        amount = self.convert(b, "u32") if not isinstance(b, Const) else Const(b.value, "u32")
        if left:
            if isinstance(amount, Const):
                return self.imul(a, Const(wrap(1 << amount.value, t), t), t)
            return self.b.op(f"shl.b{T.bits(t)}", t, self.opnd(a), self.opnd(amount))
        return self.b.op(f"shr.{'s' if T.is_signed(t) else 'u'}{T.bits(t)}", t, self.opnd(a), self.opnd(amount))

    def float_binop(self, kind: type, a: Value, b: Value, t: str) -> Value:
        if isinstance(a, Const) and isinstance(b, Const):
            x, y = T.np_dtype(t).type(a.value), T.np_dtype(t).type(b.value)
            with np.errstate(all="ignore"):
                r = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                     ast.Div: operator.truediv, ast.FloorDiv: lambda p, q: np.floor(p / q),
                     ast.Mod: lambda p, q: np.mod(p, q)}[kind](x, y)
            return Const(float(r), t)
        if kind in (ast.Add, ast.Mult):
            x, y = sorted((self.opnd(a), self.opnd(b)))
            return self.b.op(f"{'add' if kind is ast.Add else 'mul'}.{t}", t, x, y)
        if kind is ast.Sub:
            return self.b.op(f"sub.{t}", t, self.opnd(a), self.opnd(b))
        q = self.b.op(f"div.rn.{t}", t, self.opnd(a), self.opnd(b))
        if kind is ast.Div:
            return q
        fq = self.b.op(f"cvt.rmi.{t}.{t}", t, q.name)
        if kind is ast.FloorDiv:
            return fq
        nq = self.b.op(f"neg.{t}", t, fq.name)
        return self.b.op(f"fma.rn.{t}", t, nq.name, self.opnd(b), self.opnd(a))

    def power(self, a: Value, b: Value, node: ast.AST) -> Value:
        if isinstance(b, Const) and T.is_int(b.t) and 0 <= b.value <= 64:
            t = T.widen(a.t) if T.is_int(a.t) or a.t == "b1" else a.t
            base, out, n = self.convert(a, t), Const(1, t) if T.is_int(t) else Const(1.0, t), int(b.value)
            while n:
                if n & 1:
                    out = self.imul(out, base, t) if T.is_int(t) else self.float_binop(ast.Mult, out, base, t)
                n >>= 1
                if n:
                    base = self.imul(base, base, t) if T.is_int(t) else self.float_binop(ast.Mult, base, base, t)
            return out
        t = T.truediv(a.t, b.t) if not (T.is_int(a.t) and T.is_int(b.t)) else None
        if t is None:
            raise self.error(node, "integer ** integer needs a constant exponent from 0 to 64",
                             "a loop, or float operands")
        return self.math_call("pow", [self.convert(a, t), self.convert(b, t)], node)

    def e_UnaryOp(self, node: ast.UnaryOp) -> Value:
        if isinstance(node.op, ast.Not):
            return self.pred_not(self.cond(node.operand))
        v = self.value(node.operand)
        t = T.widen(v.t)
        v = self.convert(v, t)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.USub):
            if isinstance(v, Const):
                return Const(wrap(-v.value, t), t)
            if T.is_int(t):
                return self.isub(Const(0, t), v, t)
            return self.b.op(f"neg.{t}", t, v.name if isinstance(v, Reg) else self.opnd(v))
        if T.is_float(t):
            raise self.error(node, "~ needs an integer")
        if isinstance(v, Const):
            return Const(wrap(~v.value, t), t)
        return self.b.op(f"not.b{T.bits(t)}", t, self.opnd(v))

    # ------------------------------------------------------------------ comparisons and conditions
    def compare(self, op: str, a: Value, b: Value, t: str | None = None) -> Const | Reg:
        t = t or (T.promote(a.t, b.t) if a.t != b.t else a.t)
        if t == "b1" and op not in ("eq", "ne"):
            t = "i32"
        a, b = self.convert(a, t), self.convert(b, t)
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(bool(_PYCMP[op](a.value, b.value)), "b1")
        if t == "b1":
            x = self.b.op("xor.pred", "b1", self.reg_of(a).name, self.reg_of(b).name)
            return x if op == "ne" else self.pred_not(x)
        if T.is_float(t) and op == "ne":
            op = "neu"
        if T.is_int(t) and T.bits(t) == 64:
            a, b, t = self.narrowed(a, b, t)
        return self.b.op(f"setp.{op}.{T.ptx(t)}", "b1", self.opnd(a), self.opnd(b))

    def narrowed(self, a: Value, b: Value, t: str) -> tuple:
        """A 64-bit comparison of a register that extends a 32-bit one (:attr:`~.ir.Builder.widened`) with a
        constant its 32-bit type holds, or with another such register of the same type, as that 32-bit
        comparison (LLVM's narrowing: ``threadIdx.x == 0`` is one ISETP, not two)."""
        def source(v: Value) -> Reg | None:
            return self.b.widened.get(v.name) if isinstance(v, Reg) else None
        sa, sb = source(a), source(b)
        if sa is None and sb is None:
            return a, b, t
        small = (sa or sb).t
        lo, hi = (-(1 << 31), 1 << 31) if T.is_signed(small) else (0, 1 << 32)
        if sa is not None and sb is not None:          # both extended the way their 32-bit type says
            return (sa, sb, small) if sa.t == sb.t else (a, b, t)
        c = b if sa is not None else a
        if isinstance(c, Const) and lo <= c.value < hi:
            k = Const(int(c.value), small)
            return (sa, k, small) if sa is not None else (k, sb, small)
        return a, b, t

    def e_Compare(self, node: ast.Compare) -> Const | Reg:
        return self.cond(node)

    def cond(self, node: ast.expr) -> Const | Reg:
        """A predicate (or a compile-time bool) for a condition."""
        if isinstance(node, ast.Compare):
            left = self.value(node.left)
            out = None
            for op, right_node in zip(node.ops, node.comparators):
                if type(op) not in _CMP:
                    raise self.error(node, f"comparison {type(op).__name__} is not supported",
                                     "<, <=, >, >=, ==, !=")
                right = self.value(right_node)
                p = self.compare(_CMP[type(op)], left, right)
                out = p if out is None else self.pred_logic("and", out, p)
                left = right
            return out
        if isinstance(node, ast.BoolOp):
            return self.boolop(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.pred_not(self.cond(node.operand))
        v = self.value(node)
        return self.convert(v, "b1")

    def pred_not(self, p: Const | Reg) -> Const | Reg:
        if isinstance(p, Const):
            return Const(not p.value, "b1")
        return self.b.op("not.pred", "b1", p.name)

    def pred_logic(self, op: str, a: Const | Reg, b: Const | Reg) -> Const | Reg:
        if isinstance(a, Const) or isinstance(b, Const):
            c, o = (a, b) if isinstance(a, Const) else (b, a)
            if op == "and":
                return o if c.value else Const(False, "b1")
            if op == "or":
                return Const(True, "b1") if c.value else o
            return self.pred_not(o) if c.value else o
        x, y = sorted((a.name, b.name))
        return self.b.op(f"{op}.pred", "b1", x, y)

    def boolop(self, node: ast.BoolOp) -> Const | Reg:
        is_and = isinstance(node.op, ast.And)
        if all(_pure(v) for v in node.values[1:]):
            out = None
            for v in node.values:
                p = self.cond(v)
                out = p if out is None else self.pred_logic("and" if is_and else "or", out, p)
            return out
        # short-circuit: later operands run only when needed (they may load memory)
        out = self.b.reg("b1")
        end = self.b.label()
        snap = self.b.vt.snapshot()
        for k, v in enumerate(node.values):
            p = self.cond(v)
            if isinstance(p, Const):
                self.b.emit("setp.ne.s32", [out], ["1" if p.value else "0", "0"])
                if p.value != is_and:
                    break
                continue
            self.b.emit("mov.pred", [out], [p.name])
            if k < len(node.values) - 1:
                self.b.emit("bra", [], [end], guard=(p.name, is_and))
        self.b.place(end)
        self.b.vt.restore(snap)
        return out

    def e_BoolOp(self, node: ast.BoolOp) -> Const | Reg:
        return self.boolop(node)

    def e_IfExp(self, node: ast.IfExp) -> Value:
        c = self.cond(node.test)
        if isinstance(c, Const):
            return self.value(node.body if c.value else node.orelse)
        if _pure(node.body) and _pure(node.orelse):
            a, b = self.value(node.body), self.value(node.orelse)
            t = T.unify(a.t, b.t)
            a, b = self.convert(a, t), self.convert(b, t)
            if t == "b1":
                return self.pred_logic("or", self.pred_logic("and", c, self.reg_of(a)),
                                       self.pred_logic("and", self.pred_not(c), self.reg_of(b)))
            return self.b.op(f"selp.{T.ptx(t)}", t, self.opnd(a), self.opnd(b), c.name)
        # evaluate each arm on its own path (they may load memory), merged like an if/else
        name = f"<ifexp{id(node)}>"
        self.branch(c, lambda: self.assign_var(name, self.value(node.body), node),
                    lambda: self.assign_var(name, self.value(node.orelse), node))
        v = self.scope.env.pop(name)
        return v


def _pure(node) -> bool:
    """No memory access or call with effects: safe to evaluate speculatively."""
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("math", "np",
                                                                                                         "numpy")) \
                    and not (isinstance(f, ast.Name) and f.id in ("min", "max", "abs", "int", "float", "round")):
                return False
    return True
