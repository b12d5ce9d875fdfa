"""How much the slowest SM of a one-wave kernel lags the average one on an H200, and why: per-warp clock
stamps of short kernels with one block per SM.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/sm_spread_hw.py --out $OUT/sm_spread_hw.json

Why: a short kernel lasts until its slowest SM is done, while smsim times one SM's share, which behaves
like the average SM. On the H200, one-block-per-SM kernels of the validation suite have
``sm__cycles_active.max`` 200-600 cycles above ``.avg`` (``docs/hardware/validate_hw.json``). Is that a
fixed property of some SMs (their distance to L2 and HBM: then the same SMs are slow in every kernel and at
every step of a chase), the dispatch order (later SMs start later), or the tail of the memory latency
(random: the slowest SM differs from launch to launch)?

Each kernel runs with one block of 256 threads on each of the 132 SMs, after L2 was cleared by reading a
512 MiB buffer, ``REPEATS`` times. Lane 0 of every warp stamps ``%smid``, its block and warp,
``%globaltimer`` (ns, one clock for the device) and ``%clock64`` (cycles, per SM) at its start, ``%clock64``
after each step's loaded value was used, and ``%globaltimer`` at its end:

* ``load``: ``v = a[i]``, then ``out[i] = v``: one DRAM round trip per warp (the store waits for the load);
* ``chase``: each lane follows ``idx = nxt[idx]`` ``STEPS`` times through a random cycle over 256 MiB (every
  step a DRAM miss), a stamp after each step;
* ``l2chase``: the same over 4 MiB, read once before the stamps start: every step an L2 hit;
* ``load_BxT``: ``load`` with ``B`` blocks of ``T`` threads (:data:`LOAD_SHAPES`): fewer busy SMs, or a
  smaller or larger burst from each;
* ``store`` and ``store_BxT``: ``out[i] = i`` then ``threadfence()``, which waits until L2 has the store:
  the round trip of a kernel that only writes.

``--analyse FILE`` prints, per kernel, how far the slowest SM's step lags the mean SM's (``slowest_excess``,
the mean over launches), the per-SM time of a step (the SM's slowest warp) as mean, median,
90th percentile and max over SMs, how much of an SM's lag repeats from launch to launch and from step to step
(correlations), and the spread of the SMs' start times.
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
THREADS = 256
STEPS = 8
REPEATS = 12
CHASE_BYTES = 256 << 20
L2_CHASE_BYTES = 4 << 20
CLEAR_BYTES = 512 << 20
COLS = 6 + STEPS          # smid, block, warp, global start, global end, clock at start, clock after each step


@functools.lru_cache(maxsize=None)
def _kernels():
    cuda, np = hw_probe.numba_cuda()
    clock64, smid = hw_probe.special("clock64", 64), hw_probe.special("smid", 32)
    gtimer = hw_probe.special("globaltimer", 64)

    @cuda.jit(device=True, inline=True)
    def stamp(st, i, g0, c0, c1):
        t = cuda.threadIdx.x
        if t % 32 == 0:
            w = i // 32
            st[w, 0] = smid()
            st[w, 1] = cuda.blockIdx.x
            st[w, 2] = t // 32
            st[w, 3] = g0
            st[w, 5] = c0
            st[w, 6] = c1
            st[w, 4] = gtimer()

    @cuda.jit
    def load(a, out, st):
        g0 = gtimer()
        c0 = clock64()
        i = cuda.grid(1)
        v = a[i]
        out[i] = v                           # the store waits for the load; the clock is read after it
        stamp(st, i, g0, c0, clock64())

    @cuda.jit
    def store(out, st):
        g0 = gtimer()
        c0 = clock64()
        i = cuda.grid(1)
        out[i] = np.float32(i)
        cuda.threadfence()                   # waits until L2 has the store; the clock is read after it
        stamp(st, i, g0, c0, clock64())

    @cuda.jit
    def chase(nxt, out, st):
        sidx = cuda.shared.array(THREADS, np.int32)
        g0 = gtimer()
        c0 = clock64()
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        w = i // 32
        idx = (i * 7919) % nxt.shape[0]
        for s in range(STEPS):
            idx = nxt[idx]
            sidx[t] = idx                    # the store waits for the load; the clock is read after it
            c = clock64()
            if t % 32 == 0:
                st[w, 6 + s] = c
        out[i] = idx
        if t % 32 == 0:
            st[w, 0] = smid()
            st[w, 1] = cuda.blockIdx.x
            st[w, 2] = t // 32
            st[w, 3] = g0
            st[w, 5] = c0
            st[w, 4] = gtimer()

    return cuda, np, dict(clear=hw_probe.clear_kernel(), load=load, store=store, chase=chase)


def _cycle(np, n: int, rng):
    """A random single cycle over ``n`` int32 indices, neighbouring steps in different 128-byte lines."""
    order = rng.permutation(n)
    nxt = np.empty(n, np.int32)
    nxt[order] = np.roll(order, -1)
    return nxt


#: the one-round-trip ``load`` kernel's launches besides one 256-thread block per SM: fewer busy SMs (a
#: smaller burst from fewer SMs) and other block sizes (a smaller or larger burst from each)
LOAD_SHAPES = ((4, 256), (8, 256), (16, 256), (33, 256), (66, 256), (100, 256), (132, 128), (132, 512), (132, 1024))
#: the ``store`` kernel's launches besides one 256-thread block per SM
STORE_SHAPES = ((4, 256), (16, 256), (33, 256), (66, 256))


def run(out_path: str) -> None:
    cuda, np, k = _kernels()
    rng = np.random.default_rng(0)
    blocks = NUM_SMS
    n = blocks * THREADS
    warps = n // 32
    most = NUM_SMS * 1024
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    a = cuda.to_device(rng.random(most * (REPEATS + 1), dtype=np.float32))
    out = cuda.to_device(np.zeros(most * (REPEATS + 1), np.float32))
    outi = cuda.to_device(np.zeros(n, np.int32))
    far = cuda.to_device(_cycle(np, CHASE_BYTES // 4, rng))
    near = cuda.to_device(_cycle(np, L2_CHASE_BYTES // 4, rng))
    rows: dict = {"load": [], "chase": [], "l2chase": []}
    rows.update({f"load_{b}x{t}": [] for b, t in LOAD_SHAPES})
    rows.update({"store": []}, **{f"store_{b}x{t}": [] for b, t in STORE_SHAPES})
    for rep in range(REPEATS + 1):                  # the first round compiles and is dropped
        for name in rows:
            k["clear"][NUM_SMS * 8, 256](buf, sink)
            if name.startswith(("load", "store")):
                kind, _, shape = name.partition("_")
                b, t = (blocks, THREADS) if not shape else map(int, shape.split("x"))
                st = cuda.to_device(np.zeros((b * t // 32, COLS), np.int64))
                # a fresh region of a for each launch (cold in L2 anyway after the clear)
                lo = rep * most
                if kind == "load":
                    k["load"][b, t](a[lo:lo + b * t], out[lo:lo + b * t], st)
                else:
                    k["store"][b, t](out[lo:lo + b * t], st)
            else:
                st = cuda.to_device(np.zeros((warps, COLS), np.int64))
                if name == "chase":
                    k["chase"][blocks, THREADS](far, outi, st)
                else:
                    k["chase"][blocks, THREADS](near, outi, st)    # warm-up: every line the next launch reads
                    k["chase"][blocks, THREADS](near, outi, st)
            cuda.synchronize()
            if rep:
                steps = 1 if name.startswith(("load", "store")) else STEPS
                rows[name].append(per_sm(st.copy_to_host(), steps))
        print("round", rep, "done", flush=True)
    meta = dict(blocks=blocks, threads=THREADS, steps=STEPS, repeats=REPEATS, chase_bytes=CHASE_BYTES,
                l2_chase_bytes=L2_CHASE_BYTES, clear_bytes=CLEAR_BYTES, load_shapes=LOAD_SHAPES,
                store_shapes=STORE_SHAPES)
    hw_probe.write(out_path, meta=meta, rows=rows)


def per_sm(stamps, steps: int) -> dict:
    """One launch's per-warp stamps -> per SM (``sm``, by id): ``steps``, the SM's slowest warp's clock from
    its previous stamp, step by step; ``start_ns``, the global start of its first warp; ``warp_mean``, its
    warps' mean first step (what is stored: the warps' stamps themselves are 16 MB a run)."""
    import numpy as np
    st = np.asarray(stamps, dtype=np.int64)
    sms = np.unique(st[:, 0])
    step = np.diff(st[:, 5:6 + steps], axis=1)
    mine = [st[:, 0] == s for s in sms]
    return dict(sm=sms.tolist(), steps=[step[m].max(axis=0).tolist() for m in mine],
                start_ns=[int(st[m, 3].min()) for m in mine], warp_mean=[float(step[m, 0].mean()) for m in mine])


def analyse(path: str) -> dict:
    """:func:`analyse_data` of a data file."""
    return analyse_data(json.loads(pathlib.Path(path).read_text()))


def analyse_data(data: dict) -> dict:
    """Per kernel of the data: the slowest SM's lag behind the mean SM, the per-SM step times, how much an
    SM's lag repeats between launches and between steps, and the spread of the SMs' start times."""
    import numpy as np
    out = {}
    for name, launches in data["rows"].items():
        steps = 1 if name.startswith(("load", "store")) else data["meta"]["steps"]
        per = [s if isinstance(s, dict) else per_sm(s, steps) for s in launches]
        sms = per[0]["sm"]
        t = np.stack([np.asarray(p["steps"], float) for p in per])             # [launch, sm, step]
        first = t[:, :, 0]
        excess = first.max(axis=1) - first.mean(axis=1)      # the slowest SM against the mean one, per launch
        lag = first - first.mean(axis=1, keepdims=True)
        rep_corr = float(np.mean([np.corrcoef(lag[i], lag[j])[0, 1] for i in range(len(lag))
                                  for j in range(i + 1, len(lag))]))
        if steps > 1:
            later = t[:, :, 1:]
            lag2 = later - later.mean(axis=1, keepdims=True)
            step_corr = float(np.mean([np.corrcoef(lag2[i, :, a], lag2[i, :, b])[0, 1]
                                       for i in range(len(lag2)) for a in range(lag2.shape[2])
                                       for b in range(a + 1, lag2.shape[2])]))
        else:
            step_corr = float("nan")
        allsteps = t[:, :, 1:] if steps > 1 else t
        starts = np.stack([np.asarray(p["start_ns"]) - min(p["start_ns"]) for p in per])
        warp_mean = np.array([p["warp_mean"] for p in per])
        out[name] = dict(
            sms=len(sms), slowest_excess=float(excess.mean()),
            slowest_warp_over_mean_warp=float((first - warp_mean).mean()),
            first_step=dict(mean=float(first.mean()), median=float(np.median(first)),
                            p90=float(np.percentile(first, 90)), max_mean=float(first.max(axis=1).mean())),
            steps=dict(mean=float(allsteps.mean()), median=float(np.median(allsteps)),
                       p90=float(np.percentile(allsteps, 90)), p99=float(np.percentile(allsteps, 99)),
                       sm_max_mean=float(allsteps.max(axis=1).mean())),
            total=dict(mean=float(t.sum(axis=2).mean()), max_mean=float(t.sum(axis=2).max(axis=1).mean())),
            lag_repeats_corr=rep_corr, lag_steps_corr=step_corr,
            start_spread_ns=dict(median=float(np.median(starts.max(axis=1))),
                                 mean_last=float(starts.max(axis=1).mean())))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--analyse")
    a = ap.parse_args(argv)
    if a.analyse:
        print(json.dumps(analyse(a.analyse), indent=1))
        return 0
    run(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
