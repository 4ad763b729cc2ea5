"""cProfile of one switch to presentation mode (F11) while running at 20,000 points.

Run: ``python assets/bench/f11.py``; compare ``CanvasLayers.set_style`` between code versions.
"""

import cProfile
import os
import pstats

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    from PySide6 import QtCore, QtWidgets

    from pairlab.gui.app import MainWindow
    from pairlab.gui.model import Lab

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    lab = Lab()
    lab.set_dataset("two-moons", {"n_samples": 20000}, seed=0)
    lab.add_pane("gmm", {"n_components": 2})
    lab.add_random_links(3, 3)
    window = MainWindow(lab, autosave=False)
    window.resize(1200, 800)
    window.show()
    window.wait_idle(60)
    window.transport.run_to_end()
    QtCore.QThread.msleep(300)
    app.processEvents()
    profile = cProfile.Profile()
    profile.enable()
    window.presentation.toggle_presentation()
    app.processEvents()
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(12)
    window.transport.cancel()
    window.wait_idle(60)


if __name__ == "__main__":
    main()
