// Reading a transcript a record at a time from a stream, so that importing a file costs memory
// bounded by its largest record (a line, an array element), never by the file's size. Both readers
// refuse a record over kMaxTranscriptLineBytes, naming the file and where, before holding more.
#pragma once

#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "core/result.h"

namespace candor::import {

// JSON Lines. Each non-blank line is handed over in file order with its 1-based number.
// `at_end_without_newline` is true for a last line that has no newline after it (a file still
// being written may stop in the middle of such a line).
class LineReader {
 public:
  // `in` is borrowed and must outlive the reader.
  LineReader(std::istream& in, std::string source);
  // Ok(true) with the next line, Ok(false) at the end. A line over the limit is read past, not
  // held, and named in oversized() (one unreadable record is not an unreadable transcript: an
  // ordinary 17 MB Write would otherwise hide every record after it).
  Result<bool> next(std::string& line);
  int line_number() const { return number_; }
  bool at_end_without_newline() const { return unterminated_; }
  // "SOURCE:LINE (N bytes)" of each line read past for its size.
  const std::vector<std::string>& oversized() const { return oversized_; }

 private:
  std::vector<std::string> oversized_;
  std::istream& in_;
  std::string source_;
  int number_ = 0;
  bool unterminated_ = false;
};

// One JSON document read piecewise: the members of the top-level object and the elements of an
// array are handed over one at a time as their own text (parsed by the caller), so a document of
// any size needs memory for one member at a time. Strings and brackets inside strings are read as
// such; the parse of each piece says what else is wrong.
class JsonScanner {
 public:
  // `in` is borrowed and must outlive the scanner.
  JsonScanner(std::istream& in, std::string source);

  // The next non-blank byte, not consumed; EOF at the end.
  int peek();
  // The text of the next value (any type), at most kMaxTranscriptLineBytes.
  Result<std::string> value_text();
  // The next value is an array: `visit` gets each element's text, in order, and the line it begins on.
  Status each_element(const std::function<Status(std::string, int line)>& visit);
  // The next value is an object: `visit` gets each member's key and must consume its value (with
  // value_text, each_element or each_member).
  Status each_member(const std::function<Status(const std::string& key)>& visit);
  // After the document: only blanks may follow.
  Status expect_end();
  // "SOURCE:LINE:COL" of the next byte, for messages; its line.
  std::string where() const;
  int line() const { return line_; }

 private:
  int get();
  Status expect(char c, const char* what);

  std::istream& in_;
  std::string source_;
  int line_ = 1, column_ = 1;
};

}  // namespace candor::import
