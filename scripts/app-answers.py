#!/usr/bin/python3
"""Whether an application on the accessibility bus still answers: one Properties.Get(Name) on
its root, the call libatspi sends most, within a deadline (independent of treeglass).

Usage: /usr/bin/python3 scripts/app-answers.py BUS_NAME [TIMEOUT_MS]   (default 2000)

Prints {"answered": true|false, "ms": elapsed, "name": ..., "error": ...}; exit 0 when it
answered in time, 1 when not, 2 on usage errors. Needs A11Y_BUS_ADDRESS (scripts/a11y-session
exports it).
"""

import json
import os
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    bus = argv[1]
    timeout = int(argv[2]) if len(argv) == 3 else 2000
    addr = os.environ.get("A11Y_BUS_ADDRESS") or os.environ.get("AT_SPI_BUS_ADDRESS")
    if not addr:
        sys.stderr.write("app-answers.py: no A11Y_BUS_ADDRESS\n")
        return 2
    conn = Gio.DBusConnection.new_for_address_sync(
        addr,
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
        | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None,
        None,
    )
    t = time.monotonic()
    out = {"answered": False}
    try:
        r = conn.call_sync(
            bus,
            "/org/a11y/atspi/accessible/root",
            "org.freedesktop.DBus.Properties",
            "Get",
            GLib.Variant("(ss)", ("org.a11y.atspi.Accessible", "Name")),
            None,
            Gio.DBusCallFlags.NONE,
            timeout,
            None,
        )
        out["answered"] = True
        out["name"] = r.unpack()[0]
    except GLib.Error as e:
        out["error"] = e.message
    out["ms"] = round((time.monotonic() - t) * 1000, 1)
    print(json.dumps(out))
    return 0 if out["answered"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
