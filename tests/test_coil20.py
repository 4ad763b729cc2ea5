"""The ``coil20`` data set: COIL-20 from the user's download (folder, zip or npz), GM-PR 4.3.2."""

import zipfile

import numpy as np
import pytest

from pairlab import get_registry
from pairlab.dataset import pca_project
from pairlab.errors import InvalidInputError

from .helpers import write_fake_coil

pytest.importorskip("PIL")
from PIL import Image


def _coil(**params):
    return get_registry().dataset("coil20").make(**params)


def test_folder_of_pngs_gives_rows_by_object_then_pose_and_labels_from_names(tmp_path):
    folder = tmp_path / "coil-20-proc"
    folder.mkdir()
    # object 10 after object 2 (numeric, not text, order); poses 0..11 likewise; 64x64 pixels
    for obj in (2, 10):
        for pose in range(12):
            img = np.full((64, 64), 10 * pose + obj, dtype=np.uint8)
            Image.fromarray(img, mode="L").save(folder / f"obj{obj}__{pose}.png")
    (folder / "readme.txt").write_text("not an image")
    data = _coil(path=str(folder))
    assert data.X.shape == (24, 32 * 32) and data.n_classes == 2
    assert data.y.tolist() == [1] * 12 + [9] * 12  # obj K -> label K - 1
    # constant images: every attribute is the grey level / 255
    expected = np.array([10 * p + o for o in (2, 10) for p in range(12)]) / 255.0
    np.testing.assert_allclose(data.X[:, 0], expected)
    np.testing.assert_allclose(data.X.std(axis=1), 0.0, atol=1e-12)


def test_images_are_box_filtered_to_block_means(tmp_path):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (128, 128)).astype(np.uint8)
    folder = tmp_path / "coil-20-proc"
    folder.mkdir()
    Image.fromarray(img, mode="L").save(folder / "obj1__0.png")
    Image.fromarray(img[::-1], mode="L").save(folder / "obj2__0.png")
    data = _coil(path=str(folder), size=32)
    blocks = img.reshape(32, 4, 32, 4).mean(axis=(1, 3)) / 255.0  # 4 x 4 block means
    np.testing.assert_allclose(data.X[0].reshape(32, 32), blocks, atol=1e-6)
    assert not np.allclose(data.X[0], data.X[1])


def test_zip_folder_and_data_dir_give_the_same_data_and_dims_projects(tmp_path):
    folder = write_fake_coil(tmp_path / "dir" / "coil-20-proc", n_objects=2, n_poses=6, size=32)
    with zipfile.ZipFile(tmp_path / "coil-20-proc.zip", "w") as z:
        for f in sorted(folder.iterdir()):
            z.write(f, f"coil-20-proc/{f.name}")
    raw = _coil(path=str(folder))
    zipped = _coil(path=str(tmp_path / "coil-20-proc.zip"))
    found = _coil(path=str(tmp_path / "dir"))  # a --data-dir holding the folder
    np.testing.assert_array_equal(raw.X, zipped.X)
    np.testing.assert_array_equal(raw.X, found.X)
    assert raw.X.shape == (12, 1024) and raw.y.tolist() == [0] * 6 + [1] * 6
    low = _coil(path=str(folder), dims=5)
    assert low.X.shape == (12, 5) and low.feature_names == tuple(f"PC{i}" for i in range(1, 6))
    np.testing.assert_allclose(low.X, pca_project(raw.X, 5), atol=1e-9)
    # principal components: uncorrelated, variances in decreasing order
    cov = np.cov(low.X.T)
    np.testing.assert_allclose(cov - np.diag(np.diag(cov)), 0.0, atol=1e-9)
    assert (np.diff(np.diag(cov)) <= 1e-12).all()


def test_npz_with_x_and_y(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.random((20, 1024)), np.repeat(np.arange(4), 5)
    np.savez(tmp_path / "coil20.npz", X=X, y=y)
    data = _coil(path=str(tmp_path))
    np.testing.assert_array_equal(data.X, X)
    assert data.y.tolist() == y.tolist()
    assert _coil(path=str(tmp_path / "coil20.npz"), dims=10).X.shape == (20, 10)


@pytest.mark.parametrize("make, needle", [
    (lambda p: p, "does not exist"),
    (lambda p: (p.mkdir(), p)[1], "no COIL images"),
])
def test_missing_or_empty_paths_say_what_to_give(tmp_path, make, needle):
    path = make(tmp_path / "nothing")
    with pytest.raises(InvalidInputError, match=needle) as err:
        _coil(path=str(path))
    assert "coil-20-proc" in str(err.value)
    with pytest.raises(InvalidInputError, match="not shipped"):
        _coil()
