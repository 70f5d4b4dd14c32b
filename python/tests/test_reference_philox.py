"""The Philox reference against the published known-answer vectors."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from sift.reference import philox  # noqa: E402


class PhiloxKnownAnswers(unittest.TestCase):
    # Known-answer vectors of Random123 (kat_vectors, philox4x32 10 rounds).
    def test_zero(self):
        self.assertEqual(
            philox.philox4x32_10((0, 0, 0, 0), (0, 0)),
            (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8))

    def test_all_ones(self):
        self.assertEqual(
            philox.philox4x32_10((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2),
            (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD))

    def test_pi_digits(self):
        self.assertEqual(
            philox.philox4x32_10(
                (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
                (0xA4093822, 0x299F31D0)),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))


class Streams(unittest.TestCase):
    def test_stream_layout(self):
        # Block 1 of stream (seed, offset) is Philox of counter (1, 0, lo, hi).
        seed, offset = 0x0123456789ABCDEF, 0x00000002_00000003
        w = philox.words(seed, offset, 8)
        key = (0x89ABCDEF, 0x01234567)
        self.assertEqual(tuple(w[4:8]),
                         philox.philox4x32_10((1, 0, 3, 2), key))

    def test_offsets_are_independent_streams(self):
        self.assertNotEqual(philox.words(7, 0, 16), philox.words(7, 1, 16))
        self.assertNotEqual(philox.words(7, 0, 16), philox.words(8, 0, 16))

    def test_uniform_range(self):
        for width in (32, 64):
            u = philox.random_uniform(42, 0, 4096, width)
            self.assertTrue(all(0.0 <= x < 1.0 for x in u))
            self.assertAlmostEqual(sum(u) / len(u), 0.5, delta=0.02)

    def test_randperm_is_a_permutation(self):
        for n in (0, 1, 2, 5, 1000):
            p = philox.randperm(n, 1234)
            self.assertEqual(sorted(p), list(range(n)))
        self.assertNotEqual(philox.randperm(50, 1), philox.randperm(50, 2))


if __name__ == "__main__":
    unittest.main()
