"""tarot-analysis: the statistics of French Tarot and its relatives."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tarot-analysis")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
