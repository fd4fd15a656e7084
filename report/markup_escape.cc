// The one escaping of text into HTML and XML (report/formats.h): the HTML report and JUnit's XML
// differ only in how a single quote is written and in XML 1.0 having no control characters.
#include "report/formats.h"

namespace candor::report {
namespace {

enum class Markup { kHtml, kXml };

std::string escape_markup(const std::string& s, Markup markup) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += markup == Markup::kXml ? "&apos;" : "&#39;";
        break;
      default:
        if (markup == Markup::kXml && c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';  // not representable in XML 1.0
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

}  // namespace

std::string escape_html(const std::string& s) { return escape_markup(s, Markup::kHtml); }
std::string escape_xml(const std::string& s) { return escape_markup(s, Markup::kXml); }

}  // namespace candor::report
