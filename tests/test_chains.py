"""Dependent chains written in numba (workloads/chains.py): cycles per step against the H200's.

The H200 ran each chain at 512 and 4096 steps under Nsight Compute (docs/hardware/validate_hw.json); the
difference of the two launches' SM cycles over the 3584 extra steps is one step, with the launch, the
warm-up and the fill cancelled. smsim is timed the same way (SASS stream, numba's front end where
installed, as ``smsim validate`` runs them)."""
import pytest

from smsim import validate

CHAINS = ("fma", "shared_chase", "l1_chase", "shared_chase_u32", "l1_chase_u32")
EXTRA_STEPS = 4096 - 512


@pytest.fixture(scope="module")
def hw():
    return validate.load()["runs"]


def _hw_step(runs, case):
    cyc = [runs[size][case]["metrics"]["sm__cycles_elapsed.max"] for size in ("test", "full")]
    return (cyc[1] - cyc[0]) / EXTRA_STEPS


@pytest.mark.parametrize("chain", CHAINS)
def test_a_dependent_step_takes_what_it_takes_on_the_h200(hw, chain):
    case = f"chains.{chain}"
    sim = [validate.predict(case, size, stream="sass") for size in ("test", "full")]
    assert all(r.metrics["smsim.stream_sass"] == 1 for r in sim)
    step = (sim[1].cycles - sim[0].cycles) / EXTRA_STEPS
    want = _hw_step(hw, case)
    assert step == pytest.approx(want, rel=0.10), f"{case}: {step:.1f} cycles per step, H200 {want:.1f}"


def test_the_plain_int_index_costs_what_it_costs_on_the_h200(hw):
    """numba's int64 index (wraparound of negative indices, 64-bit address math) lengthens each step."""
    sim = {}
    for chain in ("shared_chase", "shared_chase_u32", "l1_chase", "l1_chase_u32"):
        r = [validate.predict(f"chains.{chain}", size, stream="sass").cycles for size in ("test", "full")]
        sim[chain] = (r[1] - r[0]) / EXTRA_STEPS
    for kind in ("shared_chase", "l1_chase"):
        extra_hw = _hw_step(hw, f"chains.{kind}") - _hw_step(hw, f"chains.{kind}_u32")
        extra_sim = sim[kind] - sim[f"{kind}_u32"]
        assert extra_hw > 10 and extra_sim == pytest.approx(extra_hw, abs=4), kind
