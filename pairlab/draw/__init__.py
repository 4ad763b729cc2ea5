"""The drawing layer, free of Qt: what to draw, as plain arrays, for every canvas.

:mod:`~pairlab.draw.geometry` (the view map, bounds, covariance ellipses, link segments,
hit-testing), :mod:`~pairlab.draw.classes` (the colour slot of each point),
:mod:`~pairlab.draw.regions` (decision-region images), :mod:`~pairlab.draw.palette` (colours,
symbols, the figure style) and :mod:`~pairlab.draw.frames` (a :class:`~pairlab.draw.frames.Frame`:
everything one panel shows). The app's canvas (:mod:`pairlab.gui.canvas`) and the headless figures
(:mod:`pairlab.render`) both draw from these; nothing here imports Qt, the app or the renderer.
"""
