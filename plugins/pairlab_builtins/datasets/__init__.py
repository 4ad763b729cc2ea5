"""Data-set plugins: synthetic shapes, the papers' figures, scikit-learn's bundled sets, user tables."""
