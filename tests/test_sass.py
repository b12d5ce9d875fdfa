"""SASS from ptxas: valid PTX out, the listing parsed, SASS attributed to PTX, and the SASS stream timed.

These need ptxas and nvdisasm (the ``smsim[sass]`` extra, installed by the test set-up); they are skipped
only where the tools are missing.
"""
import pathlib
from collections import defaultdict

import numpy as np
import pytest

import smsim
import workloads
from isa import sass
from isa.interp import Launch
from isa.printer import ptxas_text
from isa.trace import trace_blocks
from smsim import cuda
from smsim import numba_front
from smsim.config import load
from smsim.launch import _compiled
from workloads.microbench import ffma_chain

needs_tools = pytest.mark.skipif(not sass.available(), reason="ptxas/nvdisasm not installed (smsim[sass])")


@cuda.jit
def vadd(c, a, b):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def row_sum(out, a, n):
    i = cuda.grid(1)
    acc = np.float32(0)
    for k in range(n):
        acc += a[i, k]
    out[i] = acc


def _kernel(case_id: str):
    c = workloads.get(case_id)
    s = c.setup("test", 0)
    k = c.load_kernel()
    return (k if hasattr(k, "body") else smsim.compile(k, s.args)), c, s


def test_control_codes_decode_as_volta_and_later_lay_them_out():
    # bits 105..125 of the instruction: stall 4 bits, yield, write SB, read SB, wait mask 6 bits, reuse 4
    hi = (0b0011 | 1 << 4 | 2 << 5 | 7 << 8 | 0b000101 << 11 | 0b0001 << 17) << 41
    c = sass.Control.of(hi)
    assert (c.stall, c.yield_, c.write_sb, c.read_sb, c.wait_mask, c.reuse) == (3, False, 2, 7, 0b101, 1)
    assert sass.Control.of(0x000fe20000000800).stall == 1       # LDC R1, c[0x0][0x28] as ptxas writes it


@needs_tools
@pytest.mark.parametrize("case_id", [c.id for c in workloads.all_cases() if c.id.split(".")[1] in
                                     ("naive", "tiled_padded", "copy", "saxpy", "warp_shuffle",
                                      "shared_atomics", "sobel_shared", "hist256_shared", "block_naive")])
def test_every_printed_kernel_assembles_and_each_sass_instruction_names_its_ptx(case_id):
    k, _, _ = _kernel(case_id)
    listing = sass.parse(sass.listing(ptxas_text(k, index_lines=True)), k.name)
    main = [s for s in listing if not s.outlined]
    assert main and main[-1].base in ("EXIT", "BRA", "RET")
    assert all(s.ptx is not None and 0 <= s.ptx < len(k.body) for s in main)
    loads = [s for s in main if s.base in ("LDG", "LDS")]
    assert all(k.body[s.ptx].opcode in ("ld", "atom") for s in loads)


@needs_tools
def test_the_listing_is_cached_on_disk_per_ptx_text(tmp_path, monkeypatch):
    monkeypatch.setenv("SMSIM_CACHE", str(tmp_path))
    text = ptxas_text(smsim.compile(vadd, (np.zeros(4, np.float32),) * 3), index_lines=True)
    first = sass.listing(text)
    assert len(list((tmp_path / "sass").glob("*.sass"))) == 1

    def no_tools(*a, **kw):
        raise AssertionError("ptxas ran again")
    monkeypatch.setattr(sass.subprocess, "run", no_tools)
    assert sass.listing(text) == first


@needs_tools
def test_a_ptxas_error_is_a_clear_sass_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("SMSIM_CACHE", str(tmp_path))
    with pytest.raises(sass.SassUnavailable, match="ptxas failed"):
        sass.listing(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n")


def test_without_the_tools_auto_times_ptx_and_sass_says_what_to_install(monkeypatch):
    monkeypatch.setattr(sass, "tools", lambda: None)
    a = np.ones(64, np.float32)
    r = smsim.launch(vadd, 1, 64, (np.zeros(64, np.float32), a, a), config="h200",
                     overrides={"scheduler.stream": "auto"})
    assert r.metrics["smsim.stream_sass"] == 0.0
    with pytest.raises(sass.SassUnavailable, match=r"smsim\[sass\]"):
        smsim.launch(vadd, 1, 64, (np.zeros(64, np.float32), a, a), config="h200",
                     overrides={"scheduler.stream": "sass"})


def test_a_bad_stream_name_is_a_config_error():
    with pytest.raises(smsim.config.ConfigError, match="scheduler.stream"):
        smsim.config.load("h200", {"scheduler.stream": "sassy"})


@pytest.mark.parametrize("banks, message", [(40, "at most 32"), (-1, ">= 0"), (1.5, "integer")])
def test_a_bad_register_bank_count_is_a_config_error(banks, message):
    with pytest.raises(smsim.config.ConfigError, match=f"scheduler.register_banks.*{message}"):
        smsim.config.load("h200", {"scheduler.register_banks": banks})


def _taken(rp, items, where) -> list:
    """The trace positions whose memory accesses a warp's SASS stream (``items``, ``where``) makes, sorted."""
    return sorted(q for i, q in zip(items, where) if q >= 0 and (rp.sass[i].base in sass.MEMORY_OPS if i < rp.nsass
                                                                 else not rp.lookup[i - rp.nsass]))


@needs_tools
def test_replay_takes_every_memory_execution_once_and_issues_ptxas_order():
    k, c, s = _kernel("transpose.copy_shared")
    comp, flat = _compiled(c.kernel, s.args)
    rp = sass.Replay(comp, sass.of(comp))
    warp = trace_blocks(Launch(comp, s.grid, s.block, flat(s.args), s.shared_bytes), [0])[0].warps[0]
    items, where = rp.stream(warp.pcs)
    assert _taken(rp, items, where) == [p for p, pc in enumerate(warp.pcs) if rp.is_mem[pc]]   # each access once
    kinds = [rp.sass[i].base for i in items if i < rp.nsass and rp.sass[i].base in ("LDG", "STS", "BAR")]
    # ptxas unrolled the 4-trip loops and hoisted the four loads above the shared stores: all in flight
    assert kinds[:4] == ["LDG"] * 4 and kinds[4:8] == ["STS"] * 4 and kinds[8] == "BAR"


@needs_tools
@pytest.mark.parametrize("compiler", ["smsim", pytest.param("numba", marks=pytest.mark.skipif(
    not numba_front.available(), reason="numba-cuda is not installed"))])
def test_code_ptxas_sank_past_a_join_runs_with_the_store_and_barrier_it_feeds(compiler):
    """``v = 0; if in bounds: v = img[y, x]; s[t] = v; syncthreads()``: ptxas puts the shared store, the barrier
    and index arithmetic it sank from the kernel's set-up in one SASS block after the ``if``'s join. That block
    runs where the store's PTX block does, after the load (taking the earliest PTX block its code came from
    issued the store and the barrier before the load: the store never waited for it, ``practice.tile_sum_2d``
    0.82 of the H200), and the load it holds makes the access the warp made in the ``if``, once."""
    c = workloads.get("practice.tile_sum_2d")
    s = c.setup("test", 0)
    comp, flat = _compiled(c.kernel, s.args, compiler)
    rp = sass.Replay(comp, sass.of(comp))
    warp = trace_blocks(Launch(comp, s.grid, s.block, flat(s.args), s.shared_bytes), [0])[0].warps[0]
    items, where = rp.stream(warp.pcs)
    assert _taken(rp, items, where) == [p for p, pc in enumerate(warp.pcs) if rp.is_mem[pc]]   # each access once
    kinds = [rp.sass[i].base for i in items if i < rp.nsass and rp.sass[i].base in ("LDG", "STS", "BAR")]
    assert kinds[:3] == ["LDG", "STS", "BAR"]
    r = smsim.launch(c.load_kernel(), s.grid, s.block, s.args, config="h200", complete=False, compiler=compiler,
                     overrides={"scheduler.stream": "sass"})
    first_sts = next(x for x in r.instructions if x["text"].startswith("STS"))
    assert first_sts["stalls"].get("long_scoreboard", 0) > 0     # the store waits for the load


@needs_tools
def test_an_exit_ptxas_made_of_a_loops_back_branch_ends_the_warp_where_the_loop_does():
    """smsim's compiler ends ``for i in range(m.shape[0])`` with a back branch that falls through to ``ret``, and
    ptxas makes an ``@!P0 EXIT`` of it: the warp exits where the branch is not taken. Read as a forward branch to
    the end is (exit where taken), it ended every warp after the loop's first pass (``practice.col_cumsum``: 0.05
    of the H200's instructions, 0.13 of its time)."""
    c = workloads.get("practice.col_cumsum")
    s = c.setup("test", 0)
    comp, flat = _compiled(c.kernel, s.args, "smsim")
    rp = sass.Replay(comp, sass.of(comp))
    assert rp.exit_on_fall
    warp = trace_blocks(Launch(comp, s.grid, s.block, flat(s.args), s.shared_bytes), [0])[0].warps[0]
    items, where = rp.stream(warp.pcs)
    loads = [p for p, pc in enumerate(warp.pcs) if rp.is_mem[pc] and comp.body[pc].opcode == "ld"]
    assert len(loads) == s.args[0].shape[0]                  # a load a row
    assert sum(1 for i in items if i < rp.nsass and rp.sass[i].base == "LDG") == len(loads)
    assert _taken(rp, items, where) == [p for p, pc in enumerate(warp.pcs) if rp.is_mem[pc]]


@needs_tools
@pytest.mark.parametrize("n", [64, 65, 66, 67, 3, 1])
def test_an_unrolled_loop_issues_its_unrolled_body_once_per_k_iterations(n):
    a, out = np.ones((32, n), np.float32), np.zeros(32, np.float32)
    comp, flatten = _compiled(row_sum, (out, a, n), "smsim")
    mp = sass.of(comp)
    ks = [k for blocks in mp.at_start.values() for _, k in blocks]
    assert max(ks) == 4                                  # ptxas unrolls the loop by 4
    run = Launch(comp, 1, 32, flatten((out, a, n)), 0)
    warp = trace_blocks(run, [0])[0].warps[0]
    items, _ = sass.Replay(comp, mp).stream(warp.pcs)
    ldg = sum(1 for i in items if i < len(mp.listing) and mp.listing[i].base == "LDG")
    # passes over the 4 unrolled copies while more than 3 iterations are left, then the remainders ptxas
    # unrolled after the loop (2, then 1 iteration) that the iterations left cover: one load per iteration
    # (issuing both remainders in every loop, as before, made n + 3)
    assert sorted({k for blocks in mp.at_start.values() for _, k in blocks if k < 0}) == [-2, -1]
    assert ldg == n


def test_a_remainder_loop_runs_the_iterations_the_unrolled_loop_and_straight_remainders_leave():
    """``_plan`` for a PTX loop ptxas made into a loop of 4 copies, a straight copy of 2 and a loop of 1 (index
    2, ``looping``): the loop of 4 runs while 4 iterations are left, the copy of 2 where 2 are, the loop of 1
    every iteration still left; without the loop of 1, the straight remainders hold what is left."""
    blocks = [((0,), 4), ((1,), -2), ((2,), -1)]
    assert sass._plan(blocks, 6, frozenset({2})) == (4, {1: (4,)})
    assert sass._plan(blocks, 3, frozenset({2})) == (0, {1: (0,), 2: (2,)})
    assert sass._plan(blocks, 1, frozenset({2})) == (0, {2: (0,)})
    assert sass._plan(blocks, 8, frozenset({2})) == (8, {})
    straight = [((0,), 4), ((1,), -2), ((2,), -1)]            # 2 then 1 of straight code, no loop
    assert sass._plan(straight, 7) == (4, {1: (4,), 2: (6,)})
    assert sass._plan(straight, 3) == (0, {1: (0,), 2: (2,)})


def test_the_loop_counters_step_tells_the_copies_of_a_body_without_anchors():
    """``_step_copies``: a SASS block's increment of the PTX loop counter (``add.s64 %rd, %rd, 4``) by 0x10 holds
    four copies of the body; a block without the increment says nothing."""
    from isa.program import Imm, Instruction, Reg
    body = [Instruction("add", ("s64",), (Reg("%rd1"), Reg("%rd1"), Imm(4, "4")))]
    steps = sass._steps(body)
    assert steps == {0: 4}

    class X:
        def __init__(self, text, ptx):
            self.base, self.operands = text.split(" ", 1)
            self.base, self.ptx = self.base.split(".")[0], ptx
    listing = [X("IADD3 R5, P1, R5, 0x10, RZ", 0), X("IADD3 R5, P0, R5, 0x4, RZ", 0), X("LOP3.LUT R1, R2", None)]
    assert sass._step_copies(listing, [0], steps) == 4
    assert sass._step_copies(listing, [1], steps) == 1
    assert sass._step_copies(listing, [2], steps) == 0


@needs_tools
@pytest.mark.parametrize("case_id,hw", [("vector.saxpy", 3216), ("transpose.tiled_padded", 6208),
                                        ("coalescing.copy_stride8", 4864), ("matmul.tiled32", 41856)])
def test_sass_instruction_counts_are_near_the_h200s(case_id, hw):
    # hw: smsp__inst_executed.sum of the same numba kernel on an H200 (docs/hardware/validate_hw.json, test size)
    c = workloads.get(case_id)
    s = c.setup("test", 0)
    r = smsim.launch(c.load_kernel(), s.grid, s.block, s.args, shared_bytes=s.shared_bytes, config="h200",
                     blocks="all", complete=False, compiler="numba", overrides={"scheduler.stream": "sass"})
    assert r.metrics["smsim.stream_sass"] == 1.0
    assert r.metrics["smsp__inst_executed.sum"] == pytest.approx(hw, rel=0.15)


@needs_tools
@pytest.mark.parametrize("case_id,hw", [("streams.empty_128waves", 337925), ("stencil.stencil_1d", 11328),
                                        ("streams.empty_1wave", 2645), ("ordinary.blur3x3", 233676),
                                        ("plain.ratio_div", 73728), ("course.rowmax_block", 22640),
                                        ("drills.bitrev_scatter", 186368), ("seminar.reduce_seq512", 52384)])
def test_whole_grid_sass_counts_within_3_percent_of_the_h200s(case_id, hw):
    """A predicated EXIT ptxas made of ``if`` ends the warps that took the branch (the empty kernel: 5 SASS
    instructions a warp, not 6); the halo loads of the 1-D stencil, which ptxas stamped with a branch's line,
    run only in the warps whose threads load the halo (11120, not 14406); the calls of the slow paths ptxas
    puts inside a float32 division or square root are not taken (``ratio_div``: 72 a warp, not 83); a loop
    NVVM unrolled 4 times and ptxas 4 times more, with its remainder unrolled into straight code of 2 and 1
    of NVVM's iterations, runs only the code the trip count needs (``rowmax_block``'s 3 iterations: the
    remainders, not the loop as well: 35368, 1.56x, when every version ran); a loop whose body has no
    anchor to count its copies by, which ptxas made into a loop of 4 of NVVM's 4-way passes, a straight copy of
    2 and a loop of 1 (``bitrev_scatter``'s 15 iterations: 3 passes and 3 of the remainder loop NVVM kept),
    copies told by the loop counter's step (``+0x10``, ``+0x8``, ``+0x4``): the copy of 2 and the loop of 1
    once (230400, 1.24x, when the loop of 1 ran every pass and the loop of 4 never); the ``BSYNC`` the branch
    around each step of a block reduction lands on runs in the warps that skip the step too (``reduce_seq512``:
    48256, 0.92x, when only the warps that ran the step issued it)."""
    c = workloads.get(case_id)
    s = c.setup("test", 0)
    r = smsim.launch(c.load_kernel(), s.grid, s.block, s.args, shared_bytes=s.shared_bytes, config="h200",
                     blocks="all", complete=False, compiler="numba", overrides={"scheduler.stream": "sass"})
    assert r.metrics["smsp__inst_executed.sum"] == pytest.approx(hw, rel=0.03)


@needs_tools
def test_code_ptxas_sank_into_a_loop_runs_with_the_loop():
    """numba's 3-D stencil recomputes in its z loop values its set-up block derived from the parameters
    (uniform-datapath shifts and selects of the shape, stamped with that block's line): the loop's SASS
    block then votes for the set-up block too, and taking the earliest made it run once per warp, not once
    per iteration (18322 instructions for the grid against the H200's 86182)."""
    c = workloads.get("plain.stencil3d7")
    s = c.setup("test", 0)
    r = smsim.launch(c.load_kernel(), s.grid, s.block, s.args, config="h200", blocks="all", complete=False,
                     compiler="numba", overrides={"scheduler.stream": "sass"})
    assert r.metrics["smsp__inst_executed.sum"] == pytest.approx(86182, rel=0.10)


@needs_tools
def test_a_reduction_holds_its_warp_only_until_it_leaves_but_the_kernel_until_l2_performs_it():
    """numba's atomic.add with its result unused becomes REDG: the warps exit without waiting for L2
    (the H200's top stall for this histogram is long_scoreboard, not drain), but same-bin reductions still
    serialize at L2 and the kernel ends when the last is performed."""
    from smsim import validate
    runs = validate.load()["runs"]["test"]
    res = {}
    for case in ("streams.hist_bins1", "streams.hist_bins16"):
        r = validate.predict(case, "test", stream="sass")
        stalls = r.stalls_per_instruction()
        assert stalls.get("drain", 0.0) < 0.1 * stalls["long_scoreboard"]
        res[case] = r.metrics["gpu__time_duration.sum"] / runs[case]["metrics"]["gpu__time_duration.sum"]
    assert res["streams.hist_bins1"] == pytest.approx(1.0, abs=0.12)     # 1 bin: all on one address
    assert res["streams.hist_bins16"] == pytest.approx(1.0, abs=0.12)


def test_only_parameter_and_const_operands_wait_for_the_constant_cache():
    from smsim.sass_stream import _reads_parameters
    assert _reads_parameters("R2, c[0x0][0x210]") and _reads_parameters("R4, R4, c[0x0][0x3a8], RZ")
    assert _reads_parameters("R0, c[0x3][0x10]")                    # .const data: another bank
    assert not _reads_parameters("R1, c[0x0][0x28]")                # the driver's words: warm from the launch
    assert not _reads_parameters("UR4, c[0x0][0x0]") and not _reads_parameters("UR4, c[0x0][0x208]")
    assert not _reads_parameters("R2, R3, R4")


@needs_tools
def test_an_empty_kernels_warps_wait_for_code_not_for_constants():
    """On the H200 the empty kernels' warps (which, but for block 0's first, read only the driver's words of
    bank 0) wait for code (no_instruction on top, imc_miss not among the first three); the launch-only copy,
    whose every warp reads its parameters, does wait for them."""
    from smsim import validate
    empty = validate.predict("streams.empty_1wave", "test", stream="sass").stalls_per_instruction()
    assert validate.top_stall(empty) == "no_instruction" and empty["imc_miss"] < empty["no_instruction"] / 2
    copy = validate.predict("streams.launch_1wave", "test", stream="sass").stalls_per_instruction()
    assert copy["imc_miss"] > 0


@needs_tools
def test_neighbouring_shared_loads_ptxas_merged_are_one_wide_access():
    # numba unrolls matmul.tiled32_bt's k loop into ld.shared.f32 at +0, +4, +8, +12; ptxas makes one LDS.128
    # of each four: one instruction and, for the transposed tile's column, 32 wavefronts for four words
    c = workloads.get("matmul.tiled32_bt")
    s = c.setup("test", 0)
    r = smsim.launch(c.load_kernel(), s.grid, s.block, s.args, shared_bytes=s.shared_bytes, config="h200",
                     blocks="all", complete=False, compiler="numba", overrides={"scheduler.stream": "sass"})
    lds = [row for row in r.instructions if row["executed"] and row["text"].startswith("LDS")]
    assert lds and all(row["text"].startswith("LDS.128") for row in lds)
    assert r.metrics["smsp__inst_executed.sum"] == pytest.approx(35968, rel=0.05)     # the H200's count


@needs_tools
@pytest.mark.parametrize("pattern,waves", [(0, 4), (1, 2), (5, 2)])
def test_a_wide_load_ptxas_named_after_its_upper_half_starts_at_the_lower(pattern, waves):
    # NVVM loads s[j, 1] at [r+8] before s[j, 0] at [r]; ptxas joins them into one LDS.128 named after the
    # first: one 16-byte access from [r] (benchmarks/shared_wide_kernels.py; the H200's wavefronts a load,
    # docs/hardware/shared_wide_hw.json: lanes on 32 pairs 4, on two 2, on four a quarter apart 2)
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
    from shared_wide_kernels import lds128
    r = smsim.launch(lds128, 1, 256, (np.zeros(256), pattern, 16), config="h200", complete=False,
                     compiler="numba", overrides={"scheduler.stream": "sass"})
    m = r.metrics
    assert m["smsp__sass_inst_executed_op_shared_ld.sum"] == 8 * 16                 # one a repetition a warp
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 8 * 16 * waves


@needs_tools
def test_dependent_fma_chain_takes_ptxas_stall_counts():
    out = np.zeros(1, np.float32)
    r = [smsim.launch(ffma_chain, 1, 1, (out, np.float32(1.0), it), config="h200",
                      overrides={"scheduler.stream": "sass"}).cycles for it in (64, 128)]
    per_fma = (r[1] - r[0]) / 64 / 8
    assert per_fma == pytest.approx(4.5, rel=0.10)       # [hw] ffma_dep: 4.5 cycles per dependent FMA


@needs_tools
def test_per_instruction_rows_show_sass_text_and_python_lines():
    a = np.ones(256, np.float32)
    r = smsim.launch(vadd, 1, 256, (np.zeros(256, np.float32), a, a), config="h200",
                     overrides={"scheduler.stream": "sass"})
    executed = [row for row in r.instructions if row["executed"]]
    assert any(row["text"].startswith("LDG") for row in executed)
    assert any(row["text"].startswith("FADD") for row in executed)
    line = vadd.py_func.__code__.co_firstlineno + 4                 # c[i] = a[i] + b[i]
    assert {row["line"] for row in executed if row["text"].startswith("LDG")} == {line}


@needs_tools
def test_asm_sass_prints_each_ptx_instructions_sass_under_it(capsys):
    from smsim.cli import main
    assert main(["asm", "vector.vec_add", "--sass"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    ld = next(i for i, line in enumerate(lines) if "ld.global.f32" in line)
    assert "LDG.E" in lines[ld + 1]                         # the SASS load right under the PTX load
    assert "// vector.py:" in out                           # and the Python line above them
    assert sum("LDG" in line for line in lines) == 2


def _launched_sass() -> dict:
    import json
    from pathlib import Path
    data = json.loads((Path(__file__).parents[1] / "docs/hardware/numba_code_hw.json").read_text())
    return {cid: row["launched_sass"] for cid, row in data["cases"].items() if row.get("launched_sass")}


@needs_tools
@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed")
def test_numba_kernels_assemble_to_the_sass_the_h200_ran():
    """numba-cuda's code, link-time optimized as a launch does (smsim.numba_front) and assembled by the
    smsim[sass] ptxas, is the SASS the H200 loaded, instruction for instruction, for every Python workload
    kernel (benchmarks/numba_code_hw.py --all on the device: nvdisasm of each launch's cubin); one of them
    without its Python lines, whose debug records would change its code."""
    launched = _launched_sass()
    assert len(launched) >= 160
    differ, lineless = set(), set()
    for cid, hw in launched.items():
        c = workloads.get(cid)
        k = _compiled(c.kernel, c.setup("test", 0).args, "numba")[0]
        assert k.origin.startswith("numba-cuda's code, link-time optimized"), (cid, k.origin)
        if "no Python lines" in k.origin:
            lineless.add(cid)
        mine = sass.texts(sass.listing(ptxas_text(k, index_lines=True)), k.name)
        if mine != [sass.unnamed(t) for t in hw]:     # the GPU's texts, as recorded
            differ.add(cid)
    assert not differ
    assert lineless == {"softmax.warp_shuffle"}     # the others keep their Python lines


@needs_tools
def test_a_branch_holds_its_warp_past_its_control_code_as_branch_resolving():
    # chains.fma at the test size: one thread, 131 BRA executed (the loop's back edges and the guard); the
    # H200 counts branch_resolving on top of wait (benchmarks/branch_fit.py: 3.46 cycles a branch)
    case = workloads.case.get("chains.fma")
    s = case.setup("test", 0)
    runs = {r: smsim.launch(case.load_kernel(), s.grid, s.block, s.args, config="h200", complete=False,
                            overrides={"scheduler.branch_resolve_cycles": r}) for r in (0.0, 3.46, 10.0)}
    bra = sum(row["executed"] for row in runs[0.0].instructions if "BRA" in row["text"].split(".")[0])
    assert bra == 131
    for r, res in runs.items():
        assert res.stalls.get("branch_resolving", 0.0) == pytest.approx(bra * r)
        assert res.stalls["wait"] == runs[0.0].stalls["wait"]          # the control code's stall stays wait
    # one warp: the holds are on its path, all but a few (1280 of 1310 cycles: where the next instruction
    # waits for a result anyway)
    assert 0.95 * bra * 10.0 <= runs[10.0].cycles - runs[0.0].cycles <= bra * 10.0
    assert load("h200").scheduler.branch_resolve_cycles == 3.46


@needs_tools
def test_a_popc_increment_is_one_shared_operation_however_many_lanes_name_the_address():
    # plain.count_above: every lane above the threshold adds 1 to one shared counter; ptxas makes it
    # ATOMS.POPC.INC, which adds the active lanes' count once (the PTX names the address in every lane)
    case = workloads.case.get("plain.count_above")
    s = case.setup("test", 0)
    res = smsim.launch(case.load_kernel(), s.grid, s.block, s.args, config="h200", complete=False)
    rows = [r for r in res.instructions if r["text"].startswith("ATOMS.POPC")]
    assert len(rows) == 1 and rows[0]["executed"] > 0
    assert rows[0]["wavefronts"] == rows[0]["executed"]


@needs_tools
def test_a_local_array_ptxas_kept_in_registers_issues_no_local_accesses():
    """routine.sort4_local sorts 4 values in a ``cuda.local.array`` indexed by the sort's run-time position:
    the PTX loads and stores local memory, but ptxas keeps the array in registers (predicated moves, no
    LDL/STL). The H200 issued 25088 instructions at the test size and no local traffic; issuing the PTX's
    26 local accesses a warp where no SASS stands for them made 30976 and slow stores' drain."""
    k, c, s = _kernel("routine.sort4_local")
    assert any(ins.opcode in ("ld", "st") and "local" in ins.mods for ins in k.body)
    rp = sass.Replay(k, sass.of(k))
    assert not any(x.base in ("LDL", "STL") for x in rp.sass) and rp.in_registers
    r = smsim.launch(c.load_kernel(), s.grid, s.block, s.args, config="h200", blocks="all", complete=False,
                     compiler="numba", overrides={"scheduler.stream": "sass"})
    assert r.metrics["smsp__inst_executed.sum"] == pytest.approx(25088, rel=0.05)
    assert r.metrics["l1tex__t_requests_pipe_lsu_mem_local.sum"] == 0


def _pipe_mix(names: tuple) -> dict:
    """benchmarks/pipe_mix_hw.py's loops ``names``: per loop, (smsim's cycles per warp-instruction per
    sub-partition, the H200's) from docs/hardware/pipe_mix_hw.json (h200, SASS stream, 8 blocks an SM)."""
    import json
    import pathlib
    import isa
    data = json.loads((pathlib.Path(__file__).resolve().parent.parent / "docs" / "hardware" /
                       "pipe_mix_hw.json").read_text())
    mod = isa.parse(data["ptx"])
    hw = {r["name"]: r["cycles_per_inst"] for r in data["rows"]}
    out = {}
    for name in names:
        buf = np.zeros(data["blocks"] * data["threads"], np.uint32)
        r = smsim.launch(mod[f"mix_{name}"], data["blocks"], data["threads"], (buf, 48), config="h200", blocks=8,
                         complete=False, overrides={"scheduler.stream": "sass"})
        out[name] = (r.cycles * 4 / r.issued_instructions, hw[name])
    return out


@needs_tools
def test_integer_multiply_adds_issue_at_half_the_fp32_rate_as_on_the_h200():
    """benchmarks/pipe_mix_hw.py's loops of 32 independent operations, 64 warps an SM: an IMAD takes its pipe
    2 cycles a sub-partition (an IMAD.HI or IMAD.WIDE 4), beside the ALU and the FP32 instructions; smsim had
    IMAD on its FP32 pipe, one a cycle (``imad`` 0.57 of the H200's cycles per instruction)."""
    got = _pipe_mix(("lop3", "imad", "imad_hi", "imad_wide", "ffma", "imad__lop3", "imad__iadd"))
    for name, (sim, hw) in got.items():
        assert sim == pytest.approx(hw, rel=0.10), name


@needs_tools
def test_64_bit_index_arithmetic_issues_at_the_alus_rate_as_on_the_h200():
    """pipe_mix_hw.py's second call: the 64-bit forms of index arithmetic (``SHF.R.S64``, ``LEA.HI.X``, the
    ``IADD3``/``IMAD.X`` carry pair, ``ISETP .EX`` with ``SEL``) issue at their pipes' rates on the H200
    (ALU 2 cycles, the carry's ``IMAD.X`` on the FMA pipe beside it); smsim within 10% of each."""
    for name, (sim, hw) in _pipe_mix(("add64", "shr64", "lea64", "sel64", "isetp__imad")).items():
        assert sim == pytest.approx(hw, rel=0.10), name


@needs_tools
def test_dependent_chains_issue_as_fast_as_independent_ones_as_on_the_h200():
    """pipe_mix_hw.py's third call: at 64 warps an SM, one chain of dependent operations issues as fast as
    eight, through one pipe or alternating the ALU with the FMA pipe (an IMAD's or an FFMA's result read by a
    LOP3 one instruction later): smsim within 10% of the H200 on each."""
    for name, (sim, hw) in _pipe_mix(("dep1_lop3", "dep1_imad", "dep1_lop3__imad", "dep1_ffma__lop3")).items():
        assert sim == pytest.approx(hw, rel=0.10), name


@needs_tools
def test_a_64_bit_product_holds_its_sub_partitions_dispatch_as_on_the_h200():
    """pipe_mix_hw.py's third and fourth calls: an IMAD.HI among other instructions takes 1.0-1.6 cycles more
    than the pipes' rates whatever reads it (LOP3, SHF) and however far after, with ``dispatch_stall`` the
    H200's largest stall; an IMAD.WIDE less. smsim holds the sub-partition's dispatch 4 cycles an IMAD.HI and
    3 an IMAD.WIDE (``scheduler.hi_dispatch_cycles``, ``.wide_dispatch_cycles``): the IMAD.HI loops within
    10% of the H200 (0.69-0.85 with one issue slot), the IMAD.WIDE ones within 15% (0.84 and 0.97)."""
    hi = ("dep1_imad_hi__lop3", "dep2_imad_hi__lop3", "dep8_imad_hi__lop3", "dep2_imad_hi__shf",
          "dep2_imad_hi__lop3__lop3__lop3", "imad_hi")
    for name, (sim, hw) in _pipe_mix(hi).items():
        assert sim == pytest.approx(hw, rel=0.10), name
    for name, (sim, hw) in _pipe_mix(("imad_wide", "dep8_imadw")).items():
        assert sim == pytest.approx(hw, rel=0.15), name


def test_a_dispatch_hold_keeps_the_other_warps_waiting_as_dispatch_stall():
    """A sub-partition held by an instruction issues nothing else until the hold ends; the warps that could
    have issued meanwhile count the wait as ``dispatch_stall``."""
    from smsim.scheduler import SubPartition
    from smsim.warp import DISPATCH

    class _W:                                  # a warp's blocked state, as Warp.block_on keeps it
        def __init__(self, until=0.0, reason=None):
            self.blocked_until, self.blocked_reason = until, reason

    sub = SubPartition.__new__(SubPartition)
    issuer, other, later = _W(), _W(), _W(20.0, "lg_throttle")
    sub.warps = [issuer, other, later]
    sub.hold(issuer, 10.0, 4)
    assert (other.blocked_until, other.blocked_reason) == (14.0, DISPATCH)
    assert (issuer.blocked_until, issuer.blocked_reason) == (0.0, None)
    assert (later.blocked_until, later.blocked_reason) == (20.0, "lg_throttle")   # a longer wait is kept


def _ins(text: str) -> "sass.SassIns":
    op, _, rest = text.partition(" ")
    return sass.SassIns(0, None, op, rest, None, sass.Control.of(0))


@pytest.mark.parametrize("text, reads", [
    ("FFMA R8, R8, R4.reuse, R5", (2, 1)),           # the chain of fp64_rate_hw: R8 and R4 in bank 0
    ("FADD R5, R5, UR6", (0, 1)),                    # a uniform register reads no bank
    ("DFMA R8, R8, UR6, R4", (2, 2)),                # float64 operands are register pairs
    ("DFMA R8, R8, R8, R8", (1, 1)),                 # a register named twice is read once
    ("IMAD.WIDE R2, R3, 0x4, R4", (1, 2)),           # the addend of a 64-bit product is a pair
    ("IMAD.MOV.U32 R4, RZ, RZ, R16", (1, 0)),        # RZ reads nothing; the destination is not read
    ("ISETP.GT.U32.AND P0, PT, R7, RZ, PT", (0, 1)),
    ("F2F.F32.F64 R0, R2", (1, 1)),                  # a conversion from float64 reads a pair
    ("FSETP.GT.AND P0, PT, |R0|, c[0x0][0x210], PT", (1, 0)),
    ("LDG.E R2, desc[UR4][R2.64]", ()),              # memory instructions are not counted
    ("BRA `(.L_x_3)", ()),
])
def test_register_reads_count_source_registers_per_bank(text, reads):
    assert sass.register_reads(_ins(text)) == reads


def test_an_instruction_waits_for_the_register_bank_another_holds_as_dispatch_stall():
    """A bank held past its issue cycle (two source registers from it) keeps any warp's next instruction that
    reads the bank from issuing until it is free (``dispatch_stall``; an FP64 instruction's wait counts as
    ``math_pipe_throttle``, as the H200 shows it); one reading only the other bank issues."""
    from smsim.scheduler import SubPartition
    from smsim.warp import DISPATCH, R

    class _Info:
        mem = None

        def __init__(self, unit, rf):
            self.unit, self.rf = unit, rf

    class _W:                                          # the state select reads and sets (Warp.block_on's)
        def __init__(self, info):
            self.info, self.ready_at = info, 0.0
            self.blocked_until, self.blocked_reason, self.pipe_mark = 0.0, None, None

        @property
        def blocked(self):
            return self.blocked_until, self.blocked_reason, self.pipe_mark and self.pipe_mark[1:]

    class _Policy:
        parked: list = []

        @staticmethod
        def order(warps, t):
            return warps

    sub = SubPartition.__new__(SubPartition)
    sub.sm = type("SM", (), {"throttle": {"fp32": R["math_pipe_throttle"], "fp64": R["math_pipe_throttle"],
                                          "rf0": DISPATCH, "rf1": DISPATCH}, "mem_blocked": None})()
    sub.policy, sub.pipe_free, sub.pipe_held = _Policy(), defaultdict(float), defaultdict(float)
    sub.book("rf0", 10.0, 2)                         # an FFMA R8, R8, R4, R5 issued at 10
    a, b = _W(_Info("fp32", ("rf0", "rf1"))), _W(_Info("fp64", ("rf0",)))
    c = _W(_Info("fp32", ("rf1",)))
    sub.warps = [a, b, c]
    assert sub.select(11.0) == (c, 12.0)
    # blocked until the bank is free, with the bank's busy cycles so far less the wait ahead as the mark
    assert a.blocked == (12.0, DISPATCH, ("rf0", 0.0)) and b.blocked == (12.0, R["math_pipe_throttle"], ("rf0", 0.0))
    assert c.blocked == (0.0, None, None)
    sub.warps = [a]
    assert sub.select(12.0)[0] is a
