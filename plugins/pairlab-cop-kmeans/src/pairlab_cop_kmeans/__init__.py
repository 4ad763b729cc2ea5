"""COP-KMeans (Wagstaff et al. 2001) as a pairlab plugin: ``pairlab run cop-kmeans ...``."""

from .algorithm import COPKMeans, InfeasibleAssignmentError

__version__ = "0.1.0"
__all__ = ["COPKMeans", "InfeasibleAssignmentError", "__version__"]
