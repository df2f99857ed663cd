#!/usr/bin/python3
"""treeglass audit fixture: a GTK 3 app with planted accessibility defects (owned by the tests).

Usage:
    /usr/bin/python3 tests/audit_app.py [--name NAME]

NAME (default "treeglass-audit") becomes the application name on the AT-SPI bus; the window is
"treeglass audit NAME". For every rule of `treeglass audit` that can be judged on an AT-SPI
snapshot there are two frames (AT-SPI panels named after their label):

    "<rule> defect"   holds the planted defect (the element named in DEFECTS below)
    "<rule> clean"    its clean twin: the same kind of element, done right

Defects GTK 3 cannot be made to show by its public API (a state without its ability, a
focused element that is not focusable, two focused elements) come from buttons whose
accessible adds states to GTK's own (`StateButton`). Geometry rules are not here: AT-SPI
snapshots carry no bounds, so `audit` does not evaluate them on AT-SPI.

Control protocol on stdin, one command per line, one JSON line back:
    quit   -> {"ok": true}, then exit
The app also exits when stdin reaches EOF. At start-up: {"ready": true, "pid": PID}.
"""

import json
import os
import sys

ARGV = list(sys.argv[1:])

import gi  # noqa: E402

gi.require_version("Gtk", "3.0")
gi.require_version("Atk", "1.0")
from gi.repository import Atk, GLib, Gtk  # noqa: E402

LONG_NAME = "A name that goes on and on " * 24  # 648 characters


class StateAccessible(Gtk.ButtonAccessible):
    """A button's accessible that adds `extra` states and removes `drop` from GTK's own."""

    def __init__(self, extra, drop):
        super().__init__()
        self.extra = extra
        self.drop = drop

    def do_ref_state_set(self):
        states = Gtk.ButtonAccessible.do_ref_state_set(self)
        for s in self.extra:
            states.add_state(s)
        for s in self.drop:
            states.remove_state(s)
        return states


class StateButton(Gtk.Button):
    def __init__(self, label, extra=(), drop=()):
        super().__init__(label=label)
        self._acc = StateAccessible(list(extra), list(drop))
        self._acc.set_widget(self)
        self._acc.set_role(Atk.Role.PUSH_BUTTON)

    def do_get_accessible(self):
        return self._acc


def named(widget, name):
    widget.get_accessible().set_name(name)
    return widget


def button(label, name=None):
    b = Gtk.Button(label=label)
    if name is not None:
        named(b, name)
    return b


def image(name=None):
    img = Gtk.Image.new_from_icon_name("emblem-default", Gtk.IconSize.DIALOG)
    if name is not None:
        named(img, name)
    return img


def boxed(*widgets):
    """Each widget in an unnamed box of its own (so they are not siblings)."""
    outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
    for w in widgets:
        inner = Gtk.Box()
        inner.pack_start(w, False, False, 0)
        outer.pack_start(inner, False, False, 0)
    return outer


def row(*widgets):
    box = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=4)
    for w in widgets:
        box.pack_start(w, False, False, 0)
    return box


F = Atk.StateType


def unfocusable(label):
    b = Gtk.Button(label=label)
    b.set_can_focus(False)
    return b


class App:
    def __init__(self, name):
        self.stdin_buf = b""
        self.win = Gtk.Window(title="treeglass audit " + name)
        self.win.set_default_size(1500, 1100)
        self.win.connect("delete-event", lambda *a: Gtk.main_quit() or False)
        grid = Gtk.Grid(column_spacing=10, row_spacing=10)
        grid.set_border_width(10)
        self.win.add(grid)
        self.focus_here = StateButton("Focus one", extra=[F.FOCUSED])
        # rule -> (defect widget, clean widget)
        cases = [
            ("name-missing", Gtk.Entry(), named(Gtk.Entry(), "Street")),
            ("name-blank", button("", "   "), button("Send")),
            ("name-is-role", button("Button"), button("Print")),
            ("name-too-long", button("Long", LONG_NAME), button("Short")),
            ("image-unnamed", image(), image("Warning sign")),
            ("action-not-focusable", unfocusable("Unreachable"), button("Reachable")),
            (
                "focused-not-focusable",
                StateButton("Odd focus", extra=[F.FOCUSED], drop=[F.FOCUSABLE]),
                button("Plain focus"),
            ),
            (
                "focus-multiple",
                row(self.focus_here, StateButton("Focus two", extra=[F.FOCUSED])),
                button("Not focused"),
            ),
            (
                "checked-not-checkable",
                StateButton("Odd check", extra=[F.CHECKED]),
                StateButton("Fine check", extra=[F.CHECKED, F.CHECKABLE]),
            ),
            (
                "selected-not-selectable",
                StateButton("Odd select", extra=[F.SELECTED]),
                StateButton("Fine select", extra=[F.SELECTED, F.SELECTABLE]),
            ),
            (
                "expanded-not-expandable",
                StateButton("Odd expand", extra=[F.EXPANDED]),
                StateButton("Fine expand", extra=[F.EXPANDED, F.EXPANDABLE]),
            ),
            (
                "siblings-not-unique",
                row(button("Apply"), button("Apply")),
                row(button("Apply"), button("Revert")),
            ),
            (
                "target-positional",
                boxed(Gtk.CheckButton(label="Option"), Gtk.CheckButton(label="Option")),
                boxed(Gtk.CheckButton(label="Option A"), Gtk.CheckButton(label="Option B")),
            ),
        ]
        for i, (rule, defect, clean) in enumerate(cases):
            for j, (kind, widget) in enumerate((("defect", defect), ("clean", clean))):
                frame = Gtk.Frame(label="%s %s" % (rule, kind))
                frame.add(widget)
                grid.attach(frame, (i % 4) * 2 + j, i // 4, 1, 1)
        self.win.show_all()
        # The real keyboard focus, if the window gets it, goes to a defect too.
        self.win.set_focus(self.focus_here)

    def reply(self, obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    def on_stdin(self, fd, condition):
        if condition & (GLib.IO_HUP | GLib.IO_ERR):
            Gtk.main_quit()
            return False
        data = os.read(fd, 4096)
        if not data:
            Gtk.main_quit()
            return False
        self.stdin_buf += data
        while b"\n" in self.stdin_buf:
            line, self.stdin_buf = self.stdin_buf.split(b"\n", 1)
            cmd = line.decode("utf-8", "replace").strip()
            if cmd == "quit":
                self.reply({"ok": True})
                Gtk.main_quit()
                return False
            if cmd:
                self.reply({"ok": False, "error": "unknown command %r" % cmd})
        return True


def main():
    name = "treeglass-audit"
    if len(ARGV) == 2 and ARGV[0] == "--name":
        name = ARGV[1]
    elif ARGV:
        sys.stderr.write("usage: audit_app.py [--name NAME]\n")
        sys.exit(2)
    GLib.set_prgname(name)
    GLib.set_application_name(name)
    app = App(name)
    GLib.io_add_watch(
        sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, app.on_stdin
    )
    GLib.idle_add(lambda: app.reply({"ready": True, "pid": os.getpid()}) and False)
    Gtk.main()


if __name__ == "__main__":
    main()
