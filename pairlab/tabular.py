"""Read a user's table (CSV/TSV text or NumPy NPZ) into features, optional labels and names.

Every problem is reported with the file's line number (1-based, as an editor shows it) and the
column (1-based number and header name) so the user knows exactly what to fix.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InvalidInputError

__all__ = ["Table", "load_table", "parse_csv_text"]

#: cells read as a missing value (compared case-insensitively, after stripping blanks)
MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "?", "-", "missing"})
_DELIMITERS = ",;\t|"


@dataclass(frozen=True)
class Table:
    """Features ``X`` (n, d), labels ``y`` (raw values, or None) and one name per feature."""

    X: np.ndarray
    y: np.ndarray | None
    feature_names: tuple[str, ...]
    label_name: str | None = None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _guess_delimiter(lines: list[str]) -> str | None:
    """The delimiter splitting the first data lines into equally many (> 1) fields; None = blanks."""
    sample = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")][:20]
    best, best_fields = None, 1
    for d in _DELIMITERS:
        counts = {len(next(csv.reader([ln], delimiter=d))) for ln in sample}
        if len(counts) == 1 and (fields := counts.pop()) > best_fields:
            best, best_fields = d, fields
    if best is None:
        for d in _DELIMITERS:  # ragged files: the delimiter found most often still wins
            if sample and d in sample[0]:
                return d
    return best


def _label_column(label: str | int | None, header: list[str] | None, n_cols: int) -> int | None:
    if label is None or (isinstance(label, str) and label.strip() == ""):
        return None
    text = str(label).strip()
    if header is not None and text in header:
        return header.index(text)
    try:
        idx = int(text)
    except ValueError:
        known = f"; the header has {header}" if header is not None else " (the file has no header)"
        raise InvalidInputError(f"label column {text!r} not found{known}; give its name or "
                                "its 0-based index (negative counts from the end).") from None
    if not -n_cols <= idx < n_cols:
        raise InvalidInputError(f"label column index {idx} is out of range for {n_cols} columns "
                                f"(use 0..{n_cols - 1}, or -1 for the last).")
    return idx % n_cols


def parse_csv_text(text: str, *, label: str | int | None = None, header: str = "auto",
                   delimiter: str | None = None, source: str = "CSV") -> Table:
    """Parse delimited text. ``header`` is ``"auto"``, ``"yes"`` or ``"no"``; ``delimiter`` None
    guesses among ``, ; tab |`` (else runs of blanks); lines starting with ``#`` are comments."""
    if header not in ("auto", "yes", "no"):
        raise InvalidInputError(f"header must be 'auto', 'yes' or 'no', got {header!r}.")
    lines = text.splitlines()
    if delimiter in (None, "", "auto"):
        delimiter = _guess_delimiter(lines)
    elif delimiter in ("tab", "\\t"):
        delimiter = "\t"
    rows: list[tuple[int, list[str]]] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if delimiter is None or delimiter == " ":
            cells = line.split()
        else:
            cells = next(csv.reader(io.StringIO(line), delimiter=delimiter))
        rows.append((lineno, [c.strip() for c in cells]))
    if not rows:
        raise InvalidInputError(f"{source} has no data rows.")
    names: list[str] | None = None
    first = rows[0][1]
    if header == "yes":
        has_header = True
    elif header == "no":
        has_header = False
    else:
        second = rows[1][1] if len(rows) > 1 else []
        has_header = any(
            not _is_number(c) and c.lower() not in MISSING and j < len(second) and _is_number(second[j])
            for j, c in enumerate(first)) or (len(rows) == 1 and not any(map(_is_number, first)))
    if has_header:
        names = [c or f"column {j + 1}" for j, c in enumerate(first)]
        header_line = rows[0][0]
        rows = rows[1:]
        if not rows:
            raise InvalidInputError(f"{source} has a header (line {header_line}) but no data rows.")
    width = len(names) if names is not None else len(rows[0][1])
    ref = f"the header on line {header_line}" if names is not None else f"line {rows[0][0]}"
    for lineno, cells in rows:
        if len(cells) != width:
            raise InvalidInputError(
                f"{source} line {lineno} has {len(cells)} fields but {ref} has {width}; every row "
                "needs the same number of fields (check for a missing or extra delimiter).")
    lab = _label_column(label, names, width)
    feat_cols = [j for j in range(width) if j != lab]
    if not feat_cols:
        raise InvalidInputError(f"{source} has no feature columns besides the label column.")

    def col_name(j: int) -> str:
        return f"column {j + 1}" + (f" ({names[j]!r})" if names is not None else "")

    X = np.empty((len(rows), len(feat_cols)))
    y = [] if lab is not None else None
    for r, (lineno, cells) in enumerate(rows):
        for k, j in enumerate(feat_cols):
            cell = cells[j]
            if cell.lower() in MISSING:
                raise InvalidInputError(
                    f"{source} line {lineno}, {col_name(j)}: missing value {cell!r}; remove or "
                    "impute that row.")
            try:
                value = float(cell)
            except ValueError:
                hint = (" If this is the class column, pass label=" + repr(names[j] if names else str(j))
                        + ".") if r == 0 or lab is None else ""
                raise InvalidInputError(
                    f"{source} line {lineno}, {col_name(j)}: {cell!r} is not a number.{hint}"
                ) from None
            if not np.isfinite(value):
                raise InvalidInputError(
                    f"{source} line {lineno}, {col_name(j)}: {cell!r} is not a finite number.")
            X[r, k] = value
        if y is not None:
            cell = cells[lab]
            if cell.lower() in MISSING:
                raise InvalidInputError(
                    f"{source} line {lineno}, {col_name(lab)}: missing label {cell!r}.")
            y.append(cell)
    feature_names = tuple(names[j] for j in feat_cols) if names is not None else tuple(
        f"x{k + 1}" for k in range(len(feat_cols)))
    labels = None
    if y is not None:
        labels = np.array([float(v) for v in y]) if all(map(_is_number, y)) else np.array(y)
    return Table(X, labels, feature_names, names[lab] if names is not None and lab is not None else None)


def _load_npz(path: Path, label: str | int | None) -> Table:
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"cannot read NPZ file {str(path)!r}: {exc}") from None
    if "X" not in arrays:
        raise InvalidInputError(f"NPZ file {str(path)!r} needs an array named 'X' (features); it "
                                f"has {sorted(arrays)}. Save with numpy.savez(path, X=X, y=y).")
    X = arrays["X"]
    if X.ndim != 2 or X.dtype.kind not in "iufb":
        raise InvalidInputError(f"NPZ array 'X' must be a numeric 2-D array, got {X.dtype} "
                                f"with shape {X.shape}.")
    bad = np.argwhere(~np.isfinite(X.astype(float)))
    if bad.size:
        r, c = bad[0]
        raise InvalidInputError(f"NPZ array 'X' row {r} (0-based), column {c}: missing or "
                                "non-finite value; remove or impute it.")
    key = "y" if label in (None, "") else str(label)
    y = arrays.get(key)
    if label not in (None, "") and y is None:
        raise InvalidInputError(f"NPZ file has no array {key!r} for the labels; it has {sorted(arrays)}.")
    if y is not None and y.shape != (X.shape[0],):
        raise InvalidInputError(f"NPZ labels {key!r} must have shape ({X.shape[0]},), got {y.shape}.")
    names = arrays.get("feature_names")
    if names is not None and names.shape == (X.shape[1],):
        feature_names = tuple(str(s) for s in names)
    else:
        feature_names = tuple(f"x{k + 1}" for k in range(X.shape[1]))
    return Table(np.asarray(X, dtype=float), y, feature_names, key if y is not None else None)


def load_table(path: str | os.PathLike[str], *, label: str | int | None = None,
               header: str = "auto", delimiter: str | None = None) -> Table:
    """Load a CSV/TSV/text file or an ``.npz`` (arrays ``X``, optional ``y``, ``feature_names``).

    ``label`` names the class column (header name or 0-based index; for NPZ, the array name,
    default ``y`` when present). The label column may hold text (e.g. ``setosa``).
    """
    path = Path(str(path)).expanduser()
    if not str(path) or str(path) == ".":
        raise InvalidInputError("no file given; set path=FILE (a .csv, .tsv, .txt or .npz file).")
    if not path.is_file():
        raise InvalidInputError(f"data file {str(path)!r} does not exist or is not a file.")
    if path.suffix.lower() == ".npz":
        return _load_npz(path, label)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{str(path)!r} is not UTF-8 text ({exc}); save it as UTF-8 CSV, "
                                "or as .npz.") from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read {str(path)!r}: {exc}") from None
    return parse_csv_text(text, label=label, header=header, delimiter=delimiter, source=path.name)
