#!/usr/bin/env python3
"""Trust a project and its hooks for Codex CLI without the TUI, through
Codex's own app-server (JSON-RPC over stdio), as Codex's `/hooks` screen does.

Written for candor (issue 26); Python standard library only; no code copied.
Protocol facts come from `codex app-server generate-json-schema` (Codex
0.169.0): methods `initialize`, `hooks/list` (HooksListParams {cwds}) and
`config/batchWrite` (ConfigBatchWriteParams {edits: [{keyPath, value,
mergeStrategy}]}).  Codex keeps the trust in $CODEX_HOME/config.toml:

    [projects."/abs/ws"]
    trust_level = "trusted"
    [hooks.state."/abs/ws/.codex/hooks.json:stop:0:0"]
    trusted_hash = "sha256:..."      # the hook's currentHash from hooks/list

Why this exists: Codex 0.169 runs a project's .codex/hooks.json only when (1)
the project is trusted and (2) each non-managed hook's current definition
hash is trusted; otherwise the hook is skipped *silently* (exec prints only
"Untrusted project-local configuration is disabled" for (1) and nothing for
(2)).  `codex exec --trust --dangerously-bypass-hook-trust` is the one-shot
alternative.  The hash covers the hook's definition in hooks.json (command,
timeout, ...), not the script the command runs: editing hooks.json makes the
hook "modified" (skipped again); editing the script does not.

Usage:
    codex_trust_hooks.py --codex BIN --cwd DIR [--project] [--list-only]
Environment: CODEX_HOME (as Codex uses it).  Prints a JSON summary on stdout.
Exit: 0 ok, 1 app-server error, 2 nothing to trust found.
"""

import argparse
import json
import subprocess
import sys


class AppServer:
    def __init__(self, codex):
        self.p = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:  # skip notifications (configWarning, remoteControl/...)
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"app-server closed during {method}")
            msg = json.loads(line)
            if msg.get("id") == rid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.p.stdin.flush()

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def toml_key(s):
    """A TOML basic-string key, as Codex's keyPath segments expect."""
    return json.dumps(s)


def main():
    ap = argparse.ArgumentParser(description="Trust a Codex project and its hooks")
    ap.add_argument("--codex", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--project", action="store_true",
                    help="also mark --cwd as a trusted project (needed for .codex/ there)")
    ap.add_argument("--list-only", action="store_true")
    a = ap.parse_args()
    srv = AppServer(a.codex)
    out = {"project_trusted": False, "trusted": [], "already": [], "skipped": []}
    try:
        srv.call("initialize", {"clientInfo": {"name": "candor-trust", "version": "0"}})
        srv.notify("initialized")
        if a.project and not a.list_only:
            srv.call("config/batchWrite", {"edits": [{
                "keyPath": f"projects.{toml_key(a.cwd)}.trust_level",
                "value": "trusted", "mergeStrategy": "upsert"}]})
            out["project_trusted"] = True
        listing = srv.call("hooks/list", {"cwds": [a.cwd]})
        edits = []
        for entry in listing.get("data", []):
            for h in entry.get("hooks", []):
                rec = {"key": h["key"], "event": h["eventName"], "command": h.get("command"),
                       "status": h["trustStatus"]}
                if h["trustStatus"] in ("untrusted", "modified"):
                    edits.append({"keyPath": f"hooks.state.{toml_key(h['key'])}.trusted_hash",
                                  "value": h["currentHash"], "mergeStrategy": "upsert"})
                    out["trusted"].append(rec)
                elif h["trustStatus"] in ("trusted", "managed"):
                    out["already"].append(rec)
                else:
                    out["skipped"].append(rec)
            out.setdefault("warnings", []).extend(entry.get("warnings", []))
            out.setdefault("errors", []).extend(entry.get("errors", []))
        if a.list_only:
            out["would_trust"] = out.pop("trusted")
        elif edits:
            srv.call("config/batchWrite", {"edits": edits})
    except Exception as e:  # report, never hang
        print(json.dumps({"error": str(e)}), flush=True)
        return 1
    finally:
        srv.close()
    print(json.dumps(out, indent=1))
    return 0 if (out.get("trusted") or out.get("already") or out.get("would_trust")) else 2


if __name__ == "__main__":
    sys.exit(main())
