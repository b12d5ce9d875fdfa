"""Integer, bit-manipulation and logic semantics (warp-wide numpy), plus helpers shared by the ALU modules.

Every semantics function takes the instruction and one numpy array per source operand (already in the
operand types that the family's ``types`` declares) and returns the result(s) in the destination types.
Integer arithmetic wraps like PTX (two's complement); nothing here relies on numpy warnings.

Families registered here (integer-only): ``and or xor not cnot shl shr popc clz brev bfe bfi bfind prmt
lop3 shf dp4a``. The integer halves of mixed families (``add``, ``mul``, ``div`` ...) are plain functions used by
:mod:`isa.ops.alu`.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .. import ptxtypes
from ..opcodes import BIT_TYPES, OpcodeError, OpFamily, register, require
from . import bitkernels as kernels

if TYPE_CHECKING:
    from ..program import Instruction

U64 = np.dtype(np.uint64)
I64 = np.dtype(np.int64)
INT_ARITH = ("u16", "u32", "u64", "s16", "s32", "s64")
WIDE = {"u16": "u32", "u32": "u64", "s16": "s32", "s32": "s64"}
LOGIC_TYPES = ("pred",) + BIT_TYPES

#: Quotient of a signed x/0 (PTX: unspecified; measured: all ones). Unsigned x/0 and every x%0 give all
#: ones too (:func:`int_divrem`); INT_MIN/-1 = INT_MIN and INT_MIN%-1 = 0 by two's complement wrap-around.
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
    """Last PTX type among ``mods``."""
    types = [m for m in mods if ptxtypes.is_type(m)]
    return types[-1] if types else ""


def optype(ins: Instruction) -> str:
    """``ins.type``, cached on the modifier tuple (semantics run once per warp instruction)."""
    return _optype(ins.mods)


def lanewise(fn: Callable[..., Any] | None = None, quiet: bool = True) -> Callable[..., Any]:
    """Decorator for semantics: equal-shape array sources (0-d in, 0-d out); ``quiet`` runs ``fn`` under
    ``np.errstate(all='ignore')`` (needed for float math; integer array ops never warn)."""
    if fn is None:
        return lambda f: lanewise(f, quiet)

    @functools.wraps(fn)
    def wrapper(ins: Instruction, *srcs: Any) -> Any:
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
    """Width in bits of a PTX type."""
    return 8 * ptxtypes.size(ptype)


def uview(x: np.ndarray) -> np.ndarray:
    """The same bits as an unsigned array."""
    return x.view(ptxtypes.BITS[x.dtype.itemsize])


def check_unique(ins: Instruction) -> None:
    """Reject a (non-type) modifier given twice."""
    seen = set()
    for m in ins.mods:
        if m in seen and not ptxtypes.is_type(m):
            raise OpcodeError(f"'{ins.name}': modifier .{m} given twice")
        seen.add(m)


def pick_one(ins: Instruction, group: Sequence[str], required: bool, what: str) -> str | None:
    """The one modifier of ``group`` present (None if absent and not required)."""
    found = [m for m in ins.mods if m in group]
    if len(found) > 1:
        raise OpcodeError(f"'{ins.name}': conflicting {what} modifiers "
                          + ", ".join("." + m for m in found))
    if not found and required:
        raise OpcodeError(f"'{ins.name}' needs a {what} modifier (one of "
                          + ", ".join("." + m for m in group) + ")")
    return found[0] if found else None


def type_error(ins: Instruction, supported: Sequence[str]) -> OpcodeError:
    """OpcodeError naming the unsupported type and the supported ones."""
    t = ins.type or "(none)"
    return OpcodeError(f"'{ins.name}': type .{t} is not supported here (use one of "
                       + ", ".join("." + s for s in supported) + ")")


# ---------------------------------------------------------------- integer arithmetic
def saturate_s32(x64: np.ndarray) -> np.ndarray:
    """Clamp int64 values to the s32 range."""
    return np.clip(x64, -2**31, 2**31 - 1).astype(np.int32)


def int_add(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Wrapping add; .sat (s32) clamps."""
    if "sat" in ins.mods:
        return saturate_s32(a.astype(I64) + b.astype(I64))
    return a + b


def int_sub(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Wrapping subtract; .sat (s32) clamps."""
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


def mul_hi(a: np.ndarray, b: np.ndarray, ptype: str) -> np.ndarray:
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


def mul_wide(a: np.ndarray, b: np.ndarray, ptype: str) -> np.ndarray:
    """Full product in the double-width type."""
    wide = dt(WIDE[ptype])
    return a.astype(wide) * b.astype(wide)


def int_mul(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """mul.lo (wraps), .hi (upper half), .wide (full product)."""
    mods = ins.mods
    if "hi" in mods:
        return mul_hi(a, b, optype(ins))
    if "wide" in mods:
        return mul_wide(a, b, optype(ins))
    return a * b


def int_mad(ins: Instruction, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """mad.lo/.hi/.wide: the mul result plus c (wrapping; .hi.sat.s32 clamps)."""
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


def _divrem_narrow(a, b, zero):
    """Truncating (q, r) for <= 32-bit operands: |a|, |b| < 2^53, so trunc(a / b) in float64 is exact."""
    safe = np.where(zero, 1, b)
    q = np.trunc(a.astype(np.float64) / safe.astype(np.float64)).astype(I64)
    r = a.astype(I64) - q * safe.astype(I64)
    return q.astype(a.dtype), r.astype(a.dtype)      # INT_MIN / -1 = 2^(n-1) wraps to INT_MIN


def _divrem_wide(a, b, zero, unsigned: bool):
    """Truncating (q, r) for 64-bit operands, on magnitudes in unsigned arithmetic."""
    if unsigned:
        safe = np.where(zero, 1, b).astype(b.dtype)
        return a // safe, a % safe
    ua, ub = _abs_unsigned(a), _abs_unsigned(b)
    ub = np.where(zero, 1, ub).astype(ua.dtype)
    uq, ur = ua // ub, ua % ub
    return np.where((a < 0) ^ (b < 0), -uq, uq).view(a.dtype), np.where(a < 0, -ur, ur).view(a.dtype)


def int_divrem(a: np.ndarray, b: np.ndarray, ptype: str) -> tuple[np.ndarray, np.ndarray]:
    """(quotient, remainder) truncating toward zero; x/0 and x%0 give all ones (-1 signed), as measured
    on an H200 (tests/data/ptx_hw_edge.json: ptxas emits this on purpose)."""
    zero = b == 0
    if a.dtype.itemsize <= 4:
        q, r = _divrem_narrow(a, b, zero)
    else:
        q, r = _divrem_wide(a, b, zero, ptype.startswith("u"))
    q0 = np.iinfo(a.dtype).max if ptype.startswith("u") else DIV0_SIGNED
    return np.where(zero, q0, q).astype(a.dtype), np.where(zero, q0, r).astype(a.dtype)


def int_div(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Quotient, truncated toward zero."""
    return int_divrem(a, b, optype(ins))[0]


def int_rem(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Remainder with the sign of the dividend."""
    return int_divrem(a, b, optype(ins))[1]


def int_neg(ins: Instruction, a: np.ndarray) -> np.ndarray:
    """Wrapping negation (-INT_MIN = INT_MIN)."""
    return -a


def int_abs(ins: Instruction, a: np.ndarray) -> np.ndarray:
    """Wrapping absolute value (|INT_MIN| = INT_MIN)."""
    return np.where(a < 0, -a, a).astype(a.dtype)


def int_min(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Minimum; .relu clamps negative results to 0."""
    r = np.minimum(a, b)
    return np.maximum(r, 0).astype(a.dtype) if "relu" in ins.mods else r


def int_max(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Maximum; .relu clamps negative results to 0."""
    r = np.maximum(a, b)
    return np.maximum(r, 0).astype(a.dtype) if "relu" in ins.mods else r


# ---------------------------------------------------------------- logic
@lanewise(quiet=False)
def _logic(ins, *srcs):
    """and/or/xor/not (bitwise; logical on .pred) and cnot (d = a == 0)."""
    op = ins.opcode
    if op == "not":
        return ~srcs[0]
    if op == "cnot":
        return (srcs[0] == 0).astype(srcs[0].dtype)
    fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return fn(srcs[0], srcs[1])


def _check_logic(ins):
    """Bit types and .pred (cnot: bit types only)."""
    types = BIT_TYPES if ins.opcode == "cnot" else LOGIC_TYPES
    require(ins, types)


def _same_types(n: int):
    """types(): destination and ``n`` sources all of the instruction type."""
    def types(ins: Instruction) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Destination and sources of the instruction type."""
        return (ins.type,), (ins.type,) * n
    return types


for _name, _n in (("and", 2), ("or", 2), ("xor", 2), ("not", 1), ("cnot", 1)):
    register(OpFamily(_name, "d, a" + ", b" * (_n - 1), 1, (_n,), _logic, "int", "fixed",
                      types=_same_types(_n), check=_check_logic,
                      doc=f"bitwise {_name} (logical on .pred)" if _name != "cnot" else "d = (a == 0)"))


# ---------------------------------------------------------------- shifts
@lanewise(quiet=False)
def _shift(ins, a, amount):
    """shl/shr by a u32 amount; amounts >= width give 0, or the sign fill for shr.s."""
    n = a.dtype.itemsize * 8
    big = amount >= n
    k = np.minimum(amount, n - 1).astype(a.dtype)
    if ins.opcode == "shl":
        return np.where(big, 0, a << k).astype(a.dtype)
    if a.dtype.kind == "i":
        return a >> k        # arithmetic: amounts >= n leave the sign fill of a >> (n-1)
    return np.where(big, 0, a >> k).astype(a.dtype)


def _check_shift(ins):
    """shl: .b16/.b32/.b64; shr also .u and .s types."""
    check_unique(ins)
    require(ins, BIT_TYPES if ins.opcode == "shl" else BIT_TYPES + ("u16", "u32", "u64", "s16", "s32", "s64"))


for _name in ("shl", "shr"):
    register(OpFamily(_name, "d, a, b", 1, (2,), _shift, "int", "fixed",
                      types=lambda ins: ((ins.type,), (ins.type, "u32")), check=_check_shift,
                      doc="shift by a u32 amount; amounts >= width give 0 (shr.s: sign fill)"))


# ---------------------------------------------------------------- bit counting / reversal
def clz32(x: np.ndarray) -> np.ndarray:
    """Leading zeros of uint32 values (frexp is exact for 32-bit integers)."""
    return (32 - np.frexp(x.astype(np.float64))[1]).astype(np.uint32)


def clz_any(x: np.ndarray) -> np.ndarray:
    """Leading zeros of uint32 or uint64 values."""
    if x.dtype.itemsize == 4:
        return clz32(x)
    hi, lo = (x >> np.uint64(32)).astype(np.uint32), x.astype(np.uint32)
    return np.where(hi != 0, clz32(hi), 32 + clz32(lo)).astype(np.uint32)


_BREV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def brev_any(x: np.ndarray) -> np.ndarray:
    """Bit reversal: reverse each byte's bits through a table, then reverse the byte order."""
    k = x.dtype.itemsize
    b = np.ascontiguousarray(x).view(np.uint8).reshape(-1, k)
    return np.ascontiguousarray(_BREV8[b][:, ::-1]).view(x.dtype).reshape(x.shape)


@lanewise(quiet=False)
def _bitcount(ins, a):
    """popc, clz (both .u32 results) and brev."""
    op = ins.opcode
    if op == "popc":
        return np.bitwise_count(a).astype(np.uint32)
    if op == "clz":
        return clz_any(a)
    return brev_any(a)


def _bitcount_types(ins):
    """popc/clz write .u32; brev keeps the type."""
    return ((ins.type if ins.opcode == "brev" else "u32"),), (ins.type,)


for _name, _doc in (("popc", "population count (d is .u32)"), ("clz", "count leading zeros (d is .u32)"),
                    ("brev", "bit reverse")):
    register(OpFamily(_name, "d, a", 1, (1,), _bitcount, "int", "fixed", types=_bitcount_types,
                      check=lambda ins: require(ins, ("b32", "b64")), doc=_doc))


@lanewise(quiet=False)
def _bfind(ins, a):
    """Bit position of the most significant non-sign bit (.shiftamt: width-1 minus it)."""
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
    """PTX bfe: bits [pos, pos+len) of a, zero- or sign-extended (32-bit: pos, len & 0xff)."""
    n = 8 * a.dtype.itemsize
    out = np.empty(a.shape, ptxtypes.BITS[a.dtype.itemsize])
    kernels.bfe(np.ascontiguousarray(uview(a)), np.ascontiguousarray(b), np.ascontiguousarray(c), n,
                a.dtype.kind == "i", out)
    return out.view(a.dtype)


register(OpFamily("bfe", "d, a, b, c", 1, (3,), _bfe, "int", "fixed",
                  types=lambda ins: ((ins.type,), (ins.type, "u32", "u32")),
                  check=lambda ins: require(ins, ("u32", "u64", "s32", "s64")),
                  doc="bit field extract: start b, length c (both & 0xff), sign/zero extended"))


@lanewise(quiet=False)
def _bfi(ins, a, b, c, d):
    """PTX bfi: the low len bits of a inserted into b at pos (32-bit: pos, len & 0xff)."""
    out = np.empty(a.shape, a.dtype)
    kernels.bfi(*(np.ascontiguousarray(x) for x in (a, b, c, d)), 8 * a.dtype.itemsize, out)
    return out


register(OpFamily("bfi", "f, a, b, c, d", 1, (4,), _bfi, "int", "fixed",
                  types=lambda ins: ((ins.type,), (ins.type, ins.type, "u32", "u32")),
                  check=lambda ins: require(ins, ("b32", "b64")),
                  doc="bit field insert: a's low d bits into b at position c"))


# ---------------------------------------------------------------- byte permute
_PRMT_MODES = kernels.PRMT_MODES


@lanewise(quiet=False)
def _prmt(ins, a, b, c):
    """Byte permute of {b, a} under selector c (generic mode or one of .f4e .b4e .rc8 .ecl .ecr .rc16)."""
    mode = next((k + 1 for k, m in enumerate(_PRMT_MODES) if m in ins.mods), 0)
    out = np.empty(a.shape, np.uint32)
    return kernels.prmt(*(np.ascontiguousarray(x) for x in (a, b, c)), mode, kernels.PRMT_TABLE, out)


def _check_prmt(ins):
    """prmt.b32 with at most one mode."""
    check_unique(ins)
    require(ins, ("b32",), _PRMT_MODES)
    pick_one(ins, _PRMT_MODES, False, "permute mode")


register(OpFamily("prmt", "d, a, b, c", 1, (3,), _prmt, "int", "fixed", types=_same_types(3),
                  check=_check_prmt, doc="byte permute of {b, a} under selector c (all modes)"))


# ---------------------------------------------------------------- four-way byte dot product
def _bytes_of(x: np.ndarray, signed: bool) -> list:
    """The four bytes of 32-bit ``x``, low first, as int64 (sign-extended where ``signed``)."""
    u = x.astype(np.int64) & 0xFFFFFFFF
    out = []
    for k in range(4):
        v = (u >> (8 * k)) & 0xFF
        out.append((v ^ 0x80) - 0x80 if signed else v)
    return out


@lanewise(quiet=False)
def _dp4a(ins, a, b, c):
    """d = c + the sum over the four byte lanes of a's byte times b's, each byte signed or unsigned as its
    operand's type says (numba-cuda makes it of a dot product of int8 quadruples: ``IDP4A`` in SASS)."""
    ta, tb = ins.types
    total = c.astype(np.int64)
    for x, y in zip(_bytes_of(a, ta == "s32"), _bytes_of(b, tb == "s32")):
        total = total + x * y
    return (total & 0xFFFFFFFF).astype(np.uint32).view(_dp4a_result(ins)[0])


def _dp4a_result(ins) -> tuple:
    """The destination and addend type: s32 when either source is signed, else u32."""
    return (np.dtype(np.int32),) if "s32" in ins.types else (np.dtype(np.uint32),)


def _check_dp4a(ins):
    """dp4a.atype.btype with each of u32, s32."""
    check_unique(ins)
    if len(ins.types) != 2 or any(t not in ("u32", "s32") for t in ins.types):
        raise OpcodeError(f"dp4a takes two source types, each .u32 or .s32 (dp4a.s32.s32): got "
                          f"{'.'.join(ins.types) or 'none'}")


register(OpFamily("dp4a", "d, a, b, c", 1, (3,), _dp4a, "int", "fixed",
                  types=lambda ins: (("s32" if "s32" in ins.types else "u32",),
                                     (ins.types[0], ins.types[1], "s32" if "s32" in ins.types else "u32")),
                  check=_check_dp4a, doc="d = c + the four products of a's and b's bytes (signed or unsigned)"))


@lanewise(quiet=False)
def _lop3(ins, a, b, c, lut):
    """Each result bit is immLut[(a << 2) | (b << 1) | c] (sum of the selected minterms)."""
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
    """Funnel shift of the 64-bit {b, a} by c (.wrap: c & 31, .clamp: min(c, 32))."""
    n = np.minimum(c, 32) if ins.has("clamp") else c & np.uint32(31)
    n = n.astype(U64)
    src = (b.astype(U64) << np.uint64(32)) | a.astype(U64)
    if ins.has("l"):
        return ((src << n) >> np.uint64(32)).astype(np.uint32)
    return (src >> n).astype(np.uint32)


def _check_shf(ins):
    """shf.{l,r}.{wrap,clamp}.b32."""
    check_unique(ins)
    require(ins, ("b32",), ("l", "r", "wrap", "clamp"))
    pick_one(ins, ("l", "r"), True, "direction")
    pick_one(ins, ("wrap", "clamp"), True, "shift-amount mode")


register(OpFamily("shf", "d, a, b, c", 1, (3,), _shf, "int", "fixed",
                  types=lambda ins: (("b32",), ("b32", "b32", "u32")), check=_check_shf,
                  doc="funnel shift of {b, a}: .l keeps the high word, .r the low word"))
