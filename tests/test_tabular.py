"""The user-file loader (pairlab.tabular) and the ``csv`` data set."""

import numpy as np
import pytest

from pairlab import get_registry
from pairlab.errors import InvalidInputError
from pairlab.tabular import load_table, parse_csv_text


def _write(tmp_path, text, name="data.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_header_label_and_feature_names(tmp_path):
    p = _write(tmp_path, "sepal,petal,species\n1.0,2,setosa\n3,4.5,virginica\n5,6,setosa\n")
    t = load_table(p, label="species")
    assert t.feature_names == ("sepal", "petal")
    assert t.X.tolist() == [[1, 2], [3, 4.5], [5, 6]]
    assert t.y.tolist() == ["setosa", "virginica", "setosa"]
    data = get_registry().dataset("csv").make(path=str(p), label="-1")
    assert data.y.tolist() == [0, 1, 0] and data.feature_names == ("sepal", "petal")
    assert data.name == "data" and data.source["params"]["path"] == str(p)


def test_no_header_semicolon_and_whitespace():
    t = parse_csv_text("# comment\n1;2;0\n\n3;4;1\n", label="2")
    assert t.X.tolist() == [[1, 2], [3, 4]] and t.y.tolist() == [0, 1]
    assert t.feature_names == ("x1", "x2")
    t = parse_csv_text("1 2  3\n4 5 6\n")
    assert t.X.shape == (2, 3) and t.y is None
    t = parse_csv_text("a\tb\n1\t2\n")
    assert t.feature_names == ("a", "b")
    with pytest.raises(InvalidInputError, match="line 1, column 1: 'x' is not a number"):
        parse_csv_text("x,y\n1,2\n", header="no")


# (file text, label, line that must be named, words the message must contain)
MALFORMED = [
    ("a,b,c\n1,2,3\n4,5\n6,7,8\n", None, 3, ["has 2 fields", "3"]),
    ("1,2,3\n4,5,6\n7,8,9,10\n", None, 3, ["has 4 fields", "line 1 has 3"]),
    ("a,b\n1,2\n3,abc\n", None, 3, ["column 2 ('b')", "'abc' is not a number"]),
    ("a,b\n1,2\n\n# note\n3,\n", None, 5, ["column 2 ('b')", "missing value"]),
    ("a,b\n1,NA\n", None, 2, ["column 2", "missing value 'NA'"]),
    ("a,b,y\n1,2,0\n3,4,?\n", "y", 3, ["column 3 ('y')", "missing label"]),
    ("a,b\n1,2\n3,inf\n", None, 3, ["not a finite number"]),
    ("1,2\n3,x\n", None, 2, ["column 2", "'x' is not a number"]),
]


@pytest.mark.parametrize(("text", "label", "line", "words"), MALFORMED)
def test_malformed_csv_errors_name_the_line(tmp_path, text, label, line, words):
    p = _write(tmp_path, text)
    with pytest.raises(InvalidInputError) as err:
        load_table(p, label=label)
    msg = str(err.value)
    assert f"line {line}" in msg and "data.csv" in msg, msg
    for w in words:
        assert w in msg, msg
    with pytest.raises(InvalidInputError, match=f"line {line}"):  # also through the plugin
        get_registry().dataset("csv").make(path=str(p), label=label or "")


def test_text_in_the_first_row_suggests_the_label_column():
    with pytest.raises(InvalidInputError, match="pass label='kind'"):
        parse_csv_text("a,kind\n1,cat\n2,dog\n")


def test_bad_label_column_and_paths(tmp_path):
    p = _write(tmp_path, "a,b\n1,2\n")
    with pytest.raises(InvalidInputError, match="label column 'class' not found"):
        load_table(p, label="class")
    with pytest.raises(InvalidInputError, match="out of range"):
        load_table(p, label="5")
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_table(tmp_path / "nope.csv")
    with pytest.raises(InvalidInputError, match="set path=FILE"):
        get_registry().dataset("csv").make()
    with pytest.raises(InvalidInputError, match="no data rows"):
        load_table(_write(tmp_path, "# only a comment\n", "e.csv"))
    with pytest.raises(InvalidInputError, match="no feature columns"):
        parse_csv_text("y\n1\n2\n", label="y")


def test_npz(tmp_path):
    X = np.arange(12.0).reshape(4, 3)
    np.savez(tmp_path / "d.npz", X=X, y=np.array([1, 1, 2, 2]), feature_names=np.array(["u", "v", "w"]))
    data = get_registry().dataset("csv").make(path=str(tmp_path / "d.npz"), standardize=True)
    assert np.allclose(data.X.mean(axis=0), 0) and np.allclose(data.X.std(axis=0), 1)
    assert data.y.tolist() == [1, 1, 2, 2] and data.feature_names == ("u", "v", "w")
    np.savez(tmp_path / "bad.npz", data=X)
    with pytest.raises(InvalidInputError, match="array named 'X'"):
        load_table(tmp_path / "bad.npz")
    X[2, 1] = np.nan
    np.savez(tmp_path / "nan.npz", X=X)
    with pytest.raises(InvalidInputError, match="row 2 .0-based., column 1"):
        load_table(tmp_path / "nan.npz")
