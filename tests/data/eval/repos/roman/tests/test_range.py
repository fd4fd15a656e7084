# Written for candor's eval data (not part of zopefoundation/roman): the documented range of
# toRoman is 0..4999 ("number out of range (must be 0..4999)").
import unittest

import roman


class TestRange(unittest.TestCase):

    def test_toRoman_up_to_4999(self):
        self.assertEqual(roman.toRoman(4000), 'MMMM')
        self.assertEqual(roman.toRoman(4999), 'MMMMCMXCIX')

    def test_round_trip_above_3999(self):
        self.assertEqual(roman.fromRoman(roman.toRoman(4321)), 4321)

    def test_above_4999_is_out_of_range(self):
        self.assertRaises(roman.OutOfRangeError, roman.toRoman, 4999 + 1)
