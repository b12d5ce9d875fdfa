"""Config loader and presets: every preset loads and cites a source for every value; bad files and bad
overrides raise ConfigError naming the dotted key; overrides, paths and Config objects load; Configs are frozen.

Bad configs are made by editing a preset's parsed TOML and writing it back to ``tmp_path`` (``_dump``), so each
test changes exactly one thing in an otherwise valid file.
"""
import dataclasses
import re
from importlib import resources

import pytest

from smsim.config import Config, ConfigError, SmSpec, load, presets, tomllib
from smsim.registry import BY_KEY

PRESETS = ("a100", "h100", "h200", "tiny", "v100")
SM_SECTIONS = ("sm", "scheduler", "pipes", "special", "shared", "l1")   # identical on H100 and H200 (one SM design)


def _text(name: str) -> str:
    return (resources.files("configs") / f"{name}.toml").read_text()


def _data(name: str = "h100") -> dict:
    return tomllib.loads(_text(name))


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return repr(v)


def _dump(data: dict, prefix: str = "") -> str:
    """TOML text for a nested dict of scalars, lists and tables (enough for config files)."""
    scalars = [f"{k} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    out = ([f"[{prefix}]"] if prefix and scalars else []) + scalars
    for k, v in data.items():
        if isinstance(v, dict):
            out.append(_dump(v, f"{prefix}.{k}" if prefix else k))
    return "\n".join(out)


def _write(tmp_path, data: dict, name: str = "bad.toml"):
    path = tmp_path / name
    path.write_text(_dump(data))
    return path


def _edit(section: str, key: str, value) -> dict:
    """The h100 preset's data with ``section.key`` set to ``value`` (``section`` may be dotted)."""
    data = _data("h100")
    node = data
    for part in section.split("."):
        node = node[part]
    node[key] = value
    return data


# ------------------------------------------------------------------------------------------- presets
def test_presets_lists_the_five_configs():
    assert tuple(presets()) == PRESETS


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_loads_and_is_consistent(name):
    cfg = load(name)
    assert isinstance(cfg, Config) and cfg.source == name
    assert cfg.sm.shared_bytes == max(cfg.sm.carveouts_kb) * 1024       # shared_bytes is the largest carveout
    assert cfg.sm.max_shared_per_block_bytes <= cfg.sm.shared_bytes
    assert cfg.l1.size_bytes <= cfg.sm.unified_l1_shared_bytes
    assert cfg.l2.size_bytes > cfg.l1.size_bytes * 4
    assert cfg.l2.hit_latency_cycles > cfg.l1.hit_latency_cycles
    assert cfg.dram.latency_cycles > cfg.dram.row_hit_latency_cycles
    for key, reg in BY_KEY.items():                                      # every part names a registered model
        section, field = key.split(".")
        assert getattr(getattr(cfg, section), field) in reg
    assert load(name) == cfg                                             # deterministic


_ASSIGN = re.compile(r'^\s*[A-Za-z_][\w.]*\s*=\s*(?P<rest>.*)$')


def _uncommented_lines(text: str) -> list:
    """``key = value`` lines whose value carries no ``# comment`` (quoted strings may contain '#')."""
    bad = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _ASSIGN.match(line)
        if not m:
            continue
        rest = re.sub(r'"(?:[^"\\]|\\.)*"', '""', m.group("rest"))      # drop quoted strings
        comment = rest.partition("#")[2].strip()
        if len(comment) < 3:
            bad.append((number, line))
    return bad


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_value_cites_a_source(name):
    text = _text(name)
    assert _uncommented_lines(text) == []
    assigned = sum(1 for line in text.splitlines() if _ASSIGN.match(line))
    leaves = sum(len(dataclasses.fields(section)) for section in _sections(load(name)))
    assert assigned == leaves == 140                      # every key of every section, each on its own line


def _sections(cfg: Config) -> list:
    out = [cfg.gpu, cfg.sm, cfg.scheduler, cfg.special, cfg.shared, cfg.l1, cfg.l2, cfg.dram, cfg.launch]
    return out + [getattr(cfg.pipes, f.name) for f in dataclasses.fields(cfg.pipes)]


def test_source_comment_check_catches_a_missing_comment():
    text = 'name = "x # not a comment"\nnum_sms = 4   # [ds]\nclock_mhz = 1000\nbanks = 32 #\n[l1]\n# only a comment\n'
    assert [n for n, _ in _uncommented_lines(text)] == [1, 3, 4]


def test_h100_and_h200_share_the_sm():
    h100, h200 = load("h100"), load("h200")
    for section in SM_SECTIONS:
        assert getattr(h100, section) == getattr(h200, section), section
    assert h100.gpu.num_sms == h200.gpu.num_sms == 132
    assert h100.l2.size_bytes == 50 * 2**20 and h200.l2.size_bytes == 60 * 2**20
    assert h100.dram.bandwidth_gbps < h200.dram.bandwidth_gbps


def test_datasheet_figures_in_the_presets():
    h100, a100, v100, tiny = load("h100"), load("a100"), load("v100"), load("tiny")
    assert (h100.gpu.clock_mhz, h100.dram.bandwidth_gbps <= 3350) == (1980, True)
    assert (a100.gpu.num_sms, a100.gpu.clock_mhz, a100.l2.size_bytes) == (108, 1410, 40 * 2**20)
    assert a100.sm.unified_l1_shared_bytes == 192 * 1024
    assert a100.sm.carveouts_kb == (0, 8, 16, 32, 64, 100, 132, 164)
    assert a100.dram.bandwidth_gbps <= 2039
    assert (v100.gpu.num_sms, v100.gpu.clock_mhz, v100.l2.size_bytes) == (80, 1530, 6 * 2**20)
    assert v100.sm.carveouts_kb == (0, 8, 16, 32, 64, 96) and v100.sm.unified_l1_shared_bytes == 128 * 1024
    assert (v100.sm.max_blocks, v100.sm.max_shared_per_block_bytes, v100.sm.register_alloc_unit) == (32, 98304, 256)
    assert v100.dram.bandwidth_gbps <= 900
    assert (tiny.gpu.num_sms, tiny.sm.subpartitions, tiny.l1.size_bytes, tiny.l2.size_bytes) == (4, 2, 16384, 262144)


# ----------------------------------------------------------------------------------------- bad files
def test_unknown_top_level_section(tmp_path):
    data = _data()
    data["l3"] = {"size_bytes": 1}
    with pytest.raises(ConfigError, match=r"unknown config key 'l3'"):
        load(_write(tmp_path, data))


@pytest.mark.parametrize("section, key, dotted", [("l1", "sise_bytes", "l1.sise_bytes"),
                                                  ("pipes.fp32", "latency", "pipes.fp32.latency"),
                                                  ("gpu", "boost_mhz", "gpu.boost_mhz")])
def test_unknown_nested_key(tmp_path, section, key, dotted):
    with pytest.raises(ConfigError, match=re.escape(f"unknown config key {dotted!r}")):
        load(_write(tmp_path, _edit(section, key, 1)))


@pytest.mark.parametrize("path", ["l1.assoc", "dram.row_bytes", "pipes.sfu.latency_cycles", "gpu.name", "l2"])
def test_missing_key(tmp_path, path):
    data = _data()
    *parents, last = path.split(".")
    node = data
    for p in parents:
        node = node[p]
    del node[last]
    with pytest.raises(ConfigError, match=re.escape(f"missing config key {path!r}")):
        load(_write(tmp_path, data))


@pytest.mark.parametrize("section, key, value", [
    ("l1", "assoc", "4"),            # string for int
    ("l1", "assoc", True),           # bool for int
    ("l1", "assoc", 4.0),            # float for int
    ("gpu", "clock_mhz", "fast"),    # string for float
    ("gpu", "clock_mhz", False),     # bool for float
    ("gpu", "name", 100),            # int for string
    ("sm", "carveouts_kb", [0, "8"]),
    ("sm", "carveouts_kb", 8),
])
def test_wrong_type_names_the_key(tmp_path, section, key, value):
    with pytest.raises(ConfigError, match=re.escape(f"{section}.{key} must be")):
        load(_write(tmp_path, _edit(section, key, value)))


def test_section_that_is_not_a_table(tmp_path):
    data = _data()
    data["l1"] = 5
    with pytest.raises(ConfigError, match="l1 must be a table"):
        load(_write(tmp_path, data))
    with pytest.raises(ConfigError, match=r"pipes\.fp32 must be a table"):
        load("h100", {"pipes.fp32": 3, "pipes.fp32.latency_cycles": 2})


@pytest.mark.parametrize("section, key, value", [
    ("gpu", "num_sms", 0), ("gpu", "clock_mhz", -1.5), ("l1", "hit_latency_cycles", 0),
    ("l2", "size_bytes", -262144), ("dram", "bandwidth_gbps", 0), ("pipes.int", "issue_interval_cycles", 0),
    ("sm", "reserved_shared_per_block_bytes", -1), ("dram", "row_open_cycles", -5),
])
def test_zero_or_negative_value(tmp_path, section, key, value):
    with pytest.raises(ConfigError, match=re.escape(f"{section}.{key} = {value}")):
        load(_write(tmp_path, _edit(section, key, value)))


def test_zero_allowed_where_it_means_none(tmp_path):
    cfg = load(_write(tmp_path, _edit("sm", "reserved_shared_per_block_bytes", 0)))
    assert cfg.sm.reserved_shared_per_block_bytes == 0
    assert load("h100", {"dram.row_open_cycles": 0}).dram.row_open_cycles == 0


@pytest.mark.parametrize("section, key, value", [("l1", "line_bytes", 96), ("l2", "sector_bytes", 24),
                                                 ("l1", "assoc", 3), ("shared", "banks", 31)])
def test_not_a_power_of_two(tmp_path, section, key, value):
    with pytest.raises(ConfigError, match=re.escape(f"{section}.{key} = {value} must be a power of two")):
        load(_write(tmp_path, _edit(section, key, value)))


def test_bad_policy_and_replacement_names(tmp_path):
    with pytest.raises(ConfigError,
                       match=r"scheduler\.policy = 'fifo'; choose one of gto, lrr, oldest_block, two_level"):
        load(_write(tmp_path, _edit("scheduler", "policy", "fifo")))
    with pytest.raises(ConfigError, match=r"l2\.replacement = 'mru'; choose one of lru, fifo, random"):
        load(_write(tmp_path, _edit("l2", "replacement", "mru")))
    with pytest.raises(ConfigError, match=r"l1\.replacement = 'LRU'"):           # names are case-sensitive
        load("h100", {"l1.replacement": "LRU"})
    with pytest.raises(ConfigError, match=r"l2\.sharing = 'all'; choose one of private, neighbours"):
        load("h200", {"l2.sharing": "all"})
    assert load("h200", {"l2.sharing": "private"}).l2.sharing == "private"


def test_l2_partitions_divide_its_slices():
    with pytest.raises(ConfigError, match=r"l2\.partitions = 5 must divide l2\.slices = 96"):
        load("h200", {"l2.partitions": 5})
    with pytest.raises(ConfigError, match=r"l2\.partitions = 0 must be > 0"):
        load("h200", {"l2.partitions": 0})
    assert load("h200").l2.partitions == 2 and load("v100").l2.partitions == 1


def test_usable_l2_is_at_most_its_size_and_zero_means_all_of_it():
    with pytest.raises(ConfigError, match=r"l2\.usable_bytes = 62914561 exceeds l2\.size_bytes = 62914560"):
        load("h200", {"l2.usable_bytes": 62914561})
    with pytest.raises(ConfigError, match=r"l2\.usable_bytes = -1 must be >= 0"):
        load("h200", {"l2.usable_bytes": -1})
    assert load("h200", {"l2.usable_bytes": 0}).l2.usable == 62914560
    assert load("a100").l2.usable == load("a100").l2.size_bytes           # not measured: all of it


def test_dirty_data_at_a_kernels_start_fits_what_l2_keeps_dirty():
    with pytest.raises(ConfigError, match=r"l2\.dirty_at_start_bytes = 29491201 exceeds what L2 keeps dirty "
                                          r"\(l2\.dirty_bytes, or usable_bytes: 29491200\)"):
        load("h200", {"l2.dirty_at_start_bytes": 29491201})
    with pytest.raises(ConfigError, match=r"l2\.dirty_at_start_bytes = -1 must be >= 0"):
        load("h200", {"l2.dirty_at_start_bytes": -1})
    assert load("h200", {"l2.dirty_at_start_bytes": 0}).l2.dirty_at_start_bytes == 0
    assert load("a100", {"l2.model": "write_back", "l2.dirty_at_start_bytes": 4096}).l2.dirty_at_start_bytes == 4096
    assert load("h100", {"l2.model": "write_through"}).l2.model == "write_through"     # it holds none dirty


def test_size_not_a_multiple_of_line_times_assoc(tmp_path):
    # 16 ways x 128 B = 2048 B: 50 MB + 1024 leaves half a set.
    with pytest.raises(ConfigError, match=r"l2\.size_bytes = 52429824 must be a multiple of line_bytes x assoc = 2048"):
        load(_write(tmp_path, _edit("l2", "size_bytes", 52428800 + 1024)))
    with pytest.raises(ConfigError, match=r"l1\.size_bytes = 1000 "):
        load("tiny", {"l1.size_bytes": 1000})


def test_cross_field_checks_name_the_keys():
    with pytest.raises(ConfigError, match=r"l1\.line_bytes must be a multiple of l1\.sector_bytes"):
        load("h100", {"l1.sector_bytes": 256})
    with pytest.raises(ConfigError, match=r"sm\.max_threads exceeds max_warps x 32"):
        load("h100", {"sm.max_threads": 4096})
    with pytest.raises(ConfigError, match=r"sm\.max_warps must be a multiple of sm\.subpartitions"):
        load("h100", {"sm.max_warps": 66})
    with pytest.raises(ConfigError, match=r"sm\.carveouts_kb must be"):
        load("h100", {"sm.carveouts_kb": [0, 512]})                   # 512 KB > the 256 KB unified array
    with pytest.raises(ConfigError, match=r"sm\.carveouts_kb must be"):
        load("h100", {"sm.carveouts_kb": []})
    with pytest.raises(ConfigError, match=r"sm\.carveouts_kb must be"):
        load("h100", {"sm.carveouts_kb": [-8, 0]})
    with pytest.raises(ConfigError, match=r"sm\.max_shared_per_block_bytes exceeds sm\.shared_bytes"):
        load("v100", {"sm.max_shared_per_block_bytes": 98304 + 1024})


def test_non_finite_numbers_are_rejected(tmp_path):
    with pytest.raises(ConfigError, match=r"gpu\.clock_mhz must be a finite number"):
        load("h100", {"gpu.clock_mhz": float("nan")})
    path = tmp_path / "inf.toml"
    path.write_text(re.sub(r"(?m)^bandwidth_gbps = \S+", "bandwidth_gbps = inf", _text("h100")))
    with pytest.raises(ConfigError, match=r"dram\.bandwidth_gbps must be a finite number"):
        load(path)


def test_bad_sources():
    with pytest.raises(ConfigError, match=r"unknown config 'h300'.*a100, h100, h200, tiny, v100"):
        load("h300")
    with pytest.raises(ConfigError, match=r"config file /nonexistent/x\.toml not found"):
        load("/nonexistent/x.toml")
    with pytest.raises(ConfigError, match=r"must be a preset name.*got int"):
        load(100)


def test_invalid_toml(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[gpu]\nname = \n")
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML"):
        load(path)


def test_error_names_the_file(tmp_path):
    path = _write(tmp_path, _edit("l1", "assoc", 3), "named.toml")
    with pytest.raises(ConfigError, match=re.escape(str(path))):
        load(path)


# ---------------------------------------------------------------------------------------- overrides
def test_overrides_replace_values_and_nothing_else():
    base = load("h100")
    cfg = load("h100", {"l1.size_bytes": 65536, "pipes.fp32.latency_cycles": 6, "gpu.clock_mhz": 1500})
    assert cfg.l1.size_bytes == 65536 and base.l1.size_bytes == 262144
    assert cfg.pipes.fp32.latency_cycles == 6.0
    assert cfg.gpu.clock_mhz == 1500.0 and isinstance(cfg.gpu.clock_mhz, float)      # int accepted for float
    assert dataclasses.replace(cfg.l1, size_bytes=262144) == base.l1
    assert (cfg.l2, cfg.dram, cfg.sm, cfg.pipes.fp64) == (base.l2, base.dram, base.sm, base.pipes.fp64)


def test_override_of_a_defaulted_key():
    assert load("h100").seed == 0
    assert load("h100", {"seed": 7}).seed == 7


def test_override_of_a_list_and_a_whole_table():
    cfg = load("h100", {"sm.carveouts_kb": [0, 228]})
    assert cfg.sm.carveouts_kb == (0, 228) and isinstance(cfg.sm.carveouts_kb, tuple)
    fp64 = {"latency_cycles": 10, "issue_interval_cycles": 4}
    assert load("h100", {"pipes.fp64": fp64}).pipes.fp64.latency_cycles == 10.0


@pytest.mark.parametrize("key", ["l1.sise_bytes", "l3.size_bytes", "l1.assoc.x", "gpu.name.first",
                                 "source", "pipes.fp128.latency_cycles", "pipes.latency_cycles"])
def test_bad_override_key(key):
    with pytest.raises(ConfigError, match=re.escape(f"unknown config key {key!r}")):
        load("h100", {key: 1})


@pytest.mark.parametrize("key, value, message", [
    ("l1.assoc", 3, "l1.assoc = 3 must be a power of two"),
    ("l1.assoc", "8", "l1.assoc must be an integer, got '8'"),
    ("l2.hit_latency_cycles", -1, "l2.hit_latency_cycles = -1 must be > 0"),
    ("scheduler.policy", "oldest", "scheduler.policy = 'oldest'"),
])
def test_bad_override_value(key, value, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load("h100", {key: value})


# ------------------------------------------------------------------------------- paths, Config objects
def test_load_from_a_path(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(_text("a100").replace('name = "A100 SXM4 80GB"', 'name = "my A100"'))
    for arg in (path, str(path)):
        cfg = load(arg)
        assert cfg.name == "my A100" and cfg.source == str(path)
        assert dataclasses.replace(cfg, gpu=load("a100").gpu, source="a100") == load("a100")
    assert load(path, {"l1.assoc": 8}).l1.assoc == 8


def test_dumped_preset_round_trips(tmp_path):
    for name in PRESETS:
        assert dataclasses.replace(load(_write(tmp_path, _data(name), f"{name}.toml")), source=name) == load(name)


def test_a_config_passes_through():
    cfg = load("v100")
    assert load(cfg) is cfg
    changed = load(cfg, {"l1.assoc": 8, "seed": 3})
    assert (changed.l1.assoc, changed.seed, changed.source) == (8, 3, "v100")
    assert cfg.l1.assoc == 4 and cfg.seed == 0
    assert cfg.replace({"dram.latency_cycles": 500}).dram.latency_cycles == 500
    with pytest.raises(ConfigError, match=r"unknown config key 'l1\.nope'"):
        cfg.replace({"l1.nope": 1})


def test_config_is_frozen():
    cfg = load("tiny")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.l1.assoc = 8
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.gpu = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.pipes.fp32.latency_cycles = 1
    assert cfg.l1.assoc == 4 and hash(cfg.sm) == hash(load("tiny").sm)
    assert isinstance(cfg.sm, SmSpec) and cfg.name == "tiny (synthetic)"


@pytest.mark.parametrize("overrides,message", [
    ({"l2.sector_bytes": 64}, "l1.sector_bytes = 32 and l2.sector_bytes = 64 must be equal"),
    ({"l1.size_bytes": 524288}, "l1.size_bytes = 524288 exceeds sm.unified_l1_shared_bytes = 262144"),
    ({"dram.row_bytes": 16}, "dram.row_bytes = 16 must be a multiple of l2.sector_bytes = 32"),
    ({"scheduler.two_level_active": 17}, "scheduler.two_level_active = 17 exceeds the 16 warps"),
    ({"l1.sector_bytes": 256, "l2.sector_bytes": 256}, "l1.line_bytes must be a multiple of l1.sector_bytes"),
    ({"l2.model": "write_around"}, "l2.model = 'write_around'; choose one of write_back, write_through"),
    ({"dram.model": "gddr"}, "dram.model = 'gddr'; choose one of hbm"),
    ({"dram.slowest_sm_busy": [1, 4]}, "dram.slowest_sm_busy = [1, 4] and dram.slowest_sm_cycles = [0, "),
    ({"dram.slowest_sm_busy": [4, 1], "dram.slowest_sm_cycles": [0, 1]}, "busy SMs >= 1 and increasing"),
    ({"dram.slowest_sm_busy": [1, 4], "dram.slowest_sm_cycles": [0, -1]}, "cycles >= 0"),
])
def test_values_that_contradict_each_other_or_name_no_model_are_config_errors(overrides, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load("h100", overrides)
