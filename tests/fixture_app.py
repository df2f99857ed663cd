#!/usr/bin/python3
"""treeglass GTK3 fixture application (owned by the tests).

Usage:
    /usr/bin/python3 tests/fixture_app.py [--name NAME] [--keep-open]

NAME (default "treeglass-fixture") becomes the GLib program name and application name, which is
what the AT-SPI application node is called. The window title is "treeglass fixture" or
"treeglass fixture NAME" when --name is given. Plain Gtk.Window + Gtk.main (no GtkApplication
uniqueness), so any number of instances can run at once. The app exits when stdin reaches EOF
(unless --keep-open), on `quit`, on SIGINT/SIGTERM, or when the window is closed.

Accessible names (set with get_accessible().set_name; the visible labels next to the widgets
end in ":" so that each name below belongs to exactly one widget) and the AT-SPI roles GTK 3.24
gives them. State key = the key used by the `state` / `set` / `rename` commands.

    state key     accessible name   widget                              AT-SPI role
    ------------  ----------------  ----------------------------------  ----------------
    full_name     "Full name"       Gtk.Entry                           text
    password      "Password"        Gtk.Entry, visibility=False         password text
    quantity      "Quantity"        Gtk.SpinButton 0..100 step 1, =5    spin button
    volume        "Volume"          Gtk.Scale 0..100, =20, digits 0     slider
    subscribe     "Subscribe"       Gtk.CheckButton, unchecked          check box
    mixed         "Mixed option"    Gtk.CheckButton, inconsistent       check box
    dark_mode     "Dark mode"       Gtk.Switch, off                     toggle button
    bold          "Bold"            Gtk.ToggleButton                    toggle button
    colour        "Colour"          Gtk.ComboBoxText Red/Green/Blue/    combo box
                                    Dark Red, ="Red"                    (menu > menu item)
    account_id    "Account ID"      Gtk.Entry editable=False "ACC-0001" text (read-only)
    locked        "Locked field"    Gtk.Entry sensitive=False "locked"  text (not enabled)
    shout         "Shout"           Gtk.Entry, upper-cases ~30 ms later text
    slow          "Slow field"      Gtk.Entry, applies writes ~1000 ms  text
                                    later (reverts at once first)
    fruits        "Fruits"          Gtk.ListBox                         list box
                  "Apple", "Banana", "Cherry"  Gtk.ListBoxRow           list item
    tab           "Tabs"            Gtk.Notebook                        page tab list
                  "General", "Advanced", "About"  pages                 page tab
    network       "Network"         Gtk.Frame                           panel
    proxy_host    "Proxy host"      Gtk.Entry inside "Network"          text
    use_proxy     "Use proxy"       Gtk.CheckButton inside "Network"    check box
    add           "Add item"        Gtk.Button                          push button
    remove        "Remove item"     Gtk.Button                          push button
    items         "Dynamic items"   Gtk.Box; children "Item 1".."Item N" (push buttons)
    press         "Press me"        Gtk.Button                          push button
    presses       (its text)        Gtk.Label "Presses: N" — the name follows the text
    vanishing     "Vanishing field" Gtk.Entry that destroys itself ~5 ms  text
                                    after its text changes (reset re-creates it)
    validated     "Validated"       Gtk.Entry that shows any text, then   text
                                    puts its old text back 300 ms later
                                    (a late validator)
    relay         "Relay"           Gtk.Entry that hands any text it is   text
                                    given to "Proxy host" ~50 ms later and
                                    empties itself (a write that lands
                                    elsewhere)
    coupon        "Coupon"          Gtk.Entry that, ~50 ms after it is    text
                                    given text, empties itself and opens
                                    the dialog "Confirm coupon" holding
                                    the text in its focused entry
                                    "Coupon code" (a write that moves the
                                    focus to a new window)
    nothing       "Nothing"         Gtk.Button with no handler            push button
    clock         (its text)        Gtk.Label "Tick N"; with `tick on` it  label
                                    changes every 100 ms (a busy app)
    title         window title      Gtk.Window                          frame

Control protocol on stdin, one command per line; every reply is one line of JSON on stdout:
    state                      -> {"full_name": ..., ..., "title": ...}   (see state())
    set KEY VALUE              -> {"ok": true} | {"ok": false, "error": "..."}
                                  booleans true/false; numbers; colour/tab/fruits by label
                                  (fruits: "none" clears the selection); mixed also accepts
                                  "inconsistent"; title sets the window title. Text goes
                                  through the widget's own handlers (shout/slow behave as if
                                  typed); read-only/disabled entries are set from code anyway.
    reset                      -> everything back to its initial value, items removed,
                                  accessible names restored
    rename KEY NEW NAME        -> set that widget's accessible name
    add | remove               -> as the "Add item" / "Remove item" buttons
    press                      -> as the "Press me" button
    geometry KEY               -> {"x": ..., "y": ..., "width": ..., "height": ...}: where a text
                                  field (full_name, password, ...) is on the screen, by GTK
    tick on | tick off         -> start / stop the clock label ticking every 100 ms
    freeze SECONDS             -> {"ok": true}, then the main loop blocks for SECONDS (a hung
                                  app: alive, on the bus, answering nothing); SIGUSR1 does the
                                  same for $FIXTURE_FREEZE_SECONDS (default 12)
    quit                       -> {"ok": true}, then exit
At start-up, once the window is shown: {"ready": true, "pid": PID}.
"""

import json
import os
import signal
import sys
import time

# Keep our own copy of the arguments: importing Gtk runs gtk_init(), which consumes GTK's own
# options from sys.argv -- including "--name NAME" (the X11 program name), which is ours here.
ARGV = list(sys.argv[1:])

import gi  # noqa: E402

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

DEFAULT_NAME = "treeglass-fixture"
COLOURS = ["Red", "Green", "Blue", "Dark Red"]
FRUITS = ["Apple", "Banana", "Cherry"]
TABS = ["General", "Advanced", "About"]
SHOUT_DELAY_MS = 30
SLOW_DELAY_MS = 1000
VALIDATE_DELAY_MS = 300
RELAY_DELAY_MS = 50
TICK_MS = 100


def parse_args(argv):
    name = None
    keep_open = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--name" and i + 1 < len(argv):
            name = argv[i + 1]
            i += 2
        elif a.startswith("--name="):
            name = a[len("--name="):]
            i += 1
        elif a == "--keep-open":
            keep_open = True
            i += 1
        elif a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            sys.stderr.write("fixture_app: unknown argument %r\n" % a)
            sys.exit(2)
    return name, keep_open


def parse_bool(value):
    v = value.strip().lower()
    if v in ("true", "1", "yes", "on"):
        return True
    if v in ("false", "0", "no", "off"):
        return False
    raise ValueError("not a boolean: %r" % value)


class ReadingOrderGrid(Gtk.Grid):
    """A Gtk.Grid whose attach() is deferred until commit(), which attaches in reverse so
    that the children list (GtkGrid prepends) ends up in attachment order."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self._pending = []

    def attach(self, child, left, top, width, height):
        self._pending.append((child, left, top, width, height))

    def commit(self):
        for args in reversed(self._pending):
            Gtk.Grid.attach(self, *args)
        self._pending = []


class Fixture:
    def __init__(self, name, title, keep_open):
        self.keep_open = keep_open
        self.initial_title = title
        self.stdin_buf = b""
        self.shout_source = 0
        self.shout_guard = False
        self.slow_committed = ""
        self.slow_pending = 0
        self.slow_guard = False
        self.presses = 0
        self.validated_text = "valid"
        self.validate_pending = 0
        self.validate_guard = False
        self.ticks = 0
        self.tick_source = 0
        self.items = []
        self.initial_names = {}  # key -> accessible name given at construction
        self.named = {}  # key -> widget whose accessible name is fixed

        win = Gtk.Window(title=title)
        win.set_default_size(900, 700)
        win.connect("delete-event", lambda *a: self.quit() or False)
        self.win = win

        outer = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=18)
        outer.set_border_width(12)
        win.add(outer)

        # ---- left column: form fields -------------------------------------------------------
        # GtkGrid lists its children (and so its accessible children) in reverse order of
        # attachment; cells are collected here and attached last-first at the end so the
        # accessible order is reading order (label, widget; top to bottom).
        grid = ReadingOrderGrid(column_spacing=8, row_spacing=6)
        outer.pack_start(grid, False, False, 0)
        self.grid_row = 0

        def row(key, label, widget):
            lab = Gtk.Label(label=label + ":", xalign=1.0)
            lab.set_mnemonic_widget(widget)
            grid.attach(lab, 0, self.grid_row, 1, 1)
            grid.attach(widget, 1, self.grid_row, 1, 1)
            self.grid_row += 1
            self.name(key, widget, label)
            return widget

        self.full_name = row("full_name", "Full name", Gtk.Entry())
        self.password = row("password", "Password", Gtk.Entry(visibility=False))

        self.quantity = row("quantity", "Quantity", Gtk.SpinButton.new_with_range(0, 100, 1))
        self.quantity.set_digits(0)
        self.quantity.set_value(5)

        self.volume = row("volume", "Volume",
                          Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1))
        self.volume.set_digits(0)
        self.volume.set_value(20)
        self.volume.set_size_request(200, -1)

        self.subscribe = Gtk.CheckButton(label="Subscribe")
        self.name("subscribe", self.subscribe, "Subscribe")
        grid.attach(self.subscribe, 1, self.grid_row, 1, 1)
        self.grid_row += 1

        self.mixed = Gtk.CheckButton(label="Mixed option")
        self.mixed.set_inconsistent(True)
        self.mixed.connect("toggled", lambda b: b.set_inconsistent(False))
        self.name("mixed", self.mixed, "Mixed option")
        grid.attach(self.mixed, 1, self.grid_row, 1, 1)
        self.grid_row += 1

        self.dark_mode = Gtk.Switch(halign=Gtk.Align.START)
        row("dark_mode", "Dark mode", self.dark_mode)

        self.bold = Gtk.ToggleButton(label="Bold", halign=Gtk.Align.START)
        self.name("bold", self.bold, "Bold")
        grid.attach(self.bold, 1, self.grid_row, 1, 1)
        self.grid_row += 1

        self.colour = Gtk.ComboBoxText()
        for c in COLOURS:
            self.colour.append_text(c)
        self.colour.set_active(0)
        row("colour", "Colour", self.colour)

        self.account_id = row("account_id", "Account ID", Gtk.Entry(editable=False))
        self.account_id.set_text("ACC-0001")

        self.locked = row("locked", "Locked field", Gtk.Entry())
        self.locked.set_text("locked")
        self.locked.set_sensitive(False)

        self.shout = row("shout", "Shout", Gtk.Entry())
        self.shout.connect("changed", self.on_shout_changed)

        self.slow = row("slow", "Slow field", Gtk.Entry())
        self.slow.connect("changed", self.on_slow_changed)
        grid.commit()

        # ---- middle column: list, notebook, frame ------------------------------------------
        mid = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=10)
        outer.pack_start(mid, True, True, 0)

        self.fruits = Gtk.ListBox()
        self.fruits.set_selection_mode(Gtk.SelectionMode.SINGLE)
        self.name("fruits", self.fruits, "Fruits")
        self.fruit_rows = {}
        for f in FRUITS:
            r = Gtk.ListBoxRow()
            r.add(Gtk.Label(label=f, xalign=0.0))
            r.get_accessible().set_name(f)
            self.fruits.add(r)
            self.fruit_rows[f] = r
        mid.pack_start(self.fruits, False, False, 0)

        self.tabs = Gtk.Notebook()
        self.name("tab", self.tabs, "Tabs")
        for t in TABS:
            page = Gtk.Label(label="%s page" % t)
            self.tabs.append_page(page, Gtk.Label(label=t))
        mid.pack_start(self.tabs, False, False, 0)

        self.network = Gtk.Frame(label="Network")
        self.name("network", self.network, "Network")
        ngrid = ReadingOrderGrid(column_spacing=8, row_spacing=6)
        ngrid.set_border_width(6)
        self.network.add(ngrid)
        self.proxy_host = Gtk.Entry()
        plab = Gtk.Label(label="Proxy host:", xalign=1.0)
        plab.set_mnemonic_widget(self.proxy_host)
        ngrid.attach(plab, 0, 0, 1, 1)
        ngrid.attach(self.proxy_host, 1, 0, 1, 1)
        self.name("proxy_host", self.proxy_host, "Proxy host")
        self.use_proxy = Gtk.CheckButton(label="Use proxy")
        ngrid.attach(self.use_proxy, 1, 1, 1, 1)
        self.name("use_proxy", self.use_proxy, "Use proxy")
        ngrid.commit()
        mid.pack_start(self.network, False, False, 0)

        # ---- right column: buttons and dynamic children ------------------------------------
        right = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        outer.pack_start(right, False, False, 0)

        self.add_btn = Gtk.Button(label="Add item")
        self.add_btn.connect("clicked", lambda b: self.add_item())
        self.name("add", self.add_btn, "Add item")
        right.pack_start(self.add_btn, False, False, 0)

        self.remove_btn = Gtk.Button(label="Remove item")
        self.remove_btn.connect("clicked", lambda b: self.remove_item())
        self.name("remove", self.remove_btn, "Remove item")
        right.pack_start(self.remove_btn, False, False, 0)

        self.dynamic = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
        self.name("items", self.dynamic, "Dynamic items")
        right.pack_start(self.dynamic, False, False, 0)

        self.press_btn = Gtk.Button(label="Press me")
        self.press_btn.connect("clicked", self.on_press)
        self.name("press", self.press_btn, "Press me")
        right.pack_start(self.press_btn, False, False, 0)

        self.presses_label = Gtk.Label(label="Presses: 0", xalign=0.0)
        right.pack_start(self.presses_label, False, False, 0)

        # An entry that destroys itself ~5 ms after its text changes: the target vanishes
        # right after a write is dispatched.
        self.vanish_box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        right.pack_start(self.vanish_box, False, False, 0)
        self.vanishing = None
        self.make_vanishing()

        # A late validator: any text shows at once, the old text comes back 300 ms later.
        vlab = Gtk.Label(label="Validated:", xalign=0.0)
        right.pack_start(vlab, False, False, 0)
        self.validated = Gtk.Entry()
        vlab.set_mnemonic_widget(self.validated)
        self.validated.set_text(self.validated_text)
        self.validated.connect("changed", self.on_validated_changed)
        self.name("validated", self.validated, "Validated")
        right.pack_start(self.validated, False, False, 0)

        # A field that passes what it is given on: the text ends up in "Proxy host".
        rlab = Gtk.Label(label="Relay:", xalign=0.0)
        right.pack_start(rlab, False, False, 0)
        self.relay = Gtk.Entry()
        rlab.set_mnemonic_widget(self.relay)
        self.relay.connect("changed", self.on_relay_changed)
        self.relay_pending = 0
        self.name("relay", self.relay, "Relay")
        right.pack_start(self.relay, False, False, 0)

        # A field whose text moves into a dialog it opens, with the focus.
        clab = Gtk.Label(label="Coupon:", xalign=0.0)
        right.pack_start(clab, False, False, 0)
        self.coupon = Gtk.Entry()
        clab.set_mnemonic_widget(self.coupon)
        self.coupon.connect("changed", self.on_coupon_changed)
        self.coupon_pending = 0
        self.coupon_dialog = None
        self.name("coupon", self.coupon, "Coupon")
        right.pack_start(self.coupon, False, False, 0)

        # A button that does nothing, and a clock that (with `tick on`) never stops changing.
        self.nothing_btn = Gtk.Button(label="Nothing")
        self.name("nothing", self.nothing_btn, "Nothing")
        right.pack_start(self.nothing_btn, False, False, 0)
        self.clock = Gtk.Label(label="Tick 0", xalign=0.0)
        right.pack_start(self.clock, False, False, 0)

        win.show_all()
        GLib.idle_add(self.announce_ready)

    # ---- helpers --------------------------------------------------------------------------

    def name(self, key, widget, accessible_name):
        widget.get_accessible().set_name(accessible_name)
        self.named[key] = widget
        self.initial_names[key] = accessible_name

    def make_vanishing(self):
        if self.vanishing is not None:
            return
        e = Gtk.Entry()
        e.get_accessible().set_name("Vanishing field")
        e.connect("changed", lambda w: GLib.timeout_add(5, self.destroy_vanishing))
        self.vanish_box.add(e)
        e.show()
        self.vanishing = e

    def destroy_vanishing(self):
        if self.vanishing is not None:
            self.vanishing.destroy()
            self.vanishing = None
        return False

    def reply(self, obj):
        try:
            sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            self.quit()

    def announce_ready(self):
        self.reply({"ready": True, "pid": os.getpid()})
        return False

    def freeze(self, seconds):
        """Blocks the main loop (so every accessibility call waits) for `seconds`, from the
        next idle turn, so the reply to the command is out first."""
        def block():
            time.sleep(seconds)
            return False
        GLib.idle_add(block)

    def quit(self):
        Gtk.main_quit()

    # ---- behaviours -----------------------------------------------------------------------

    def on_shout_changed(self, entry):
        if self.shout_guard or self.shout_source:
            return
        if entry.get_text() != entry.get_text().upper():
            self.shout_source = GLib.timeout_add(SHOUT_DELAY_MS, self.apply_shout)

    def apply_shout(self):
        self.shout_source = 0
        text = self.shout.get_text()
        upper = text.upper()
        if upper != text:
            self.shout_guard = True
            try:
                pos = self.shout.get_position()
                self.shout.set_text(upper)
                self.shout.set_position(min(pos, len(upper)))
            finally:
                self.shout_guard = False
        return False

    def on_slow_changed(self, entry):
        if self.slow_guard:
            return
        new = entry.get_text()
        if new == self.slow_committed:
            return
        # Revert now, apply the new text later (the latest write wins).
        if self.slow_pending:
            GLib.source_remove(self.slow_pending)
        self.slow_pending = GLib.timeout_add(SLOW_DELAY_MS, self.apply_slow, new)
        self.set_slow_text(self.slow_committed)

    def apply_slow(self, new):
        self.slow_pending = 0
        self.slow_committed = new
        self.set_slow_text(new)
        return False

    def set_slow_text(self, text):
        self.slow_guard = True
        try:
            self.slow.set_text(text)
        finally:
            self.slow_guard = False

    def add_item(self):
        n = len(self.items) + 1
        b = Gtk.Button(label="Item %d" % n)
        b.get_accessible().set_name("Item %d" % n)
        self.dynamic.add(b)  # GtkContainer.add: GTK3 emits children-changed
        self.items.append(b)
        self.dynamic.show_all()

    def remove_item(self):
        if self.items:
            self.items.pop().destroy()

    def on_validated_changed(self, entry):
        if self.validate_guard:
            return
        if self.validate_pending:
            GLib.source_remove(self.validate_pending)
        self.validate_pending = GLib.timeout_add(VALIDATE_DELAY_MS, self.revert_validated)

    def on_relay_changed(self, entry):
        if entry.get_text() and not self.relay_pending:
            self.relay_pending = GLib.timeout_add(RELAY_DELAY_MS, self.hand_on)

    def hand_on(self):
        self.relay_pending = 0
        text = self.relay.get_text()
        self.relay.set_text("")
        self.proxy_host.set_text(text)
        return False

    def on_coupon_changed(self, entry):
        if entry.get_text() and not self.coupon_pending:
            self.coupon_pending = GLib.timeout_add(RELAY_DELAY_MS, self.open_coupon_dialog)

    def open_coupon_dialog(self):
        self.coupon_pending = 0
        text = self.coupon.get_text()
        self.coupon.set_text("")
        self.close_coupon_dialog()
        dialog = Gtk.Dialog(title="Confirm coupon", transient_for=self.win)
        code = Gtk.Entry()
        code.get_accessible().set_name("Coupon code")
        code.set_text(text)
        dialog.get_content_area().pack_start(code, False, False, 0)
        dialog.add_button("Apply", Gtk.ResponseType.OK)
        dialog.connect("response", lambda d, _r: self.close_coupon_dialog())
        dialog.show_all()
        dialog.present()
        code.grab_focus()
        self.coupon_dialog = (dialog, code)
        return False

    def close_coupon_dialog(self):
        if self.coupon_dialog is not None:
            self.coupon_dialog[0].destroy()
            self.coupon_dialog = None

    def revert_validated(self):
        self.validate_pending = 0
        self.validate_guard = True
        try:
            self.validated.set_text(self.validated_text)
        finally:
            self.validate_guard = False
        return False

    def tick(self):
        self.ticks += 1
        self.clock.set_text("Tick %d" % self.ticks)
        return True

    def set_ticking(self, on):
        if on and not self.tick_source:
            self.tick_source = GLib.timeout_add(TICK_MS, self.tick)
        elif not on and self.tick_source:
            GLib.source_remove(self.tick_source)
            self.tick_source = 0

    def on_press(self, button):
        self.presses += 1
        self.presses_label.set_text("Presses: %d" % self.presses)

    # ---- protocol ---------------------------------------------------------------------------

    def state(self):
        sel = self.fruits.get_selected_row()
        fruit = None
        if sel is not None:
            fruit = sel.get_child().get_text()
        page = self.tabs.get_nth_page(self.tabs.get_current_page())
        return {
            "full_name": self.full_name.get_text(),
            "password": self.password.get_text(),
            "quantity": float(self.quantity.get_value()),
            "volume": float(self.volume.get_value()),
            "subscribe": bool(self.subscribe.get_active()),
            "mixed": {"active": bool(self.mixed.get_active()),
                      "inconsistent": bool(self.mixed.get_inconsistent())},
            "dark_mode": bool(self.dark_mode.get_active()),
            "bold": bool(self.bold.get_active()),
            "colour": self.colour.get_active_text(),
            "account_id": self.account_id.get_text(),
            "locked": self.locked.get_text(),
            "shout": self.shout.get_text(),
            "slow": self.slow.get_text(),
            "fruits_selected": fruit,
            "tab": self.tabs.get_tab_label_text(page) if page is not None else None,
            "proxy_host": self.proxy_host.get_text(),
            "use_proxy": bool(self.use_proxy.get_active()),
            "items": len(self.items),
            "vanishing": self.vanishing is not None,
            "presses": self.presses,
            "validated": self.validated.get_text(),
            "relay": self.relay.get_text(),
            "coupon": self.coupon.get_text(),
            "coupon_dialog": (self.coupon_dialog[1].get_text()
                              if self.coupon_dialog is not None else None),
            "ticking": bool(self.tick_source),
            "title": self.win.get_title(),
        }

    def geometry(self, key):
        """Where a text field is on the screen, in root-window pixels, as GTK lays it out."""
        widget = self.text_fields()[key]
        top = widget.get_toplevel()
        x, y = widget.translate_coordinates(top, 0, 0)
        _, ox, oy = top.get_window().get_origin()
        return {"x": ox + x, "y": oy + y,
                "width": widget.get_allocated_width(), "height": widget.get_allocated_height()}

    def text_fields(self):
        return {"full_name": self.full_name, "password": self.password,
                "account_id": self.account_id, "locked": self.locked,
                "shout": self.shout, "slow": self.slow, "proxy_host": self.proxy_host}

    def set_value(self, key, value):
        texts = {"full_name": self.full_name, "password": self.password,
                 "account_id": self.account_id, "locked": self.locked,
                 "shout": self.shout, "slow": self.slow, "proxy_host": self.proxy_host}
        toggles = {"subscribe": self.subscribe, "dark_mode": self.dark_mode,
                   "bold": self.bold, "use_proxy": self.use_proxy}
        if key in texts:
            texts[key].set_text(value)
        elif key == "quantity":
            self.quantity.set_value(float(value))
        elif key == "volume":
            self.volume.set_value(float(value))
        elif key in toggles:
            toggles[key].set_active(parse_bool(value))
        elif key == "mixed":
            if value.strip().lower() == "inconsistent":
                self.mixed.set_inconsistent(True)
            else:
                self.mixed.set_active(parse_bool(value))
                self.mixed.set_inconsistent(False)
        elif key == "colour":
            if value not in COLOURS:
                raise ValueError("no such colour: %r" % value)
            self.colour.set_active(COLOURS.index(value))
        elif key == "tab":
            if value not in TABS:
                raise ValueError("no such tab: %r" % value)
            self.tabs.set_current_page(TABS.index(value))
        elif key in ("fruits", "fruits_selected"):
            if value.strip().lower() in ("", "none", "null"):
                self.fruits.unselect_all()
            elif value in self.fruit_rows:
                self.fruits.select_row(self.fruit_rows[value])
            else:
                raise ValueError("no such fruit: %r" % value)
        elif key == "title":
            self.win.set_title(value)
        else:
            raise KeyError("unknown key: %r" % key)

    def reset(self):
        if self.shout_source:
            GLib.source_remove(self.shout_source)
            self.shout_source = 0
        if self.slow_pending:
            GLib.source_remove(self.slow_pending)
            self.slow_pending = 0
        if self.coupon_pending:
            GLib.source_remove(self.coupon_pending)
            self.coupon_pending = 0
        for e in (self.full_name, self.password, self.proxy_host, self.relay, self.coupon):
            e.set_text("")
        self.close_coupon_dialog()
        self.shout_guard = True
        self.shout.set_text("")
        self.shout_guard = False
        self.slow_committed = ""
        self.set_slow_text("")
        self.account_id.set_text("ACC-0001")
        self.locked.set_text("locked")
        self.quantity.set_value(5)
        self.volume.set_value(20)
        for t in (self.subscribe, self.dark_mode, self.bold, self.use_proxy):
            t.set_active(False)
        self.mixed.set_active(False)  # "toggled" clears inconsistent...
        self.mixed.set_inconsistent(True)  # ...so set it afterwards
        self.colour.set_active(0)
        self.fruits.unselect_all()
        self.tabs.set_current_page(0)
        while self.items:
            self.remove_item()
        self.presses = 0
        self.presses_label.set_text("Presses: 0")
        self.make_vanishing()
        self.win.set_title(self.initial_title)
        for key, widget in self.named.items():
            if widget.get_accessible().get_name() != self.initial_names[key]:
                widget.get_accessible().set_name(self.initial_names[key])

    def handle(self, line):
        parts = line.strip().split(" ", 2)
        cmd = parts[0] if parts else ""
        try:
            if cmd == "":
                return
            if cmd == "state":
                self.reply(self.state())
            elif cmd == "set":
                if len(parts) < 2:
                    raise ValueError("usage: set KEY VALUE")
                self.set_value(parts[1], parts[2] if len(parts) > 2 else "")
                self.reply({"ok": True})
            elif cmd == "reset":
                self.reset()
                self.reply({"ok": True})
            elif cmd == "rename":
                if len(parts) < 3:
                    raise ValueError("usage: rename KEY NEW_NAME")
                key, new = parts[1], parts[2]
                if key == "title":
                    self.win.get_accessible().set_name(new)
                elif key == "presses":
                    self.presses_label.get_accessible().set_name(new)
                elif key in self.named:
                    self.named[key].get_accessible().set_name(new)
                else:
                    raise KeyError("unknown widget: %r" % key)
                self.reply({"ok": True})
            elif cmd == "add":
                self.add_item()
                self.reply({"ok": True})
            elif cmd == "remove":
                self.remove_item()
                self.reply({"ok": True})
            elif cmd == "geometry":
                if len(parts) < 2:
                    raise ValueError("usage: geometry KEY")
                self.reply(self.geometry(parts[1]))
            elif cmd == "press":
                self.press_btn.clicked()
                self.reply({"ok": True})
            elif cmd == "tick":
                self.set_ticking(parse_bool(parts[1] if len(parts) > 1 else "on"))
                self.reply({"ok": True})
            elif cmd == "freeze":
                seconds = float(parts[1]) if len(parts) > 1 else 12.0
                self.reply({"ok": True})
                self.freeze(seconds)
            elif cmd == "quit":
                self.reply({"ok": True})
                self.quit()
            else:
                raise ValueError("unknown command: %r" % cmd)
        except (KeyError, ValueError, TypeError) as e:
            msg = e.args[0] if e.args else str(e)
            self.reply({"ok": False, "error": str(msg)})

    def on_stdin(self, fd, condition):
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        if not data:
            if self.stdin_buf:
                line, self.stdin_buf = self.stdin_buf, b""
                self.handle(line.decode("utf-8", "replace"))
            if not self.keep_open:
                self.quit()
            return False
        self.stdin_buf += data
        while b"\n" in self.stdin_buf:
            line, self.stdin_buf = self.stdin_buf.split(b"\n", 1)
            self.handle(line.decode("utf-8", "replace"))
        return True


def main():
    name, keep_open = parse_args(ARGV)
    prgname = name or DEFAULT_NAME
    title = "treeglass fixture" if name is None else "treeglass fixture %s" % name
    GLib.set_prgname(prgname)
    GLib.set_application_name(prgname)

    fixture = Fixture(prgname, title, keep_open)

    GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, sys.stdin.fileno(),
                          GLib.IOCondition.IN | GLib.IOCondition.HUP | GLib.IOCondition.ERR,
                          fixture.on_stdin)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, lambda *a: fixture.quit() or False)
    freeze_for = float(os.environ.get("FIXTURE_FREEZE_SECONDS", "12"))
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1,
                         lambda *a: fixture.freeze(freeze_for) or True)
    Gtk.main()


if __name__ == "__main__":
    main()
