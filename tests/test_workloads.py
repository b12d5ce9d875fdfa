"""The workload library: every case runs at its test size and matches its numpy reference, and the case
machinery (ids, sizes, seeding, lookup, the families the project promises) holds together.

``test_case_runs`` launches each case of :func:`workloads.all_cases` with :func:`workloads.run_case` (the
functional interpreter) at the ``"test"`` size and seed 0; ``run_case`` compares the outputs with the
reference. PTX cases (family ``cuda_c``, and ``PtxKernel`` cases of other families) run on the interpreter
today; Python-kernel cases need the compiler (``isa.compiler``). Families are loaded one by one, so a
missing or broken family module fails its own test instead of the whole module's collection.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import workloads
from isa import interp
from workloads import FAMILIES, PtxKernel

# The families the project's issue asks for, and the least number of nvcc-compiled cases.
REQUIRED_FAMILIES = ("vector", "coalescing", "transpose", "matmul", "reduction", "stencil", "histogram",
                     "softmax", "microbench", "cuda_c")
MIN_CUDA_C_CASES = 4
SEED = 0
# A test-size case should run in well under a second on the interpreter (~1M warp-instructions/s).
MAX_TEST_WARP_INSTRUCTIONS = 1_000_000


def _load_families():
    cases, errors = {}, {}
    for fam in FAMILIES:
        try:
            cases[fam] = workloads.family(fam)
        except Exception as e:        # noqa: BLE001 - reported by test_family_loads
            errors[fam] = e
    return cases, errors


FAMILY_CASES, FAMILY_ERRORS = _load_families()
CASES = [c for fam in FAMILIES for c in FAMILY_CASES.get(fam, [])]


def _same(x, y) -> bool:
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype
                and x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    return type(x) is type(y) and (x == y or (x != x and y != y))


def _same_setup(s, t) -> bool:
    return (tuple(s.grid) == tuple(t.grid) and tuple(s.block) == tuple(t.block)
            and s.shared_bytes == t.shared_bytes and len(s.args) == len(t.args)
            and all(_same(a, b) for a, b in zip(s.args, t.args))
            and s.expected.keys() == t.expected.keys()
            and all(_same(np.asarray(s.expected[k]), np.asarray(t.expected[k])) for k in s.expected))


class _RecordingRng:
    """A numpy Generator that notes whether the build drew anything from it."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)
        self.used = False

    def __getattr__(self, name):
        self.used = True
        return getattr(self._rng, name)


# ---------------------------------------------------------------------------------------- every case
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_runs(case):
    setup, result = workloads.run_case(case, "test", seed=SEED)
    assert result.warp_instructions > 0
    assert result.warp_instructions <= MAX_TEST_WARP_INSTRUCTIONS, (
        f"{case.id}: test size runs {result.warp_instructions} warp-instructions; keep test sizes small")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_setup_is_well_formed(case):
    s = case.setup("test", SEED)
    # the launch's own checks (1-3 dimensions, each from 1 to its limit: KernelError otherwise), without
    # running the kernel
    interp._dims(s.grid, "grid", interp.MAX_GRID_DIMS)
    block = interp._dims(s.block, "block", interp.MAX_BLOCK_DIMS)
    assert int(np.prod(block)) <= interp.MAX_THREADS_PER_BLOCK, f"{case.id}: block {s.block} is too large"
    assert s.shared_bytes >= 0
    assert s.expected, f"{case.id}: no expected outputs"
    for k, want in s.expected.items():
        assert 0 <= k < len(s.args), f"{case.id}: expected index {k} is not an argument"
        got = s.args[k]
        assert isinstance(got, np.ndarray), f"{case.id}: argument {k} is checked but is not an array"
        want = np.asarray(want)
        assert want.shape == got.shape, f"{case.id}: argument {k}: expected shape {want.shape} vs {got.shape}"
        assert want.dtype == got.dtype, f"{case.id}: argument {k}: expected dtype {want.dtype} vs {got.dtype}"
        # a kernel that writes nothing must not pass
        assert not _same(want, got), f"{case.id}: argument {k} already holds the expected result before launch"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sizes(case):
    assert "test" in case.sizes and "full" in case.sizes, f"{case.id}: sizes {dict(case.sizes)}"
    assert case.sizes["test"] < case.sizes["full"]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_setup_deterministic_per_seed(case):
    assert _same_setup(case.setup("test", 0), case.setup("test", 0)), f"{case.id}: seed 0 gives different setups"
    assert _same_setup(case.setup("test", 7), case.setup("test", 7))
    rng = _RecordingRng(1)
    s1 = case.build(case.sizes["test"], rng)
    if rng.used:   # random inputs: another seed draws other inputs
        s0 = case.setup("test", 0)
        assert not all(_same(a, b) for a, b in zip(s0.args, s1.args)), f"{case.id}: seeds 0 and 1 give equal inputs"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_kernel_kind(case):
    k = case.kernel
    if isinstance(k, PtxKernel):
        assert os.path.exists(k.path), k.path
        assert k.load().name.find(k.name) >= 0
    else:
        assert callable(getattr(k, "py_func", None)), f"{case.id}: kernel is neither a PtxKernel nor @cuda.jit"
        assert not getattr(k, "device", False), f"{case.id}: kernel is a device function"


# ---------------------------------------------------------------------------------------- machinery
def test_ids_unique():
    ids = [c.id for c in CASES]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, dupes


@pytest.mark.parametrize("fam", FAMILIES)
def test_family_loads(fam):
    if fam in FAMILY_ERRORS:
        e = FAMILY_ERRORS[fam]
        pytest.fail(f"workloads.{fam} does not load: {type(e).__name__}: {e}")
    cases = FAMILY_CASES[fam]
    assert cases, f"workload family {fam} has no cases"
    assert all(c.family == fam for c in cases), [c.id for c in cases if c.family != fam]


def test_required_families():
    assert set(REQUIRED_FAMILIES) <= set(FAMILIES), sorted(set(REQUIRED_FAMILIES) - set(FAMILIES))
    missing = [f for f in REQUIRED_FAMILIES if not FAMILY_CASES.get(f)]
    assert not missing, f"families without cases: {missing}"


def test_cuda_c_cases():
    cases = FAMILY_CASES.get("cuda_c", [])
    assert len(cases) >= MIN_CUDA_C_CASES, [c.id for c in cases]
    assert all(isinstance(c.kernel, PtxKernel) for c in cases)


def test_all_cases_matches_families():
    assert not FAMILY_ERRORS, f"families that do not load: {sorted(FAMILY_ERRORS)}"
    assert [c.id for c in workloads.all_cases()] == [c.id for c in CASES]


def test_get_by_id():
    assert CASES, "no workload cases at all"
    for c in CASES:
        assert workloads.get(c.id) is c


def test_get_unknown_case():
    fam = next(f for f in FAMILIES if f in FAMILY_CASES)
    with pytest.raises(KeyError, match=r"no case 'no_such_case' in workload family"):
        workloads.get(f"{fam}.no_such_case")


def test_get_unknown_family():
    with pytest.raises(KeyError, match=r"unknown workload family 'nofamily'"):
        workloads.get("nofamily.vec_add")
    with pytest.raises(KeyError, match="unknown workload family"):
        workloads.get("no_dot_at_all")


def test_check_reports_mismatch():
    case = workloads.get("cuda_c.vec_add_grid_stride")
    s = case.setup("test", SEED)
    with pytest.raises(AssertionError, match="cuda_c.vec_add_grid_stride: argument 2"):
        workloads.check(s, case.id)       # outputs still zero: not launched


def test_setup_size_int():
    case = workloads.get("cuda_c.vec_add_grid_stride")
    assert case.setup(300).args[3] == 300
    assert len(case.setup("test").args[0]) == case.sizes["test"]


def test_the_mid_size_lies_between_a_cases_test_and_full_sizes():
    from smsim.case import CaseError, mid_size
    assert mid_size(1 << 15, 1 << 24) == 1 << 20          # the geometric mean 2^19.5, rounded up
    assert mid_size(64, 4096) == 512
    assert mid_size(10000, 1 << 24) % 16 == 0 and 400000 < mid_size(10000, 1 << 24) < 420000
    assert mid_size(5, 5) == 5
    case = workloads.get("cuda_c.vec_add_grid_stride")     # test 10000, full 16 M
    n = case.n("mid")
    assert case.sizes["test"] < n < case.sizes["full"] and case.setup("mid").args[3] == n
    with pytest.raises(CaseError, match="no size 'huge'.*test, full, mid"):
        case.n("huge")
    # a size given as its digits (the sizes of docs/hardware/size_sweep_hw.json, read by smsim validate --data)
    assert case.n("65536") == case.n(65536) == 65536 and case.setup("65536").args[3] == 65536
    with pytest.raises(CaseError, match="no size '-5'"):
        case.n("-5")
