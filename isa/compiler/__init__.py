"""The Python-kernel compiler: numba.cuda-style Python source to the ISA.

    kernel, flatten = compile_kernel(saxpy, signature_of(args))
    isa.run(kernel, grid, block, flatten(args))

Life of a compilation: :class:`~.source.Source` reads the function's source and parses it;
:class:`~.lower.Lowerer` walks the AST with the argument types and emits instructions over virtual
registers (constant folding, common subexpressions and redundant loads removed on the way, see
:mod:`.ir`), inlining the device functions it calls (:mod:`.calls`, each in its own
:class:`~.scope.Scope`); when a pass discovers that a variable needs a wider type than assumed, the pass
is repeated with the new types (numba's unification; at most :data:`MAX_PASSES` passes).
:mod:`.optimize` cleans up the code,
:mod:`.emit` prints PTX text with ``.loc`` lines for the Python source, and :func:`isa.parse` turns it
into an :class:`isa.Kernel`. ``registers_per_thread`` of that kernel comes from liveness over the
virtual registers (what a register allocator needs at the busiest point).

Arrays are passed as a data pointer plus their shape (``p_<name>``, ``p_<name>_shape<i>``); ``flatten``
turns launch arguments into that parameter list.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from ..errors import CompileError, KernelError, ParseError
from ..parser import parse
from . import types as T
from .emit import ptx_text
from .lower import Lowerer
from .optimize import optimize
from .source import Source

if TYPE_CHECKING:
    from ..program import Kernel

MAX_PASSES = 8

__all__ = ["compile_kernel", "signature_of", "CompileError"]


def signature_of(args: Sequence[Any]) -> tuple:
    """The type signature of launch arguments (what compiled kernels are cached by)."""
    sig = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            t = T.from_numpy(a.dtype)
            if t is None:
                raise KernelError(f"invalid launch: argument {i} is a {a.dtype} array; supported element types: "
                                  f"bool, int8..int64, uint8..uint64, float32, float64")
            if not a.flags.c_contiguous:
                raise KernelError(f"invalid launch: argument {i} is not C-contiguous; pass "
                                  f"np.ascontiguousarray(a) (and copy results back)")
            sig.append(T.ArrayT(t, max(a.ndim, 1)))
        elif isinstance(a, (bool, np.bool_)):
            sig.append("b1")
        elif isinstance(a, (int, np.integer)) and not isinstance(a, np.integer):
            sig.append("i64")
        elif isinstance(a, float):
            sig.append("f64")
        elif isinstance(a, np.generic) and T.from_numpy(a.dtype) is not None:
            sig.append(T.from_numpy(a.dtype))
        else:
            raise KernelError(f"invalid launch: argument {i} is a {type(a).__name__}; kernels take numpy arrays, "
                              f"Python or numpy numbers")
    return tuple(sig)


def py_function(kernel: Any) -> Callable[..., Any]:
    """The Python function behind an smsim/numba dispatcher or a plain function."""
    fn = getattr(kernel, "py_func", kernel)
    if not callable(fn) or not hasattr(fn, "__code__"):
        raise CompileError(f"{kernel!r} is not a Python function or a cuda.jit kernel")
    if getattr(kernel, "device", False) is True:
        raise CompileError(f"{fn.__name__} is a device function (device=True); launch a kernel that calls it")
    return fn


def compile_kernel(kernel: Any, sig: tuple) -> tuple[Kernel, Callable[[Sequence[Any]], tuple]]:
    """``(isa.Kernel, flatten)`` for ``kernel`` with argument types ``sig``."""
    fn = py_function(kernel)
    src = Source.of(fn)
    fdef = src.fdef
    names = [a.arg for a in fdef.args.args]
    if fdef.args.vararg or fdef.args.kwarg or fdef.args.kwonlyargs:
        raise src.error(fdef, "kernels take positional parameters only")
    if len(names) != len(sig):
        raise KernelError(f"invalid launch: {fn.__name__} takes {len(names)} argument(s) ({', '.join(names)}), "
                          f"got {len(sig)}")
    var_types: dict = {}
    for _ in range(MAX_PASSES):
        files: dict = {}
        lw = Lowerer(fn, src, var_types, files)
        lw.at(fdef)
        lw.lower_kernel(fdef, list(zip(names, sig)))
        if not lw.changed:
            break
        var_types = lw.var_types
    params = []
    for name, t in zip(names, sig):
        if isinstance(t, T.ArrayT):
            params.append((name, "u64"))
            params += [(f"{name}_shape{i}", "s64") for i in range(t.ndim)]
        else:
            params.append((name, T.mem(t)))
    pro, body = optimize(lw.b.prologue, lw.b.body)
    text = ptx_text(fn.__name__, params, lw.shared_vars, files, pro, body)
    try:
        module = parse(text)
    except ParseError as e:
        raise CompileError(f"internal compiler error: the generated ISA does not parse ({e})\n{text}") from None
    compiled = module[fn.__name__]
    compiled.origin = "smsim's compiler's code"
    return compiled, _flattener(sig)


def _flattener(sig):
    def flatten(args: Sequence[Any]) -> tuple:
        out = []
        for a, t in zip(args, sig):
            if isinstance(t, T.ArrayT):
                arr = a if a.ndim else a.reshape(1)
                out.append(arr)
                out += [int(n) for n in arr.shape]
            elif t == "b1":
                out.append(int(bool(a)))
            else:
                out.append(T.np_dtype(t).type(a))
        return tuple(out)
    return flatten
