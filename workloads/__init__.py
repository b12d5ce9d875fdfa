"""smsim's workload library: the kernels of the GPU memory-optimization articles, one module per family,
each with a numpy reference and named cases (:class:`smsim.Case`; the families are listed in
:mod:`workloads.case`).

    import workloads
    case = workloads.get("transpose.tiled_padded")
    setup, result = workloads.run_case(case, size="test")
"""
from .case import FAMILIES, Case, PtxKernel, Setup, all_cases, check, family, get, run_case

__all__ = ["FAMILIES", "Case", "PtxKernel", "Setup", "all_cases", "check", "family", "get", "run_case"]
