"""The report of a launch result (``res.report()``, :func:`smsim.report.render`) and its dict/JSON form
(``res.to_dict()``, ``res.to_json()``), on small real kernels timed on the ``tiny`` config.

The figures the report prints are read back from its text and compared with the result's own fields and
metrics; the coalescing and bank-conflict figures are also compared with what the access pattern implies
(32 consecutive floats = 4 sectors; a stride of 32 floats = 32 sectors; a shared stride of ``s`` words =
``min(s, 32)``-way conflicts for ``s`` a power of two: the kernel's index keeps each warp's words in
distinct rows of the same banks).
"""
from __future__ import annotations

import inspect
import json
import re

import numpy as np
import pytest

import smsim
from smsim import cuda
from smsim.report import BAR, WIDTH, plain, render, to_dict

N = 1024
BLOCK = 128
SHARED_WORDS = 1024


@cuda.jit
def copy_stride(out, inp, stride):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = inp[i * stride]


@cuda.jit
def shared_stride(out, stride):
    buf = cuda.shared.array(SHARED_WORDS, np.float32)
    t = cuda.threadIdx.x
    k = t * stride
    buf[k % SHARED_WORDS + k // SHARED_WORDS] = t
    cuda.syncthreads()
    out[t] = buf[k % SHARED_WORDS + k // SHARED_WORDS]


def _line_of(kernel, fragment: str) -> int:
    """The source line number of the line of ``kernel`` containing ``fragment``."""
    lines, start = inspect.getsourcelines(kernel.py_func)
    hits = [start + k for k, text in enumerate(lines) if fragment in text]
    assert len(hits) == 1, hits
    return hits[0]


def _copy(stride: int, timing: bool = True):
    inp = np.arange(N * stride, dtype=np.float32)
    out = np.zeros(N, np.float32)
    res = smsim.launch(copy_stride, (N // BLOCK,), (BLOCK,), (out, inp, stride), timing=timing, config="tiny")
    np.testing.assert_array_equal(out, inp[::stride])
    return res


def _shared(stride: int):
    out = np.zeros(BLOCK, np.float32)
    res = smsim.launch(shared_stride, (1,), (BLOCK,), (out, stride), config="tiny")
    k = np.arange(BLOCK) * stride
    idx = k % SHARED_WORDS + k // SHARED_WORDS        # one word per thread: each reads back its own t
    assert len(set(idx)) == BLOCK
    np.testing.assert_array_equal(out, np.arange(BLOCK, dtype=np.float32))
    return res


@pytest.fixture(scope="module")
def coalesced():
    return _copy(1)


@pytest.fixture(scope="module")
def strided():
    return _copy(32)


def _sections(text: str) -> dict:
    """Heading -> the lines under it (a heading is a line underlined by dashes of its length)."""
    lines = text.splitlines()
    heads = [i for i in range(len(lines) - 1) if lines[i] and lines[i + 1] == "-" * len(lines[i])]
    out = {}
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        out[lines[i]] = [x for x in lines[i + 2:end] if x.strip()]
    return out


def _section(text: str, prefix: str) -> list:
    found = [body for head, body in _sections(text).items() if head.startswith(prefix)]
    assert len(found) == 1, (prefix, list(_sections(text)))
    return found[0]


def _row(lines: list, first: str) -> list:
    """The cells (split on runs of 2+ spaces) of the table row whose first cell is ``first``."""
    rows = [re.split(r"\s{2,}", x.strip()) for x in lines]
    hits = [r for r in rows if r[0] == first]
    assert len(hits) == 1, (first, lines)
    return hits[0]


# ------------------------------------------------------------------------------------------- the text
def test_sections_and_summary(coalesced):
    text = coalesced.report()
    heads = list(_sections(text))
    assert heads[0] == "Summary: copy_stride"
    for prefix in ("Memory", "Shared memory", "Stalls (warp-cycles by reason", "Hottest source lines"):
        assert any(h.startswith(prefix) for h in heads), (prefix, heads)
    summary = _section(text, "Summary")
    assert _row(summary, "cycles")[1] == str(int(coalesced.cycles))
    assert float(coalesced.cycles).is_integer() and coalesced.cycles > 0
    assert _row(summary, "blocks timed")[1] == f"{coalesced.blocks_timed} of {coalesced.blocks}"
    assert _row(summary, "config")[1].startswith(coalesced.config.gpu.name)
    ipc = coalesced.metrics["smsp__inst_executed.sum"] / coalesced.cycles
    assert _row(summary, "IPC")[1].startswith(f"{ipc:.3f} ")
    us = coalesced.metrics["gpu__time_duration.sum"] / 1e3
    assert _row(summary, "duration")[1].startswith(f"{us:.3f} us")
    assert _row(summary, "resident")[1] == coalesced.occupancy.describe()
    achieved = coalesced.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"]
    assert _row(summary, "occupancy")[1] == (f"theoretical {100 * coalesced.occupancy.occupancy:.1f}%, "
                                             f"achieved {achieved:.1f}%")


def test_plain_text_within_width(coalesced, strided):
    for res in (coalesced, strided, _shared(2), _copy(1, timing=False)):
        text = render(res)
        assert text == res.report()
        assert "\x1b" not in text and "\t" not in text
        assert max(len(x) for x in text.splitlines()) <= WIDTH


@pytest.mark.parametrize("stride, per_request", [(1, 4.0), (32, 32.0)])
def test_sectors_per_request(stride, per_request, coalesced, strided):
    res = coalesced if stride == 1 else strided
    m = res.metrics
    ld_req = m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    ld_sec = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert ld_sec / ld_req == per_request
    memory = _section(res.report(), "Memory")
    assert _row(memory, "load") == ["load", str(ld_req), str(ld_sec), f"{per_request:.1f}"]
    assert _row(memory, "store")[3] == "4.0"           # the store is coalesced either way
    l1 = _row(memory, "L1")
    assert l1[1] == f"{ld_sec} sectors" and l1[4] == str(m["smsim.l1.bytes"])
    dram = _row(memory, "DRAM")
    assert dram[1] == f"{m['dram__bytes_read.sum']} B" and dram[2] == f"{m['dram__bytes_write.sum']} B"
    assert dram[-3] == f"{m['smsim.dram.bytes_per_cycle']:.2f}"
    assert dram[-1] == f"{m['smsim.dram.pct_of_peak']:.1f}%"
    assert m["smsim.dram.pct_of_peak"] == pytest.approx(
        100 * m["smsim.dram.bytes_per_cycle"] / m["smsim.dram.peak_bytes_per_cycle"])


def test_stalls_largest_first(strided):
    rows = [re.split(r"\s{2,}", x.strip()) for x in _section(strided.report(), "Stalls")[1:]]
    nonzero = {r: v for r, v in strided.stalls.items() if v}
    assert [r[0] for r in rows] == sorted(nonzero, key=lambda r: -nonzero[r])
    assert rows[0][0] == max(strided.stalls, key=strided.stalls.get)
    per = strided.stalls_per_instruction()
    for reason, cycles, _pct, per_inst, bar in rows:
        assert float(cycles) == nonzero[reason]
        assert per_inst == f"{per[reason]:.2f}"
        assert set(bar) == {"#"}
    bars = [len(r[4]) for r in rows]
    assert bars[0] == BAR and bars == sorted(bars, reverse=True)
    assert "long_scoreboard" in nonzero and "dispatch_stall" not in [r[0] for r in rows]


def test_hottest_line_is_the_strided_load(strided):
    line = _line_of(copy_stride, "inp[i * stride]")
    hot = _section(strided.report(), "Hottest source lines")
    assert hot[0].startswith(f"  #1 line {line} ") and "inp[i * stride]" in hot[0]
    m = strided.metrics
    sectors = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] + m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
    assert f", {sectors} sectors," in hot[1]
    top = max(strided.lines[line]["stalls"].items(), key=lambda kv: kv[1] if kv[0] != "selected" else -1)
    assert hot[2].strip().startswith(f"top stalls: {top[0]} {int(top[1])}")
    assert sum(1 for x in hot if x.startswith("  #")) == min(3, len(strided.lines))


def test_hot_lines_ranked_by_stalls_plus_issue(strided):
    """Each hot line's warp-cycles are its stall cycles (issuing aside) plus its issue slots; the three
    largest are shown, largest first, with their share of all lines' warp-cycles."""
    score = {line: sum(v for r, v in acc["stalls"].items() if r != "selected") + acc["issued"]
             for line, acc in strided.lines.items()}
    total = sum(score.values())
    hot = [x for x in _section(strided.report(), "Hottest source lines") if x.startswith("  #")]
    figures = [x for x in _section(strided.report(), "Hottest source lines") if "warp-cycles (" in x]
    ranked = sorted(score, key=lambda k: -score[k])[:3]
    assert [int(re.match(r"  #\d line (\d+)", x).group(1)) for x in hot] == ranked
    for line, x in zip(ranked, figures):
        assert x.strip().startswith(f"{int(score[line])} warp-cycles ({100 * score[line] / total:.1f}%), "
                                    f"{strided.lines[line]['issued']} issue slots")


def test_findings(coalesced, strided):
    line = _line_of(copy_stride, "inp[i * stride]")
    uncoalesced = f"loads at test_report.py:{line} touch 32.0 sectors per request: uncoalesced"
    assert uncoalesced in " ".join(" ".join(_section(strided.report(), "Findings")).split())
    assert "sectors per request" not in coalesced.report()
    largest = max((r for r in strided.stalls if r != "selected"), key=strided.stalls.get)
    assert f"largest stall: {largest} " in " ".join(_section(strided.report(), "Findings"))


@pytest.mark.parametrize("stride, ways", [(1, 1), (2, 2), (32, 32)])
def test_shared_bank_conflicts(stride, ways):
    res = _shared(stride)
    m = res.metrics
    shared = _section(res.report(), "Shared memory")
    for op, name in (("ld", "load"), ("st", "store")):
        inst = m[f"smsp__sass_inst_executed_op_shared_{op}.sum"]
        wf = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"]
        assert inst == BLOCK // 32 and wf == ways * inst
        assert _row(shared, name) == [name, str(inst), str(wf), str(wf - inst), f"{ways:.2f}"]
    text = res.report()
    if ways == 1:
        assert "bank conflicts on shared" not in text
    else:
        load_line = _line_of(shared_stride, "out[t] = buf[")
        store_line = _line_of(shared_stride, "] = t\n")
        text = " ".join(text.split())
        assert f"{ways:.1f}-way bank conflicts on shared loads at test_report.py:{load_line}" in text
        assert f"{ways:.1f}-way bank conflicts on shared stores at test_report.py:{store_line}" in text
        assert "pad the shared array" in text


def test_no_shared_memory_section(coalesced):
    assert _section(coalesced.report(), "Shared memory") == ["  no shared-memory instructions"]


def test_functional_result_renders():
    res = _copy(1, timing=False)
    assert not res.timed
    text = res.report()
    assert text.startswith("Summary: copy_stride (functional run")
    c = res.counters
    assert (f"{c['requests_ld']} requests, {c['sectors_ld']} sectors "
            f"({c['sectors_ld'] / c['requests_ld']:.1f} sectors/request)") in text
    assert f"warp instructions   {res.warp_instructions}" in text
    d = to_dict(res)
    assert d["config"] is None and d["occupancy"] is None and d["timed"] is False
    assert json.loads(json.dumps(d)) == d


# ------------------------------------------------------------------------------------------- the dict
def _only_plain(x) -> bool:
    if isinstance(x, dict):
        return all(type(k) is str and _only_plain(v) for k, v in x.items())
    if isinstance(x, list):
        return all(_only_plain(v) for v in x)
    return x is None or type(x) in (str, int, float, bool)


def test_to_dict_json_round_trip(strided):
    d = strided.to_dict()
    assert _only_plain(d)
    assert json.loads(json.dumps(d)) == d
    assert list(d)[:3] == ["kernel", "timed", "grid"]
    assert d["kernel"] == "copy_stride" and d["grid"] == [N // BLOCK, 1, 1] and d["block"] == [BLOCK, 1, 1]
    assert d["config"] == {"name": strided.config.gpu.name, "source": "tiny"}
    assert d["cycles"] == strided.cycles and d["blocks_timed"] == strided.blocks_timed
    assert d["stalls"] == strided.stalls and d["stalls_per_instruction"] == strided.stalls_per_instruction()
    assert d["metrics"] == strided.metrics
    assert d["occupancy"]["describe"] == strided.occupancy.describe()
    assert d["occupancy"]["blocks_per_sm"] == strided.occupancy.blocks_per_sm
    assert set(d["lines"]) == {str(k) for k in strided.lines}
    assert len(d["instructions"]) == len(strided.instructions)
    assert d["instructions"][0]["text"] == strided.instructions[0]["text"]


def test_to_dict_deterministic():
    assert _copy(32).to_dict() == _copy(32).to_dict()
    assert _shared(2).to_dict() == _shared(2).to_dict()


def test_to_json_writes_file(strided, tmp_path):
    path = tmp_path / "result.json"
    text = strided.to_json(path)
    assert path.read_text() == text
    assert json.loads(text) == strided.to_dict()


def test_plain_converts_numpy():
    x = plain({1: np.int64(3), "a": (np.float32(0.5), np.bool_(True)), "b": np.arange(3), None: [np.uint8(7)]})
    assert x == {"1": 3, "a": [0.5, True], "b": [0, 1, 2], "None": [7]}
    assert _only_plain(x)
    assert type(x["1"]) is int and type(x["a"][0]) is float and type(x["a"][1]) is bool
