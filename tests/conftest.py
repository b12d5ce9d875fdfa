import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))


def pytest_collection_modifyitems(config, items):
    """The long tests (marked ``slow``) first, each group in its own order: with the README's ``-n auto``
    (pytest-xdist) the workers then take the long ones while there is still work to balance them with,
    and do not end on one of them alone."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
