"""The built-in workload families and their named cases.

Each family module (``workloads/transpose.py`` ...) defines its kernels, a numpy reference per kernel and
``CASES``, a list of :class:`smsim.Case` (the type lives in :mod:`smsim.case`, since users write cases
too; it is re-exported here with :class:`~smsim.case.Setup`, :func:`~smsim.case.check` and
:func:`~smsim.case.run_case`). :func:`family` loads one family's cases, :func:`get` one case by
``"family.name"``. :class:`PtxKernel` here takes its ``.ptx`` file relative to this package.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass

from smsim.case import Case, Setup, check, run_case
from smsim.case import PtxKernel as _PtxKernel

FAMILIES = ("vector", "coalescing", "transpose", "matmul", "reduction", "stencil", "histogram", "softmax",
            "microbench", "cuda_c", "calib", "streams", "chains", "ordinary",
            "everyday", "plain", "routine", "course", "lessons", "practice", "drills", "exercises", "seminar",
            "tutorial", "workshop", "homework", "bootcamp", "classroom", "primer", "recitation", "quiz", "midterm")


HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class PtxKernel(_PtxKernel):
    """A :class:`smsim.case.PtxKernel` whose ``file`` is relative to the workloads package
    (``"ptx/vector4.ptx"``)."""
    root: str = HERE


def family(name: str) -> list:
    """The cases of one family module."""
    if name not in FAMILIES:
        raise KeyError(f"unknown workload family {name!r}; families: {', '.join(FAMILIES)}")
    return list(importlib.import_module(f"workloads.{name}").CASES)


def all_cases() -> list:
    """Every case of every family."""
    return [c for f in FAMILIES for c in family(f)]


def get(case_id: str) -> Case:
    """A case by ``"family.name"``."""
    fam, _, name = case_id.partition(".")
    for c in family(fam):
        if c.name == name:
            return c
    raise KeyError(f"no case {name!r} in workload family {fam!r}; cases: "
                   f"{', '.join(c.name for c in family(fam))}")


__all__ = ["FAMILIES", "Case", "Setup", "PtxKernel", "check", "run_case", "family", "all_cases", "get"]
