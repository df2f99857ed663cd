#!/usr/bin/python3
"""Raw D-Bus baselines for the reader benchmark (benches/atspi.rs): what one app's own
accessibility bridge costs, measured without treeglass.

Usage:
    /usr/bin/python3 scripts/bus-baselines.py --pid PID [--repeat N]
    /usr/bin/python3 scripts/bus-baselines.py --pid PID --probe

With --probe, prints {"cache": true|false}: whether the app answers Cache.GetItems at all (an
ATK bridge has no cache until some client registers for events).

Prints one JSON object:
    getitems_ms     median time of one org.a11y.atspi.Cache.GetItems call on the app
    getitems_items  how many items it returned
    level_walk_ms   median time of a pipelined per-level walk from the app's root: every
                    element of a level asked at once for GetRole, Properties.Get(Name) and
                    GetChildren, then the next level (the least a (role, name) tree needs)
    level_walk_nodes elements that walk reached (the application included)

Only calls libatspi itself sends are used (no Properties.GetAll). Needs A11Y_BUS_ADDRESS
(scripts/a11y-session exports it).
"""

import json
import os
import statistics
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

ACC = "org.a11y.atspi.Accessible"


def connect():
    addr = os.environ.get("A11Y_BUS_ADDRESS") or os.environ.get("AT_SPI_BUS_ADDRESS")
    if not addr:
        sys.exit("bus-baselines: A11Y_BUS_ADDRESS is not set (run inside scripts/a11y-session)")
    flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
             | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    return Gio.DBusConnection.new_for_address_sync(addr, flags, None, None)


def bus_of_pid(conn, pid):
    reply = conn.call_sync("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", ACC,
                           "GetChildren", None, None, 0, 5000, None)
    for bus, _path in reply.unpack()[0]:
        try:
            p = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                               "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                               GLib.Variant("(s)", (bus,)), None, 0, 2000, None).unpack()[0]
        except GLib.Error:
            continue
        if p == pid:
            return bus
    sys.exit("bus-baselines: no application with pid %d on the bus" % pid)


def getitems(conn, bus):
    """(ms, items), or None for an app without a cache (Qt has none)."""
    t = time.perf_counter()
    try:
        reply = conn.call_sync(bus, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems",
                               None, None, 0, 10000, None)
    except GLib.Error as e:
        if "UnknownMethod" in str(e) or "UnknownObject" in str(e) or "UnknownInterface" in str(e):
            return None
        raise
    ms = (time.perf_counter() - t) * 1000.0
    return ms, len(reply.unpack()[0])


def level_walk(conn, bus):
    """Pipelined per-level walk; returns (ms, nodes)."""
    loop = GLib.MainLoop()
    t = time.perf_counter()
    state = {"pending": 0, "next": [], "count": 0}
    seen = set()

    def done(_conn, res, kind_path):
        kind, path = kind_path
        try:
            v = conn.call_finish(res).unpack()
        except GLib.Error:
            v = None
        if kind == "children" and v is not None:
            for b, p in v[0]:
                if b == bus and p not in seen and p != "/org/a11y/atspi/null":
                    seen.add(p)
                    state["next"].append(p)
        state["pending"] -= 1
        if state["pending"] == 0:
            level = state["next"]
            state["next"] = []
            if level:
                issue(level)
            else:
                loop.quit()

    def issue(level):
        state["count"] += len(level)
        for p in level:
            state["pending"] += 3
            conn.call(bus, p, ACC, "GetRole", None, None, 0, 5000, None, done, ("role", p))
            conn.call(bus, p, "org.freedesktop.DBus.Properties", "Get",
                      GLib.Variant("(ss)", (ACC, "Name")), None, 0, 5000, None, done,
                      ("name", p))
            conn.call(bus, p, ACC, "GetChildren", None, None, 0, 5000, None, done,
                      ("children", p))

    root = "/org/a11y/atspi/accessible/root"
    seen.add(root)
    issue([root])
    loop.run()
    return (time.perf_counter() - t) * 1000.0, state["count"]


def main():
    args = sys.argv[1:]
    pid, repeat, probe = None, 11, False
    i = 0
    while i < len(args):
        if args[i] == "--pid" and i + 1 < len(args):
            pid = int(args[i + 1])
            i += 1
        elif args[i] == "--probe":
            probe = True
        elif args[i] == "--repeat" and i + 1 < len(args):
            repeat = int(args[i + 1])
            i += 1
        else:
            sys.exit(__doc__)
        i += 1
    if pid is None:
        sys.exit(__doc__)
    conn = connect()
    bus = bus_of_pid(conn, pid)
    if probe:
        print(json.dumps({"cache": getitems(conn, bus) is not None}))
        return
    gi_times, items = [], 0
    walk_times, nodes = [], 0
    for _ in range(repeat):
        got = getitems(conn, bus)
        if got is not None:
            ms, items = got
            gi_times.append(ms)
        ms, nodes = level_walk(conn, bus)
        walk_times.append(ms)
    print(json.dumps({
        "getitems_ms": round(statistics.median(gi_times), 3) if gi_times else None,
        "getitems_items": items,
        "level_walk_ms": round(statistics.median(walk_times), 3),
        "level_walk_nodes": nodes,
    }))


if __name__ == "__main__":
    main()
