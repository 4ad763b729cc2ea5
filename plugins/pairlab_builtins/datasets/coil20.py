"""COIL-20 (Columbia Object Image Library) from the user's own copy: GM-PR section 4.3.2.

COIL-20 is not shipped (it is a download from the CAVE lab at Columbia). ``path`` accepts what a
user has after downloading it:

* the folder ``coil-20-proc`` (from ``coil-20-proc.zip``): 1440 grey PNGs ``obj{1..20}__{0..71}.png``,
  128 x 128 pixels, 20 objects on a turntable at 72 poses 5 degrees apart;
* the zip file ``coil-20-proc.zip`` itself (the PNGs are read from it);
* an ``.npz`` with ``X`` (n, p) — one row per image, e.g. the common 32 x 32 version with 1024
  attributes — and ``y`` (n,).

GM-PR uses "1440 instances and 1024 attributes", i.e. 32 x 32 images. PNGs are reduced from
128 x 128 to ``size`` x ``size`` (32) by averaging blocks of pixels (box filter: each output
pixel is the mean of a 4 x 4 block), intensities scaled to [0, 1]; rows are ordered by object,
then pose, and the label of ``objK__P.png`` is ``K - 1``. An npz is used as it is.

``dims`` > 0 projects the images onto their first ``dims`` principal components (centred PCA,
:func:`pairlab.dataset.pca_project`). The paper projects "onto the low-dimensional subspace
(d = 10, 15, and 20)" without naming the method; PCA is what it uses for MNIST in section 4.2.2,
so that is the choice here.
"""

from __future__ import annotations

import functools
import re
import zipfile
from pathlib import Path

import numpy as np

from pairlab import Dataset, DatasetSpec, Param, hookimpl
from pairlab.dataset import pca_project
from pairlab.errors import InvalidInputError
from pairlab.tabular import load_table

__all__ = ["COIL20_FORMS", "find_coil20", "load_coil20"]

#: what ``--data-dir`` may hold, in the order looked for
COIL20_FORMS = ("coil20.npz", "coil-20-proc", "coil-20-proc.zip")
#: the processed images' names: obj<object 1..20>__<pose 0..71>.png
_NAME = re.compile(r"^obj(\d+)__(\d+)\.png$", re.IGNORECASE)
COIL20_HELP = ("coil-20-proc/ (the folder of 1440 PNGs obj1__0.png ... obj20__71.png from "
               "coil-20-proc.zip), coil-20-proc.zip itself, or coil20.npz with X (n, 1024) and "
               "y (n,)")


def find_coil20(data_dir: str | Path) -> Path | None:
    """The first of :data:`COIL20_FORMS` present in ``data_dir``, or None."""
    for name in COIL20_FORMS:
        path = Path(data_dir) / name
        if path.exists():
            return path
    return None


def _png_names(names: list[str]) -> list[tuple[int, int, str]]:
    """(object, pose, name) of the COIL images among ``names``, sorted by object then pose."""
    found = []
    for name in names:
        m = _NAME.match(Path(name).name)
        if m and not Path(name).name.startswith("."):
            found.append((int(m.group(1)), int(m.group(2)), name))
    return sorted(found)


def _downsample(image, size: int) -> np.ndarray:
    """A PIL image as ``size`` x ``size`` floats in [0, 1]: grey, then box-filtered (block means)."""
    from PIL import Image

    grey = image.convert("L")
    scale = 255.0
    if grey.size != (size, size):
        # float mode keeps the block means exact (no rounding to 8 bits)
        grey = grey.convert("F").resize((size, size), Image.Resampling.BOX)
    return np.asarray(grey, dtype=np.float64).reshape(-1) / scale


@functools.lru_cache(maxsize=4)
def _read_images(path: str, mtime: float, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) from a folder or zip of COIL PNGs; cached per (path, modification time, size)."""
    try:
        from PIL import Image
    except ImportError:
        raise InvalidInputError(
            "reading the COIL-20 PNGs needs pillow (`pip install pillow`, or "
            "`pip install pairlab[gui]`); or give an npz with X and y instead.") from None
    p = Path(path)
    rows, labels = [], []
    if p.is_dir():
        entries = _png_names([f.name for f in p.iterdir() if f.is_file()])
        for obj, _pose, name in entries:
            with Image.open(p / name) as im:
                rows.append(_downsample(im, size))
            labels.append(obj - 1)
    else:
        try:
            archive = zipfile.ZipFile(p)
        except zipfile.BadZipFile:
            raise InvalidInputError(f"{p} is not a zip file; give the coil-20-proc folder, "
                                    "coil-20-proc.zip or an npz with X and y.") from None
        with archive:
            entries = _png_names(archive.namelist())
            for obj, _pose, name in entries:
                with archive.open(name) as f, Image.open(f) as im:
                    rows.append(_downsample(im, size))
                labels.append(obj - 1)
    if not rows:
        raise InvalidInputError(
            f"no COIL images (files named like obj1__0.png) in {p}; give {COIL20_HELP}.")
    X, y = np.vstack(rows), np.asarray(labels, dtype=np.int64)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


@functools.lru_cache(maxsize=4)
def _pca_scores(path: str, mtime: float, size: int) -> np.ndarray:
    """The images' coordinates on all their principal components (one SVD serves every ``dims``:
    the first ``dims`` columns are :func:`pca_project` with ``dims`` components)."""
    X = _read_images(path, mtime, size)[0]
    scores = pca_project(X, min(X.shape))
    scores.setflags(write=False)
    return scores


def load_coil20(params: dict, rng: np.random.Generator) -> Dataset:
    """COIL-20 from ``params["path"]`` (folder, zip or npz), ``size`` x ``size`` pixels, optionally
    projected to ``dims`` principal components; ``rng`` is unused (the data are fixed)."""
    if not params["path"]:
        raise InvalidInputError(f"COIL-20 is not shipped; set path= to {COIL20_HELP}.")
    p = Path(params["path"]).expanduser()
    if p.is_dir() and not any(_NAME.match(f.name) for f in p.iterdir()):
        found = find_coil20(p)  # a data folder that holds one of the accepted forms
        if found is not None:
            p = found
    if not p.exists():
        raise InvalidInputError(f"{p} does not exist; give {COIL20_HELP}.")
    size = int(params["size"])
    if p.suffix.lower() == ".npz":
        table = load_table(p, label="y")
        if table.y is None:
            raise InvalidInputError(f"{p} has no labels y; COIL-20 needs y (the object of each image).")
        X, y = table.X, table.y
    else:
        key = (str(p.resolve()), p.stat().st_mtime, size)
        X, y = _read_images(*key)
    dims = int(params["dims"])
    names: tuple[str, ...] | None = None
    if dims:
        if dims > min(X.shape):
            raise InvalidInputError(f"dims={dims} exceeds the rank bound min(images, attributes) "
                                    f"= {min(X.shape)}; lower dims.")
        X = pca_project(X, dims) if p.suffix.lower() == ".npz" else _pca_scores(*key)[:, :dims]
        names = tuple(f"PC{i + 1}" for i in range(dims))
    X = np.array(X, dtype=np.float64)
    name = "coil20" + (f"-pca{dims}" if dims else "")
    return Dataset(X, np.asarray(y), name=name, feature_names=names)


DATASETS = [
    DatasetSpec(
        "coil20", "COIL-20 objects (your copy; 1440 images, 20 classes)", load_coil20,
        (
            Param("path", str, "", "the coil-20-proc folder, coil-20-proc.zip, an npz with X and "
                  "y, or a folder holding one of them"),
            Param("size", int, 32, "PNGs are box-filtered to size x size pixels (GM-PR: 32, "
                  "1024 attributes)", low=1),
            Param("dims", int, 0, "project onto this many principal components (GM-PR 4.3.2: "
                  "10, 15, 20); 0 = the pixels", low=0),
        ),
        description="Columbia's 20 objects x 72 poses, from the user's download (not shipped); "
                    "GM-PR section 4.3.2 uses 32x32 pixels projected to d = 10, 15, 20.",
    ),
]


@hookimpl
def pairlab_datasets():
    return DATASETS
