#!/usr/bin/env python3
"""An external candor evaluator: every line of a file is at most `max` characters long.

candor runs it in the process sandbox (workspace read-only, no network) with one JSON object on
stdin: {"assertion": {"type", "path", "max"}, "workspace": "/abs/path", "step": {...} or null},
and reads one JSON object from stdout: {"passed": bool, "message": "what was observed"}.
Register it in .candor/config.json:

  "evaluators": {"max_line_length": {
      "command": ["python3", ".candor/evaluators/max_line_length.py"],
      "args": {"path": {"type": "string", "required": true}, "max": {"type": "integer", "required": true}}}}
"""
import json
import os
import sys


def main() -> int:
    request = json.load(sys.stdin)
    assertion = request["assertion"]
    path = os.path.join(request["workspace"], assertion["path"])
    limit = int(assertion["max"])
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(json.dumps({"passed": False, "message": f"{assertion['path']}: {e.strerror}"}))
        return 0
    too_long = [(n, len(line)) for n, line in enumerate(lines, 1) if len(line) > limit]
    if too_long:
        n, length = too_long[0]
        message = f"{assertion['path']}: {len(too_long)} line(s) over {limit} characters, first line {n} ({length})"
    else:
        message = f"{assertion['path']}: all {len(lines)} lines are at most {limit} characters"
    print(json.dumps({"passed": not too_long, "message": message}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
