"""The ``smsim`` command end to end: every command on the tiny config (or small sizes), its output and files,
and user errors (one line, exit code 2, no traceback)."""
import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import smsim
from smsim import runner, warp
from smsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
NCU_RAW = ROOT / "tests" / "data" / "ncu_raw_sample.csv"


def smsim_cli(capsys, *argv):
    """Run ``smsim ARGV`` in this process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


USER_FILE = textwrap.dedent('''
    import numpy as np
    from smsim import cuda
    from workloads.case import Case, Setup


    @cuda.jit
    def scale(out, inp, n):
        i = cuda.grid(1)
        if i < n:
            out[i] = 2.0 * inp[i]


    def build(n, rng):
        inp = rng.random(n).astype(np.float32)
        return Setup(((n + 127) // 128,), (128,), (np.zeros(n, np.float32), inp, n), {0: 2 * inp})


    CASES = [Case("mine", "scale", scale, build, sizes={"test": 1024, "full": 4096})]
''')


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "my_kernels.py"
    path.write_text(USER_FILE)
    return path


@pytest.mark.parametrize("cmd", [[], ["run"], ["sweep"], ["occupancy"], ["asm"], ["compare"], ["list"]])
def test_every_command_has_help(capsys, cmd):
    with pytest.raises(SystemExit) as e:
        main([*cmd, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: smsim") and (not cmd or cmd[0] in out.splitlines()[0])


def test_console_script_is_installed():
    exe = shutil.which("smsim", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    assert exe is not None
    proc = subprocess.run([exe, "list"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "transpose" in proc.stdout and "h100" in proc.stdout


def test_demo_prints_the_three_transposes_side_by_side(capsys):
    code, out, _ = smsim_cli(capsys, "--config", "tiny", "--size", "128")
    assert code == 0
    table = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("  ")}
    assert {"naive", "tiled", "tiled_padded"} <= set(table)
    assert table["naive"][4] == "32.0" and table["tiled"][4] == "4.0"          # store sectors per request
    assert float(table["tiled"][5]) > 0 and float(table["tiled_padded"][5]) == 0   # bank conflicts
    assert "Next: smsim run" in out


def test_run_prints_the_report_and_writes_json_csv_plots_and_trace(capsys, tmp_path):
    files = {k: tmp_path / f"out.{k}" for k in ("json", "csv")}
    code, out, err = smsim_cli(capsys, "run", "transpose.naive", "--config", "tiny", "--json", files["json"],
                               "--csv", files["csv"], "--plot", tmp_path / "plots", "--trace", tmp_path / "trace.csv")
    assert code == 0
    for section in ("Summary: naive", "Memory", "Stalls", "Hottest source lines", "Findings"):
        assert section in out
    assert "stores at transpose.py:" in out and "32.0 sectors per request: uncoalesced" in out
    data = json.loads(files["json"].read_text())
    assert data["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 32 * data["metrics"][
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
    rows = list(csv.DictReader(files["csv"].open()))
    assert list(rows[0]) == ["name", "value", "unit"]
    by_name = {r["name"]: r for r in rows}
    assert by_name["gpu__time_duration.sum"]["unit"] == "nsecond"
    assert float(by_name["sm__cycles_elapsed.max"]["value"]) == data["cycles"]
    assert [r["name"] for r in rows] == sorted(data["metrics"])
    pngs = sorted(p.name for p in (tmp_path / "plots").iterdir() if p.suffix == ".png")
    assert len(pngs) >= 4 and all((tmp_path / "plots" / p).stat().st_size > 1000 for p in pngs)
    assert {p.stem for p in (tmp_path / "plots").glob("*.svg")} == {Path(p).stem for p in pngs}
    trace = list(csv.DictReader((tmp_path / "trace.csv").open()))
    assert trace and {r["state"] for r in trace} <= set(warp.REASONS)
    assert "Traceback" not in err


def test_run_a_family_writes_one_file_per_case(capsys, tmp_path):
    code, out, _ = smsim_cli(capsys, "run", "vector", "--config", "tiny", "--json", tmp_path / "r.json")
    assert code == 0 and out.count("Summary:") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.saxpy.json", "r.vec_add.json"]


def test_run_a_users_python_file_and_show_its_isa(capsys, user_file):
    code, out, _ = smsim_cli(capsys, "run", user_file, "--config", "tiny")
    assert code == 0 and "Summary: scale" in out
    code, out, _ = smsim_cli(capsys, "asm", user_file)
    assert code == 0 and ".entry scale" in out and "out[i] = 2.0 * inp[i]" in out


def test_run_a_ptx_file(capsys):
    code, out, _ = smsim_cli(capsys, "run", ROOT / "benchmarks" / "kernels.ptx", "--kernel", "vec_add",
                             "--config", "tiny", "--size", "2048", "--block", "128")
    assert code == 0 and "16x1x1 x 128x1x1 threads" in out


def test_sweep_runs_the_grid_in_workers_and_writes_csv_and_plot(capsys, tmp_path):
    code, out, _ = smsim_cli(capsys, "sweep", "vector.vec_add", "--config", "tiny", "--vary", "block=64,128,256",
                             "--jobs", "2", "--csv", tmp_path / "s.csv", "--plot", tmp_path)
    assert code == 0
    rows = list(csv.DictReader((tmp_path / "s.csv").open()))
    assert [int(r["block"]) for r in rows] == [64, 128, 256]
    assert all(float(r["dram_gbps"]) > 0 for r in rows)
    assert len([line for line in out.splitlines() if line.strip().startswith("vec_add")]) == 3
    assert (tmp_path / "sweep_dram_gbps_vs_block.png").stat().st_size > 1000


def test_sweep_warps_per_sm_sets_the_resident_warps(capsys, tmp_path):
    code, _, _ = smsim_cli(capsys, "sweep", "vector.vec_add", "--size", "1048576", "--vary", "warps_per_sm=8..32",
                           "--jobs", "1", "--csv", tmp_path / "w.csv")
    rows = list(csv.DictReader((tmp_path / "w.csv").open()))
    assert code == 0 and [int(r["warps_per_sm_theoretical"]) for r in rows] == [8, 16, 32]
    assert [r["limiter"] for r in rows] == ["shared"] * 3
    bw = [float(r["dram_gbps"]) for r in rows]
    assert bw[0] < bw[1] < bw[2]                         # latency hiding: more warps, more bandwidth


def test_occupancy_calculator(capsys, tmp_path):
    code, out, _ = smsim_cli(capsys, "occupancy", "--threads", "256", "--regs", "64", "--smem", "0",
                             "--plot", tmp_path)
    assert code == 0 and "4 blocks/SM, 32 warps (50%), limited by registers" in out
    assert "occupancy vs registers/thread" in out and "occupancy vs threads/block" in out
    assert (tmp_path / "occupancy_vs_registers.svg").exists()


def test_compare_with_an_nsight_csv(capsys, tmp_path):
    path = tmp_path / "vec_add.json"
    code, _, _ = smsim_cli(capsys, "run", "vector.vec_add", "--config", "h200", "--blocks", "all", "--json", path)
    assert code == 0
    code, out, _ = smsim_cli(capsys, "compare", path, NCU_RAW, "--kernel", "vec_add")
    assert code == 0
    line = next(x for x in out.splitlines() if "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" in x)
    assert line.split()[-1] == "1.000"                                             # the same sectors


def test_list_shows_workloads_and_configs(capsys):
    code, out, _ = smsim_cli(capsys, "list")
    assert code == 0 and "tiled_padded" in out and "H200" in out and "tiny" in out


BAD = [
    (["run", "nosuch"], "unknown workload 'nosuch'"),
    (["run", "vector.nosuch"], "no case 'nosuch'"),
    (["run", "vector.vec_add", "--set", "l1.nosuch=1"], "l1.nosuch"),
    (["run", "vector.vec_add", "--set", "l1.assoc=three"], "l1.assoc"),
    (["run", "vector.vec_add", "--set", "oops"], "expected KEY=VALUE"),
    (["run", "vector.vec_add", "--size", "big"], "--size 'big'"),
    (["run", "missing_file.py"], "missing_file.py: no such file"),
    (["sweep", "vector.vec_add", "--vary", "warps_per_sm=64..4"], "start <= end"),
    (["occupancy", "--threads", "5000"], "threads_per_block = 5000"),
    (["compare", "missing.json", "x.csv"], "missing.json"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_user_errors_are_one_clear_line_and_exit_2(capsys, argv, message):
    code, _, err = smsim_cli(capsys, *argv)
    assert code == 2
    assert err.startswith("smsim: error: ") and message in err and "Traceback" not in err


def test_kernel_errors_name_the_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(USER_FILE.replace("out[i] = 2.0 * inp[i]", "out[i] = inp[i + 100000]").replace(", {0: 2 * inp}",
                                                                                                 ", {}"))
    code, _, err = smsim_cli(capsys, "run", bad, "--config", "tiny")
    assert code == 2 and "out of bounds" in err and f"{bad}:11" in err and "Traceback" not in err
    broken = tmp_path / "broken.py"
    broken.write_text(USER_FILE.replace("out[i] = 2.0 * inp[i]", "out[i] = undefined_name"))
    code, _, err = smsim_cli(capsys, "run", broken, "--config", "tiny")
    assert code == 2 and "undefined_name" in err and "Traceback" not in err


def test_a_case_whose_build_fails_is_named_with_the_line_of_its_file(capsys, tmp_path):
    bad = tmp_path / "bad_build.py"
    bad.write_text(USER_FILE.replace(", {0: 2 * inp})", ")"))                 # Setup's expected left out
    for cmd in ("run", "asm"):
        code, _, err = smsim_cli(capsys, cmd, bad, *(("--config", "tiny") if cmd == "run" else ()))
        assert code == 2 and "Traceback" not in err, cmd
        assert "case mine.scale: building its launch failed: TypeError" in err and f"{bad}:16, in build" in err
    odd = tmp_path / "odd_build.py"
    odd.write_text(USER_FILE.replace("return Setup(", "return dict(x=Setup(")
                   .replace("{0: 2 * inp})", "{0: 2 * inp}))"))
    code, _, err = smsim_cli(capsys, "run", odd, "--config", "tiny")
    assert code == 2 and "returned dict, not a Setup" in err and "build at" in err


def test_debug_shows_the_traceback():
    proc = subprocess.run([sys.executable, "-m", "smsim.cli", "--debug", "run", "nosuch"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode != 0 and "Traceback" in proc.stderr and "UsageError" in proc.stderr


def test_no_progress_bar_when_output_is_not_a_terminal():
    proc = subprocess.run([sys.executable, "-m", "smsim.cli", "run", "vector.vec_add", "--config", "tiny"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0 and proc.stderr == ""


def test_ctrl_c_gives_a_partial_result():
    case = runner.resolve("transpose.naive")[0]
    calls = []

    def progress(done, total, cycle):
        calls.append((done, total, cycle))
        if len(calls) == 2:
            raise KeyboardInterrupt
    s = case.setup(256)
    res = smsim.launch(case.kernel, s.grid, s.block, s.args, config="tiny", blocks="all", progress=progress)
    assert res.partial and 0 < res.cycles < 1e9 and calls[0][1] == 64
    assert "PARTIAL" in res.report()
    assert np.isfinite(res.metrics["gpu__time_duration.sum"])
