"""What replacing a file by rename costs on this file system (issue 37): 1,000 files of 700 bytes
written (open O_EXCL, write, close) and renamed over the file of the same name, against the same
with the old file unlinked first; rounds alternate, wall and CPU time a file. On ext4 a rename
that replaces a file starts writing the new file's data at once (auto_da_alloc).

    python docs/measurements/trial_file_replace.py
"""

from __future__ import annotations

import os
import tempfile
import time

N, DATA = 1000, b"x" * 700


def loop(folder: str, unlink: bool) -> str:
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(N):
        tmp, final = f"{folder}/.f{i}.tmp", f"{folder}/f{i}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, DATA)
        os.close(fd)
        if unlink:
            try:
                os.unlink(final)
            except FileNotFoundError:
                pass
        os.replace(tmp, final)
    return (f"{'unlink' if unlink else 'replace':8s} wall {1e3 * (time.perf_counter() - wall) / N:.3f} "
            f"cpu {1e3 * (time.process_time() - cpu) / N:.3f} ms a file")


def main() -> None:
    one, two = tempfile.mkdtemp(), tempfile.mkdtemp()
    print(loop(one, False), "(new files)")
    print(loop(two, True), "(new files)")
    for _ in range(4):
        print(loop(one, False))
        print(loop(two, True))


if __name__ == "__main__":
    main()
