"""Run a notebook in a real Jupyter kernel (nbclient + ipykernel) on this venv's interpreter."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
QT_CHECK = ('import sys\nprint("qt modules:", sorted(m for m in sys.modules '
            'if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6")))')


def this_python_kernel() -> type:
    """A kernel manager that starts ipykernel on ``sys.executable`` (whatever kernelspec exists)."""
    from jupyter_client.manager import KernelManager

    class ThisPython(KernelManager):
        def format_kernel_cmd(self, extra_arguments: Any = None) -> list[str]:
            return [sys.executable, "-m", "ipykernel_launcher", "-f", self.connection_file]

    return ThisPython


def execute(nb: Any, cwd: Path, timeout: int = 180) -> Any:
    """Execute ``nb`` in place with ``cwd`` as the kernel's working folder; returns it.
    A cell that raises fails the call (nbclient's CellExecutionError names the cell)."""
    import nbclient

    nb.metadata["kernelspec"] = KERNELSPEC
    nbclient.NotebookClient(nb, timeout=timeout, kernel_manager_class=this_python_kernel(),
                            resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def outputs(nb: Any) -> list[dict[str, Any]]:
    """Every output of every code cell, in order."""
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def text(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
