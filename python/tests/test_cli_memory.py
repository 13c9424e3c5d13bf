"""The `gguf` CLI's peak memory on hostile headers of a megabyte: a million tiny fields must not
cost a gigabyte of rendering. Each command runs in a child process whose peak resident size the
kernel reports (`os.wait4`); the bound is a constant for the process plus a multiple of the file.
(The Rust suites bound the library's own allocations; this bounds what the commands add.)"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

MB = 1 << 20
# what the process costs before it reads anything, and what each byte of header may cost: the
# byte layout's model takes about 30 bytes per header byte when every field is a few bytes long
BASE = 24 * MB
PER_BYTE = 64


def header(n_tensors: int, n_kv: int) -> bytearray:
    return bytearray(b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_kv))


def name3(i: int, nul: bool) -> bytes:
    """A distinct three-letter name for each i below 195,112 (with a NUL after the first)."""
    letters = bytes([65 + i % 58, 65 + i // 58 % 58, 65 + i // 3364 % 58])
    return letters[:1] + b"\0" + letters[1:] if nul else letters


def tiny_pairs(nul: bool) -> bytearray:
    """65k key-value pairs of one byte each."""
    n = MB // 16
    b = header(0, n)
    for i in range(n):
        k = name3(i, nul)
        b += struct.pack("<Q", len(k)) + k + struct.pack("<I", 0) + b"\x01"
    return b


def empty_tensors() -> bytearray:
    """30k tensor infos of one zero dimension."""
    n = MB // 35
    b = header(n, 0)
    for i in range(n):
        k = name3(i, False)
        b += struct.pack("<Q", len(k)) + k + struct.pack("<IQIQ", 1, 0, 0, 0)
    b += b"\0" * (-len(b) % 32)
    return b


def invalid_values() -> bytearray:
    """43k pairs whose values break rules that a permissive reading goes past."""
    n = MB // 24
    b = header(0, n)
    for i in range(n):
        b += struct.pack("<Q", 3) + name3(i, False)
        b += struct.pack("<I", 7) + b"\x02" if i % 2 == 0 else struct.pack("<IQ", 8, 1) + b"\xff"
    return b


def nested_pairs() -> bytearray:
    """Arrays nested 43k deep, each beside an empty sibling."""
    depth = (MB - 64) // 24
    b = header(0, 1) + struct.pack("<Q", 1) + b"k" + struct.pack("<I", 9)
    b += struct.pack("<IQ", 9, 2) * depth + struct.pack("<IQ", 0, 0) * (depth + 1)
    return b


FILES = {
    "tiny-pairs": lambda: tiny_pairs(False),
    "tiny-pairs-nul": lambda: tiny_pairs(True),
    "empty-tensors": empty_tensors,
    "invalid-values": invalid_values,
    "nested-pairs": nested_pairs,
}

COMMANDS = [
    ["info"],
    ["dump"],
    ["dump", "--json"],
    ["dump", "--markdown"],
    ["validate"],
    ["audit"],
    ["tensors"],
    ["layout"],
    ["layout", "--json"],
    ["report", "-o", "{out}"],
]


# Run in a fresh interpreter, which forks and execs the command: a child's peak counts the pages
# it had before exec, so forking the test process itself (hundreds of MB once numpy, pyarrow and
# Ray are imported) would report the test's own size.
MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        os.execv(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def peak_of(argv: list) -> tuple:
    """The exit code and peak resident bytes of `argv`, its output discarded."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True,
                         timeout=600, check=True)
    code, peak = out.stdout.split()
    return int(code), int(peak)


@pytest.mark.skipif(sys.platform != "linux", reason="SKIP: ru_maxrss in kilobytes is Linux's")
@pytest.mark.parametrize("name", sorted(FILES))
def test_commands_stay_within_a_multiple_of_the_file(gguf: Path, tmp_path: Path, name: str):
    f = tmp_path / (name + ".gguf")
    f.write_bytes(FILES[name]())
    size = f.stat().st_size
    bound = BASE + PER_BYTE * size
    over = []
    for i, cmd in enumerate(COMMANDS):
        args = [a.format(out=tmp_path / ("r%d.html" % i)) for a in cmd]
        code, peak = peak_of([str(gguf), *args, str(f)])
        assert code in (0, 1, 2), (cmd, code)  # 2: audit cannot audit an invalid file
        if peak > bound:
            over.append("%s: %.0f MB (bound %.0f MB)" % (" ".join(cmd), peak / MB, bound / MB))
    assert not over, "%s, %d bytes: %s" % (name, size, "; ".join(over))
