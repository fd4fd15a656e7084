#!/bin/sh
# An external candor evaluator in plain sh: the HTML file named by the assertion's "path" has a
# non-empty <title>. Reads {"assertion": {"type", "path"}, "workspace": ...} on stdin, prints
# {"passed": bool, "message": "..."}. Register it in .candor/config.json:
#
#   "evaluators": {"html_has_title": {"command": ["sh", ".candor/evaluators/html_has_title.sh"],
#                                     "args": {"path": {"type": "string", "required": true}}}}
#
# The JSON is read with sed, which is enough for the flat objects candor sends; a real evaluator
# with nested arguments would use jq or a language with a JSON parser.
set -u
input=$(cat)
path=$(printf '%s' "$input" | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
workspace=$(printf '%s' "$input" | sed -n 's/.*"workspace":"\([^"]*\)".*/\1/p')
if [ -z "$path" ]; then
  echo '{"passed": false, "message": "the assertion has no path"}'
  exit 0
fi
file="$workspace/$path"
if [ ! -f "$file" ]; then
  printf '{"passed": false, "message": "%s does not exist"}\n' "$path"
  exit 0
fi
title=$(tr '\n' ' ' < "$file" | sed -n 's/.*<title>\([^<]*\)<\/title>.*/\1/p' | sed 's/^ *//; s/ *$//; s/"/\\"/g')
if [ -n "$title" ]; then
  printf '{"passed": true, "message": "%s has the title \\"%s\\""}\n' "$path" "$title"
else
  printf '{"passed": false, "message": "%s has no non-empty <title>"}\n' "$path"
fi
