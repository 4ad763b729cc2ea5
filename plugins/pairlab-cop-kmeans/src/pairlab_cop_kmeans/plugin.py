"""The module the ``pairlab`` entry point names: hook implementations only."""

from pairlab import hookimpl

from .algorithm import COPKMeans

#: The pairlab plugin API this plugin was written for; pairlab refuses to load it under another.
PAIRLAB_API_VERSION = 1


@hookimpl
def pairlab_algorithms():
    return [COPKMeans]
