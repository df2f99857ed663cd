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
accessible adds states to GTK's own (`StateButton`). The structure and geometry defects:

    bounds-empty            a button whose accessible reports GTK's extents with width 0
    bounds-outside-parent   a button reported in the window's bottom-right corner, far from
                            its own frame (placed from the window's extents at query time)
    bounds-outside-window   a button reported at (-4000, -4000), its size GTK's
                            (all three `PlacedButton`: GTK's own extents, moved or resized)
    radio-no-group          a radio button alone in its group: GTK gives it a member-of
                            relation naming itself only, and no `posinset`
    label-not-reciprocal    an entry given a labelled-by relation to a label by hand: the
                            label has no label-for back (the clean twin: a mnemonic label,
                            which GTK relates both ways)
    index-in-parent         a button whose accessible says it is child 7 of a box of 2
                            (`IndexButton`)
    table-index-mismatch    a tree view (a list: AT-SPI role table) whose accessible maps a
                            cell's index to a row as if the column headers were not children
                            (`MisindexedTree`); the clean twin is GTK's own tree view

Overriding a vfunc of an interface GTK's class already implements (AtkComponent, AtkTable)
needs the interface declared again on the Python class: the class then has its own copy of
the interface's table, where without it the override would replace GTK's for every widget.
The frames sit three rules to a row, so the window (1500x1100) holds them all and fits a
1600x1200 screen.

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
# The two tables' rows: no cell text shared, so no target is positional.
ORCHARD = [("Apple", "Green"), ("Plum", "Purple"), ("Lemon", "Yellow")]
GARDEN = [("Cherry", "Red"), ("Banana", "Gold"), ("Grape", "Black")]


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


class PlacedAccessible(Gtk.ButtonAccessible, Atk.Component):
    """A button's accessible whose extents are `place(widget, x, y, width, height)` of GTK's own
    (screen coordinates; the other coordinate types keep GTK's offset from them)."""

    def __init__(self, place):
        super().__init__()
        self.place = place
        # GTK's own answer for the same widget: an interface vfunc cannot be chained up to.
        self.gtk = Gtk.ButtonAccessible()

    def do_get_extents(self, coord_type):
        x, y, w, h = self.gtk.get_extents(Atk.CoordType.SCREEN)
        cx, cy, _, _ = self.gtk.get_extents(coord_type)
        px, py, pw, ph = self.place(self.get_widget(), x, y, w, h)
        return px - (x - cx), py - (y - cy), pw, ph


class PlacedButton(Gtk.Button):
    def __init__(self, label, place):
        super().__init__(label=label)
        self._acc = PlacedAccessible(place)
        self._acc.set_widget(self)
        self._acc.gtk.set_widget(self)
        self._acc.set_role(Atk.Role.PUSH_BUTTON)

    def do_get_accessible(self):
        return self._acc


def zero_width(widget, x, y, w, h):
    return x, y, 0, h


def far_outside(widget, x, y, w, h):
    return -4000, -4000, w, h


def window_corner(widget, x, y, w, h):
    """The bottom-right corner of the window, below the grid: away from the button's frame."""
    window = widget.get_toplevel().get_accessible()
    wx, wy, ww, wh = window.get_extents(Atk.CoordType.SCREEN)
    return wx + ww - w - 20, wy + wh - h - 20, w, h


class IndexAccessible(Gtk.ButtonAccessible):
    """A button's accessible that gives `index` as its index in its parent."""

    def __init__(self, index):
        super().__init__()
        self.index = index

    def do_get_index_in_parent(self):
        return self.index


class IndexButton(Gtk.Button):
    def __init__(self, label, index):
        super().__init__(label=label)
        self._acc = IndexAccessible(index)
        self._acc.set_widget(self)
        self._acc.set_role(Atk.Role.PUSH_BUTTON)

    def do_get_accessible(self):
        return self._acc


class MisindexedTableAccessible(Gtk.TreeViewAccessible, Atk.Table):
    """A tree view's accessible whose cell index -> row forgets the column headers, which are
    its first children: every cell is said to be a row below its own."""

    def do_get_row_at_index(self, index):
        return index // max(self.get_n_columns(), 1)


class MisindexedTree(Gtk.TreeView):
    pass


# GTK makes and initialises the accessible (the tree view's needs its initialize).
MisindexedTree.set_accessible_type(MisindexedTableAccessible.__gtype__)


def table(cls, name, rows):
    """A list of two text columns with titles, all rows shown (no scrolling)."""
    store = Gtk.ListStore(str, str)
    for r in rows:
        store.append(r)
    view = cls(model=store)
    for i, title in enumerate(("Fruit", "Colour")):
        view.append_column(Gtk.TreeViewColumn(title, Gtk.CellRendererText(), text=i))
    return named(view, name)


def labelled_one_way(text, name):
    """A label and an entry labelled by it, the relation added on the entry's side only."""
    label = Gtk.Label(label=text)
    entry = named(Gtk.Entry(), name)
    entry.get_accessible().ref_relation_set().add_relation_by_type(
        Atk.RelationType.LABELLED_BY, label.get_accessible()
    )
    return row(label, entry)


def labelled_outside(name):
    """An entry labelled by a label that is in no window (never added to a container)."""
    stray = Gtk.Label(label="Nowhere:")
    entry = named(Gtk.Entry(), name)
    entry.get_accessible().ref_relation_set().add_relation_by_type(
        Atk.RelationType.LABELLED_BY, stray.get_accessible()
    )
    entry.stray_label = stray  # kept alive with the entry
    return row(entry)


def mnemonic_labelled(text, name):
    label = Gtk.Label.new_with_mnemonic(text)
    entry = named(Gtk.Entry(), name)
    label.set_mnemonic_widget(entry)
    return row(label, entry)


def radio_group(*labels):
    first = Gtk.RadioButton(label=labels[0])
    rest = [Gtk.RadioButton.new_with_label_from_widget(first, text) for text in labels[1:]]
    return row(first, *rest)


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


def role_as(widget, role):
    widget.get_accessible().set_role(role)
    return widget


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
            (
                "heading-empty",
                role_as(Gtk.Label(label=""), Atk.Role.HEADING),
                role_as(Gtk.Label(label="Shipping"), Atk.Role.HEADING),
            ),
            (
                "header-unnamed",
                role_as(Gtk.Label(label=""), Atk.Role.COLUMN_HEADER),
                role_as(Gtk.Label(label="Fruit"), Atk.Role.COLUMN_HEADER),
            ),
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
            ("bounds-empty", PlacedButton("Flat", zero_width), button("Roomy")),
            (
                "bounds-outside-parent",
                PlacedButton("Stray", window_corner),
                button("At home"),
            ),
            (
                "bounds-outside-window",
                PlacedButton("Far away", far_outside),
                button("Nearby"),
            ),
            ("radio-no-group", radio_group("Lone"), radio_group("Red", "Green")),
            ("label-dangling", labelled_outside("Lane"), mnemonic_labelled("_Road:", "Road")),
            (
                "label-name-mismatch",
                mnemonic_labelled("_Borough:", "Zip code"),
                mnemonic_labelled("_County:", "County"),
            ),
            (
                "label-not-reciprocal",
                labelled_one_way("Town:", "Town"),
                mnemonic_labelled("_Postcode:", "Postcode"),
            ),
            (
                "index-in-parent",
                row(IndexButton("Misplaced", 7), button("Neighbour")),
                row(button("First"), button("Second")),
            ),
            (
                "table-index-mismatch",
                table(MisindexedTree, "Orchard", ORCHARD),
                table(Gtk.TreeView, "Garden", GARDEN),
            ),
        ]
        for i, (rule, defect, clean) in enumerate(cases):
            for j, (kind, widget) in enumerate((("defect", defect), ("clean", clean))):
                frame = Gtk.Frame(label="%s %s" % (rule, kind))
                frame.add(widget)
                grid.attach(frame, (i % 3) * 2 + j, i // 3, 1, 1)
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
