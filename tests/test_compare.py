"""smsim's metrics next to Nsight Compute's (:mod:`smsim.compare`), on two real H200 exports trimmed into
tests/data: ``ncu_raw_sample.csv`` (``ncu --csv --page raw`` of workloads ``vector.vec_add``,
``vector.saxpy`` and ``coalescing.copy_stride2``, two exports glued as in benchmarks' output) and
``ncu_metrics_sample.csv`` (``ncu --csv --metrics`` of four microbenchmarks, with ncu's ``==PROF==`` lines).
The values asserted are the ones in those files; the comparison runs ``vector.vec_add`` in smsim at the
size the export was measured at.
"""
from __future__ import annotations

import json
import pathlib

import pytest

import smsim
import workloads
from smsim.compare import (WIDTH, compare, fmt, pick_kernel, read_ncu_csv, render, scope_note, short_name,
                           sim_metrics, to_base)

DATA = pathlib.Path(__file__).parent / "data"
RAW = DATA / "ncu_raw_sample.csv"
LONG = DATA / "ncu_metrics_sample.csv"
LD_SEC = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
MEM = [f"l1tex__t_{k}_pipe_lsu_mem_global_op_{op}.sum" for k in ("requests", "sectors") for op in ("ld", "st")]

LONG_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
               '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def long_row(rid, kernel, metric, unit, value, block="(128, 1, 1)", grid="(4, 1, 1)"):
    return (f'"{rid}","1","python3","host","{kernel}","1","7","{block}","{grid}","0","9.0",'
            f'"Command line profiler metrics","{metric}","{unit}","{value}"\n')


def kernel(name, metrics, rid=0):
    return {"id": rid, "kernel": name, "block": [1, 1, 1], "grid": [1, 1, 1], "metrics": metrics}


@pytest.fixture(scope="module")
def vec_add_all():
    """``vector.vec_add`` at its test size on h200, every block timed, as the JSON a user would save."""
    case = workloads.get("vector.vec_add")
    _, res = workloads.run_case(case, launch=smsim.launch, config="h200", blocks="all")
    return json.loads(json.dumps(res.to_dict()))


# ------------------------------------------------------------------------------------------- reading
def test_raw_export_kernels_and_values():
    ks = read_ncu_csv(RAW)
    assert [(k["id"], short_name(k["kernel"])) for k in ks] == [
        (0, "vec_add"), (1, "saxpy"), (1, "workloads::copy_stride")]
    assert [k["grid"] for k in ks] == [[12, 1, 1], [12, 1, 1], [16, 1, 1]]
    assert all(k["block"] == [256, 1, 1] for k in ks)
    vec, saxpy, stride2 = (k["metrics"] for k in ks)
    assert vec["gpu__time_duration.sum"] == (2176.0, "ns")          # "2,176" in the file
    assert saxpy["gpu__time_duration.sum"] == (2272.0, "ns")
    assert vec[LD_SEC] == (750.0, "sector")
    assert vec["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == (188.0, "")
    assert vec["smsp__inst_executed.sum"] == (3874.0, "inst")
    assert vec["launch__shared_mem_config_size"] == (32768.0, "byte")
    assert vec["l1tex__t_requests_pipe_lsu_mem_global_op_ld.avg"] == (1.42, "")
    assert stride2[LD_SEC] == (1024.0, "sector")                     # stride 2: twice the sectors
    for absent in ("device__attribute_display_name", "launch__kernel_name", "Block Size", "ID", "CC"):
        assert absent not in vec                                     # a name, an empty cell, launch columns


def test_metrics_export_kernels_and_values():
    assert "==PROF==" in LONG.read_text()
    ks = read_ncu_csv(LONG)
    assert [(k["id"], short_name(k["kernel"])) for k in ks] == [
        (0, "workloads::ffma_chain"), (1, "workloads::chase_shared"), (5, "workloads::chase_global"),
        (16, "smem_bank_v2")]
    assert ks[0]["metrics"] == {"gpu__time_duration.sum": (2656.0, "ns"), "sm__cycles_elapsed.max": (5172.0, "cycle"),
                                "launch__shared_mem_per_block_dynamic": (0.0, "byte/block")}
    assert ks[2]["metrics"]["gpu__time_duration.sum"] == (1417696.0, "ns")
    assert ks[1]["block"] == [256, 1, 1] and ks[3]["block"] == [32, 1, 1]


def test_text_input_prof_lines_anywhere_and_separators():
    text = ("==PROF== Connected to process 1\n" + LONG_HEADER
            + long_row(3, "k(float*)", "dram__bytes_read.sum", "Mbyte", "1,234,567.5")
            + "==WARNING== something in the middle\n"
            + long_row(3, "k(float*)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "n/a")
            + long_row(3, "k(float*)", "smsp__inst_executed.sum", "inst", "")
            + long_row(4, "j(int)", "gpu__time_duration.sum", "usecond", "12.5") + "==PROF== Disconnected\n")
    ks = read_ncu_csv(text)
    assert [(k["id"], k["kernel"]) for k in ks] == [(3, "k(float*)"), (4, "j(int)")]
    assert ks[0]["metrics"] == {"dram__bytes_read.sum": (1234567.5, "Mbyte")}     # n/a and empty skipped
    assert ks[1]["metrics"] == {"gpu__time_duration.sum": (12.5, "usecond")}
    assert ks[1]["grid"] == [4, 1, 1]


def test_wide_text_without_units_row():
    text = ('"ID","Kernel Name","Block Size","Grid Size","dram__bytes_read.sum"\n'
            '"0","k","(64, 1, 1)","(2, 1, 1)","2,048"\n')
    (k,) = read_ncu_csv(text)
    assert k["metrics"] == {"dram__bytes_read.sum": (2048.0, "")} and k["block"] == [64, 1, 1]


def test_bad_files_raise_value_error_naming_the_file(tmp_path):
    not_ncu = tmp_path / "result.csv"
    not_ncu.write_text("cycles,sectors\n100,4\n")
    with pytest.raises(ValueError, match=r"result\.csv: not an Nsight Compute CSV export"):
        read_ncu_csv(not_ncu)
    binary = tmp_path / "report.ncu-rep"
    binary.write_bytes(b"\x89NCU\xff\xfe\x00\x01" * 8)
    with pytest.raises(ValueError, match=r"report\.ncu-rep: not text"):
        read_ncu_csv(binary)
    header_only = tmp_path / "empty.csv"
    header_only.write_text("==PROF== nothing profiled\n" + LONG_HEADER)
    with pytest.raises(ValueError, match=r"empty\.csv: .*no kernel rows"):
        read_ncu_csv(header_only)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text(LONG_HEADER + long_row(0, "k", "a.sum", "", "1") + '"1","2"\n')
    with pytest.raises(ValueError, match=r"ragged\.csv: CSV row 3 has 2 cells, its header 15"):
        read_ncu_csv(ragged)
    with pytest.raises(ValueError, match="not an Nsight Compute CSV"):
        read_ncu_csv('{"kernel": "vec_add", "metrics": {}}')


# --------------------------------------------------------------------------------------------- units
def test_units_to_smsims():
    assert to_base(2.5, "usecond") == (2500.0, "ns")
    assert to_base(1.5, "msecond") == (1.5e6, "ns")
    assert to_base(700.0, "nsecond") == (700.0, "ns")
    assert to_base(2.0, "second") == (2e9, "ns")
    assert to_base(3.072, "Kbyte") == pytest.approx((3072.0, "byte"))
    assert to_base(1.5, "Mbyte") == (1.5e6, "byte")
    assert to_base(2.0, "Gbyte/second") == (2e9, "byte/second")
    assert to_base(1.0, "Kbyte/block") == (1000.0, "byte/block")
    assert to_base(42.0, "cycle") == (42.0, "cycle")
    assert to_base(7.0, "") == (7.0, "")


def test_compare_converts_units_and_computes_ratios():
    result = {"timed": True, "metrics": {"gpu__time_duration.sum": 1250.0, "dram__bytes_read.sum": 6144,
                                         "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 5,
                                         "launch__occupancy_limit": "warps", "smsim.l2.bytes": 3}}
    row = kernel("k", {"gpu__time_duration.sum": (2.5, "usecond"), "dram__bytes_read.sum": (3.072, "Kbyte"),
                       "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": (0.0, ""), "sm__cycles.max": (9.0, "")})
    rows = {r["metric"]: r for r in compare(result, row)}
    assert list(rows) == sorted(rows)
    assert rows["gpu__time_duration.sum"] == {"metric": "gpu__time_duration.sum", "smsim": 1250.0, "ncu": 2500.0,
                                              "unit": "ns", "ratio": 0.5}
    assert rows["dram__bytes_read.sum"]["ncu"] == pytest.approx(3072.0)
    assert rows["dram__bytes_read.sum"]["ratio"] == pytest.approx(2.0)
    assert rows["dram__bytes_read.sum"]["unit"] == "byte"
    assert rows["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]["ratio"] is None      # ncu counted 0
    assert rows["sm__cycles.max"]["smsim"] is None and rows["smsim.l2.bytes"]["ncu"] is None
    assert "launch__occupancy_limit" not in rows                                         # not a number


def test_compare_real_result_with_raw_export(vec_add_all):
    row = pick_kernel(read_ncu_csv(RAW), name="vec_add")
    rows = {r["metric"]: r for r in compare(vec_add_all, row)}
    for m in MEM:                              # the whole grid, as Nsight counts it: equal on an H200
        assert rows[m]["smsim"] == rows[m]["ncu"] == row["metrics"][m][0]
        assert rows[m]["ratio"] == 1.0
    assert rows[LD_SEC]["ncu"] == 750 and rows[LD_SEC]["unit"] == "sector"
    t = rows["gpu__time_duration.sum"]
    assert t["ncu"] == 2176.0 and t["unit"] == "ns"
    assert t["smsim"] == vec_add_all["metrics"]["gpu__time_duration.sum"] and t["ratio"] == t["smsim"] / 2176.0
    inst = rows["smsp__inst_executed.sum"]
    assert 0.8 < inst["ratio"] < 1.25 and inst["ncu"] == 3874
    assert rows["l1tex__t_requests_pipe_lsu_mem_global_op_ld.avg"]["smsim"] is None   # Nsight only
    assert rows["smsim.l1.bytes"]["ncu"] is None                                      # smsim only
    assert scope_note(vec_add_all) is None


def test_functional_result_compares_its_counters():
    case = workloads.get("vector.vec_add")
    _, res = workloads.run_case(case)                         # timing=False: counters for the whole grid
    d = res.to_dict()
    assert d["metrics"] == {} and sim_metrics(d)[LD_SEC] == d["counters"]["sectors_ld"]
    rows = {r["metric"]: r for r in compare(d, pick_kernel(read_ncu_csv(RAW), index=0))}
    assert [rows[m]["ratio"] for m in MEM] == [1.0] * 4
    assert rows["smsp__inst_executed.sum"]["smsim"] == d["issued_instructions"]


def test_scope_note_when_one_sms_share_was_timed():
    note = scope_note({"timed": True, "blocks": 12, "blocks_timed": 1})
    assert "1 of 12 blocks" in note
    assert scope_note({"timed": True, "blocks": 12, "blocks_timed": 12}) is None
    assert scope_note({"timed": False, "blocks": 12, "blocks_timed": 0}) is None


# ---------------------------------------------------------------------------------------------- pick
def test_pick_kernel_by_name_id_or_only_one():
    ks = read_ncu_csv(RAW)
    assert short_name(pick_kernel(ks, name="saxpy")["kernel"]) == "saxpy"
    assert pick_kernel(ks, name="copy_stride")["grid"] == [16, 1, 1]
    assert pick_kernel(ks, name="saxpy", index=1)["metrics"]["gpu__time_duration.sum"][0] == 2272.0
    assert pick_kernel(ks, name="copy", index="1")["kernel"].startswith("workloads::copy_stride")
    assert pick_kernel(ks[:1])["id"] == 0
    copies = [kernel("copy[v1](float*)", {}, 0), kernel("copy_shared[v2](float*)", {}, 1)]
    assert pick_kernel(copies, name="copy")["id"] == 0          # the exact name wins over substrings
    assert pick_kernel(copies, name="copy_sh")["id"] == 1


def test_pick_kernel_errors_list_the_kernels():
    ks = read_ncu_csv(RAW)
    with pytest.raises(ValueError, match="2 kernels match ID 1") as e:
        pick_kernel(ks, index=1)
    assert "ID 1: saxpy" in str(e.value) and "ID 1: workloads::copy_stride" in str(e.value)
    assert "vec_add" not in str(e.value)
    with pytest.raises(ValueError, match="no kernel matches name 'transpose'") as e:
        pick_kernel(ks, name="transpose")
    assert all(n in str(e.value) for n in ("vec_add", "saxpy", "copy_stride"))
    with pytest.raises(ValueError, match="the export has 3 kernels") as e:
        pick_kernel(ks)
    assert "grid 12x1x1 x block 256x1x1" in str(e.value)


# -------------------------------------------------------------------------------------------- render
def test_render_table(vec_add_all):
    rows = compare(vec_add_all, pick_kernel(read_ncu_csv(RAW), name="vec_add"))
    long_name = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss_and_some_more_words_to_be_too_long.sum"
    rows.append({"metric": long_name, "smsim": 123456789.0, "ncu": 1234.5, "unit": "sector", "ratio": 100005.7})
    note = "note: " + "a long warning " * 12
    text = render(rows, "vector.vec_add: smsim vs Nsight Compute", [note, None])
    lines = text.splitlines()
    assert max(len(ln) for ln in lines) <= WIDTH
    assert lines[0] == "vector.vec_add: smsim vs Nsight Compute"
    assert lines[2].split() == ["metric", "smsim", "ncu", "unit", "smsim/ncu"]
    both = sum(r["smsim"] is not None and r["ncu"] is not None for r in rows)
    only_sim = sum(r["ncu"] is None for r in rows)
    only_ncu = sum(r["smsim"] is None for r in rows)
    assert f"{both} metrics on both sides; {only_sim} only in smsim, {only_ncu} only in Nsight Compute" in text
    assert len(lines) == 3 + both + 1 + 2                        # title, rule, header, rows, count, note
    sec = next(ln for ln in lines if LD_SEC in ln).split()
    assert sec == [LD_SEC, "750", "750", "sector", "1.000"]
    big = next(ln for ln in lines if ".." in ln).split()
    assert big[1:] == ["123,456,789", "1,234.5", "sector", "100,006"]
    assert big[0].startswith("l1tex__t_sectors") and big[0].endswith("too_long.sum")
    assert "no metric is on both sides" in render([{"metric": "a", "smsim": 1.0, "ncu": None, "unit": "",
                                                     "ratio": None}], "t")


def test_fmt():
    assert [fmt(x) for x in (1234567, 3874.0, 565.4942, 0.293119, 12345.67, 0.125, None)] == [
        "1,234,567", "3,874", "565.5", "0.2931", "12,345.7", "0.125", "-"]
