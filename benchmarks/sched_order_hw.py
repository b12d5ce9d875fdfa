"""In what order an H200 SM's warp schedulers let warps finish: per-warp clock stamps of issue-bound,
memory-bound and XU-bound kernels, to choose ``scheduler.policy`` on evidence.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/sched_order_hw.py --out $OUT/sched_order_hw.json

Each kernel is a numba kernel of smsim's workloads (or a loop of the same kind) with two stamps added:
lane 0 of every warp writes ``%smid``, its block, its warp in the block, ``%clock64`` before the body and
``%clock64`` after it (a ``membar``-free stamp; the clock is per SM, so stamps are compared within an SM).
From the stamps of one SM: how many warps are resident on average while the SM has any (as Nsight's
``sm__warps_active`` over active cycles), whether the blocks end in the order they started (oldest block
first: the end order's rank correlation with the start order), and how far apart the warps of one block
end against the SM's time (a scheduler fair between a block's warps ends them together).
``docs/hardware/sched_order_hw.md`` says what the committed data shows.

Run here (no GPU) with ``--analyse FILE`` to print the summary of a data file, with ``--simulate`` to print
smsim's (h200 config; ``--policy`` overrides ``scheduler.policy``) beside it.
"""
from __future__ import annotations

import argparse
import functools
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

NUM_SMS = 132
KERNELS = ("write_gs", "read_gs", "copy_gs", "alu_blocks", "alu_one_block", "xu_blocks", "xu_one_block")


@functools.lru_cache(maxsize=None)
def _kernels():
    cuda, np = hw_probe.numba_cuda()
    clock64, smid = hw_probe.special("clock64", 64), hw_probe.special("smid", 32)

    @cuda.jit(device=True, inline=True)
    def stamp(st, t0, t1):
        tid = cuda.threadIdx.x
        if tid % 32 == 0:
            w = cuda.blockIdx.x * (cuda.blockDim.x // 32) + tid // 32
            st[w, 0] = smid()
            st[w, 1] = cuda.blockIdx.x
            st[w, 2] = tid // 32
            st[w, 3] = t0
            st[w, 4] = t1

    @cuda.jit
    def write_gs(out, value, n, st):
        t0 = clock64()
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            out[i] = value
        cuda.syncwarp()
        stamp(st, t0, clock64())

    @cuda.jit
    def read_gs(out, inp, n, st):
        t0 = clock64()
        acc = np.float32(0.0)
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            acc += inp[i]
        out[cuda.grid(1)] = acc
        cuda.syncwarp()
        stamp(st, t0, clock64())

    @cuda.jit
    def copy_gs(out, inp, n, st):
        t0 = clock64()
        for i in range(cuda.grid(1), n, cuda.gridsize(1)):
            out[i] = inp[i]
        cuda.syncwarp()
        stamp(st, t0, clock64())

    @cuda.jit
    def alu(out, n, st):
        """Issue-bound: four independent integer chains."""
        t0 = clock64()
        a = cuda.grid(1)
        b, c, d = a + 1, a + 2, a + 3
        for k in range(n):
            a = a * 3 + k
            b = b * 5 + k
            c = c ^ (a + k)
            d = d + (b >> 3)
        out[cuda.grid(1)] = a + b + c + d
        cuda.syncwarp()
        stamp(st, t0, clock64())

    @cuda.jit
    def xu(out, n, st):
        """XU-bound: a dependent float -> int -> float loop (F2I, I2F), as the bank-conflict microbenchmark."""
        t0 = clock64()
        v = np.float32(cuda.threadIdx.x) * np.float32(1e-3)
        for k in range(n):  # noqa: B007  (the source that ran on the H200)
            v = np.float32(np.int32(v * np.float32(0.5))) + np.float32(0.25)
        out[cuda.grid(1)] = v
        cuda.syncwarp()
        stamp(st, t0, clock64())

    return cuda, np, dict(write_gs=write_gs, read_gs=read_gs, copy_gs=copy_gs, alu=alu, xu=xu)


def cases(np) -> dict:
    """name -> (kernel, blocks, threads per block, a function making the arguments before the stamps): the
    launches of the device run and of :func:`simulate` alike."""
    n, g64 = 16 << 20, NUM_SMS * 16          # 16 blocks of 4 warps an SM: 64 warps, one wave
    return {
        "write_gs": ("write_gs", g64, 128, lambda: (np.zeros(n, np.float32), np.float32(3.0), n)),
        "read_gs": ("read_gs", g64, 128, lambda: (np.zeros(g64 * 128, np.float32), np.ones(n, np.float32), n)),
        "copy_gs": ("copy_gs", g64, 128, lambda: (np.zeros(n, np.float32), np.ones(n, np.float32), n)),
        "alu_blocks": ("alu", g64, 128, lambda: (np.zeros(g64 * 128, np.float32), 2000)),
        "alu_one_block": ("alu", NUM_SMS, 512, lambda: (np.zeros(NUM_SMS * 512, np.float32), 2000)),
        "xu_blocks": ("xu", NUM_SMS * 4, 256, lambda: (np.zeros(NUM_SMS * 1024, np.float32), 500)),
        "xu_one_block": ("xu", NUM_SMS, 1024, lambda: (np.zeros(NUM_SMS * 1024, np.float32), 500)),
    }


def run(out_path: str) -> None:
    """Every case on the GPU (the second launch of each is kept: the first compiles), stamps to JSON."""
    cuda, np, k = _kernels()
    rows = {}
    for name, (kern, blocks, threads, make) in cases(np).items():
        args = tuple(cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in make())
        st = cuda.to_device(np.zeros((blocks * threads // 32, 5), np.int64))
        for _ in range(2):
            k[kern][blocks, threads](*args, st)
            cuda.synchronize()
        rows[name] = dict(blocks=blocks, threads=threads, stamps=st.copy_to_host().tolist())
        print(name, "done", flush=True)
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    pathlib.Path(out_path).write_text(json.dumps(dict(gpu=name, rows=rows)))


def simulate(name: str, config: str = "h200", overrides: dict | None = None) -> dict:
    """:func:`summarise` of case ``name`` as smsim times it (the SM's blocks, ``blocks="share"``): its
    warps' first issue and retirement from the timeline stand for the stamps."""
    import numpy as np
    import smsim
    cuda, _, k = _kernels()
    kern, blocks, threads, make = cases(np)[name]
    st = np.zeros((blocks * threads // 32, 5), np.int64)
    res = smsim.launch(k[kern], blocks, threads, make() + (st,), config=config, overrides=overrides,
                       complete=False, timeline=True)
    w = res.timeline["warps"]
    blk, warp, start, end = (np.asarray(w[x]) for x in ("block", "warp", "start", "end"))
    rows = []
    for b, wi in sorted(set(zip(blk.tolist(), warp.tolist()))):
        m = (blk == b) & (warp == wi)
        rows.append((0, b, wi, start[m].min(), end[m].max()))
    return summarise(rows)


def summarise(stamps) -> dict:
    """Rows ``(sm, block, warp, start, end)`` -> over the SMs: the mean warps resident while any is (the
    SM's 64 slots = 100%), the rank correlation of the blocks' end order with their start order (nan with
    fewer than three blocks an SM), and the mean spread of a block's warp ends over the SM's time."""
    import numpy as np
    st = np.asarray(stamps, dtype=np.int64)
    occ, corr, within = [], [], []
    for sm in np.unique(st[:, 0]):
        s = st[st[:, 0] == sm]
        t0, t1 = s[:, 3].min(), s[:, 4].max()
        occ.append((s[:, 4] - s[:, 3]).sum() / (64 * max(t1 - t0, 1)))
        blocks = np.unique(s[:, 1])
        if len(blocks) > 2:
            start = np.array([s[s[:, 1] == b, 3].min() for b in blocks])
            end = np.array([s[s[:, 1] == b, 4].max() for b in blocks])
            rs, re = np.argsort(np.argsort(start, kind="stable")), np.argsort(np.argsort(end, kind="stable"))
            corr.append(np.corrcoef(rs, re)[0, 1])
        within.append(np.mean([np.ptp(s[s[:, 1] == b, 4]) for b in blocks]) / max(t1 - t0, 1))
    return dict(warps_active_pct=100 * float(np.mean(occ)),
                block_order_corr=float(np.mean(corr)) if corr else float("nan"),
                within_block_spread=float(np.mean(within)))


def analyse(path: str) -> dict:
    """:func:`summarise` of every kernel of a data file."""
    data = json.loads(pathlib.Path(path).read_text())
    return {name: summarise(r["stamps"]) for name, r in data["rows"].items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--analyse")
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--policy")
    a = ap.parse_args(argv)
    if a.analyse:
        for name, v in analyse(a.analyse).items():
            line = (f"{name:16s} warps active {v['warps_active_pct']:5.1f}%  block end-order corr "
                    f"{v['block_order_corr']:5.2f}  within-block spread {v['within_block_spread']:.2f}")
            if a.simulate:
                sim = simulate(name, overrides={"scheduler.policy": a.policy} if a.policy else None)
                line += (f"  | smsim {sim['warps_active_pct']:5.1f}%  {sim['block_order_corr']:5.2f}  "
                         f"{sim['within_block_spread']:.2f}")
            print(line, flush=True)
        return 0
    run(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
