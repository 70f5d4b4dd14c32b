"""Writes a .npy file with the standard library only, whatever its header
claims: write_npy.py OUT DESCR SHAPE [VALUES]

SHAPE is a comma-separated tuple ("4,3", "" for rank 0); VALUES are the
elements, comma-separated, packed with DESCR's struct format (they may be
fewer than the shape says: hostile headers); "V*N" repeats V N times.
"raw:HEX" writes bytes as is.
"""
import struct
import sys

out, descr, shape = sys.argv[1], sys.argv[2], sys.argv[3]
values = sys.argv[4] if len(sys.argv) > 4 else ""
dims = [int(d) for d in shape.split(",") if d.strip()]
tup = "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tup)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
if values.startswith("raw:"):
    data = bytes.fromhex(values[4:])
else:
    fmt = {"<f4": "f", "<f8": "d", "<i8": "q", "<i4": "i", "|b1": "B",
           "|u1": "B", "|i1": "b"}[descr]
    items = []
    for v in values.split(","):
        if v.strip():
            value, _, count = v.partition("*")
            items += [value] * int(count or 1)
    conv = float if fmt in "fd" else int
    data = struct.pack("<%d%s" % (len(items), fmt), *map(conv, items))
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
            header.encode() + data)
