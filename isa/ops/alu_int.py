"""Integer, bit-manipulation and logic semantics (warp-wide numpy), plus helpers shared by the ALU modules.

Every semantics function takes the instruction and one numpy array per source operand (already in the
operand types that the family's ``types`` declares) and returns the result(s) in the destination types.
Integer arithmetic wraps like PTX (two's complement); nothing here relies on numpy warnings.

Families registered here (integer-only): ``and or xor not cnot shl shr popc clz brev bfe bfi bfind prmt
lop3 shf``. The integer halves of mixed families (``add``, ``mul``, ``div`` ...) are plain functions used by
:mod:`isa.ops.alu`.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import ptxtypes
from ..opcodes import BIT_TYPES, OpcodeError, OpFamily, register, require

U64 = np.dtype(np.uint64)
I64 = np.dtype(np.int64)
INT_ARITH = ("u16", "u32", "u64", "s16", "s32", "s64")
WIDE = {"u16": "u32", "u32": "u64", "s16": "s32", "s32": "s64"}
LOGIC_TYPES = ("pred",) + BIT_TYPES

#: Results for division by zero (PTX: unspecified). Unsigned x/0 -> all ones, signed x/0 -> -1, x%0 -> x.
DIV0_SIGNED = -1


# ---------------------------------------------------------------- shared helpers
def _prepare(srcs):
    """Sources as arrays of one shape; all-scalar sources become 1-element arrays (flag returned)."""
    arrs = [s if type(s) is np.ndarray else np.asarray(s) for s in srcs]
    shape = next((a.shape for a in arrs if a.ndim), None)
    if shape is None:
        return [a.reshape(1) for a in arrs], True
    return [a if a.shape == shape else np.full(shape, a, a.dtype) if a.ndim == 0
            else np.broadcast_to(a, shape) for a in arrs], False


@functools.lru_cache(maxsize=4096)
def _optype(mods: tuple) -> str:
    types = [m for m in mods if ptxtypes.is_type(m)]
    return types[-1] if types else ""


def optype(ins) -> str:
    """``ins.type``, cached on the modifier tuple (semantics run once per warp instruction)."""
    return _optype(ins.mods)


def lanewise(fn=None, quiet: bool = True):
    """Decorator for semantics: equal-shape array sources (0-d in, 0-d out); ``quiet`` runs ``fn`` under
    ``np.errstate(all='ignore')`` (needed for float math; integer array ops never warn)."""
    if fn is None:
        return lambda f: lanewise(f, quiet)

    @functools.wraps(fn)
    def wrapper(ins, *srcs):
        arrs, scalar = _prepare(srcs)
        if quiet:
            with np.errstate(all="ignore"):
                out = fn(ins, *arrs)
        else:
            out = fn(ins, *arrs)
        if scalar:
            return tuple(o.reshape(()) for o in out) if isinstance(out, tuple) else out.reshape(())
        return out
    return wrapper


def dt(ptype: str) -> np.dtype:
    """numpy dtype of a PTX type."""
    return ptxtypes.DTYPES[ptype]


def nbits(ptype: str) -> int:
    return 8 * ptxtypes.size(ptype)


def uview(x: np.ndarray) -> np.ndarray:
    """The same bits as an unsigned array."""
    return x.view(ptxtypes.BITS[x.dtype.itemsize])


def low_mask(n: np.ndarray, width: int) -> np.ndarray:
    """uint64 masks of the ``n`` low bits (0 <= n <= width <= 64)."""
    n = n.astype(U64)
    ones = np.uint64((1 << width) - 1)
    part = (np.uint64(1) << np.minimum(n, np.uint64(63))) - np.uint64(1)
    return np.where(n >= width, ones, part)


def check_unique(ins) -> None:
    """Reject a (non-type) modifier given twice."""
    seen = set()
    for m in ins.mods:
        if m in seen and not ptxtypes.is_type(m):
            raise OpcodeError(f"'{ins.name}': modifier .{m} given twice")
        seen.add(m)


def pick_one(ins, group, required: bool, what: str):
    """The one modifier of ``group`` present (None if absent and not required)."""
    found = [m for m in ins.mods if m in group]
    if len(found) > 1:
        raise OpcodeError(f"'{ins.name}': conflicting {what} modifiers "
                          + ", ".join("." + m for m in found))
    if not found and required:
        raise OpcodeError(f"'{ins.name}' needs a {what} modifier (one of "
                          + ", ".join("." + m for m in group) + ")")
    return found[0] if found else None


def type_error(ins, supported) -> OpcodeError:
    t = ins.type or "(none)"
    return OpcodeError(f"'{ins.name}': type .{t} is not supported here (use one of "
                       + ", ".join("." + s for s in supported) + ")")


# ---------------------------------------------------------------- integer arithmetic
def saturate_s32(x64: np.ndarray) -> np.ndarray:
    return np.clip(x64, -2**31, 2**31 - 1).astype(np.int32)


def int_add(ins, a, b):
    if "sat" in ins.mods:
        return saturate_s32(a.astype(I64) + b.astype(I64))
    return a + b


def int_sub(ins, a, b):
    if "sat" in ins.mods:
        return saturate_s32(a.astype(I64) - b.astype(I64))
    return a - b


def _mulhi_u64(a, b):
    """High 64 bits of the 128-bit product of two uint64 arrays (32-bit limbs)."""
    m, s = np.uint64(0xFFFFFFFF), np.uint64(32)
    al, ah, bl, bh = a & m, a >> s, b & m, b >> s
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = (ll >> s) + (lh & m) + (hl & m)
    return hh + (lh >> s) + (hl >> s) + (mid >> s)


def mul_hi(a, b, ptype: str):
    """High half of the double-width product a*b."""
    n = nbits(ptype)
    if n < 64:
        wide = dt(WIDE[ptype])
        return ((a.astype(wide) * b.astype(wide)) >> n).astype(a.dtype)
    ua, ub = uview(a), uview(b)
    hi = _mulhi_u64(ua, ub)
    if ptype.startswith("s"):
        hi = hi - np.where(a < 0, ub, np.uint64(0)) - np.where(b < 0, ua, np.uint64(0))
    return hi.view(a.dtype)


def mul_wide(a, b, ptype: str):
    wide = dt(WIDE[ptype])
    return a.astype(wide) * b.astype(wide)


def int_mul(ins, a, b):
    mods = ins.mods
    if "hi" in mods:
        return mul_hi(a, b, optype(ins))
    if "wide" in mods:
        return mul_wide(a, b, optype(ins))
    return a * b


def int_mad(ins, a, b, c):
    mods = ins.mods
    if "wide" in mods:
        return mul_wide(a, b, optype(ins)) + c
    if "hi" in mods:
        hi = mul_hi(a, b, optype(ins))
        if "sat" in mods:
            return saturate_s32(hi.astype(I64) + c.astype(I64))
        return hi + c
    return a * b + c


def _abs_unsigned(x):
    """|x| as unsigned bits (|INT_MIN| = 2^(n-1) fits)."""
    return uview(np.where(x < 0, -x, x))


def int_divrem(a, b, ptype: str):
    """(quotient, remainder) truncating toward zero; x/0 and x%0 follow the DIV0 choices."""
    zero = b == 0
    if ptype.startswith("u"):
        safe = np.where(zero, 1, b).astype(b.dtype)
        q = np.where(zero, np.iinfo(a.dtype).max, a // safe).astype(a.dtype)
        return q, np.where(zero, a, a % safe).astype(a.dtype)
    ua, ub = _abs_unsigned(a), _abs_unsigned(b)
    ub = np.where(zero, 1, ub).astype(ua.dtype)
    uq, ur = ua // ub, ua % ub
    q = np.where((a < 0) ^ (b < 0), -uq, uq).view(a.dtype)
    r = np.where(a < 0, -ur, ur).view(a.dtype)
    return np.where(zero, DIV0_SIGNED, q).astype(a.dtype), np.where(zero, a, r).astype(a.dtype)


def int_div(ins, a, b):
    return int_divrem(a, b, optype(ins))[0]


def int_rem(ins, a, b):
    return int_divrem(a, b, optype(ins))[1]


def int_neg(ins, a):
    return -a


def int_abs(ins, a):
    return np.where(a < 0, -a, a).astype(a.dtype)


def int_min(ins, a, b):
    r = np.minimum(a, b)
    return np.maximum(r, 0).astype(a.dtype) if "relu" in ins.mods else r


def int_max(ins, a, b):
    r = np.maximum(a, b)
    return np.maximum(r, 0).astype(a.dtype) if "relu" in ins.mods else r


# ---------------------------------------------------------------- logic
@lanewise(quiet=False)
def _logic(ins, *srcs):
    op = ins.opcode
    if op == "not":
        return ~srcs[0]
    if op == "cnot":
        return (srcs[0] == 0).astype(srcs[0].dtype)
    fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return fn(srcs[0], srcs[1])


def _check_logic(ins):
    types = BIT_TYPES if ins.opcode == "cnot" else LOGIC_TYPES
    require(ins, types)


def _same_types(n: int):
    def types(ins):
        return (ins.type,), (ins.type,) * n
    return types


for _name, _n in (("and", 2), ("or", 2), ("xor", 2), ("not", 1), ("cnot", 1)):
    register(OpFamily(_name, "d, a" + ", b" * (_n - 1), 1, (_n,), _logic, "int", "fixed",
                      types=_same_types(_n), check=_check_logic,
                      doc=f"bitwise {_name} (logical on .pred)" if _name != "cnot" else "d = (a == 0)"))


# ---------------------------------------------------------------- shifts
@lanewise(quiet=False)
def _shift(ins, a, amount):
    n = a.dtype.itemsize * 8
    big = amount >= n
    k = np.minimum(amount, n - 1).astype(a.dtype)
    if ins.opcode == "shl":
        return np.where(big, 0, a << k).astype(a.dtype)
    if a.dtype.kind == "i":
        return a >> k        # arithmetic: amounts >= n leave the sign fill of a >> (n-1)
    return np.where(big, 0, a >> k).astype(a.dtype)


def _check_shift(ins):
    check_unique(ins)
    require(ins, BIT_TYPES if ins.opcode == "shl" else BIT_TYPES + ("u16", "u32", "u64", "s16", "s32", "s64"))


for _name in ("shl", "shr"):
    register(OpFamily(_name, "d, a, b", 1, (2,), _shift, "int", "fixed",
                      types=lambda ins: ((ins.type,), (ins.type, "u32")), check=_check_shift,
                      doc="shift by a u32 amount; amounts >= width give 0 (shr.s: sign fill)"))


# ---------------------------------------------------------------- bit counting / reversal
def clz32(x):
    """Leading zeros of uint32 values (frexp is exact for 32-bit integers)."""
    return (32 - np.frexp(x.astype(np.float64))[1]).astype(np.uint32)


def clz_any(x):
    if x.dtype.itemsize == 4:
        return clz32(x)
    hi, lo = (x >> np.uint64(32)).astype(np.uint32), x.astype(np.uint32)
    return np.where(hi != 0, clz32(hi), 32 + clz32(lo)).astype(np.uint32)


_BREV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def brev_any(x):
    """Bit reversal: reverse each byte's bits through a table, then reverse the byte order."""
    k = x.dtype.itemsize
    b = np.ascontiguousarray(x).view(np.uint8).reshape(-1, k)
    return np.ascontiguousarray(_BREV8[b][:, ::-1]).view(x.dtype).reshape(x.shape)


@lanewise(quiet=False)
def _bitcount(ins, a):
    op = ins.opcode
    if op == "popc":
        return np.bitwise_count(a).astype(np.uint32)
    if op == "clz":
        return clz_any(a)
    return brev_any(a)


def _bitcount_types(ins):
    return ((ins.type if ins.opcode == "brev" else "u32"),), (ins.type,)


for _name, _doc in (("popc", "population count (d is .u32)"), ("clz", "count leading zeros (d is .u32)"),
                    ("brev", "bit reverse")):
    register(OpFamily(_name, "d, a", 1, (1,), _bitcount, "int", "fixed", types=_bitcount_types,
                      check=lambda ins: require(ins, ("b32", "b64")), doc=_doc))


@lanewise(quiet=False)
def _bfind(ins, a):
    n = a.dtype.itemsize * 8
    x = uview(np.where(a < 0, ~a, a)) if ins.type.startswith("s") else a
    pos = (n - 1) - clz_any(x).astype(np.int64)
    if ins.has("shiftamt"):
        pos = (n - 1) - pos
    return np.where(x == 0, 0xFFFFFFFF, pos).astype(np.uint32)


register(OpFamily("bfind", "d, a", 1, (1,), _bfind, "int", "fixed",
                  types=lambda ins: (("u32",), (ins.type,)),
                  check=lambda ins: require(ins, ("u32", "u64", "s32", "s64"), ("shiftamt",)),
                  doc="position of the most significant non-sign bit (0xffffffff if none)"))


# ---------------------------------------------------------------- bit fields
@lanewise(quiet=False)
def _bfe(ins, a, b, c):
    n = a.dtype.itemsize * 8
    pos, length = (b & 0xFF).astype(U64), (c & 0xFF).astype(U64)
    ua = uview(a).astype(U64)
    inside = pos < n
    keep = np.where(inside, np.minimum(length, n - np.minimum(pos, n)), 0)
    field = (ua >> np.minimum(pos, np.uint64(n - 1))) & low_mask(keep, 64)
    field = np.where(inside, field, np.uint64(0))
    if ins.type.startswith("s"):
        top = np.minimum(pos + length - np.uint64(1), np.uint64(n - 1))
        sbit = (length > 0) & (((ua >> top) & np.uint64(1)) == 1)
        field = np.where(sbit, field | ~low_mask(keep, 64), field)
    return field.astype(uview(a).dtype).view(a.dtype)


register(OpFamily("bfe", "d, a, b, c", 1, (3,), _bfe, "int", "fixed",
                  types=lambda ins: ((ins.type,), (ins.type, "u32", "u32")),
                  check=lambda ins: require(ins, ("u32", "u64", "s32", "s64")),
                  doc="bit field extract: start b, length c (both & 0xff), sign/zero extended"))


@lanewise(quiet=False)
def _bfi(ins, a, b, c, d):
    n = a.dtype.itemsize * 8
    pos, length = (c & 0xFF).astype(U64), (d & 0xFF).astype(U64)
    inside = pos < n
    p = np.minimum(pos, np.uint64(n - 1))
    keep = np.where(inside, np.minimum(length, n - p), 0)
    mask = np.where(inside, low_mask(keep, 64) << p, np.uint64(0))
    out = (b.astype(U64) & ~mask) | ((a.astype(U64) << p) & mask)
    return out.astype(a.dtype)


register(OpFamily("bfi", "f, a, b, c, d", 1, (4,), _bfi, "int", "fixed",
                  types=lambda ins: ((ins.type,), (ins.type, ins.type, "u32", "u32")),
                  check=lambda ins: require(ins, ("b32", "b64")),
                  doc="bit field insert: a's low d bits into b at position c"))


# ---------------------------------------------------------------- byte permute
_PRMT_MODES = ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")
_PRMT_FORMULA = {"f4e": lambda s, i: s + i, "b4e": lambda s, i: (8 + s - i) & 7, "rc8": lambda s, i: s,
                 "ecl": max, "ecr": min, "rc16": lambda s, i: (i & 1) + ((s & 1) << 1)}
#: mode -> (4 selectors x 4 destination bytes) table of source byte indices
_PRMT_INDEX = {m: np.array([[f(s, i) for i in range(4)] for s in range(4)], dtype=np.intp)
               for m, f in _PRMT_FORMULA.items()}
_NIBBLE_SHIFTS = np.array([0, 4, 8, 12], dtype=np.uint32)


@lanewise(quiet=False)
def _prmt(ins, a, b, c):
    """Gather bytes of {b, a} (byte k of the 64-bit value is source byte k) per destination byte."""
    mode = next((m for m in ins.mods if m in _PRMT_MODES), None)
    src = ((b.astype("<u8") << np.uint64(32)) | a.astype("<u8")).view(np.uint8).reshape(-1, 8)
    if mode is None:
        sel = (c.reshape(-1, 1) >> _NIBBLE_SHIFTS) & np.uint32(0xF)
        out = np.take_along_axis(src, (sel & np.uint32(7)).astype(np.intp), axis=1)
        fill = np.where(out >= 0x80, np.uint8(0xFF), np.uint8(0))
        out = np.where(sel >= 8, fill, out)
    else:
        out = np.take_along_axis(src, _PRMT_INDEX[mode][(c & np.uint32(3)).reshape(-1)], axis=1)
    return np.ascontiguousarray(out, dtype=np.uint8).view("<u4").reshape(a.shape).astype(np.uint32)


def _check_prmt(ins):
    check_unique(ins)
    require(ins, ("b32",), _PRMT_MODES)
    pick_one(ins, _PRMT_MODES, False, "permute mode")


register(OpFamily("prmt", "d, a, b, c", 1, (3,), _prmt, "int", "fixed", types=_same_types(3),
                  check=_check_prmt, doc="byte permute of {b, a} under selector c (all modes)"))


@lanewise(quiet=False)
def _lop3(ins, a, b, c, lut):
    out = np.zeros(a.shape, dtype=a.dtype)
    for i in range(8):
        term = (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
        out |= np.where((lut >> np.uint32(i)) & np.uint32(1), term, 0).astype(a.dtype)
    return out


register(OpFamily("lop3", "d, a, b, c, immLut", 1, (4,), _lop3, "int", "fixed",
                  types=lambda ins: (("b32",), ("b32", "b32", "b32", "b32")),
                  check=lambda ins: require(ins, ("b32",)),
                  doc="arbitrary 3-input logic function given by the 8-bit truth table immLut"))


@lanewise(quiet=False)
def _shf(ins, a, b, c):
    n = np.minimum(c, 32) if ins.has("clamp") else c & np.uint32(31)
    n = n.astype(U64)
    src = (b.astype(U64) << np.uint64(32)) | a.astype(U64)
    if ins.has("l"):
        return ((src << n) >> np.uint64(32)).astype(np.uint32)
    return (src >> n).astype(np.uint32)


def _check_shf(ins):
    check_unique(ins)
    require(ins, ("b32",), ("l", "r", "wrap", "clamp"))
    pick_one(ins, ("l", "r"), True, "direction")
    pick_one(ins, ("wrap", "clamp"), True, "shift-amount mode")


register(OpFamily("shf", "d, a, b, c", 1, (3,), _shf, "int", "fixed",
                  types=lambda ins: (("b32",), ("b32", "b32", "u32")), check=_check_shf,
                  doc="funnel shift of {b, a}: .l keeps the high word, .r the low word"))
