"""Occupancy calculator: resident blocks per SM against the CUDA occupancy calculator's formulas.

Every expected value below is derived by hand from the formulas of ``cuda_occupancy.h``
(cudaOccMaxActiveBlocksPerMultiprocessor, CUDA 13.0; the same rules as CUDA_Occupancy_Calculator.xls), the
derivation in the comment beside it. The whole table was also checked against that header compiled on the
host (blocks, each resource's limit and the allocated shared memory agree); the calculation needs no GPU.
Shared memory is opted in up to the per-block maximum (cudaFuncAttributeMaxDynamicSharedMemorySize).

Notation: Rw = registers per warp as allocated = ceil(regs * 32 / 256) * 256; the register file is
65536 registers in 4 sub-partitions of 16384, so warps by registers = 4 * floor(16384 / Rw).
S = allocated shared per block = ceil((bytes + reserved) / unit) * unit.
"""
import dataclasses

import pytest

from smsim.config import SmSpec, load
from smsim.occupancy import LIMITERS, UNLIMITED, Occupancy, OccupancyError, l1_bytes, occupancy

# Compute capability 9.0 (H100 and H200 share the SM; the preset is the H200's).
CC90 = load("h200").sm

# Compute capability 8.0 (A100): CUDA C++ Programming Guide, compute capability table: 164 KB shared per SM,
# 163 KB per block (opt-in), 1 KB reserved per block, 32 blocks, 2048 threads; carveouts 0-164 KB;
# 192 KB L1 + shared; shared allocation unit 128 bytes (cuda_occupancy.h).
CC80 = SmSpec(subpartitions=4, max_threads=2048, max_warps=64, max_blocks=32, registers=65536,
              register_alloc_unit=256, max_registers_per_thread=255, shared_bytes=164 * 1024,
              max_shared_per_block_bytes=163 * 1024, shared_alloc_unit_bytes=128,
              reserved_shared_per_block_bytes=1024, unified_l1_shared_bytes=192 * 1024,
              carveouts_kb=(0, 8, 16, 32, 64, 100, 132, 164))

# Compute capability 7.0 (V100): 96 KB shared per SM and per block (opt-in), no reservation, 32 blocks,
# 2048 threads; carveouts 0-96 KB; 128 KB L1 + shared; shared allocation unit 256 bytes (cuda_occupancy.h).
CC70 = SmSpec(subpartitions=4, max_threads=2048, max_warps=64, max_blocks=32, registers=65536,
              register_alloc_unit=256, max_registers_per_thread=255, shared_bytes=96 * 1024,
              max_shared_per_block_bytes=96 * 1024, shared_alloc_unit_bytes=256,
              reserved_shared_per_block_bytes=0, unified_l1_shared_bytes=128 * 1024,
              carveouts_kb=(0, 8, 16, 32, 64, 96))

# (sm, threads, registers, shared bytes) -> (blocks/SM, warps/SM, limiter, carveout KB)
CASES = [
    # cc 9.0 ----------------------------------------------------------------------------------------------
    # Rw = 2048 -> 4 * 8 = 32 warps / 8 = 4 blocks; warps 64/8 = 8; S = 1024 -> 228. 4 x 1 KB -> 8 KB.
    (CC90, 256, 64, 0, 4, 32, "registers", 8),
    # Rw = 1024 -> 64 warps / 8 = 8 = warp limit 64/8: tie, registers first. 8 KB of reservations.
    (CC90, 256, 32, 0, 8, 64, "registers", 8),
    # Rw = 8160 -> 8192 -> 4 * 2 = 8 warps / 4 = 2 blocks (12.5%).
    (CC90, 128, 255, 0, 2, 8, "registers", 8),
    # S = 48 KB + 1 KB = 50176 -> floor(233472 / 50176) = 4; regs 64/4 = 16; 4 x 50176 = 196 KB exactly.
    (CC90, 128, 32, 48 * 1024, 4, 16, "shared", 196),
    # S = 100 KB + 1 KB = 103424 -> 2; 2 x 103424 = 206848 > 196 KB -> 228 KB.
    (CC90, 128, 32, 100 * 1024, 2, 8, "shared", 228),
    # S = 227 KB + 1 KB = 233472 -> 1 block, the whole 228 KB carveout.
    (CC90, 128, 32, 227 * 1024, 1, 4, "shared", 228),
    # 1 warp per block: regs Rw = 512 -> 128 warps -> 128; warps 64; blocks 32 -> 32 blocks, 32 warps (50%).
    (CC90, 32, 16, 0, 32, 32, "blocks", 32),
    # 32 warps per block: regs 128 warps / 32 = 4; warps 64 / 32 = 2 -> 2 blocks (100%).
    (CC90, 1024, 16, 0, 2, 64, "warps", 8),
    # 1024 threads x 64: Rw = 2048 -> 32 warps / 32 = 1 block (50%).
    (CC90, 1024, 64, 0, 1, 32, "registers", 8),
    # 96 threads = 3 warps, 40 regs: Rw = 1280 -> 4 * floor(16384 / 1280) = 48 warps / 3 = 16 blocks (75%);
    # per-SM rounding would give floor(65536 / 1280) = 51 warps / 3 = 17: the sub-partition floor matters.
    (CC90, 96, 40, 0, 16, 48, "registers", 16),
    # 200 threads = 7 warps, 72 regs: Rw = 2304 -> 4 * 7 = 28 warps / 7 = 4 blocks (43.75%); warps 64/7 = 9.
    (CC90, 200, 72, 0, 4, 28, "registers", 8),
    # 200 threads, 255 regs: Rw = 8192 -> 8 warps / 7 = 1 block, 7 warps.
    (CC90, 200, 255, 0, 1, 7, "registers", 8),
    # 168 regs: Rw = 5376 -> 4 * 3 = 12 warps / 4 = 3 blocks (18.75%).
    (CC90, 128, 168, 0, 3, 12, "registers", 8),
    # 41 regs: 1312 -> Rw = 1536 (48 per thread) -> 4 * 10 = 40 warps / 8 = 5 blocks (62.5%).
    (CC90, 256, 41, 0, 5, 40, "registers", 8),
    # 0 registers: no register limit (cuda_occupancy.h); warps 64 / 4 = 16 blocks (100%).
    (CC90, 128, 0, 0, 16, 64, "warps", 16),
    # odd shared size: 12345 + 1024 = 13369 -> S = 13440 -> floor(233472 / 13440) = 17; regs 32, warps 32.
    # 17 x 13440 = 228480 > 196 KB -> 228 KB.
    (CC90, 64, 32, 12345, 17, 34, "shared", 228),
    # tie of registers and shared: Rw = 2048 -> 4 blocks; S = 50176 -> 4 blocks: registers first.
    (CC90, 256, 64, 48 * 1024, 4, 32, "registers", 196),
    # cc 8.0 ----------------------------------------------------------------------------------------------
    # Same register file as cc 9.0: 4 blocks. 4 x 1 KB reservations -> 8 KB.
    (CC80, 256, 64, 0, 4, 32, "registers", 8),
    # S = 50176 -> floor(167936 / 50176) = 3 blocks (18.75%); 3 x 50176 = 150528 > 132 KB -> 164 KB.
    (CC80, 128, 32, 48 * 1024, 3, 12, "shared", 164),
    # S = 100 KB + 1 KB = 103424 -> 1 block; the reservation tips it past the 100 KB carveout -> 132 KB.
    (CC80, 128, 32, 100 * 1024, 1, 4, "shared", 132),
    # S = 163 KB + 1 KB = 167936 -> 1 block, 164 KB.
    (CC80, 256, 32, 163 * 1024, 1, 8, "shared", 164),
    # S = 17408 -> 9; regs 8 = warps 8 -> 8 blocks (registers first); 8 x 17408 = 136 KB > 132 -> 164 KB.
    (CC80, 256, 32, 16 * 1024, 8, 64, "registers", 164),
    # cc 7.0 ----------------------------------------------------------------------------------------------
    # CUDA C++ Best Practices Guide, "Calculating Occupancy": on cc 7.0, 128-thread blocks with 37 registers
    # give 12 blocks and 75%: Rw = 1184 -> 1280 -> 48 warps / 4 = 12.
    (CC70, 128, 37, 0, 12, 48, "registers", 0),
    # Same guide: 320-thread blocks (10 warps) with 37 registers give 4 blocks, 40 warps, "63%" (62.5%).
    (CC70, 320, 37, 0, 4, 40, "registers", 0),
    # S = 48 KB exactly (no reservation) -> 98304 / 49152 = 2 blocks; 96 KB carveout.
    (CC70, 128, 32, 48 * 1024, 2, 8, "shared", 96),
    # 12345 -> S = 12544 (256-byte unit) -> floor(98304 / 12544) = 7; 7 x 12544 = 87808 -> 96 KB.
    (CC70, 64, 32, 12345, 7, 14, "shared", 96),
    # 100 bytes -> S = 256; 32 one-warp blocks x 256 = 8 KB carveout.
    (CC70, 32, 16, 100, 32, 32, "blocks", 8),
]


@pytest.mark.parametrize("sm, threads, regs, shared, blocks, warps, limiter, carveout_kb", CASES)
def test_calculator_table(sm, threads, regs, shared, blocks, warps, limiter, carveout_kb):
    occ = occupancy(sm, threads, regs, shared)
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limiter) == (blocks, warps, limiter)
    assert occ.occupancy == warps / 64
    assert occ.carveout_bytes == carveout_kb * 1024
    assert min(occ.limits.values()) == blocks and occ.limits[limiter] == blocks


def test_cc90_preset_has_the_figures_the_table_assumes():
    assert (CC90.registers, CC90.subpartitions, CC90.register_alloc_unit) == (65536, 4, 256)
    assert (CC90.shared_bytes, CC90.max_shared_per_block_bytes) == (228 * 1024, 227 * 1024)
    assert (CC90.shared_alloc_unit_bytes, CC90.reserved_shared_per_block_bytes) == (128, 1024)
    assert (CC90.max_warps, CC90.max_threads, CC90.max_blocks) == (64, 2048, 32)


def test_fields_describe_the_allocation():
    occ = occupancy(CC90, 256, 41, 100)
    assert occ.registers_per_thread == 48                # 41 * 32 = 1312 -> 1536 per warp
    assert occ.shared_per_block_bytes == 1152            # 100 + 1024 -> 1124 -> 9 x 128
    assert occ.threads_per_block == 256 and occ.warps_per_block == 8
    assert occ.limits == {"registers": 5, "shared": 202, "warps": 8, "blocks": 32}  # 233472 // 1152 = 202
    assert list(occ.limits) == list(LIMITERS)


def test_odd_thread_counts_round_up_to_whole_warps():
    occ = occupancy(CC90, 33, 32, 0)                     # 2 warps: warps 64/2 = 32 = blocks 32 = regs 32
    assert (occ.blocks_per_sm, occ.warps_per_sm, occ.limiter) == (32, 64, "registers")
    assert occupancy(CC90, 1, 32, 0).warps_per_sm == 32  # one thread still takes a warp; 32 blocks


def test_zero_registers_set_no_register_limit():
    occ = occupancy(CC90, 1024, 0, 0)
    assert occ.limits["registers"] == UNLIMITED and occ.registers_per_thread == 0
    assert (occ.blocks_per_sm, occ.limiter) == (2, "warps")


def test_describe():
    assert occupancy(CC90, 256, 64, 0).describe() == "4 blocks/SM, 32 warps (50%), limited by registers"
    assert occupancy(CC90, 128, 255, 0).describe() == "2 blocks/SM, 8 warps (12.5%), limited by registers"
    assert occupancy(CC90, 200, 255, 0).describe() == "1 block/SM, 7 warps (10.9%), limited by registers"
    assert occupancy(CC90, 128, 32, 100 * 1024).describe() == "2 blocks/SM, 8 warps (12.5%), limited by shared"


def test_result_is_frozen_and_hashable():
    occ = occupancy(CC90, 256, 64, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        occ.blocks_per_sm = 5
    assert hash(occ) == hash(occupancy(CC90, 256, 64, 0)) and isinstance(occ, Occupancy)


@pytest.mark.parametrize("threads, regs, shared, named", [
    (0, 32, 0, "threads_per_block"),
    (1025, 32, 0, "threads_per_block"),
    (256, 256, 0, "registers_per_thread"),
    (256, -1, 0, "registers_per_thread"),
    (256, 32, 227 * 1024 + 1, "shared_per_block_bytes"),
    (256, 32, -1, "shared_per_block_bytes"),
    (256.0, 32, 0, "threads_per_block"),
])
def test_out_of_range_inputs(threads, regs, shared, named):
    with pytest.raises(OccupancyError, match=named) as e:
        occupancy(CC90, threads, regs, shared)
    assert isinstance(e.value, ValueError) and str(threads if named == "threads_per_block" else
                                                   regs if named == "registers_per_thread" else shared) in str(e.value)


def test_block_too_big_for_the_register_file():
    # 1024 threads x 72: Rw = 2304 -> 4 * floor(16384 / 2304) = 28 warps < 32: no block fits.
    with pytest.raises(OccupancyError, match="registers") as e:
        occupancy(CC90, 1024, 72, 0)
    assert "32 warps" in str(e.value) and "28" in str(e.value)
    with pytest.raises(OccupancyError, match="registers"):
        occupancy(CC90, 1024, 255, 0)                    # 32 warps x 8192 = 4 x the register file
    assert occupancy(CC90, 1024, 64, 0).blocks_per_sm == 1   # the largest that fits: 32 x 2048 = 65536


def test_block_too_big_for_shared_or_warps():
    small = dataclasses.replace(CC90, shared_bytes=200 * 1024)          # below the 227 KB per-block maximum
    with pytest.raises(OccupancyError, match="shared memory"):
        occupancy(small, 128, 32, 210 * 1024)
    few = dataclasses.replace(CC90, max_threads=512, max_warps=16)      # an SM of 16 warps
    with pytest.raises(OccupancyError, match="32 warps"):
        occupancy(few, 1024, 16, 0)
    assert occupancy(few, 512, 16, 0).limiter == "warps"


def test_thread_limit_counts_as_warps():
    sm = dataclasses.replace(CC90, max_threads=1024)     # 32 warps of threads though 64 warp slots
    occ = occupancy(sm, 256, 16, 0)
    assert (occ.blocks_per_sm, occ.limiter, occ.occupancy) == (4, "warps", 0.5)


def test_carveout_is_the_smallest_that_holds_the_blocks():
    # cc 7.0 without shared memory: nothing to hold -> the smallest carveout (0 KB).
    assert occupancy(CC70, 256, 32, 0).carveout_bytes == 0
    unsorted = dataclasses.replace(CC70, carveouts_kb=(96, 64, 8, 32, 16))
    assert occupancy(unsorted, 256, 32, 0).carveout_bytes == 8 * 1024
    # 2 blocks x (48 KB + 1 KB) = 100352 <= 100 KB on cc 9.0.
    assert occupancy(CC90, 512, 64, 48 * 1024).carveout_bytes == 100 * 1024
    bad = dataclasses.replace(CC90, carveouts_kb=(0, 8, 16))
    with pytest.raises(OccupancyError, match="carveouts_kb"):
        occupancy(bad, 128, 32, 48 * 1024)


def test_l1_gets_what_the_carveout_leaves():
    config = load("h200")
    unified = config.sm.unified_l1_shared_bytes                          # 256 KB
    assert l1_bytes(config, occupancy(config.sm, 256, 64, 0)) == unified - 8 * 1024          # 248 KB
    assert l1_bytes(config, occupancy(config.sm, 128, 32, 100 * 1024)) == unified - 228 * 1024  # 28 KB
    occ = occupancy(config.sm, 512, 64, 48 * 1024)                       # 100 KB carveout -> 156 KB left
    assert l1_bytes(config, occ) == 159744
    capped = config.replace({"l1.size_bytes": 128 * 1024})
    assert l1_bytes(capped, occ) == 128 * 1024
    # 64 ways of 128-byte lines: 8 KB per set-row; 159744 / 8192 = 19.5 -> 19 x 8192.
    assert l1_bytes(config.replace({"l1.assoc": 64}), occ) == 19 * 8192
