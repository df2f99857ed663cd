#!/usr/bin/python3
"""Walk one application's accessibility tree with pyatspi (a cross-check for treeglass).

Usage:
    /usr/bin/python3 scripts/pyatspi-walk.py APPNAME|--pid PID [--json] [--repeat N] [--wait SECONDS]

APPNAME is matched against the names of the desktop's children (exact match first, then
case-insensitive substring); --pid PID picks the application with that process id. The walk is pre-order via getChildAtIndex from the application
node (which is included in the count), with libatspi's default caching, the way Accerciser and
dogtail read trees.

Output:
    default       indented tree: "<role> \"<name>\"" per node, then "node_count: N"
    --json        {"node_count": N, "nodes": [{"role", "role_id", "name", "depth"}, ...]}
    --repeat N    times N full walks: {"node_count": N, "times_ms": [...], "median_ms": X}
    --wait S      poll up to S seconds for the application to appear (default 0)
Exit status: 0, 1 if the application is not found, 2 on usage errors.
"""

import json
import signal
import statistics
import sys
import time

import pyatspi


def usage(code=2):
    sys.stderr.write(__doc__)
    sys.exit(code)


def parse(argv):
    app, as_json, repeat, wait = None, False, 0, 0.0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--pid" and i + 1 < len(argv) and app is None:
            app = int(argv[i + 1])
            i += 1
        elif a == "--json":
            as_json = True
        elif a == "--repeat" and i + 1 < len(argv):
            repeat = int(argv[i + 1])
            i += 1
        elif a == "--wait" and i + 1 < len(argv):
            wait = float(argv[i + 1])
            i += 1
        elif a in ("-h", "--help"):
            usage(0)
        elif a.startswith("-"):
            usage()
        elif app is None:
            app = a
        else:
            usage()
        i += 1
    if app is None:
        usage()
    return app, as_json, repeat, wait


def find_app(name):
    desktop = pyatspi.Registry.getDesktop(0)
    apps = []
    for i in range(desktop.childCount):
        try:
            a = desktop.getChildAtIndex(i)
        except Exception:
            continue
        if a is not None:
            apps.append(a)
    if isinstance(name, int):
        for a in apps:
            try:
                if a.get_process_id() == name:
                    return a
            except Exception:
                pass
        return None
    for a in apps:
        if a.name == name:
            return a
    for a in apps:
        if a.name and name.lower() in a.name.lower():
            return a
    return None


def walk(root):
    """Pre-order list of (depth, (role_name, role_number), name). The name is libatspi's own,
    which changes between versions (role 43: "push button" in 2.46, "button" in 2.56); the
    number is what the app said."""
    out = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        try:
            role = (node.getRoleName(), int(node.getRole()))
        except Exception:
            role = ("?", -1)
        try:
            name = node.name or ""
        except Exception:
            name = ""
        out.append((depth, role, name))
        try:
            n = node.childCount
        except Exception:
            n = 0
        # Never enumerate what an element manages (a spreadsheet's cells: enumerating them
        # hangs LibreOffice), nor a child count beyond 10,000: treeglass reads neither.
        try:
            if n > 10000 or n > 0 and node.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS):
                n = 0
        except Exception:
            pass
        kids = []
        for i in range(max(n, 0)):
            try:
                c = node.getChildAtIndex(i)
            except Exception:
                c = None
            if c is not None:
                kids.append(c)
        for c in reversed(kids):
            stack.append((c, depth + 1))
    return out


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    name, as_json, repeat, wait = parse(sys.argv[1:])
    deadline = time.monotonic() + wait
    app = find_app(name)
    while app is None and time.monotonic() < deadline:
        time.sleep(0.1)
        app = find_app(name)
    if app is None:
        desktop = pyatspi.Registry.getDesktop(0)
        names = [desktop.getChildAtIndex(i).name for i in range(desktop.childCount)]
        sys.stderr.write("pyatspi-walk: no application %r on the desktop (have: %r)\n"
                         % (name, names))
        sys.exit(1)

    if repeat > 0:
        times = []
        count = 0
        for _ in range(repeat):
            t0 = time.perf_counter()
            count = len(walk(app))
            times.append(round((time.perf_counter() - t0) * 1000.0, 3))
        print(json.dumps({"node_count": count, "times_ms": times,
                          "median_ms": statistics.median(times)}))
        return

    nodes = walk(app)
    if as_json:
        print(json.dumps({"node_count": len(nodes),
                          "nodes": [{"role": r, "role_id": i, "name": n, "depth": d}
                                    for d, (r, i), n in nodes]}))
    else:
        for d, (r, _), n in nodes:
            print("%s%s %s" % ("  " * d, r, json.dumps(n)))
        print("node_count: %d" % len(nodes))


if __name__ == "__main__":
    main()
