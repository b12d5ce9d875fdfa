"""Cases: a named launch of one kernel, with its inputs and the outputs it must produce.

Life of a case: a :class:`Case` names a kernel and a ``build(n, rng)`` that makes the inputs for problem
size ``n`` (a case's ``sizes`` name a small ``"test"`` size and a realistic ``"full"`` size, and
:func:`mid_size` derives a ``"mid"`` one between them unless the case names its own) with a seeded
generator and returns a :class:`Setup`: the launch (grid, block, args, dynamic shared bytes) and the
expected contents of the output arrays, computed by a reference (numpy, usually). :func:`run_case`
launches it and :func:`check` compares the outputs. The built-in workloads (:mod:`workloads`) are lists of
cases, and so is a user's file for ``smsim run FILE.py`` (``CASES = [smsim.Case(...), ...]``).

Kernels are Python functions decorated with ``smsim.cuda.jit`` (the numba.cuda style), or
:class:`PtxKernel` for kernels written in the ISA's text or compiled by nvcc (a ``.ptx`` file).
"""
from __future__ import annotations

import math
import os
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np


def mid_size(test: int, full: int) -> int:
    """The ``"mid"`` size of a case whose test and full sizes are given: their geometric mean, rounded up to a
    power of two where both are powers of two (32768 and 16 M elements: 1 M), else to a multiple of the
    largest power of two that divides both (builds that need a multiple of a block keep it)."""
    if test <= 0 or full <= test:
        return full
    mean = (test * full) ** 0.5
    if test & (test - 1) == 0 and full & (full - 1) == 0:
        return 1 << math.ceil(math.log2(mean) - 1e-9)
    step = math.gcd(test, full)
    step &= -step
    return max(step, round(mean / step) * step)


@dataclass(frozen=True)
class PtxKernel:
    """A kernel in PTX text: ``file`` (relative to ``root``, or absolute) and the kernel's name (or a unique
    part of it)."""
    file: str
    name: str
    root: str = ""

    @property
    def path(self) -> str:
        return os.path.join(self.root, self.file)

    def load(self) -> Any:
        """The :class:`isa.Kernel` (the file is parsed once per process)."""
        return _parse(self.path).find(self.name)

    @property
    def __name__(self) -> str:
        return self.name


_modules: dict = {}


def _parse(path: str) -> Any:
    if path not in _modules:
        import isa
        with open(path) as f:
            _modules[path] = isa.parse(f.read())
    return _modules[path]


@dataclass
class Setup:
    """One launch, ready to run: ``expected`` maps an index into ``args`` to that array's contents after the
    kernel (from the reference), compared with ``rtol``/``atol`` (exactly for integers)."""
    grid: tuple
    block: tuple
    args: tuple
    expected: Mapping[int, np.ndarray]
    shared_bytes: int = 0
    rtol: float = 1e-5
    atol: float = 1e-6


class CaseError(ValueError):
    """A case whose ``build`` fails or returns something other than a :class:`Setup` (the command line prints
    the message)."""


def _where(e: BaseException | None, fn: Callable) -> str:
    """`` (at FILE:LINE, in NAME)``: the last line of ``fn``'s file in ``e``'s traceback (``fn``'s own
    definition without one), or ``""`` if ``fn`` has no code."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return ""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if f.filename == code.co_filename] if e is not None else []
    if frames:
        return f" (at {frames[-1].filename}:{frames[-1].lineno}, in {frames[-1].name})"
    return f" ({code.co_name} at {code.co_filename}:{code.co_firstlineno})"


@dataclass(frozen=True)
class Case:
    """A named way to run one kernel: ``family.name`` identifies it (``"transpose.tiled_padded"``)."""
    family: str
    name: str
    kernel: Any
    build: Callable[[int, np.random.Generator], Setup]
    sizes: Mapping[str, int] = field(default_factory=lambda: {"test": 1024, "full": 1 << 22})
    description: str = ""

    @property
    def id(self) -> str:
        return f"{self.family}.{self.name}"

    def n(self, size: str | int) -> int:
        """The problem size ``size`` names: one of :attr:`sizes`, ``"mid"`` (:func:`mid_size` of the test and
        full sizes, unless :attr:`sizes` names it), or an int (or its digits: the sizes of hardware data measured
        at numbers, ``docs/hardware/size_sweep_hw.json``)."""
        if not isinstance(size, str) or size.isdigit():
            return int(size)
        if size == "mid" and "mid" not in self.sizes and "test" in self.sizes and "full" in self.sizes:
            return mid_size(self.sizes["test"], self.sizes["full"])
        if size not in self.sizes:
            raise CaseError(f"case {self.id}: no size {size!r} (it has {', '.join(self.sizes)}"
                            f"{', mid' if 'test' in self.sizes and 'full' in self.sizes else ''}, or give a number)")
        return self.sizes[size]

    def setup(self, size: str | int = "test", seed: int = 0) -> Setup:
        """Build the launch at ``size`` (``"test"``, ``"mid"``, ``"full"`` or an int) with inputs seeded by ``seed``.
        An exception in the case's ``build`` is raised again as a :class:`CaseError` naming the case and the
        line of ``build``'s file it came from (the original is its ``__cause__``)."""
        n = self.n(size)
        try:
            setup = self.build(n, np.random.default_rng(seed))
        except Exception as e:
            raise CaseError(f"case {self.id}: building its launch failed: {type(e).__name__}: {e}"
                            f"{_where(e, self.build)}") from e
        if not isinstance(setup, Setup):
            raise CaseError(f"case {self.id}: its build function returned {type(setup).__name__}, not a Setup"
                            f"{_where(None, self.build)}")
        return setup

    def load_kernel(self) -> Any:
        """The kernel to launch (a :class:`PtxKernel` parsed)."""
        return self.kernel.load() if isinstance(self.kernel, PtxKernel) else self.kernel


def check(setup: Setup, label: str = "") -> None:
    """Compare the output arrays with the reference; AssertionError naming the first mismatch."""
    for k, want in setup.expected.items():
        got = setup.args[k]
        if np.issubdtype(np.asarray(want).dtype, np.floating):
            ok = np.isclose(got, want, rtol=setup.rtol, atol=setup.atol, equal_nan=True)
        else:
            ok = got == want
        if not np.all(ok):
            bad = np.argwhere(~np.asarray(ok))
            idx = tuple(bad[0])
            raise AssertionError(f"{label}: argument {k}: {len(bad)} of {np.size(want)} elements differ; first at "
                                 f"{idx}: got {got[idx]!r}, expected {want[idx]!r}")


def run_case(case: Case, size: str | int = "test", seed: int = 0, launch: Callable | None = None,
             **options: Any) -> tuple:
    """Set up, launch (``smsim.launch`` functionally unless ``launch`` is given) and check one case.

    Returns ``(setup, result)``."""
    if launch is None:
        from .launch import launch as smsim_launch
        launch = smsim_launch
        options.setdefault("timing", False)
    s = case.setup(size, seed)
    res = launch(case.load_kernel(), s.grid, s.block, s.args, shared_bytes=s.shared_bytes, **options)
    check(s, case.id)
    return s, res


__all__ = ["Case", "CaseError", "Setup", "PtxKernel", "check", "run_case"]
