"""Install a plugin package from source into a throwaway target folder (what `pip install` does)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def pip_install_target(source: Path, target: Path) -> Path:
    """``pip install --no-deps --no-build-isolation --target TARGET`` a copy of ``source``.

    The copy keeps setuptools' build/ and egg-info litter out of the work tree. Needs a
    setuptools that builds wheels by itself (>= 70.1, in the ``test`` extra).
    """
    work = target.parent / f"{source.name}-src"
    shutil.copytree(source, work, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", ".pytest_cache"))
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--disable-pip-version-check", "--target", str(target), str(work)],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, (
        f"pip could not install {source.name} (is setuptools >= 70.1 installed? "
        f"`pip install -e '.[test]'`):\n{out.stdout}\n{out.stderr}"
    )
    return work


def env_with(target: Path, external: bool = True) -> dict[str, str]:
    """The environment of a subprocess that sees the packages in ``target``."""
    env = dict(os.environ)
    if external:
        env.pop("PAIRLAB_DISABLE_PLUGINS", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(target), env.get("PYTHONPATH")]))
    return env
