"""Named cases: how a workload kernel is set up, launched and checked.

Each family module (``workloads/transpose.py`` ...) defines its kernels, a numpy reference per kernel and
``CASES``, a list of :class:`Case`. A case's ``build(n, rng)`` makes the inputs for problem size ``n`` (a
case's ``sizes`` name a small ``"test"`` size and a realistic ``"full"`` size) with a seeded generator and
returns a :class:`Setup`: the launch (grid, block, args, dynamic shared bytes) and the expected contents
of the output arrays, computed by the numpy reference. :func:`run_case` launches it and checks the outputs.

Kernels are Python functions decorated with ``smsim.cuda.jit`` (the numba.cuda style), or
:class:`PtxKernel` for kernels written in the ISA's text or compiled by nvcc (a ``.ptx`` file beside the
module).
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

FAMILIES = ("vector", "coalescing", "transpose", "matmul", "reduction", "stencil", "histogram", "softmax",
            "microbench", "cuda_c", "calib")


@dataclass(frozen=True)
class PtxKernel:
    """A kernel in PTX text: ``file`` (beside the workloads package, e.g. ``"ptx/vector4.ptx"``) and the
    kernel's name (or a unique part of it)."""
    file: str
    name: str

    @property
    def path(self) -> str:
        return os.path.join(os.path.dirname(__file__), self.file)

    def load(self):
        """The :class:`isa.Kernel` (parsed once per process)."""
        return _parse(self.path).find(self.name)

    @property
    def __name__(self):
        return self.name


_modules: dict = {}


def _parse(path):
    if path not in _modules:
        import isa
        with open(path) as f:
            _modules[path] = isa.parse(f.read())
    return _modules[path]


@dataclass
class Setup:
    """One launch, ready to run: ``expected`` maps an index into ``args`` to that array's contents after the
    kernel (from the numpy reference), compared with ``rtol``/``atol`` (exactly for integers)."""
    grid: tuple
    block: tuple
    args: tuple
    expected: Mapping[int, np.ndarray]
    shared_bytes: int = 0
    rtol: float = 1e-5
    atol: float = 1e-6


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

    def setup(self, size="test", seed: int = 0) -> Setup:
        """Build the launch at ``size`` (``"test"``, ``"full"`` or an int) with inputs seeded by ``seed``."""
        n = self.sizes[size] if isinstance(size, str) else int(size)
        return self.build(n, np.random.default_rng(seed))


def family(name: str) -> list:
    """The cases of one family module."""
    if name not in FAMILIES:
        raise KeyError(f"unknown workload family {name!r}; families: {', '.join(FAMILIES)}")
    return list(importlib.import_module(f"workloads.{name}").CASES)


def all_cases() -> list:
    return [c for f in FAMILIES for c in family(f)]


def get(case_id: str) -> Case:
    """A case by ``"family.name"``."""
    fam, _, name = case_id.partition(".")
    for c in family(fam):
        if c.name == name:
            return c
    raise KeyError(f"no case {name!r} in workload family {fam!r}; cases: "
                   f"{', '.join(c.name for c in family(fam))}")


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


def run_case(case: Case, size="test", seed: int = 0, launch=None, **options):
    """Set up, launch (``smsim.launch`` functionally unless ``launch`` is given) and check one case.

    Returns ``(setup, result)``."""
    if launch is None:
        import smsim
        launch = smsim.launch
        options.setdefault("timing", False)
    s = case.setup(size, seed)
    kernel = case.kernel.load() if isinstance(case.kernel, PtxKernel) else case.kernel
    res = launch(kernel, s.grid, s.block, s.args, shared_bytes=s.shared_bytes, **options)
    check(s, case.id)
    return s, res
