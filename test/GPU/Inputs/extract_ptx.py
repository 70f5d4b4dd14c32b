#!/usr/bin/env python3
"""Writes the PTX of every gpu.binary in MLIR text (from stdin or a file) to
OUT_DIR/<binary name>.ptx, one file per kernel module (after removing the
.ptx and .cubin files an earlier run left there), and prints their paths. The PTX is the `assembly = "..."` string of a format=isa object, with
MLIR's string escapes (\\XX hex, \\\\, \\")."""
import os
import re
import sys


def unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in "\\\"":
                out += nxt.encode()
                i += 2
                continue
            if nxt == "n":
                out += b"\n"
                i += 2
                continue
            if nxt == "t":
                out += b"\t"
                i += 2
                continue
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
            continue
        out += c.encode()
        i += 1
    return out.decode()


def main():
    out_dir = sys.argv[1]
    source = open(sys.argv[2]).read() if len(sys.argv) > 2 else sys.stdin.read()
    os.makedirs(out_dir, exist_ok=True)
    # Files of an earlier run (other kernel names) must not be checked.
    for stale in os.listdir(out_dir):
        if stale.endswith((".ptx", ".cubin")):
            os.remove(os.path.join(out_dir, stale))
    binaries = re.findall(
        r'gpu\.binary @(\w+).*?assembly = "((?:[^"\\]|\\.)*)"', source)
    if not binaries:
        sys.exit("extract_ptx: no gpu.binary with PTX assembly in the input")
    for name, asm in binaries:
        path = os.path.join(out_dir, name + ".ptx")
        with open(path, "w") as f:
            f.write(unescape(asm))
        print(path)


if __name__ == "__main__":
    main()
