"""The "numba" compiler front end: a Python kernel compiled by numba-cuda's NVVM, run by smsim.

    kernel, flatten = compile_kernel(saxpy, args)          # or smsim.launch(..., compiler="numba")
    isa.run(kernel, grid, block, flatten(args))

Life of a compilation: :func:`compile_kernel` gets the Python function behind the kernel and rebuilds it
for numba (:func:`to_numba`: every global that is ``smsim.cuda`` or a name taken from it becomes numba's,
device functions are converted recursively; source and bytecode are unchanged, so numba compiles exactly
the kernel smsim's own compiler would). :func:`signature_of` types the launch arguments the way numba's
``typeof`` does (arrays with layout ``"C"`` or ``"A"``, Python ``int`` -> int64, ``float`` -> float64).
numba-cuda then compiles it on the CPU (no GPU or driver needed: device functions, which numba would compile
for the current device, are compiled for the same target), with line information so that each instruction
keeps its Python line, the way it does for a launch on an H100/H200: NVVM makes LTO-IR for ``compute_90a``
(with that of the CUDA C++ the kernel calls into, which NVRTC compiles: numba's float16 operators) and
nvJitLink optimizes it at link time (:func:`_lto_ptx`; here it writes the linked PTX rather than a
cubin). That PTX is not the one ``numba.cuda.compile_ptx`` shows: link-time optimization schedules and
unrolls differently, and ptxas makes of it, instruction for instruction, the SASS the H200 ran (all 161
Python workload kernels, ``docs/hardware/numba_code_hw.md``; the plain PTX gave ``plain.stencil3d7`` one
DRAM round trip an iteration where the GPU's code makes two). A launch compiles without line information;
where it would change the code (``softmax.warp_shuffle``), the kernel is compiled without it and its
instructions have no Python lines. Without nvJitLink (or where it fails) the kernel is compiled by
``compile_ptx`` for ``sm_90``, and :attr:`isa.Kernel.origin` says so. The mangled entry name is replaced by
the function's own name throughout the text (the parameters become ``<name>_param_<i>``), :func:`isa.parse`
reads it and the :class:`isa.Kernel` is cached in memory per (function, signature). The PTX is also kept on
disk beside the SASS listings (:func:`_compile_cached`, ``$SMSIM_CACHE/numba``), keyed by a digest of the
kernel's code and of every value it reads (:func:`_fingerprint`), the signature and the tools' versions, so a
kernel numba compiled once, in any process, is not compiled again.

numba's kernel ABI passes an array as ``5 + 2 * ndim`` parameters: meminfo, parent, nitems, itemsize, the
data pointer, the shape and the strides in bytes (all ``.u64``); scalars as their own type (booleans and
int8 as ``.u8``). ``flatten`` (:func:`_flattener`) turns launch arguments into that list: meminfo and
parent are 0, the data pointer is the numpy array itself (the interpreter gives it a device address), the
strides are those of the C-ordered copy the interpreter places in device memory.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import re
import sys
import types
import warnings
from typing import Any, Callable, Iterator, Sequence

import numpy as np

import isa
from isa.errors import CompileError, KernelError, ParseError

INSTALL_HINT = "pip install 'smsim[numba]'"
#: the PTX target numba compiles for (the H100/H200)
CC = (9, 0)

_converted: dict = {}
_compiled: dict = {}


def available() -> bool:
    """True when numba-cuda can be imported (numba's own, older ``numba.cuda`` does not count)."""
    return importlib.util.find_spec("numba_cuda") is not None


def _numba_cuda() -> Any:
    """numba-cuda's ``cuda`` module; ImportError saying how to install it when it is missing."""
    if not available():
        raise ImportError(f'compiler="numba" needs numba-cuda, which is not installed; install it with: '
                          f'{INSTALL_HINT}')
    from numba import cuda as ncuda
    return ncuda


def to_numba(kernel: Any, device: bool | None = None) -> Any:
    """``numba.cuda.jit`` of ``kernel`` (an ``smsim.cuda.jit`` dispatcher or a plain function), with the
    ``smsim.cuda`` names in its globals replaced by numba.cuda's and device functions converted too."""
    ncuda = _numba_cuda()
    import smsim.cuda as scuda
    py = getattr(kernel, "py_func", kernel)
    if device is None:
        device = bool(getattr(kernel, "device", False))
    key = (py, device)
    if key in _converted:
        return _converted[key]
    g = dict(py.__globals__)
    for name in _names(py.__code__):
        if name not in py.__globals__:
            continue
        value = py.__globals__[name]
        if value is scuda:
            g[name] = ncuda
        elif isinstance(value, scuda.Dispatcher):
            g[name] = to_numba(value)
        elif isinstance(value, types.FunctionType) and value.__module__ == "smsim.cuda":
            g[name] = getattr(ncuda, value.__name__)
    fn = types.FunctionType(py.__code__, g, py.__name__, py.__defaults__, py.__closure__)
    fn.__kwdefaults__ = py.__kwdefaults__
    out = _converted[key] = ncuda.jit(device=True)(fn) if device else ncuda.jit(fn)
    return out


def _names(code: types.CodeType) -> set:
    """Global names a function's code (and its nested code objects) refers to."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def signature_of(args: Sequence[Any]) -> tuple:
    """numba's argument types for launch arguments: ``float32[:, ::1]`` for a C-contiguous 2-D float32
    array (layout ``"A"`` if it is not C-contiguous), numpy scalars as their type, Python ``bool``/``int``/
    ``float`` as boolean/int64/float64."""
    _numba_cuda()
    from numba import types as nt
    from numba.np.numpy_support import from_dtype
    sig: list = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            try:
                dtype = from_dtype(a.dtype)
            except Exception:
                raise KernelError(f"invalid launch: argument {i} is a {a.dtype} array, which numba cannot "
                                  f"pass to a kernel") from None
            sig.append(nt.Array(dtype, a.ndim, "C" if a.flags.c_contiguous else "A"))
        elif isinstance(a, (bool, np.bool_)):
            sig.append(nt.boolean)
        elif isinstance(a, int):
            sig.append(nt.int64)
        elif isinstance(a, float):
            sig.append(nt.float64)
        elif isinstance(a, (np.integer, np.floating)):
            sig.append(from_dtype(a.dtype))
        else:
            raise KernelError(f"invalid launch: argument {i} is a {type(a).__name__}; kernels take numpy arrays, "
                              f"Python or numpy numbers")
    return tuple(sig)


def compile_kernel(kernel: Any, args: Sequence[Any]) -> tuple[isa.Kernel, Callable[[Sequence[Any]], tuple]]:
    """``(isa.Kernel, flatten)`` for ``kernel`` called with ``args``, compiled by numba-cuda; cached per
    (Python function, numba signature)."""
    py = getattr(kernel, "py_func", kernel)
    if not callable(py) or not hasattr(py, "__code__"):
        raise CompileError(f"{kernel!r} is not a Python function or a cuda.jit kernel")
    if getattr(kernel, "device", False) is True:
        raise CompileError(f"{py.__name__} is a device function (device=True); launch a kernel that calls it")
    sig = signature_of(args)
    key = (py, sig)
    if key not in _compiled:
        nparams = py.__code__.co_argcount
        if nparams != len(sig):
            raise KernelError(f"invalid launch: {py.__name__} takes {nparams} argument(s), got {len(sig)}")
        ptx, origin = _compile_cached(kernel, sig)
        compiled = _parse(ptx, py.__name__)
        compiled.origin = origin
        _compiled[key] = (compiled, _flattener(sig, compiled))
    return _compiled[key]


def _compile_cached(kernel: Any, sig: tuple) -> tuple[str, str]:
    """:func:`_compile`'s ``(PTX, origin)``, from the disk cache (``$SMSIM_CACHE/numba``, beside the SASS
    listings) when the same kernel was compiled for the same signature by the same tools before: numba-cuda
    takes a third of a second a kernel, most of a small launch's time and of ``smsim validate``'s at the test
    size. The key (:func:`_fingerprint`) is everything the PTX depends on; a kernel it cannot vouch for (a
    global of a kind it does not know) is compiled every time."""
    print_key = _fingerprint(getattr(kernel, "py_func", kernel))
    if print_key is None:
        return _compile(kernel, sig)
    from isa import sass
    key = hashlib.sha256("\n".join([print_key, repr(tuple(str(t) for t in sig)), _tools_key(),
                                    str(sass.available())]).encode())
    path = sass.cache_dir("numba") / f"{key.hexdigest()[:32]}.json"
    try:
        entry = json.loads(path.read_text())
        return entry["ptx"], entry["origin"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    ptx, origin = _compile(kernel, sig)
    sass.store(path, json.dumps({"ptx": ptx, "origin": origin}))
    return ptx, origin


@functools.lru_cache(maxsize=1)
def _tools_key() -> str:
    """What else makes the PTX: this module (the conversion and the link-time path), Python's release (the
    bytecode), the versions of numba, numba-cuda and the CUDA wheels (with whether ptxas is found, which
    decides between the PTX with and without line information, :func:`_same_code`, the key's last part)."""
    from pathlib import Path
    parts = [hashlib.sha256(Path(__file__).read_bytes()).hexdigest(), sys.version, repr(CC)]
    for dist in ("numba", "numba-cuda", "cuda-core", "cuda-bindings", "nvidia-nvjitlink-cu12", "nvidia-nvjitlink",
                 "nvidia-cuda-nvcc-cu12", "nvidia-cuda-nvcc", "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-nvrtc"):
        try:
            parts.append(f"{dist}={importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            parts.append(f"{dist}=-")
    return "\n".join(parts)


#: modules whose functions and values a kernel's PTX depends on only through the versions in :func:`_tools_key`
_LIBRARIES = ("numpy", "numba", "numba_cuda", "math", "cmath", "operator", "builtins", "smsim.cuda", "llvmlite")


def _fingerprint(py: Any) -> str | None:
    """A digest of everything of ``py`` (a kernel's Python function) that its PTX depends on: its code
    (bytecode, constants, names, file and lines, which the PTX's line records carry) and that of the
    functions it calls, recursively; the values of the globals and closure cells it reads (numbers, strings,
    arrays, dtypes, tuples of them, module attributes it names); None where it reads a value of another kind,
    which the key could not vouch for."""
    h = hashlib.sha256()
    return h.hexdigest() if _feed_function(h, py, set()) else None


def _feed_function(h: Any, fn: Any, seen: set) -> bool:
    if id(fn) in seen:
        return True
    seen.add(id(fn))
    code = fn.__code__
    names = _names(code)
    _feed_code(h, code)
    if not _feed_value(h, fn.__defaults__, seen, names):
        return False
    for name in sorted(names):
        h.update(f"global {name}:".encode())
        if name in fn.__globals__ and not _feed_value(h, fn.__globals__[name], seen, names):
            return False
    for cell in fn.__closure__ or ():
        h.update(b"cell:")
        try:
            value = cell.cell_contents
        except ValueError:                    # an empty cell
            continue
        if not _feed_value(h, value, seen, names):
            return False
    return True


def _feed_code(h: Any, code: types.CodeType) -> None:
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_filename,
                   code.co_firstlineno, code.co_argcount)).encode())
    h.update(bytes(getattr(code, "co_linetable", None) or code.co_lnotab))
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _feed_code(h, c)
        else:
            h.update(f"{type(c).__name__}:{c!r};".encode())


def _feed_value(h: Any, v: Any, seen: set, names: set) -> bool:
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes, np.generic)):
        h.update(f"{type(v).__name__}:{v!r};".encode())
        return True
    if isinstance(v, (tuple, list, frozenset)):
        h.update(f"{type(v).__name__}[{len(v)}]".encode())
        return all(_feed_value(h, x, seen, names) for x in (sorted(v, key=repr) if isinstance(v, frozenset) else v))
    if isinstance(v, np.ndarray):
        h.update(f"array {v.dtype.str} {v.shape}:".encode())
        h.update(hashlib.sha256(np.ascontiguousarray(v).tobytes()).digest())
        return True
    if isinstance(v, (np.dtype, type)):
        h.update(f"type {v!r}".encode())
        return True
    if isinstance(v, types.ModuleType):
        h.update(f"module {v.__name__}".encode())
        here = (id(v), frozenset(names))      # the same module read for other names is fed again
        if v.__name__.split(".")[0] in _LIBRARIES or v.__name__ in _LIBRARIES or here in seen:
            return True
        seen.add(here)
        for name in sorted(names):            # what the kernel reads as module.name
            if hasattr(v, name):
                h.update(f"attr {name}:".encode())
                if not _feed_value(h, getattr(v, name), seen, names):
                    return False
        return True
    py = getattr(v, "py_func", None)          # an smsim or numba dispatcher (a device function): its function
    if py is not None and isinstance(py, types.FunctionType):
        h.update(f"dispatcher {type(v).__qualname__} device={getattr(v, 'device', None)!r}".encode())
        return _feed_function(h, py, seen)
    module = getattr(v, "__module__", None) or ""
    if module.split(".")[0] in _LIBRARIES or module in _LIBRARIES or isinstance(v, types.BuiltinFunctionType):
        h.update(f"library {module}.{getattr(v, '__qualname__', type(v).__qualname__)}".encode())
        return True
    if isinstance(v, types.FunctionType):
        h.update(b"function")
        return _feed_function(h, v, seen)
    return False


def compile_ptx(kernel: Any, sig: tuple) -> str:
    """numba's PTX for ``kernel`` with argument types ``sig`` (line information on), entry renamed to the
    Python function's name: link-time optimized as for a launch where nvJitLink is installed (see the
    module docstring). :class:`CompileError` naming the kernel when numba rejects it."""
    return _compile(kernel, sig)[0]


def _compile(kernel: Any, sig: tuple) -> tuple[str, str]:
    """``(PTX, origin)``: :func:`compile_ptx`'s PTX and how it was made."""
    ncuda = _numba_cuda()
    py = getattr(kernel, "py_func", kernel)
    nk = to_numba(kernel, device=False)
    try:
        with _cpu_target(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            linked = _lto_ptx(ncuda, nk.py_func, sig)
            if linked is None:
                ptx, _ = ncuda.compile_ptx(nk.py_func, sig, cc=CC, lineinfo=True)
                origin = "numba-cuda's code, not link-time optimized (no nvJitLink)"
            else:
                ptx = linked[0]
                origin = "numba-cuda's code, link-time optimized as on a GPU" + \
                    ("" if linked[1] else " (no Python lines: they change its code)")
    except Exception as e:   # numba's TypingError, LoweringError, UnsupportedError ...
        if "NVVM" in type(e).__name__ or "libNVVM" in str(e):
            raise ImportError(f"numba-cuda cannot find NVVM ({e}); install it with: {INSTALL_HINT}") from None
        first = str(e).strip().split("\n")
        detail = "\n".join(line for line in first[:12] if line.strip())
        raise CompileError(f"numba cannot compile kernel {py.__name__} for ({', '.join(map(str, sig))}): "
                           f"{type(e).__name__}: {detail}") from None
    m = re.search(r"\.entry\s+([\w$]+)\s*\(", ptx)
    if m is None:
        raise CompileError(f"numba's PTX for {py.__name__} has no .entry")
    return ptx.replace(m.group(1), py.__name__), origin


def _lto_ptx(ncuda: Any, py: Any, sig: tuple) -> tuple[str, bool] | None:
    """``(PTX, lines)`` as numba-cuda makes it for a launch on an sm_90 GPU with nvJitLink: NVVM compiles LTO-IR
    for ``compute_90a`` and nvJitLink optimizes it at link time; here nvJitLink writes the linked PTX. With
    line information (``lines``) unless that changes the code: a launch compiles without it, and in rare
    kernels (``softmax.warp_shuffle``) its debug records change what link-time optimization makes. None where
    linking fails (no nvJitLink: cuda.core's Linker falls back to the driver, which writes no PTX)."""
    def link(lineinfo: bool) -> str:
        # the kernel and the libraries it calls into (numba's float16 operators are CUDA C++, which NVRTC
        # compiles to LTO-IR too), as a launch links them
        codes, _ = ncuda.compile_all(py, sig, device=False, abi="numba", output="ltoir", cc=CC + ("a",),
                                     lineinfo=lineinfo)
        objects = [c if isinstance(c, ObjectCode) else ObjectCode.from_ltoir(bytes(c), name=f"{py.__name__}_{i}")
                   for i, c in enumerate(codes)]
        options = LinkerOptions(arch="sm_90a", link_time_optimization=True, ptx=True, lineinfo=lineinfo)
        code = Linker(*objects, options=options).link("ptx").code
        return (code.decode() if isinstance(code, bytes) else str(code)).strip("\x00").strip()

    try:
        from cuda.core import Linker, LinkerOptions, ObjectCode
        without = link(False)
    except Exception:
        return None
    try:
        with_lines = link(True)
    except Exception:     # NVRTC's float16 library and the kernel disagree on their debug records' version
        return without, False
    return (with_lines, True) if _same_code(with_lines, without) else (without, False)


def _same_code(a: str, b: str) -> bool:
    """Whether two of numba's PTX texts for one kernel (with and without line information) make the same
    machine code: the same instructions (the entry's mangled name, which encodes the options, the numbering
    of shared arrays and the line records aside), else, where ptxas is installed, the same SASS (line
    records also move PTX instructions that ptxas schedules alike)."""
    def code_of(ptx: str) -> list:
        m = re.search(r"\.entry\s+([\w$]+)\s*\(", ptx)
        text = re.sub(r"_cudapy_smem_\d+", "_cudapy_smem", ptx.replace(m.group(1), "K") if m else ptx)
        return [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith((".loc", ".file", "//"))]
    if code_of(a) == code_of(b):
        return True
    from isa import sass
    if not sass.available():
        return True                   # no SASS to tell them apart: PTX timing, which the lines do not change
    try:
        return sass.texts(sass.listing(a)) == sass.texts(sass.listing(b))
    except sass.SassUnavailable:
        return True


@contextlib.contextmanager
def _cpu_target() -> Iterator[None]:
    """numba compiles device functions for the current device, which needs a driver; during our compile
    it gets a stand-in with the compute capability :data:`CC` instead."""
    from numba.cuda import dispatcher

    class _Device:
        compute_capability = CC

    saved = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: _Device()
    try:
        yield
    finally:
        dispatcher.get_current_device = saved


def _parse(ptx: str, name: str) -> isa.Kernel:
    try:
        module = isa.parse(ptx)
    except ParseError as e:
        raise CompileError(f"kernel {name}: numba's PTX is not in smsim's PTX subset: {e}") from None
    return module[name]


def _flattener(sig: tuple, kernel: isa.Kernel) -> Callable[[Sequence[Any]], tuple]:
    """``flatten(args)``: launch arguments -> one value per parameter of numba's ABI (see the module
    docstring). Integers are passed as their bit pattern in the parameter's width."""
    from numba import types as nt
    widths = [p.type for p in kernel.params]
    expected = sum(5 + 2 * t.ndim if isinstance(t, nt.Array) else 1 for t in sig)
    if expected != len(widths):
        raise CompileError(f"kernel {kernel.name}: numba's PTX has {len(widths)} parameters, the ABI of "
                           f"({', '.join(map(str, sig))}) gives {expected}")

    def flatten(args: Sequence[Any]) -> tuple:
        out: list = []
        for a, t in zip(args, sig):
            if isinstance(t, nt.Array):
                strides = np.ascontiguousarray(a).strides if a.ndim else ()
                out += [0, 0, int(a.size), int(a.itemsize), a]
                out += [int(n) for n in a.shape] + [int(s) for s in strides]
            else:
                out.append(_scalar(a, widths[len(out)]))
        return tuple(out)
    return flatten


def _scalar(a: Any, ptype: str) -> Any:
    """A scalar argument for a parameter of PTX type ``ptype``: floats as they are, integers and booleans
    as their two's-complement bit pattern (numba declares int8 ``.u8``)."""
    if ptype.startswith("f"):
        return np.dtype(ptype.replace("f", "float")).type(a)
    bits = int(ptype[1:])
    return int(a) & ((1 << bits) - 1)
