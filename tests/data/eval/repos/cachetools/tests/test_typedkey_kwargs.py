# Written for candor's eval data (not part of tkem/cachetools): typedkey() tells keyword
# arguments of different types apart, as it does positional ones.
import unittest

import cachetools.keys


class TypedKeyKeywordsTest(unittest.TestCase):
    def test_typedkey_keyword_types(self, key=cachetools.keys.typedkey):
        self.assertNotEqual(key(x=1), key(x=1.0))
        self.assertNotEqual(key(1, 2, x=3), key(1, 2, x=3.0))
        self.assertEqual(key(1, 2, x=3), key(1, 2, x=3))

    def test_typedmethodkey_keyword_types(self, key=cachetools.keys.typedmethodkey):
        self.assertNotEqual(key("self", x=1), key("self", x=1.0))
