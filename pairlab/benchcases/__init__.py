"""Benchmark cases for ``pairlab bench``: one module per topic, each with ``cases(quick)``."""
