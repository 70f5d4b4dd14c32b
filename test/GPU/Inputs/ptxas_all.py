#!/usr/bin/env python3
"""Assembles every .ptx file of a folder with ptxas -v for one architecture
and prints ptxas's reports, file by file in name order: usage
ptxas_all.py PTXAS ARCH DIR. Exits with ptxas's failure, if any."""
import os
import subprocess
import sys


def main():
    ptxas, arch, folder = sys.argv[1:4]
    status = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ptx"):
            continue
        path = os.path.join(folder, name)
        print("== " + name, flush=True)
        run = subprocess.run([ptxas, "-v", "-arch=" + arch, path, "-o",
                              path[:-4] + "." + arch + ".cubin"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        sys.stdout.write(run.stdout)
        status = status or run.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
