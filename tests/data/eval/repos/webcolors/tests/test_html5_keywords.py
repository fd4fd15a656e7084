"""
Written for candor's eval data (not part of ubernostrum/webcolors): the HTML5 legacy color
parsing algorithm matches color keywords ASCII case-insensitively.

"""
import unittest

import webcolors


class HTML5LegacyKeywordCaseTests(unittest.TestCase):
    """
    Keywords in any case parse to the keyword's color.

    """

    def test_parse_legacy_color_keyword_case(self):
        self.assertEqual(webcolors.html5_parse_legacy_color("ChartReuse"), (127, 255, 0))
        self.assertEqual(webcolors.html5_parse_legacy_color("NAVY"), (0, 0, 128))
