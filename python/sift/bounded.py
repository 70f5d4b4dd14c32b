"""Bounded results: a padded tensor and its valid count."""

from typing import Any, NamedTuple

__all__ = ["Bounded"]


class _Pair(NamedTuple):
    data: Any
    count: Any


class Bounded(_Pair):
    """A result whose size depended on data, as --sift-staticize returns
    it (docs/Staticize.md): `data`, padded to a static bound along one
    dimension, and `count`, how many entries along it are valid.

    `count` has the batch dimensions of a batched function (``[B]`` for
    ``--sift-batch``), or none; the padded dimension of `data` is `dim`
    after them: 0, the one right after them, unless the data-dependent
    dimension is a later one (``x[:, mask]`` has ``dim == 1``). Entries
    past the count are padding: do not read them.

    The pair stays on the device, with no host sync, until `trim` asks
    for the valid part. It is a named pair ``(data, count)``; `dim` is an
    attribute.
    """

    def __new__(cls, data, count, dim=0):
        self = super().__new__(cls, data, count)
        self.dim = int(dim)
        return self

    def __repr__(self):
        along = f", dim={self.dim}" if self.dim else ""
        return f"Bounded(data={self.data!r}, count={self.count!r}{along})"

    def trim(self):
        """The valid part: ``data[:count]`` for an unbatched result
        (``data[:, :count]`` for ``dim == 1``); for a batched one, a list
        with the trimmed row of each batch entry (nested for several batch
        dimensions). Views, not copies.
        This reads the count: on a GPU, the one host sync."""
        count = self.count
        if getattr(count, "ndim", 0) == 0:
            return self.data[(slice(None),) * self.dim +
                             (slice(0, int(count)),)]
        return [Bounded(self.data[i], count[i], self.dim).trim()
                for i in range(len(count))]
