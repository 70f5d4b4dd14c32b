"""sift: static masked rewrites of data-dependent tensor programs.

Only the pure-Python reference implementations live here so far
(`sift.reference`); the compiled-function bindings come with the Python issue.
"""
