"""pairlab's built-in plugins.

Each module here is registered through the ``pairlab`` entry point group in pyproject.toml,
exactly as a third-party plugin would be.
"""
