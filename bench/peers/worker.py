#!/usr/bin/env python3
"""One implementation of the benchmark, in its own process: reads cases,
one JSON object a line, on stdin, runs each as it comes, and prints one JSON
line per event on stdout (run.py writes the cases and reads the events, so
it can decide on the next case from the last result):

  {"event": "versions", ...}               what the implementation runs on
  {"event": "result", ...}                 a case's status, times and check

    worker.py IMPL [--repeat R] [--budget SECONDS] < cases
"""

import argparse
import importlib
import json
import sys
import traceback

# Implementation -> the module that holds it; only that module is imported,
# so that one peer's libraries never run in another's process.
MODULES = {
    "torch-dynamic": "torch_impl",
    "torch-static": "torch_impl",
    "torch-compile-static": "torch_impl",
    "torch-compile-dynamic": "torch_impl",
    "torch": "torch_impl",
    "torch-compile": "torch_impl",
    "jax": "jax_impl",
    "sift-hand": "sift_impl",
    "sift-auto": "sift_impl",
    "sift-auto-sort": "sift_impl",
    "sift": "sift_impl",
    "bandwidth": "bandwidth",
}


def emit(**fields):
    print(json.dumps(fields), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("impl", choices=sorted(MODULES))
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--budget", type=float, default=10.0,
                    help="seconds of timed calls per case, at most")
    args = ap.parse_args()

    module = importlib.import_module(MODULES[args.impl])
    if hasattr(module, "versions"):
        emit(event="versions", **module.versions())
    for line in sys.stdin:
        case = json.loads(line)
        run = module.IMPLS[args.impl].get(case["task"])
        try:
            if run is None:
                rec = {"status": "n/a"}
            else:
                rec = run(case, args.repeat, args.budget)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            rec = {"status": "failed",
                   "reason": "%s: %s" % (type(exc).__name__,
                                         str(exc).strip()[:400])}
        emit(event="result", **rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
