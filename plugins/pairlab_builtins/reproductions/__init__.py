"""Reproduction plugins: one module per paper, each recipe a figure or table of it."""
