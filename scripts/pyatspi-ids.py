#!/usr/bin/python3
"""Map a web page's element ids to AT-SPI object paths, read with pyatspi (a cross-check for
treeglass: its findings name elements by bus name and object path, a page names them by id).

Usage:
    /usr/bin/python3 scripts/pyatspi-ids.py --pid PID

Prints one JSON object: {"<id attribute>": {"path": "<object path>", "role": "<role name>",
"name": "<name>"}} for every element of the application whose object attributes carry an `id`
(Chromium and Firefox both expose the DOM id so). Exit status: 0, 1 if the application is not
found, 2 on usage errors.
"""

import json
import sys

import pyatspi


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "--pid":
        sys.stderr.write(__doc__)
        sys.exit(2)
    pid = int(sys.argv[2])
    desktop = pyatspi.Registry.getDesktop(0)
    app = None
    for i in range(desktop.childCount):
        try:
            a = desktop.getChildAtIndex(i)
            if a is not None and a.get_process_id() == pid:
                app = a
                break
        except Exception:
            pass
    if app is None:
        sys.stderr.write(f"no application with pid {pid}\n")
        sys.exit(1)
    out = {}
    stack = [app]
    while stack:
        n = stack.pop()
        try:
            attrs = dict(a.split(":", 1) for a in n.getAttributes() if ":" in a)
        except Exception:
            attrs = {}
        i = attrs.get("id")
        if i and i not in out:
            out[i] = {"path": n.path, "role": n.getRoleName(), "name": n.name}
        try:
            kids = [n.getChildAtIndex(k) for k in range(n.childCount)]
        except Exception:
            kids = []
        stack.extend(k for k in reversed(kids) if k is not None)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
