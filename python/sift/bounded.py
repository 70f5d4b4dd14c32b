"""Bounded results: a padded tensor and its valid count."""

from typing import Any, NamedTuple

__all__ = ["Bounded"]


class Bounded(NamedTuple):
    """A result whose size depended on data, as --sift-staticize returns
    it (docs/Staticize.md): `data`, padded to a static bound along one
    dimension, and `count`, how many entries along it are valid.

    `count` has the batch dimensions of a batched function (``[B]`` for
    ``--sift-batch``), or none; the padded dimension of `data` is the one
    right after them. Entries past the count are padding: do not read them.

    The pair stays on the device, with no host sync, until `trim` asks
    for the valid part.
    """

    data: Any
    count: Any

    def trim(self):
        """The valid part: ``data[:count]`` for an unbatched result; for a
        batched one, a list with the trimmed row of each batch entry
        (nested for several batch dimensions). Views, not copies.
        This reads the count: on a GPU, the one host sync."""
        count = self.count
        if getattr(count, "ndim", 0) == 0:
            return self.data[:int(count)]
        return [Bounded(self.data[i], count[i]).trim()
                for i in range(len(count))]
