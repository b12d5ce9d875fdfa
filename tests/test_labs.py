"""The lab handouts in docs/labs/ run as written and print what they say.

Every line of a ```bash block that starts with ``smsim`` is run as ``python -m smsim.cli ...`` from the
repository root (``out/`` rewritten to a temporary folder), every ```python block is executed in a fresh
namespace; each must succeed, and the key figures the handout quotes for it (``EXPECT``) must appear both in
the handout and in what the command printed (compared with runs of spaces collapsed). A ``smsim sweep``'s
table and a snippet's output, as the handout quotes them after the command, must be what it printed, row by
row.
"""
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow          # long: every command and snippet of the lab handouts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABS = os.path.join(ROOT, "docs", "labs")
HANDOUTS = ("README.md", "01_coalescing.md", "02_shared_memory.md", "03_latency_hiding.md")

# (handout, a unique part of the command or snippet) -> phrases the handout claims its output contains
EXPECT = {
    ("README.md", "smsim list"): ["h100 H100 SXM: 132 SMs at 1980 MHz, L1+shared 256 KB, L2 50 MB, DRAM 3080 GB/s"],
    ("README.md", "my_kernel.py\n"): ["mine.scale_coalesced (1 of 2)", "mine.scale_stride4 (2 of 2)",
                                      "load 8 32 4.0", "load 8 128 16.0"],
    ("README.md", "c.setup(\"test\")"): ["5274 cycles", "1024 store sectors"],
    ("01_coalescing.md", "copy_stride1 --size"): ["blocks timed 30 of 3907", "cycles 6955", "duration 4.963 us",
                                                  "load 240 960 4.0", "store 240 960 4.0", "30720 B", "37.0%",
                                                  "out[i] = inp[i * stride]"],
    ("01_coalescing.md", "--kernel copy_stride"): [
        "copy_stride1 h100 64 warps 5.0 1154.4 4.0", "copy_stride2 h100 64 warps 5.5 1986.1 8.0",
        "copy_stride4 h100 64 warps 7.8 2569.5 16.0", "copy_stride8 h100 64 warps 13.7 2782.7 32.0",
        "copy_stride32 h100 64 warps 25.2 2913.1 32.0"],
    ("01_coalescing.md", "--kernel copy_offset"): ["copy_offset1 h100 64 warps 5.0 1144.0 5.0",
                                                   "copy_offset0 h100 64 warps 5.0", "copy_offset8 h100 64 warps 5.0"],
    ("01_coalescing.md", "--kernel particles"): [
        "particles_aos4 h100 64 warps 9.5 2007.0 16.0", "particles_soa4 h100 64 warps 8.5 2297.6 4.0",
        "particles_aos8 h100 64 warps 19.0 2442.4 32.0", "particles_soa8 h100 64 warps 11.4 2457.9 4.0"],
    ("01_coalescing.md", "transpose.naive --size"): ["cycles 34238", "load 256 1024 4.0", "store 256 8192 32.0",
                                                     "L2 1024 sectors 8192 sectors", "DRAM 32768 B 0 B"],
    ("01_coalescing.md", "naive_strided_reads\"):"): [
        "transpose.copy 6974 cycles sectors/request: load 4.0, store 4.0",
        "transpose.naive 34238 cycles sectors/request: load 4.0, store 32.0",
        "transpose.naive_strided_reads 10733 cycles sectors/request: load 32.0, store 4.0"],
    ("02_shared_memory.md", "transpose.tiled --size"): [
        "cycles 12140", "load 256 8192 7936 32.00", "store 256 256 0 1.00",
        "32.0-way bank conflicts on shared loads at transpose.py:85", "theoretical 100.0%",
        "32 registers/thread", "8 blocks/SM"],
    ("02_shared_memory.md", "transpose.tiled_padded --size"): ["cycles 6619", "load 256 256 0 1.00"],
    ("02_shared_memory.md", "sweep transpose --size"): [
        "copy h100 64 registers 5.0 1228.0 4.0", "naive h100 64 registers 18.7 250.1 4.0",
        "tiled h100 64 registers 7.6 705.5 4.0", "tiled_padded h100 64 registers 4.8 1293.9 4.0"],
    ("02_shared_memory.md", "--kernel bank_stride"): [
        "bank_stride0 h100 25 shared 75.8", "bank_stride1 h100 25 shared 75.8", "bank_stride2 h100 25 shared 78.9",
        "bank_stride4 h100 25 shared 85.1", "bank_stride8 h100 25 shared 97.5",
        "bank_stride32 h100 25 shared 192.7", "bank_stride33 h100 25 shared 75.8"],
    ("02_shared_memory.md", "for stride in"): [
        "stride 1: 1.0 wavefronts per shared load, 147193 cycles", "stride 2: 2.0 wavefronts per shared load, 153335",
        "stride 4: 4.0 wavefronts per shared load, 165619", "stride 32: 32.0 wavefronts per shared load, 378588",
        "stride 33: 1.0 wavefronts per shared load, 147193"],
    ("02_shared_memory.md", "sweep reduction"): [
        "interleaved_divergent h100 64 registers 21.9", "interleaved_bank_conflicts h100 64 warps 10.4",
        "sequential h100 64 warps 8.5", "first_add h100 64 warps 6.0", "warp_shuffle h100 64 warps 4.7",
        "grid_stride h100 64 registers 4.8"],
    ("02_shared_memory.md", "case.family(\"reduction\")"): [
        "interleaved_divergent 40475 cycles 0 bank conflicts top stall not_selected",
        "interleaved_bank_conflicts 17807 cycles 2240 bank conflicts top stall barrier",
        "sequential 14041 cycles 0 bank conflicts top stall barrier",
        "first_add 8920 cycles", "warp_shuffle 6434 cycles", "grid_stride 6668 cycles"],
    ("03_latency_hiding.md", "--regs 64"): ["4 blocks/SM, 32 warps (50%), limited by registers"],
    ("03_latency_hiding.md", "--smem 32K"): ["6 blocks/SM, 48 warps (75%), limited by shared"],
    ("03_latency_hiding.md", "warps_per_sm=8..64"): [
        "vec_add 8 8 shared 351.1 548.3 4.0", "vec_add 16 16 shared 190.2 1015.6 4.0",
        "vec_add 32 32 shared 110.6 1755.4 4.0", "vec_add 64 64 warps 72.7 2682.7 4.0",
        "sweep_dram_gbps_vs_warps_per_sm.png"],
    ("03_latency_hiding.md", "registers=32,64"): ["vec_add 32 64 registers 72.7", "vec_add 64 32 registers 110.6",
                                                  "vec_add 128 16 registers 190.2", "vec_add 255 8 registers 351.1"],
    ("03_latency_hiding.md", "smem=0,32768"): ["vec_add 0 64 warps 72.7 2682.7", "vec_add 32768 48 shared 85.1 2286.6",
                                               "vec_add 65536 24 shared 136.0 1424.4"],
    ("03_latency_hiding.md", "--kernel stream_ilp4"): ["stream_ilp4_w4 h100 4 shared 28.6 617.2",
                                                       "stream_ilp4_w24 h100 24 shared 8.8 2211.8"],
    ("03_latency_hiding.md", "for warps in"): [
        "4 warps/SM x 1 loads in flight: 199069 cycles", "4 warps/SM x 8 loads in flight: 31583 cycles",
        "16 warps/SM x 2 loads in flight: 29537 cycles", "16 warps/SM x 8 loads in flight: 13078 cycles",
        "64 warps/SM x 1 loads in flight: 16914 cycles", "64 warps/SM x 8 loads in flight: 7954 cycles"],
}


def squash(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def blocks(text: str, lang: str) -> list:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def snippets(name: str) -> list:
    """(kind, text) of every smsim command line and python block of one handout, in order."""
    text = open(os.path.join(LABS, name)).read()
    cmds = [("bash", line.strip() + "\n") for b in blocks(text, "bash") for line in b.splitlines()
            if line.strip().startswith("smsim")]
    return cmds + [("python", b) for b in blocks(text, "python")]


ALL = [(name, kind, code) for name in HANDOUTS for kind, code in snippets(name)]


def expected(name: str, code: str) -> list:
    hits = [phrases for (doc, key), phrases in EXPECT.items() if doc == name and key in code]
    assert len(hits) <= 1, f"{name}: more than one EXPECT entry matches {code!r}"
    return hits[0] if hits else []


def quoted_output(name: str, kind: str, code: str) -> list:
    """The lines of the plain ``` block that follows the ```bash block holding the command ``code`` or the
    ```python block ``code`` (what the handout says it prints), or [] when another such block comes first."""
    text = open(os.path.join(LABS, name)).read()
    fences = list(re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M))
    for i, f in enumerate(fences):
        mine = code.strip() in f.group(2).splitlines() if kind == "bash" else f.group(2) == code
        if f.group(1) == kind and mine:
            for g in fences[i + 1:]:
                if g.group(1) in ("bash", "python"):
                    return []
                if g.group(1) == "":
                    return [r for r in g.group(2).splitlines() if r.strip()]
    return []


def run_command(line: str, out_dir: str) -> str:
    # the timeout guards against a hang, not a slow machine: lab 3's full-size sweeps take 60-80 s alone on
    # two cores, and share them with the other pytest-xdist worker in the README's test command
    args = [a.replace("out/", out_dir + os.sep) for a in shlex.split(line)[1:]]
    proc = subprocess.run([sys.executable, "-m", "smsim.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "COLUMNS": "100"})
    assert proc.returncode == 0, f"`{line.strip()}` exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def run_python(code: str, monkeypatch) -> str:
    monkeypatch.chdir(ROOT)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<handout>", "exec"), {"__name__": "__handout__"})
    return buf.getvalue()


@pytest.mark.parametrize("name,kind,code", ALL, ids=[f"{n}:{k}:{i}" for i, (n, k, _) in enumerate(ALL)])
def test_handout_snippet(name, kind, code, tmp_path, monkeypatch):
    out = run_command(code, str(tmp_path)) if kind == "bash" else run_python(code, monkeypatch)
    doc = squash(open(os.path.join(LABS, name)).read())
    for phrase in expected(name, code):
        assert squash(phrase) in doc, f"{name} does not quote {phrase!r} (EXPECT and the handout disagree)"
        assert squash(phrase) in squash(out), f"{name}: {code.strip()[:60]!r} did not print {phrase!r}:\n{out}"
    if kind == "python":                 # every line of the output it quotes, as printed
        printed_lines = {squash(r).strip() for r in out.splitlines()}
        for row in quoted_output(name, kind, code):
            assert squash(row).strip() in printed_lines, f"{name}: a snippet quotes\n{row}\nbut printed\n{out}"
    if kind == "bash" and code.startswith("smsim sweep"):   # every row of the table it quotes, as printed
        printed = {tuple(r.split()[:2]): squash(r).strip() for r in out.splitlines() if len(r.split()) >= 2}
        for row in quoted_output(name, kind, code):
            key = tuple(row.split()[:2])
            if key in printed:
                assert squash(row).strip() == printed[key], \
                    f"{name}: `{code.strip()}` quotes\n{row}\nbut printed\n{printed[key]}"


def test_every_expectation_names_a_snippet():
    codes = {(n, k) for n, _, c in ALL for (d, k) in EXPECT if d == n and k in c}
    assert codes == set(EXPECT), f"EXPECT entries matching no snippet: {set(EXPECT) - codes}"


def test_handouts_have_commands_python_and_questions():
    for name in HANDOUTS[1:]:
        text = open(os.path.join(LABS, name)).read()
        kinds = {k for k, _ in snippets(name)}
        assert kinds == {"bash", "python"}, name
        for heading in ("## Goal", "## Background", "## Tasks", "## Questions", "What you should see"):
            assert heading in text, f"{name} lacks {heading!r}"


def test_readme_example_is_my_kernel_py():
    """The README shows docs/labs/my_kernel.py in full (less its docstring)."""
    readme = open(os.path.join(LABS, "README.md")).read()
    source = open(os.path.join(LABS, "my_kernel.py")).read()
    body = source.split('"""', 2)[2].lstrip("\n")
    assert body in blocks(readme, "python"), "README's example differs from docs/labs/my_kernel.py"
