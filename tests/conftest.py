import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))


def pytest_collection_modifyitems(config, items):
    """The long tests (marked ``slow``) first, each group in its own order, so that with the README's ``-n auto
    --dist worksteal`` (pytest-xdist) the short ones fill in around them (CI on two cores: 795 s, 24 min in
    one process). The last minutes still go to lab 3's full-size sweeps, in turn on one worker (each sweep
    runs on every core itself)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
