"""Algorithm plugins: one module per paper or family; each registers through its own entry point."""
