"""Timeline recording (``smsim.launch(..., timeline=True)``) and the plots of :mod:`smsim.plots`, on small
kernels timed on the ``tiny`` config.

The recording is checked against what the launch counts anyway: each warp's intervals tile its resident
time, their per-state sums are the stall totals exactly, the resident warp-cycles are the active-warps
metric's, and the transfer logs add up to the L1/L2/DRAM byte counts. Recording must not change the timing.
The plots are checked for their content: bars equal to the data they draw, one image row per warp with the
colour of the state it was in (on a hand-made timeline), bandwidth stairs that integrate to the bytes
moved, a log2 axis and limiter marks on a sweep, and PNG/SVG files written.
"""
from __future__ import annotations

import inspect
from types import SimpleNamespace

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

import smsim
from smsim import cuda, plots
from smsim.report import stall_rows
from smsim.warp import REASONS

N = 4096
BLOCK = 128


@cuda.jit
def gather(out, inp, stride):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = inp[(i * stride) % inp.shape[0]] * 2.0


@cuda.jit
def staged(out, inp, stride):
    buf = cuda.shared.array(1024, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[(t * stride) % 1024] = inp[i]
    cuda.syncthreads()
    out[i] = buf[(t * stride) % 1024] + 1.0


def _line_of(kernel, fragment: str) -> int:
    lines, start = inspect.getsourcelines(kernel.py_func)
    hits = [start + k for k, text in enumerate(lines) if fragment in text]
    assert len(hits) == 1, hits
    return hits[0]


def _launch(kernel, stride: int, **kw):
    inp = np.arange(N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    return smsim.launch(kernel, N // BLOCK, BLOCK, (out, inp, stride), config="tiny", **kw), out, inp


@pytest.fixture(scope="module")
def gathered():
    return _launch(gather, 33, timeline=True)[0]


@pytest.fixture(scope="module")
def conflicted():
    return _launch(staged, 4, timeline=True)[0]


def _per_warp(w: dict) -> dict:
    keys = {}
    for i, bk in enumerate(zip(w["block"].tolist(), w["warp"].tolist())):
        keys.setdefault(bk, []).append(i)
    return keys


# ------------------------------------------------------------------------------------------ recording
def test_timeline_is_off_by_default_and_recording_does_not_change_the_timing(gathered):
    plain, out, inp = _launch(gather, 33)
    assert plain.timeline is None
    np.testing.assert_array_equal(out, inp[(np.arange(N) * 33) % N] * 2)
    assert plain.cycles == gathered.cycles and plain.stalls == gathered.stalls
    assert plain.metrics == gathered.metrics


@pytest.mark.parametrize("case", ["gathered", "conflicted"])
def test_intervals_tile_each_warps_resident_time(case, request):
    res = request.getfixturevalue(case)
    w = res.timeline["warps"]
    assert set(w) == {"slot", "block", "warp", "start", "end", "state"}
    warps = _per_warp(w)
    assert len(warps) == res.blocks_timed * BLOCK // 32
    assert np.all(w["end"] > w["start"])
    for idx in warps.values():
        start, end = w["start"][idx], w["end"][idx]
        np.testing.assert_array_equal(start[1:], end[:-1])            # no gap, no overlap
        assert len(set(w["slot"][idx].tolist())) == 1
    last = w["end"].max()                   # the kernel ends once L2 has taken the last warps' stores
    assert last <= res.cycles <= last + res.config.l2.hit_latency_cycles + 100
    firsts = {}
    for (b, _), idx in warps.items():                                  # a block's warps arrive together
        firsts.setdefault(b, set()).add(float(w["start"][idx[0]]))
    assert all(len(s) == 1 for s in firsts.values())
    resident = (w["end"] - w["start"]).sum()
    active = res.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] / 100 * res.cycles
    assert resident == pytest.approx(active * res.config.sm.max_warps, rel=1e-12)


@pytest.mark.parametrize("case", ["gathered", "conflicted"])
def test_state_sums_equal_the_stall_totals_exactly(case, request):
    res = request.getfixturevalue(case)
    w = res.timeline["warps"]
    for i, reason in enumerate(REASONS):
        m = w["state"] == i
        assert (w["end"][m] - w["start"][m]).sum() == res.stalls[reason], reason
    assert res.stalls["selected"] > 0 and res.stalls["long_scoreboard"] > 0


def test_transfers_add_up_to_the_bytes_each_level_moved(gathered):
    tr, m = gathered.timeline["transfers"], gathered.metrics
    assert set(tr) == {"l1", "l2", "dram"}
    assert tr["l1"]["bytes"].sum() == m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] * 32
    assert tr["l2"]["bytes"].sum() == m["smsim.l2.bytes"]
    assert tr["dram"]["bytes"].sum() == m["smsim.dram.bytes"]
    assert len(tr["l1"]["t"]) == m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    for level in tr.values():
        assert len(level["t"]) == len(level["bytes"]) and level["t"].min() >= 0
        assert level["t"].max() < gathered.cycles


# ---------------------------------------------------------------------------------------------- plots
def test_stall_breakdown_has_one_bar_per_state_with_cycles(gathered):
    fig = gathered.plot_stalls()
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    rows = stall_rows(gathered)
    assert len(ax.patches) == len(rows) == sum(1 for v in gathered.stalls.values() if v)
    assert [t.get_text() for t in ax.get_yticklabels()] == [r for r, _, _ in rows]
    per = gathered.stalls_per_instruction()
    assert [p.get_width() for p in ax.patches] == pytest.approx([per[r] for r, _, _ in rows])
    assert ax.patches[0].get_facecolor() == to_rgba(plots.STATE_COLORS[rows[0][0]])
    assert "per issued instruction" in ax.get_xlabel()


def test_timeline_plots_need_a_recorded_timeline():
    res = _launch(gather, 1)[0]
    for draw in (res.plot_timeline, res.plot_bandwidth):
        with pytest.raises(ValueError, match="timeline=True"):
            draw()
    functional = _launch(gather, 1, timing=False)[0]
    with pytest.raises(ValueError, match="timed"):
        plots.stall_breakdown(functional)


def test_warp_timeline_has_one_labelled_row_per_warp(gathered):
    w = gathered.timeline["warps"]
    n = len(_per_warp(w))
    for max_warps, rows in ((64, min(64, n)), (5, 5)):
        ax = gathered.plot_timeline(max_warps=max_warps).axes[0]
        assert ax.images[0].get_array().shape[:2][0] == rows
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert len(labels) == rows and labels[0] == f"b{w['block'].min()}/w0"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "selected" in legend and set(legend) <= set(REASONS)


def test_warp_timeline_colours_each_column_by_the_state_it_spends_most_in():
    r = {k: REASONS.index(k) for k in ("long_scoreboard", "selected", "barrier", "not_selected")}
    warps = {"slot": [0, 0, 0, 1], "block": [0, 0, 0, 1], "warp": [0, 0, 0, 0],
             "start": [0.0, 50.0, 50.2, 20.0], "end": [50.0, 50.2, 100.0, 100.0],
             "state": [r["long_scoreboard"], r["not_selected"], r["selected"], r["barrier"]]}
    res = SimpleNamespace(timed=True, cycles=100.0, kernel=SimpleNamespace(name="k"),
                          timeline={"warps": {k: np.array(v) for k, v in warps.items()}, "transfers": {}})
    ax = plots.warp_timeline(res).axes[0]
    img = ax.images[0].get_array()
    assert img.shape[:2] == (2, 100)
    color = {k: np.array(to_rgba(plots.STATE_COLORS[k])) for k in r}
    np.testing.assert_allclose(img[0, :50], np.tile(color["long_scoreboard"], (50, 1)))
    np.testing.assert_allclose(img[0, 50:], np.tile(color["selected"], (50, 1)))   # 0.2 not_selected merged
    np.testing.assert_allclose(img[1, :20], 1.0)                                    # not resident: white
    np.testing.assert_allclose(img[1, 20:], np.tile(color["barrier"], (80, 1)))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b0/w0", "b1/w0"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["selected", "long_scoreboard", "barrier"]


def test_bandwidth_stairs_integrate_to_the_bytes_moved(gathered):
    fig = gathered.plot_bandwidth(bins=40)
    ax = fig.axes[0]
    assert len(fig.axes) == 1 and len(ax.patches) == 3
    tr = gathered.timeline["transfers"]
    for patch, level in zip(ax.patches, ("l1", "l2", "dram")):
        values, edges = patch.get_data().values, patch.get_data().edges
        assert len(values) == 40 and edges[0] == 0 and edges[-1] == gathered.cycles
        assert (values * np.diff(edges)).sum() == pytest.approx(tr[level]["bytes"].sum())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [s.split(" (")[0] for s in legend] == ["L1 data return", "L2 port", "DRAM"]
    assert ax.get_ylabel() == "bytes per cycle"


def test_lines_shows_sectors_and_bank_conflicts_per_source_line(conflicted):
    fig = conflicted.plot_lines()
    assert len(fig.axes) == 2
    sectors, conflicts = fig.axes
    expect = {_line_of(staged, "buf[(t * stride) % 1024] = inp[i]"), _line_of(staged, "out[i] = buf")}
    labels = [t.get_text() for t in sectors.get_yticklabels()]
    assert labels == [f"test_plots.py:{n}" for n in sorted(expect)]
    acc = conflicted.lines
    assert [p.get_width() for p in sectors.patches] == [acc[n]["sectors"] for n in sorted(expect)]
    assert [p.get_width() for p in conflicts.patches] == [acc[n]["bank_conflicts"] for n in sorted(expect)]
    warps = conflicted.blocks_timed * BLOCK // 32
    assert all(p.get_width() == 3 * warps for p in conflicts.patches)       # stride 4: 4-way, 3 extra
    assert "sectors" in sectors.get_xlabel() and "bank conflicts" in conflicts.get_xlabel()


def test_sweep_uses_a_log2_axis_and_marks_limiter_changes():
    rows = [{"block": b, "gbps": 10.0 * k, "limit": "warps" if b < 256 else "registers"}
            for k, b in enumerate((1024, 32, 64, 128, 256, 512))]
    ax = plots.sweep(rows, "block", "gbps", label="copy", limiter_key="limit").axes[0]
    assert ax.get_xscale() == "log"
    curve = ax.lines[0]
    assert list(curve.get_xdata()) == [32, 64, 128, 256, 512, 1024]
    assert list(curve.get_ydata()) == [10.0, 20.0, 30.0, 40.0, 50.0, 0.0]
    marks = ax.lines[1:]
    assert len(marks) == 1 and marks[0].get_xdata()[0] == pytest.approx(np.sqrt(128 * 256))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["copy", "limiter: warps", "limiter: registers"]
    plain = plots.sweep([{"n": 3, "t": 1.0}, {"n": 5, "t": 2.0}], "n", "t").axes[0]
    assert plain.get_xscale() == "linear" and len(plain.lines) == 1 and plain.get_xlabel() == "n"


def test_save_all_writes_png_and_svg_files(gathered, tmp_path):
    paths = plots.save_all(gathered, tmp_path / "all")
    names = sorted(p.rsplit("/", 1)[1] for p in paths)
    assert names == sorted(f"{p}.{f}" for p in plots.PLOTS for f in ("png", "svg"))
    for p in paths:
        data = open(p, "rb").read()
        assert data.startswith(b"\x89PNG") if p.endswith(".png") else b"<svg" in data[:2000]
    res = _launch(gather, 1)[0]
    bare = plots.save_all(res, tmp_path / "bare", formats=("png",))
    assert sorted(p.rsplit("/", 1)[1] for p in bare) == ["lines.png", "stalls.png"]
    assert all(open(p, "rb").read(4) == b"\x89PNG" for p in bare)
