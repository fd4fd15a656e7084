#include "sandbox/credential_values.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "sandbox/secret_files.h"

namespace candor::sandbox {
namespace {

constexpr std::string_view kSpace = " \t\r\n";
constexpr std::size_t kNpos = std::string_view::npos;

std::string_view trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(kSpace);
  if (b == kNpos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool is_quote(char c) { return c == '"' || c == '\'' || c == '`'; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && is_quote(s.front()) && s.back() == s.front()) return s.substr(1, s.size() - 2);
  return s;
}

// A key read the way variables are (names_a_secret): upper case, '-', '.' and ' ' as '_', without
// quotes or PHP's '$'.
std::string normalized_key(std::string_view key) {
  key = unquote(trim(key));
  if (!key.empty() && key.front() == '$') key.remove_prefix(1);
  std::string out;
  for (char c : key) {
    out += c == '-' || c == '.' || c == ' ' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

// The variable rule, and the names files use where variables would not: `auth` (Docker's and
// npm's base64 user:password), `passwd`, `pwd`, a bare `key`.
bool secret_key(std::string_view key) {
  std::string k = normalized_key(key);
  if (k.empty()) return false;
  if (names_a_secret(k)) return true;
  static constexpr std::array<std::string_view, 6> kExact = {"PWD", "PASSWD",      "AUTH",
                                                             "KEY", "CREDENTIALS", "CREDENTIAL"};
  if (std::find(kExact.begin(), kExact.end(), k) != kExact.end()) return true;
  return ends_with(k, "_AUTH") || k.find("PASSWORD") != std::string::npos || k.find("PASSWD") != std::string::npos;
}

// What a generator makes (an API key, a base64 blob), not what a person types as configuration.
bool token_shaped(std::string_view v) {
  if (v.size() < 16 || v.find_first_of(kSpace) != kNpos || v.find("://") != kNpos) return false;
  if (v.front() == '/' || v.front() == '~' || v.front() == '.') return false;  // a path
  bool letter =
      std::any_of(v.begin(), v.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
  bool digit = std::any_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  return letter && digit;
}

class Collector {
 public:
  void pair(std::string_view key, std::string_view value) {
    if (value.size() >= 8 && (secret_key(key) || looks_like_credential_value(value) || token_shaped(value))) add(value);
  }
  void add(std::string_view value) {
    if (!value.empty()) values.emplace_back(value);
  }
  std::vector<std::string> values;
};

// The value after a separator: a quoted one up to its closing quote, else up to an inline " #",
// without a trailing ',' or ';'.
std::string_view value_of(std::string_view rest) {
  rest = trim(rest);
  if (!rest.empty() && is_quote(rest.front())) {
    std::size_t close = rest.find(rest.front(), 1);
    return close == kNpos ? rest.substr(1) : rest.substr(1, close - 1);
  }
  if (std::size_t hash = rest.find(" #"); hash != kNpos) rest = rest.substr(0, hash);
  rest = trim(rest);
  while (!rest.empty() && (rest.back() == ',' || rest.back() == ';')) rest.remove_suffix(1);
  return trim(rest);
}

// The quoted strings of `s`, in order ('...' or "...", no escapes): PHP's define('KEY', 'VALUE').
std::vector<std::string_view> quoted_strings(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '"' && s[i] != '\'') continue;
    std::size_t close = s.find(s[i], i + 1);
    if (close == kNpos) break;
    out.push_back(s.substr(i + 1, close - i - 1));
    i = close;
  }
  return out;
}

void line_pair(std::string_view line, Collector& c) {
  line = trim(line);
  if (line.empty() || line.front() == '#' || line.front() == ';' || line.front() == '[') return;
  if (starts_with(line, "- ")) line = trim(line.substr(2));  // a YAML list item
  if (starts_with(line, "export ")) line = trim(line.substr(7));
  if (starts_with(lower(line.substr(0, 7)), "define(")) {
    auto strings = quoted_strings(line);
    if (strings.size() >= 2) c.pair(strings[0], strings[1]);
    return;
  }
  std::size_t sep = line.find_first_of("=:");
  if (sep == kNpos || sep == 0) return;
  if (line[sep] == ':' && line.substr(sep + 1, 2) == "//") return;  // a URL, not a key (url_secrets reads it)
  std::string_view key = trim(line.substr(0, sep));
  if (key.find_first_of(" \t") != kNpos && !(is_quote(key.front()) && key.back() == key.front())) return;  // a sentence
  c.pair(key, value_of(line.substr(sep + 1)));
}

// Where the JSON string literal starting at `i` (a '"') ends, past its closing quote; kNpos when
// it does not end on its line.
std::size_t json_string_end(std::string_view s, std::size_t i) {
  for (std::size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\') {
      ++j;
    } else if (s[j] == '"') {
      return j + 1;
    } else if (s[j] == '\n') {
      return kNpos;
    }
  }
  return kNpos;
}

std::string json_unescape(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 == raw.size()) {
      out += raw[i];
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u':  // kept as written: a secret is rarely outside ASCII, and then the raw form is masked
        out += "\\u";
        break;
      default:
        out += e;  // '"', '\\', '/'
    }
  }
  return out;
}

// `"key": "value"` anywhere, minified JSON included.
void json_pairs(std::string_view text, Collector& c) {
  std::size_t i = text.find('"');
  while (i != kNpos) {
    std::size_t end = json_string_end(text, i);
    if (end == kNpos) {
      i = text.find('"', i + 1);
      continue;
    }
    std::size_t colon = text.find_first_not_of(kSpace, end);
    std::size_t v = colon != kNpos && text[colon] == ':' ? text.find_first_not_of(kSpace, colon + 1) : kNpos;
    std::size_t v_end = v != kNpos && text[v] == '"' ? json_string_end(text, v) : kNpos;
    if (v_end == kNpos) {
      i = text.find('"', end);
      continue;
    }
    std::string_view key = text.substr(i + 1, end - i - 2);
    std::string_view raw = text.substr(v + 1, v_end - v - 2);
    c.pair(key, raw);
    if (std::string plain = json_unescape(raw); plain != raw) c.pair(key, plain);
    i = text.find('"', v_end);
  }
}

// The body lines of every PEM private key block, split at line breaks and at the "\n" a JSON
// string writes for them.
void pem_bodies(std::string_view text, Collector& c) {
  for (std::size_t at = text.find("-----BEGIN "); at != kNpos; at = text.find("-----BEGIN ", at + 1)) {
    std::size_t label_end = text.find("-----", at + 11);
    if (label_end == kNpos) return;
    std::string_view label = text.substr(at + 11, label_end - at - 11);
    if (label.find("PRIVATE") == kNpos && label.find("ENCRYPTED") == kNpos) continue;  // a certificate is public
    std::size_t body = label_end + 5;
    std::size_t end = std::min(text.find("-----END ", body), text.size());
    std::string_view rest = text.substr(body, end - body);
    while (!rest.empty()) {
      std::size_t cut = std::min(rest.find_first_of("\r\n"), rest.find("\\n"));
      std::string_view piece = trim(rest.substr(0, cut));
      if (piece.find(':') == kNpos) c.add(piece);  // not a header (Proc-Type:, DEK-Info:)
      if (cut == kNpos) break;
      rest = rest.substr(cut + (rest[cut] == '\\' ? 2 : 1));
    }
  }
}

// Every URL that carries a credential: the URL, its password, its credential parameters' values.
void url_secrets(std::string_view text, Collector& c) {
  constexpr std::string_view kUrlEnd = " \t\r\n\"'`)<>";
  for (std::size_t at = text.find("://"); at != kNpos; at = text.find("://", at + 3)) {
    std::size_t start = text.find_last_of(kUrlEnd, at);
    start = start == kNpos ? 0 : start + 1;
    if (std::size_t eq = text.find_last_of("=", at); eq != kNpos && eq >= start) start = eq + 1;  // KEY=scheme://
    std::size_t end = std::min(text.find_first_of(kUrlEnd, at), text.size());
    std::string_view url = text.substr(start, end - start);
    if (!looks_like_credential_value(url)) continue;
    c.add(url);
    std::string_view rest = text.substr(at + 3, end - at - 3);
    std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    std::size_t userinfo_end = authority.rfind('@');
    if (userinfo_end == kNpos) userinfo_end = rest.rfind('@');
    if (userinfo_end != kNpos) {
      std::string_view userinfo = rest.substr(0, userinfo_end);
      if (std::size_t colon = userinfo.find(':'); colon != kNpos) c.add(userinfo.substr(colon + 1));
    }
    for (std::size_t p = rest.find_first_of("?&"); p != kNpos; p = rest.find_first_of("?&", p + 1)) {
      std::size_t eq = rest.find('=', p + 1);
      if (eq == kNpos) break;
      std::string name = normalized_key(rest.substr(p + 1, eq - p - 1));
      std::string_view value = rest.substr(eq + 1, rest.find_first_of("&#", eq + 1) - eq - 1);
      if (secret_key(name) || name == "SIG") c.add(value);
    }
  }
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    if (nl == kNpos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// The formats a name fixes: `.pgpass` (host:port:db:user:password), `.netrc` (`password X`),
// `.htpasswd` (user:hash).
void named_format(std::string_view name, std::string_view text, Collector& c) {
  if (name == ".pgpass") {
    for (std::string_view line : lines_of(text)) {
      line = trim(line);
      if (line.empty() || line.front() == '#') continue;
      int colons = 0;  // unescaped ones ("\\:" is a colon inside a field)
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\\') {
          ++i;
        } else if (line[i] == ':' && ++colons == 4) {
          c.add(line.substr(i + 1));
          break;
        }
      }
    }
  } else if (name == ".netrc" || name == "_netrc") {
    std::vector<std::string_view> words;
    for (std::size_t i = 0; i < text.size();) {
      std::size_t b = text.find_first_not_of(kSpace, i);
      if (b == kNpos) break;
      std::size_t e = std::min(text.find_first_of(kSpace, b), text.size());
      words.push_back(text.substr(b, e - b));
      i = e;
    }
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "password" || words[i] == "passwd" || words[i] == "account") c.add(words[i + 1]);
    }
  } else if (name == ".htpasswd") {
    for (std::string_view line : lines_of(text)) {
      if (std::size_t colon = line.find(':'); colon != kNpos) c.add(trim(line.substr(colon + 1)));
    }
  }
}

}  // namespace

std::vector<std::string> credential_file_values(std::string_view name, std::string_view content) {
  if (content.substr(0, 8000).find('\0') != kNpos) return {};  // binary: git's test
  std::string_view text = content.substr(0, kMaxValueScan);
  Collector c;
  for (std::string_view line : lines_of(text)) line_pair(line, c);
  json_pairs(text, c);
  pem_bodies(text, c);
  url_secrets(text, c);
  named_format(lower(name), text, c);
  if (std::string_view whole = trim(text); whole.find('\n') == kNpos && whole.size() <= 4096) c.add(whole);
  return std::move(c.values);
}

std::vector<std::string> credential_variable_values(std::string_view value) {
  Collector c;
  c.add(value);
  url_secrets(value, c);
  pem_bodies(value, c);
  return std::move(c.values);
}

}  // namespace candor::sandbox
