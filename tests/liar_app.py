#!/usr/bin/python3
"""treeglass liar application: an AT-SPI2 app without a toolkit, which lies on request (owned by
the tests).

Usage:
    /usr/bin/python3 tests/liar_app.py [--name NAME] [--lie NAME[=ARG]]... [--seed N] [--keep-open]
                                       [--window]

Written straight on D-Bus with Gio (no GTK, no ATK, no at-spi2-atk): one GDBus connection to the
accessibility bus and one message filter that takes every incoming method call off GDBus's hands
and answers it from the main loop, or not at all. That is what lets it lie precisely: a reply can
have any body (GDBus's own object registration checks reply types against the introspection
data and answers GetAll itself), a call can be kept unanswered forever, any path can be an object
or not. Run it with /usr/bin/python3 (Debian's gi), not a pyenv python.

The accessibility bus is $A11Y_BUS_ADDRESS, else $AT_SPI_BUS_ADDRESS, else what
org.a11y.Bus.GetAddress answers on the session bus. Registration is at-spi2-atk's: the app calls
org.a11y.atspi.Socket.Embed((unique name, /org/a11y/atspi/accessible/root)) on
org.a11y.atspi.Registry at /org/a11y/atspi/accessible/root; the registry answers Properties.Set
(Application, Id, <i>) on the root (before its Embed reply) and returns the desktop's reference,
which becomes the root's Parent. The app exits on `quit`, on stdin EOF (unless --keep-open), on
SIGINT/SIGTERM, and with status 3 if the bus drops its connection.

--window (X11, $DISPLAY set): the frame is also a real window, where the extents say it is: an
undecorated GTK 3 window at 100,100 400x300 (GTK's own accessibility bridge kept off with
NO_AT_BRIDGE=1, so the tree on the bus stays this app's), which records every button press
(screen position: `clicks`) and flips the check box when a press lands inside its box (where
it is drawn: misplaced=DX does not move that). It gives synthesized clicks somewhere to land
and the tests a record of where they landed.

The tree (truthful). Paths are /org/a11y/atspi/accessible/<n>; the state names are AT-SPI's, the
extents screen coordinates (x, y, width, height), every element but the root has Component.

    n     role (number)       name        states                                   extents           more
    root  application (75)    NAME        (none)                                   (no Component)    Application: ToolkitName "liar",
                                                                                                     Version "1.0", AtspiVersion "2.1", Id
    1     frame (23)          "Liar"      enabled sensitive showing visible active 100,100 400x300   layer window
    2     panel (39)          "Body"      enabled sensitive showing visible        100,130 400x270
    3     push button (43)    "OK"        enabled sensitive showing visible        110,140 80x30     Action "click": presses["OK"] += 1
                                          focusable
    4     push button (43)    "Slow"      (as OK)                                  200,140 80x30     Action "click": presses["Slow"] += 1
    5     check box (7)       "Check"     (as OK) checkable, + checked when on     110,180 120x24    Action "toggle": flips checked
    6     text (61)           "Field"     (as OK) editable single-line             110,214 200x28    Text + EditableText, text "hello"
                                          selectable-text
    7     label (29)          "Status"    enabled sensitive showing visible        110,252 200x20    Text (read-only), text "Status"

NAME is --name (default "liar-app"). "focused" is added to the element GrabFocus was last sent to
(a focusable one). Descriptions are "", Locale "en_US.UTF-8", AccessibleId the element's key
("frame", "body", "ok", "slow", "check", "field", "status", "level-K"), attributes
{"toolkit": "liar", "liar-key": key}, relation sets empty, GetIndexInParent the index among the
parent's true children (-1 for the root, as at-spi2-atk). Interfaces (GetInterfaces, in
at-spi2-atk's order): Accessible always, Action on the buttons and the check box, Application on
the root, Component on all but the root, EditableText and Text on "Field", Text on "Status"; every
path also answers org.freedesktop.DBus.Properties, .Introspectable and .Peer. Text offsets are
characters. SetTextContents really replaces the text (caret to its end, selection cleared).

Answers where a real bridge answers an error (at-spi2-atk's droute texts, verbatim):
  - a path with no object: org.freedesktop.DBus.Error.UnknownObject "Method "M" with signature
    "S" on interface "I" could not be processed as object P does not exist\\n";
  - a method of an interface the object lacks, or an unknown method: ...Error.UnknownMethod
    "Method "M" with signature "S" on interface "I" doesn't exist\\n";
  - Properties.Get of an interface the object lacks: ...Error.Failed "Get failed"; of a property
    no interface has: ...Error.UnknownProperty "Property unavailable"; Set of anything but
    Application.Id: ...Error.PropertyReadOnly "Property is read-only";
  - wrong argument types: ...Error.InvalidArgs "... was supplied with invalid arguments\\n";
  - Properties.GetAll: ...Error.NotSupported (Qt 5/6 crash on it; treeglass must never send it,
    and `calls` shows whether it did).
Out-of-range GetChildAtIndex / GetAccessibleAtPoint misses answer the null reference
(own bus name, /org/a11y/atspi/null); out-of-range action indexes answer "" / false.

org.a11y.atspi.Cache.GetItems on /org/a11y/atspi/cache answers a((so)(so)(so)iiassusau) (object,
app, parent, index in parent, child count, interfaces, name, role, description, states): the root,
the frame, "Body" and its children, and deep levels up to the deepest one whose reference was
already handed out (as GTK 4 does: an element is cached once something referred to it). It is
built from the same answers as the per-object calls, so the lies on names, child counts,
children and interfaces show in it too (not huge-arrays=states and invalid-utf8, which keep their
real form there, and vanish-children, whose cache lists the real children); stale-cache makes it
disagree. Libatspi itself sends Application.GetApplicationBusAddress (answered "": use the bus)
and Cache.GetItems to every app it meets; both are counted like any call.

Lies. Each one can be switched on at start-up (--lie, repeatable) or at run time (`lie` on stdin);
several hold at once. A METHOD below matches a call by member ("GetState"), by
"interface.member" ("org.a11y.atspi.Accessible.GetState"), and, for Properties.Get/Set, by the
property's name ("Name", "ChildCount") or "interface.property". ELEMENT matches an element's
name (the true one, as `rename` left it), its key ("slow") or its path.

    cycle              "Body"'s children also hold the frame "Liar" (its own ancestor), last:
                       GetChildren, GetChildAtIndex, ChildCount (6) and the cache (Body's count,
                       plus a second item for the frame, parent Body) say so. The frame's own
                       Parent and GetIndexInParent stay true (root, 0).
    deep=N             "Body" gets a 6th child "Level 1", whose only child is "Level 2", ... down
                       to "Level N" (panels, no children at the bottom). Level K is path
                       /org/a11y/atspi/accessible/<100000000+K>; no object is stored (each is
                       made from its path when asked), so N = 100000 costs nothing until read.
    silent-element=ELEMENT[:METHOD]
                       That element never answers METHOD (every call on its path when no METHOD
                       is given): the call is kept, unanswered, forever. Other elements and other
                       methods answer as usual. Repeatable.
    silent-method=METHOD
                       No object answers METHOD, ever. Repeatable.
    hang-on=METHOD     The first call of METHOD hangs the whole app, as silent-after does from
                       that call on (itself held too): a toolkit whose main loop blocks while
                       it answers. Woken as silent-after is; the next call of METHOD hangs it
                       again until the lie goes. Repeatable.
    silent-after=N     After N more answered calls (counted from when the lie is switched on) the
                       app answers nothing at all (not even Peer.Ping) while staying on the bus: a
                       hung app. The calls it holds are answered in order when the lie goes
                       (`wake`, `unlie silent-after`, `lie none`), as a frozen toolkit answers its
                       queue when it thaws; clients have long timed out by then.
    bad-signature=[ELEMENT:]METHOD
                       METHOD's reply has a wrongly typed body: GetState answers (s)
                       "enabled sensitive"; GetRole (ss) ("push button", "43"); GetChildren
                       a(ss) (paths as strings); GetChildAtIndex, GetApplication, GetAccessibleAt-
                       Point (ss); GetInterfaces (s) (joined with ";"); GetExtents (dddd);
                       GetItems the pre-2.34 form a((so)(so)(so)a(so)assusau); Properties.Get a
                       variant of the wrong type (a string property holds int32 42, an int
                       property the string "42", Parent the string of its path); any other method
                       (s) "bad-signature", or (i) 42 where the true answer is (s). METHOD "*":
                       every call but Peer's; with ELEMENT, only that element's. Repeatable.
    huge-strings[=MB]  "OK" gets a 1 MB name and a 10 MB description, "Slow" a 10 MB name and a
                       1 MB description (each starts with the true name; with MB, all four are
                       MB megabytes). Made once, kept; the cache carries them too.
    huge-arrays=children|states
                       children: "Body"'s GetChildren answers 1,000,000 references, its real
                       children first, the rest to paths with no object behind them
                       (/org/a11y/atspi/accessible/<900000000+i>, each answering UnknownObject);
                       ChildCount and the cache say 1000000, GetChildAtIndex(i) answers the same
                       i-th reference. The reply (~56 MB) is built when the lie is switched on
                       (a few seconds), then reused.
                       states: every GetState answers 1,000,000 words: the two true ones, then
                       999,998 words 0xFFFFFFFF. Both can hold at once.
    bad-text           Every string the app reports about itself carries every hostile class:
                       names, descriptions, localized role names, AccessibleIds, attribute
                       values, action names, descriptions and key bindings, ToolkitName,
                       Version, and the label's text become
                       U+0301 U+202E <true string> U+202C + HOSTILE (see HOSTILE below: C0
                       controls, DEL, C1 controls, ESC[31m / ESC[2J / OSC 52 clipboard / OSC 0
                       title / OSC 8 hyperlink sequences, bidi overrides and isolates,
                       zero-width and invisible format characters, tag characters, U+2028/9,
                       the noncharacters U+FFFE U+FFFF U+FDD0 U+1FFFE, lone combining marks).
                       A substring search for the true string still finds it. Switching it on
                       also types HOSTILE into "Field" (its real text: a write replaces it, and
                       `lie none` leaves it). GetRoleName stays the AT-SPI role name. NUL is not
                       among them: a D-Bus string cannot hold one.
    invalid-utf8[=ELEMENT]
                       Invalid UTF-8 cannot travel as a D-Bus string. Measured here (dbus-daemon
                       1.14.10, GLib 2.74): a raw client that sends a signal whose 's' holds
                       FF FE, C3 28, an overlong C0 AF or a UTF-8-encoded surrogate ED A0 80 is
                       disconnected by the bus daemon at once (its next write gets EPIPE), and
                       GDBus refuses to build such a message at all (g_dbus_message_new_from_blob:
                       "Expected valid UTF-8 string but found invalid bytes"); the noncharacters
                       U+FFFE/U+FFFF pass both. So an app can never put one on the wire and live,
                       and this lie is a wrong signature instead: Name and Description
                       (Properties.Get: a variant holding 'ay'), GetText, and Action
                       GetName / GetLocalizedName / GetDescription / GetKeyBinding answer 'ay'
                       holding <true string as UTF-8> + FF FE C3 28 C0 AF ED A0 80 F8 88 80 80 80,
                       on every element or on ELEMENT alone. The cache keeps the real strings.
    flip-names         Every Name read (Properties.Get and each cache item) answers, per element,
                       alternately the true name and "<name> (flipped)", so two reads of one tree
                       differ.
    vanish-children[=all|half]
                       The children "Body" lists die between listing and reading: each
                       GetChildren / GetChildAtIndex answer puts fresh paths
                       (/org/a11y/atspi/accessible/<800000000+k>, never reused) in place of the
                       real ones, for all of them (default) or for a random half (seeded by
                       --seed), and those paths answer UnknownObject to everything. ChildCount
                       and the cache stay true; the real paths stay alive.
    child-count=N      "Body"'s ChildCount (and its cache count) says N; GetChildren and
                       GetChildAtIndex answer the real children (null past them).
    no-interface=IFACE Every element (root included) says in GetInterfaces and the cache that it
                       implements IFACE ("Value" or "org.a11y.atspi.Value"), and calls on IFACE
                       answer what at-spi2-atk answers for an interface the object lacks:
                       methods UnknownMethod "... doesn't exist\\n", Properties.Get Failed
                       "Get failed". Repeatable.
    dangling           "Body" lists a third child (between "Slow" and "Check") at
                       /org/a11y/atspi/accessible/999999999, where no object is; ChildCount
                       says 6; the cache has no item for it.
    tiny-window        The frame's extents are 0,0 1x1 (the window "Liar" is still there; its
                       children keep their extents, now outside it).
    slow=MS            Every reply leaves MS milliseconds after the call was taken (calls are
                       still taken in order, so replies keep their order).
    stale-cache        GetItems disagrees with the per-object calls: every name in it ends in
                       " (cached)", the check box's checked state is the opposite of the real
                       one, "Field"'s role is label (29).
    refuse-past-end    GetChildAtIndex past an element's real children answers InvalidArgs
                       (as some bridges do) instead of the null reference.
    flicker            "Body"'s children flicker between reads: each GetChildren on "Body"
                       answers, in turn, all but "Status" and all of them (switching the lie
                       on starts from all of them, which the cache names); ChildCount,
                       GetChildAtIndex and the cache follow the last answer. Every element stays
                       alive.
    vanish-after-name  "Body"'s children die mid-read: each answers calls until it has answered
                       its Name (Properties.Get) once, then everything on its path answers
                       UnknownObject (the list still names it) until the lie is switched on
                       again or off. The cache keeps them.
    manages            "Body" says it manages its descendants (GetState and the cache): a
                       client shows its visible part instead of listing it.
    gdbus-errors       Errors worded as GDBus (GTK 4, and anything on GDBus) words them instead of
                       at-spi2-atk: a path with no object answers UnknownMethod
                       "Object does not exist at path “P”", an interface the object lacks
                       UnknownMethod "No such interface “I” on object at path P" (both measured
                       from GLib 2.74).

    actionless         The check box has no Action interface (GetInterfaces, the cache, and
                       calls on Action answer UnknownMethod), as a GTK 4 check button: a client
                       can only click it.
    screen-zero        GetExtents, GetPosition, Contains and GetAccessibleAtPoint in SCREEN
                       coordinates measure from each element's own corner: every element is at
                       (0, 0) (as GTK 4.18 answers); WINDOW coordinates stay true.
    misplaced=DX       Every element's extents (SCREEN and WINDOW) are DX pixels right of where
                       it is drawn; Contains and GetAccessibleAtPoint answer by where it is
                       drawn (a toolkit whose extents and hit test disagree).

HOSTILE (bad-text) is, in order: BEL BS CR LF TAB VT FF DEL, U+0085 U+009B U+009D U+0090,
"ESC[31mredESC[0m", "ESC[2J", "ESC[H", "ESC]52;c;cHduZWQ=BEL" (OSC 52: clipboard := "pwned"),
"ESC]0;titleESC\\", "ESC]8;;https://example.invalid/ESC\\linkESC]8;;ESC\\", U+202E "evil" U+202C
U+202D U+2066 U+2067 U+2068 U+2069 U+200E U+200F U+061C, U+200B U+200C U+200D U+2060 U+FEFF
U+00AD U+180E U+2061..U+2064 U+E0001 U+E0041, U+2028 U+2029, U+FFFE U+FFFF U+FDD0 U+1FFFE,
" " U+0301 U+20DD U+0336 U+0336.

Control protocol on stdin, one command per line; every reply is one line of JSON on stdout
(ASCII, so hostile text arrives escaped), flushed:
    lie NAME[=ARG]       -> {"ok": true} | {"ok": false, "error": "..."}   add a lie (deep,
                            silent-after, huge-strings, vanish-children, child-count and slow
                            replace their earlier value; the others add up)
    lie none             -> {"ok": true}   every lie off; calls held by silent-after answered
    unlie NAME           -> {"ok": true}   that lie off (every instance of it)
    wake                 -> {"ok": true}   silent-after off, its held calls answered
    state                -> {"presses": {"OK": n, "Slow": n}, "checked": bool, "field": "...",
                             "caret": n, "selection": [start, end] | null, "focused": name |
                             null, "calls": answered, "received": n, "pending": never answered
                             (held), "lies": ["deep=3", ...], "id": registry id, "bus": name}
    calls                -> {"received": n, "answered": n, "pending": n,
                             "by_method": {"GetState": n, "Get": n, "GetAll": n, ...},
                             "by_property": {"Name": n, ...}   (Properties.Get/Set),
                             "by_path": {"/org/a11y/atspi/accessible/4": {"GetState": 1,
                                         "Get Name": 2, ...}, ...},
                             "paths": {"/org/a11y/atspi/accessible/4": "Slow", ...}}
                            (per-path counts for the first 5000 paths seen, the fixed elements
                            always; the rest under "(other)")
    calls reset          -> {"ok": true}   counters to zero, `exposed` emptied
    exposed              -> {"paths": [...], "over": bool, "withdrawn": [...]}   every element
                            path handed out (GetChildren, GetChildAtIndex, GetItems; the root
                            always) since `calls reset`; "over" when more than 5000 were;
                            "withdrawn": "Body"'s children among them that its last
                            GetChildren answer left out (flicker, vanish-children)
    rename ELEMENT NEW NAME
                         -> {"ok": true}   set its name, emit org.a11y.atspi.Event.Object
                            PropertyChange ("accessible-name", 0, 0, <s NEW NAME>, {})
    stall MS [SUFFIX]    -> {"ok": true}   after MS milliseconds: the main loop is blocked that
                            long (calls wait, answered in order afterwards), as a busy toolkit's;
                            with SUFFIX, "Body"'s children are first renamed to their name +
                            SUFFIX (events sent at once)
    quit                 -> {"ok": true}, then exit
At start-up, once registered (Embed answered, Id set): {"ready": true, "bus": "<unique name>",
"pid": PID}. The registry's own calls before that (its Id Set) are answered truthfully and not
counted.
"""

import json
import os
import random
import signal
import struct
import sys
import time

import gi  # noqa: F401

from gi.repository import Gio, GLib  # noqa: E402

DEFAULT_NAME = "liar-app"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
ACC_PREFIX = "/org/a11y/atspi/accessible/"
NULL_PATH = "/org/a11y/atspi/null"
CACHE_PATH = "/org/a11y/atspi/cache"
REGISTRY = "org.a11y.atspi.Registry"

# Path numbers. Deep levels, vanished children and the huge list's ghosts each get their own
# range, so a path alone says what it is and nothing has to be remembered per path.
LEVEL_BASE = 100_000_000
DEAD_BASE = 800_000_000
GHOST_BASE = 900_000_000
DANGLING_N = 999_999_999
HUGE_CHILDREN = 1_000_000
HUGE_STATES = 1_000_000
MAX_TRACKED_PATHS = 5000

ACCESSIBLE = "org.a11y.atspi.Accessible"
APPLICATION = "org.a11y.atspi.Application"
COMPONENT = "org.a11y.atspi.Component"
ACTION = "org.a11y.atspi.Action"
TEXT = "org.a11y.atspi.Text"
EDITABLE = "org.a11y.atspi.EditableText"
CACHE = "org.a11y.atspi.Cache"
PROPERTIES = "org.freedesktop.DBus.Properties"
INTROSPECTABLE = "org.freedesktop.DBus.Introspectable"
PEER = "org.freedesktop.DBus.Peer"

ERR = "org.freedesktop.DBus.Error."

# AT-SPI roles and states (atspi-constants.h numbering).
ROLE_APPLICATION, ROLE_FRAME, ROLE_PANEL = 75, 23, 39
ROLE_PUSH_BUTTON, ROLE_CHECK_BOX, ROLE_TEXT, ROLE_LABEL = 43, 7, 61, 29
ROLE_NAMES = {75: "application", 23: "frame", 39: "panel", 43: "push button", 7: "check box",
              61: "text", 29: "label"}
S_ACTIVE, S_CHECKED, S_EDITABLE, S_ENABLED, S_FOCUSABLE, S_FOCUSED = 1, 4, 7, 8, 11, 12
S_SENSITIVE, S_SHOWING, S_SINGLE_LINE, S_VISIBLE = 24, 25, 26, 30
S_SELECTABLE_TEXT, S_CHECKABLE = 38, 41
S_MANAGES_DESCENDANTS = 31
BASE_STATES = {S_ENABLED, S_SENSITIVE, S_SHOWING, S_VISIBLE}
CONTROL_STATES = BASE_STATES | {S_FOCUSABLE}
LAYER_WIDGET, LAYER_WINDOW = 3, 7

# ---- the interfaces: (in signature, out signature) per method, type per property --------------
# One table serves introspection, argument checks and the generic bad-signature answer.
METHODS = {
    ACCESSIBLE: {
        "GetChildAtIndex": ("i", "(so)"), "GetChildren": ("", "a(so)"),
        "GetIndexInParent": ("", "i"), "GetRelationSet": ("", "a(ua(so))"),
        "GetRole": ("", "u"), "GetRoleName": ("", "s"), "GetLocalizedRoleName": ("", "s"),
        "GetState": ("", "au"), "GetAttributes": ("", "a{ss}"), "GetApplication": ("", "(so)"),
        "GetInterfaces": ("", "as"),
    },
    APPLICATION: {"GetLocale": ("u", "s"), "GetApplicationBusAddress": ("", "s")},
    COMPONENT: {
        "Contains": ("iiu", "b"), "GetAccessibleAtPoint": ("iiu", "(so)"),
        "GetExtents": ("u", "(iiii)"), "GetPosition": ("u", "ii"), "GetSize": ("", "ii"),
        "GetLayer": ("", "u"), "GetMDIZOrder": ("", "n"), "GrabFocus": ("", "b"),
        "GetAlpha": ("", "d"), "SetExtents": ("iiiiu", "b"), "SetPosition": ("iiu", "b"),
        "SetSize": ("ii", "b"), "ScrollTo": ("u", "b"), "ScrollToPoint": ("uii", "b"),
    },
    ACTION: {
        "GetDescription": ("i", "s"), "GetName": ("i", "s"), "GetLocalizedName": ("i", "s"),
        "GetKeyBinding": ("i", "s"), "GetActions": ("", "a(sss)"), "DoAction": ("i", "b"),
    },
    TEXT: {
        "GetStringAtOffset": ("iu", "sii"), "GetText": ("ii", "s"), "SetCaretOffset": ("i", "b"),
        "GetTextBeforeOffset": ("iu", "sii"), "GetTextAtOffset": ("iu", "sii"),
        "GetTextAfterOffset": ("iu", "sii"), "GetCharacterAtOffset": ("i", "i"),
        "GetAttributeValue": ("is", "s"), "GetAttributes": ("i", "a{ss}ii"),
        "GetDefaultAttributes": ("", "a{ss}"), "GetCharacterExtents": ("iu", "iiii"),
        "GetOffsetAtPoint": ("iiu", "i"), "GetNSelections": ("", "i"),
        "GetSelection": ("i", "ii"), "AddSelection": ("ii", "b"), "RemoveSelection": ("i", "b"),
        "SetSelection": ("iii", "b"), "GetRangeExtents": ("iiu", "iiii"),
        "GetBoundedRanges": ("iiiiuuu", "a(iisv)"), "GetAttributeRun": ("ib", "a{ss}ii"),
        "GetDefaultAttributeSet": ("", "a{ss}"), "ScrollSubstringTo": ("iiu", "b"),
        "ScrollSubstringToPoint": ("iiuii", "b"),
    },
    EDITABLE: {
        "SetTextContents": ("s", "b"), "InsertText": ("isi", "b"), "CopyText": ("ii", ""),
        "CutText": ("ii", "b"), "DeleteText": ("ii", "b"), "PasteText": ("i", "b"),
    },
    CACHE: {"GetItems": ("", "a((so)(so)(so)iiassusau)")},
    PROPERTIES: {"Get": ("ss", "v"), "Set": ("ssv", ""), "GetAll": ("s", "a{sv}")},
    INTROSPECTABLE: {"Introspect": ("", "s")},
    PEER: {"Ping": ("", ""), "GetMachineId": ("", "s")},
}
PROPS = {
    ACCESSIBLE: {"Name": "s", "Description": "s", "Parent": "(so)", "ChildCount": "i",
                 "Locale": "s", "AccessibleId": "s"},
    APPLICATION: {"ToolkitName": "s", "Version": "s", "AtspiVersion": "s", "Id": "i"},
    ACTION: {"NActions": "i"},
    TEXT: {"CharacterCount": "i", "CaretOffset": "i"},
}
SHORT_IFACES = {i.rsplit(".", 1)[1].lower(): i for i in METHODS}

# ---- hostile strings ----------------------------------------------------------------------------
HOSTILE = (
    "\x07\x08\r\n\t\x0b\x0c\x7f"                               # C0 controls, DEL
    "\x85\x9b\x9d\x90"                                         # C1 controls (NEL CSI OSC DCS)
    "\x1b[31mred\x1b[0m\x1b[2J\x1b[H"                          # SGR colour, clear, home
    "\x1b]52;c;cHduZWQ=\x07"                                   # OSC 52: clipboard := "pwned"
    "\x1b]0;title\x1b\\"                                       # OSC 0: terminal title
    "\x1b]8;;https://example.invalid/\x1b\\link\x1b]8;;\x1b\\"  # OSC 8 hyperlink
    "\u202eevil\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c"  # bidi
    "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u2061\u2062\u2063\u2064\U000e0001\U000e0041"
    "\u2028\u2029"                                             # line / paragraph separators
    "\ufffe\uffff\ufdd0\U0001fffe"                             # noncharacters
    " \u0301\u20dd\u0336\u0336"                                # lone combining marks
)
INVALID_UTF8 = b"\xff\xfe\xc3\x28\xc0\xaf\xed\xa0\x80\xf8\x88\x80\x80\x80"


def hostile(s):
    return "\u0301\u202e" + s + "\u202c" + HOSTILE


# ---- GVariant serialisation ---------------------------------------------------------------------
# PyGObject's GLib.Variant(type, value) walks the value in Python and costs ~50 µs per value
# (measured: 55 s for a million (so) pairs, 330 µs for a six-child GetChildren). Replies are
# serialised here instead, straight into GVariant's native form, and wrapped with
# GLib.Variant.new_from_bytes once GLib has checked the bytes: a million references take
# ~4 s, a normal reply a few µs.

def _align_up(n, a):
    return (n + a - 1) & ~(a - 1)


def _framing(body_len, offsets):
    """The framing-offset table of a container: offsets as wide as its total size needs."""
    n = len(offsets)
    for size, fmt in ((1, "B"), (2, "H"), (4, "I"), (8, "Q")):
        if size == 8 or body_len + size * n < (1 << (8 * size)):
            return struct.pack("<%d%s" % (n, fmt), *offsets)


class _Codec:
    __slots__ = ("align", "fixed", "ser")


_FIXED = {"y": "B", "b": "?", "n": "h", "q": "H", "i": "i", "u": "I", "h": "i", "x": "q",
          "t": "Q", "d": "d"}
_CODECS = {}


def _codec(t):
    c = _CODECS.get(t)
    if c is None:
        c, end = _parse_type(t, 0)
        if end != len(t):
            raise ValueError("not one complete type: %r" % t)
        _CODECS[t] = c
    return c


def _parse_type(t, i):
    ch = t[i]
    c = _Codec()
    if ch in _FIXED:
        s = struct.Struct("<" + _FIXED[ch])
        c.align = c.fixed = s.size
        c.ser = s.pack
        return c, i + 1
    if ch in "sog":
        c.align, c.fixed = 1, None
        c.ser = lambda v: (v if isinstance(v, bytes) else v.encode("utf-8")) + b"\0"
        return c, i + 1
    if ch == "v":  # value given as (type string, value)
        c.align, c.fixed = 8, None
        c.ser = lambda v: _codec(v[0]).ser(v[1]) + b"\0" + v[0].encode()
        return c, i + 1
    if ch == "a":
        e, j = _parse_type(t, i + 1)
        c.align, c.fixed = e.align, None
        if t[i + 1] == "y":
            c.ser = bytes
        elif e.fixed is not None:
            eser = e.ser
            c.ser = lambda v: b"".join(map(eser, v.items() if isinstance(v, dict) else v))
        else:
            eser, emask = e.ser, e.align - 1

            def ser_array(v):
                if isinstance(v, dict):
                    v = v.items()
                parts, ends, pos = [], [], 0
                for x in v:
                    pad = -pos & emask
                    if pad:
                        parts.append(b"\0" * pad)
                        pos += pad
                    d = eser(x)
                    parts.append(d)
                    pos += len(d)
                    ends.append(pos)
                parts.append(_framing(pos, ends))
                return b"".join(parts)
            c.ser = ser_array
        return c, j
    if ch in "({":
        close = ")" if ch == "(" else "}"
        members, j = [], i + 1
        while t[j] != close:
            m, j = _parse_type(t, j)
            members.append(m)
        c.align = max([m.align for m in members] or [1])
        if all(m.fixed is not None for m in members):
            pos = 0
            for m in members:
                pos = _align_up(pos, m.align) + m.fixed
            c.fixed = _align_up(pos, c.align) if members else 1
        else:
            c.fixed = None
        last, fixed = len(members) - 1, c.fixed

        def ser_tuple(v):
            parts, ends, pos = [], [], 0
            for k, m in enumerate(members):
                pad = -pos & (m.align - 1)
                if pad:
                    parts.append(b"\0" * pad)
                    pos += pad
                d = m.ser(v[k])
                parts.append(d)
                pos += len(d)
                if m.fixed is None and k != last:
                    ends.append(pos)
            if fixed is not None:
                parts.append(b"\0" * (fixed - pos))
            else:
                ends.reverse()
                parts.append(_framing(pos, ends))
            return b"".join(parts)
        c.ser = ser_tuple
        return c, j + 1
    raise ValueError("unsupported type %r" % t)


def variant_from_data(t, data):
    # Checked once as untrusted data (linear), then handed to GDBus as trusted: GLib 2.74 reads
    # the children of an untrusted array in quadratic time (measured: 100,000 references took
    # 3.4 s to marshal untrusted, 0.08 s trusted; a million would take minutes).
    gtype, gbytes = GLib.VariantType.new(t), GLib.Bytes.new(data)
    if not GLib.Variant.new_from_bytes(gtype, gbytes, False).is_normal_form():
        raise ValueError("liar_app: serialised %s is not in normal form" % t)
    return GLib.Variant.new_from_bytes(gtype, gbytes, True)


def body(sig, value):
    """A reply body: `value` is the tuple of out arguments for signature `sig` ("" = none), or
    a GLib.Variant already made (the huge replies, built once)."""
    if isinstance(value, GLib.Variant):
        return value
    if not sig:
        return None
    t = "(" + sig + ")"
    return variant_from_data(t, _codec(t).ser(value))


def split_sig(sig):
    """'iiu' -> ['i', 'i', 'u']; '(so)a{ss}' -> ['(so)', 'a{ss}']."""
    out, i = [], 0
    while i < len(sig):
        j = i
        while sig[j] == "a":
            j += 1
        if sig[j] in "({":
            depth = 0
            while True:
                depth += sig[j] in "({"
                depth -= sig[j] in ")}"
                j += 1
                if depth == 0:
                    break
        else:
            j += 1
        out.append(sig[i:j])
        i = j
    return out


class DBusErr(Exception):
    def __init__(self, name, text):
        super().__init__(text)
        self.name, self.text = name, text


# ---- the elements -------------------------------------------------------------------------------

class Elem:
    __slots__ = ("key", "path", "role", "name", "parent", "kids", "states", "box", "ifaces",
                 "actions", "level")

    def __init__(self, key, path, role, name, states=frozenset(), box=None, ifaces=(),
                 actions=(), level=0):
        self.key, self.path, self.role, self.name = key, path, role, name
        self.parent, self.kids = None, []
        self.states, self.box = set(states), box
        self.ifaces = [ACCESSIBLE] + list(ifaces)
        self.actions = list(actions)  # (name, description, key binding)
        self.level = level


def acc_path(n):
    return ACC_PREFIX + str(n)


# ---- lies ---------------------------------------------------------------------------------------
# name -> (argument: None | "int" | "str" | "opt-int" | "opt-str" | (choices...), replaces)
LIES = {
    "cycle": (None, False), "deep": ("int", True), "silent-element": ("str", False),
    "silent-method": ("str", False), "silent-after": ("int", True), "hang-on": ("str", False),
    "bad-signature": ("str", False), "huge-strings": ("opt-int", True),
    "huge-arrays": (("children", "states"), False), "bad-text": (None, False),
    "invalid-utf8": ("opt-str", False), "flip-names": (None, False),
    "vanish-children": (("all", "half"), True), "child-count": ("int", True),
    "no-interface": ("str", False), "dangling": (None, False), "tiny-window": (None, False),
    "slow": ("int", True), "stale-cache": (None, False), "gdbus-errors": (None, False),
    "refuse-past-end": (None, False), "flicker": (None, False),
    "vanish-after-name": (None, False), "manages": (None, False),
    "actionless": (None, False), "screen-zero": (None, False), "misplaced": ("int", True),
}


def parse_lie(text):
    """'deep=5' -> ('deep', 5). Raises ValueError with a reason."""
    name, eq, arg = text.strip().partition("=")
    if name not in LIES:
        raise ValueError("unknown lie %r (known: %s)" % (name, ", ".join(sorted(LIES))))
    kind = LIES[name][0]
    if kind is None:
        if eq:
            raise ValueError("%s takes no argument" % name)
        return name, None
    if not eq or arg == "":
        if kind == "opt-int" or kind == "opt-str":
            return name, None
        if name == "vanish-children":
            return name, "all"
        raise ValueError("%s needs an argument" % name)
    if kind in ("int", "opt-int"):
        try:
            n = int(arg)
        except ValueError:
            raise ValueError("%s needs a number, not %r" % (name, arg)) from None
        if n < 0:
            raise ValueError("%s needs a number >= 0" % name)
        return name, n
    if isinstance(kind, tuple) and arg not in kind:
        raise ValueError("%s takes one of %s" % (name, "|".join(kind)))
    return name, arg


def lie_text(lie):
    name, arg = lie
    return name if arg is None else "%s=%s" % (name, arg)


def parse_args(argv):
    opts = {"name": DEFAULT_NAME, "lies": [], "seed": 0, "keep_open": False, "window": False}

    def fail(text):
        sys.stderr.write("liar_app: %s\n" % text)
        sys.exit(2)

    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a == "--keep-open":
            opts["keep_open"] = True
            continue
        if a == "--window":
            opts["window"] = True
            continue
        flag, eq, val = a.partition("=")
        if flag not in ("--name", "--lie", "--seed"):
            fail("unknown argument %r" % a)
        if not eq:
            if i >= len(argv):
                fail("%s needs a value" % flag)
            val, i = argv[i], i + 1
        if flag == "--name":
            opts["name"] = val
        elif flag == "--seed":
            try:
                opts["seed"] = int(val)
            except ValueError:
                fail("--seed needs a number")
        else:
            try:
                opts["lies"].append(parse_lie(val))
            except ValueError as e:
                fail(str(e))
    return opts


# ---- the app ------------------------------------------------------------------------------------

class Liar:
    def __init__(self, opts):
        self.keep_open = opts["keep_open"]
        self.rng = random.Random(opts["seed"])
        self.lies = []
        self.loop = GLib.MainLoop()
        self.ready = False
        self.app_id = 0
        self.desktop = (REGISTRY, ROOT_PATH)
        self.stdin_buf = b""
        # app state
        self.presses = {"OK": 0, "Slow": 0}
        self.checked = False
        self.field_text = "hello"
        self.caret = len(self.field_text)
        self.selection = None  # (start, end) in characters
        self.focus = None
        # bookkeeping
        self.received = self.answered = 0
        self.after_count = 0        # answered since silent-after was switched on
        self.hung_queue = []        # held by silent-after, answered on wake
        self.silenced = []          # held by silent-element / silent-method, never answered
        self.by_method, self.by_property, self.by_path = {}, {}, {}
        self.flip = {}              # path -> Name reads (flip-names)
        self.deep_seen = 0          # deepest level whose reference has been handed out
        self.dead_next = 0          # next vanished path
        self.flicker_phase = 0      # flicker: 1 while "Body" leaves "Status" out
        self.exposed_over = False   # more than MAX_TRACKED_PATHS were handed out
        self.exposed = {ROOT_PATH}  # paths handed out as elements since `calls reset`
        self.body_said = None       # "Body"'s last GetChildren answer since `calls reset`
        self.gone_after_name = set()  # vanish-after-name: paths that answered their Name
        self.huge_cache = {}        # (kind, key) -> bytes / strings, made once
        self.build_tree(opts["name"])
        for lie in opts["lies"]:
            self.add_lie(lie)
        self.clicks = []            # --window: every button press, (x, y) on screen
        self.window = self.open_window() if opts["window"] else None

    # ---- the tree --------------------------------------------------------------------------

    def build_tree(self, app_name):
        self.root = Elem("app", ROOT_PATH, ROLE_APPLICATION, app_name, ifaces=[APPLICATION])
        self.frame = Elem("frame", acc_path(1), ROLE_FRAME, "Liar", BASE_STATES | {S_ACTIVE},
                          (100, 100, 400, 300), [COMPONENT])
        self.body = Elem("body", acc_path(2), ROLE_PANEL, "Body", BASE_STATES,
                         (100, 130, 400, 270), [COMPONENT])
        self.ok = Elem("ok", acc_path(3), ROLE_PUSH_BUTTON, "OK", CONTROL_STATES,
                       (110, 140, 80, 30), [ACTION, COMPONENT],
                       [("click", "Presses the button", "<Alt>o")])
        self.slow = Elem("slow", acc_path(4), ROLE_PUSH_BUTTON, "Slow", CONTROL_STATES,
                         (200, 140, 80, 30), [ACTION, COMPONENT],
                         [("click", "Presses the button", "<Alt>s")])
        self.check = Elem("check", acc_path(5), ROLE_CHECK_BOX, "Check",
                          CONTROL_STATES | {S_CHECKABLE}, (110, 180, 120, 24),
                          [ACTION, COMPONENT], [("toggle", "Toggles the check box", "<Alt>c")])
        self.field = Elem("field", acc_path(6), ROLE_TEXT, "Field",
                          CONTROL_STATES | {S_EDITABLE, S_SINGLE_LINE, S_SELECTABLE_TEXT},
                          (110, 214, 200, 28), [COMPONENT, EDITABLE, TEXT])
        self.status = Elem("status", acc_path(7), ROLE_LABEL, "Status", BASE_STATES,
                           (110, 252, 200, 20), [COMPONENT, TEXT])
        self.root.kids = [self.frame]
        self.frame.kids = [self.body]
        self.body.kids = [self.ok, self.slow, self.check, self.field, self.status]
        for p in (self.root, self.frame, self.body):
            for k in p.kids:
                k.parent = p
        self.fixed = [self.root, self.frame, self.body] + self.body.kids
        self.by_path_fixed = {e.path: e for e in self.fixed}

    def level(self, k):
        """Level K of deep=N, made from its number: nothing is stored per level."""
        e = Elem("level-%d" % k, acc_path(LEVEL_BASE + k), ROLE_PANEL, "Level %d" % k,
                 BASE_STATES, self.body.box, [COMPONENT], level=k)
        e.parent = self.body if k == 1 else None
        return e

    def resolve(self, path):
        e = self.by_path_fixed.get(path)
        if e is not None:
            return e
        if path.startswith(ACC_PREFIX):
            tail = path[len(ACC_PREFIX):]
            if tail.isdigit() and tail[0] != "0":
                k = int(tail) - LEVEL_BASE
                if 0 < k <= self.lie_arg("deep", 0):
                    return self.level(k)
        return None

    def find(self, what):
        """An element by name, key or path (the fixed ones and, with deep, "Level K")."""
        for e in self.fixed:
            if what in (e.name, e.key, e.path):
                return e
        e = self.resolve(what)
        if e is None and what.startswith(("Level ", "level-")):
            tail = what.split(" ", 1)[-1] if " " in what else what[6:]
            if tail.isdigit():
                e = self.resolve(acc_path(LEVEL_BASE + int(tail)))
        return e

    def true_parent(self, e):
        if e.level > 1:
            return self.level(e.level - 1)
        return e.parent

    def true_kids(self, e):
        if e.level:
            return [self.level(e.level + 1)] if e.level < self.lie_arg("deep", 0) else []
        kids = list(e.kids)
        if e is self.body and self.lie_arg("deep", 0) > 0:
            kids.append(self.level(1))
        return kids

    def index_in_parent(self, e):
        p = self.true_parent(e)
        if p is None:
            return -1
        if e.level:
            return 0 if e.level > 1 else len(self.body.kids)
        return p.kids.index(e)

    # ---- lies ------------------------------------------------------------------------------

    def has(self, name):
        return any(n == name for n, _ in self.lies)

    def lie_arg(self, name, default=None):
        for n, a in self.lies:
            if n == name:
                return a
        return default

    def lie_args(self, name):
        return [a for n, a in self.lies if n == name]

    def add_lie(self, lie):
        name, arg = lie
        if LIES[name][1]:
            self.remove_lie(name, flush=False)
        if lie not in self.lies:
            self.lies.append(lie)
        if name == "silent-after":
            self.after_count = 0
        elif name == "vanish-after-name":
            self.gone_after_name = set()
        elif name == "flicker":
            self.flicker_phase = 0  # each switch-on starts from the whole list
        elif name == "bad-text":
            self.field_text = hostile("") + "typed"
            self.caret, self.selection = len(self.field_text), None
        elif name == "huge-strings":
            for e in (self.ok, self.slow):
                self.huge_text(e, "name")
                self.huge_text(e, "description")
        elif name == "huge-arrays" and arg == "children" and self.ready:
            self.huge_children_body()  # built now, so the first GetChildren is not slow

    def remove_lie(self, name, flush=True):
        """Switches off every instance of one lie, or all of them for "none"."""
        self.lies = [] if name == "none" else [l for l in self.lies if l[0] != name]
        if not self.has("vanish-after-name"):
            self.gone_after_name = set()
        if flush and not self.has("silent-after"):
            self.flush_hung()

    def flush_hung(self):
        queued, self.hung_queue = self.hung_queue, []
        for msg in queued:
            self.process(msg)

    # ---- what the app reports (every lie on values goes through here) ---------------------

    def huge_text(self, e, field):
        size = self.lie_arg("huge-strings")
        if size is None:
            size = {("ok", "name"): 1, ("ok", "description"): 10,
                    ("slow", "name"): 10, ("slow", "description"): 1}[(e.key, field)]
        key = ("str", e.key, field, size)
        s = self.huge_cache.get(key)
        if s is None:
            n = size * 1_000_000
            unit = " %s %s 0123456789 abcdefghijklmnopqrstuvwxyz" % (e.name, field)
            s = (e.name + unit * (n // len(unit) + 1))[:n]
            self.huge_cache[key] = s
        return s

    def text_of(self, s):
        return hostile(s) if self.has("bad-text") else s

    def name_of(self, e, count_read=True):
        if self.has("huge-strings") and e in (self.ok, self.slow):
            n = self.huge_text(e, "name")
        else:
            n = e.name
        n = self.text_of(n)
        if self.has("flip-names") and count_read:
            reads = self.flip.get(e.path, 0)
            self.flip[e.path] = reads + 1
            if reads % 2:
                n += " (flipped)"
        return n

    def desc_of(self, e):
        if self.has("huge-strings") and e in (self.ok, self.slow):
            return self.text_of(self.huge_text(e, "description"))
        return self.text_of("")

    def utf8_liar(self, e):
        """Whether invalid-utf8 holds for this element."""
        for arg in self.lie_args("invalid-utf8"):
            if arg is None or arg in (e.name, e.key, e.path):
                return True
        return False

    def ref(self, path):
        return (self.unique, path)

    def null_ref(self):
        return (self.unique, NULL_PATH)

    def parent_ref(self, e):
        if e is self.root:
            return self.desktop
        return self.ref(self.true_parent(e).path)

    def saw(self, path):
        """Notes a deep level's reference going out (the cache lists levels seen)."""
        if path.startswith(ACC_PREFIX):
            tail = path[len(ACC_PREFIX):]
            if tail.isdigit():
                k = int(tail) - LEVEL_BASE
                if 0 < k < DEAD_BASE - LEVEL_BASE and k > self.deep_seen:
                    self.deep_seen = k

    def body_listing(self):
        """Body's children as its GetChildren answers them, before vanish/huge."""
        paths = [k.path for k in self.body.kids]
        if self.lie_arg("deep", 0) > 0:
            paths.append(acc_path(LEVEL_BASE + 1))
        if self.has("dangling"):
            paths.insert(2, acc_path(DANGLING_N))
        if self.has("cycle"):
            paths.append(self.frame.path)
        if self.has("flicker") and self.flicker_phase:
            paths.remove(self.status.path)
        return paths

    def listed_children(self, e):
        """The child paths GetChildren answers (vanish-children mints its dead paths here)."""
        if e is not self.body:
            return [k.path for k in self.true_kids(e)]
        paths = self.body_listing()
        how = self.lie_arg("vanish-children")
        if how is not None:
            idx = range(len(paths))
            if how == "half":
                idx = self.rng.sample(list(idx), (len(paths) + 1) // 2)
            for i in idx:
                paths[i] = acc_path(DEAD_BASE + self.dead_next)
                self.dead_next += 1
        return paths

    def child_at(self, e, i):
        if e is self.body and "children" in self.lie_args("huge-arrays"):
            base = self.body_listing()
            if 0 <= i < len(base):
                return base[i]
            return acc_path(GHOST_BASE + i) if len(base) <= i < HUGE_CHILDREN else None
        if e is self.body and self.has("vanish-children"):
            paths = self.listed_children(e)
        else:
            paths = self.body_listing() if e is self.body else [k.path for k in self.true_kids(e)]
        return paths[i] if 0 <= i < len(paths) else None

    def child_count(self, e):
        if e is self.body:
            n = self.lie_arg("child-count")
            if n is not None:
                return n
            if "children" in self.lie_args("huge-arrays"):
                return HUGE_CHILDREN
            return len(self.body_listing())
        return len(self.true_kids(e))

    def huge_children_body(self):
        """Body's GetChildren under huge-arrays=children: built once per listing, ~3 s."""
        base = tuple(self.body_listing())
        key = ("children", self.unique, base)
        v = self.huge_cache.get(key)
        if v is None:
            refs = [(self.unique, p) for p in base]
            refs += [(self.unique, acc_path(GHOST_BASE + i)) for i in range(len(base), HUGE_CHILDREN)]
            self.huge_cache = {k: x for k, x in self.huge_cache.items() if k[0] != "children"}
            v = self.huge_cache[key] = body("a(so)", (refs,))
        return v

    def ifaces_of(self, e):
        """The interfaces the element really has (actionless takes the check box's Action)."""
        if e is self.check and self.has("actionless"):
            return [i for i in e.ifaces if i != ACTION]
        return e.ifaces

    def claimed_ifaces(self, e):
        ifaces = list(self.ifaces_of(e))
        for arg in self.lie_args("no-interface"):
            iface = SHORT_IFACES.get(arg.lower(), arg)
            if iface not in ifaces:
                ifaces.append(iface)
        return ifaces

    def refused_ifaces(self):
        return {SHORT_IFACES.get(a.lower(), a) for a in self.lie_args("no-interface")}

    def states_of(self, e):
        s = set(e.states)
        if e is self.check and self.checked:
            s.add(S_CHECKED)
        if e is self.focus:
            s.add(S_FOCUSED)
        if e is self.body and self.has("manages"):
            s.add(S_MANAGES_DESCENDANTS)
        return s

    @staticmethod
    def state_words(states):
        w = [0, 0]
        for s in states:
            w[s // 32] |= 1 << (s % 32)
        return w

    def drawn(self, e, coord):
        """Where the element is drawn, in `coord` (0 screen, 1 window, 2 parent): what the hit
        test answers. screen-zero puts every element at (0, 0) in SCREEN coordinates (GTK 4.18
        answers its hit test the same way); WINDOW ones stay true."""
        x, y, w, h = e.box
        if e is self.frame and self.has("tiny-window"):
            x, y, w, h = 0, 0, 1, 1
        if coord == 0 and self.has("screen-zero"):
            return (0, 0, w, h)
        if coord == 1:    # window: relative to the frame (where it says it is, tiny-window too)
            fx, fy = (0, 0) if self.has("tiny-window") else self.frame.box[:2]
            x, y = x - fx, y - fy
        elif coord == 2:  # parent: relative to the parent, screen for the frame
            p = self.true_parent(e)
            if p is not None and p.box is not None:
                px, py = self.drawn(p, 0)[:2] if not self.has("screen-zero") else p.box[:2]
                x, y = x - px, y - py
        return (x, y, w, h)

    def extents(self, e, coord):
        """What GetExtents answers: where it is drawn, but misplaced=DX pixels to the right."""
        x, y, w, h = self.drawn(e, coord)
        if coord in (0, 1) and not (coord == 0 and self.has("screen-zero")):
            x += self.lie_arg("misplaced", 0)
        return (x, y, w, h)

    def text_value(self, e):
        if e is self.field:
            return self.field_text
        return self.text_of(e.name)

    # ---- D-Bus plumbing ---------------------------------------------------------------------

    def connect(self):
        addr = os.environ.get("A11Y_BUS_ADDRESS") or os.environ.get("AT_SPI_BUS_ADDRESS")
        if not addr:
            session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
            addr = session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus",
                                     "GetAddress", None, GLib.VariantType.new("(s)"),
                                     Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
                 | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        self.conn = Gio.DBusConnection.new_for_address_sync(addr, flags, None, None)
        self.conn.set_exit_on_close(False)
        self.conn.connect("closed", self.on_closed)
        self.unique = self.conn.get_unique_name()
        self.conn.add_filter(self.on_message)
        reply = self.conn.call_sync(REGISTRY, ROOT_PATH, "org.a11y.atspi.Socket", "Embed",
                                    GLib.Variant("((so))", ((self.unique, ROOT_PATH),)),
                                    GLib.VariantType.new("((so))"), Gio.DBusCallFlags.NONE,
                                    10000, None)
        self.desktop = tuple(reply.unpack()[0])
        if self.has("huge-arrays") and "children" in self.lie_args("huge-arrays"):
            self.huge_children_body()
        # The registry sends its Id Set before the Embed reply; it is queued on the main loop
        # already, so this idle runs after it.
        GLib.idle_add(self.announce_ready)

    def on_closed(self, conn, remote_peer_vanished, error):
        sys.stderr.write("liar_app: the bus closed the connection (%s)\n"
                         % (error.message if error else "no error"))
        sys.stderr.flush()
        os._exit(3)

    def on_message(self, conn, msg, incoming):
        # GDBus runs filters on its worker thread, for every message in and out. Method calls
        # to us are taken here (returning None drops them from GDBus's own dispatch, so GDBus
        # never answers one itself) and handled on the main loop, in arrival order.
        if incoming and msg.get_message_type() == Gio.DBusMessageType.METHOD_CALL:
            GLib.idle_add(self.on_call, msg, priority=GLib.PRIORITY_DEFAULT)
            return None
        return msg

    def announce_ready(self):
        self.ready = True
        self.reply_line({"ready": True, "bus": self.unique, "pid": os.getpid()})
        return False

    def send(self, msg):
        try:
            self.conn.send_message(msg, Gio.DBusSendMessageFlags.NONE)
        except GLib.Error as e:
            sys.stderr.write("liar_app: send failed: %s\n" % e.message)

    @staticmethod
    def call_keys(msg):
        """The names a METHOD of a lie can match this call by."""
        iface, member = msg.get_interface() or "", msg.get_member() or ""
        keys = {member, iface + "." + member}
        if iface == PROPERTIES and member in ("Get", "Set"):
            b = msg.get_body()
            if (msg.get_signature() or "").startswith("ss"):
                pi = b.get_child_value(0).get_string()
                pn = b.get_child_value(1).get_string()
                keys |= {pn, pi + "." + pn}
        return keys

    def count(self, msg):
        self.received += 1
        path, member = msg.get_path() or "", msg.get_member() or ""
        self.by_method[member] = self.by_method.get(member, 0) + 1
        key = member
        if msg.get_interface() == PROPERTIES and member in ("Get", "Set"):
            b = msg.get_body()
            if (msg.get_signature() or "").startswith("ss"):
                prop = b.get_child_value(1).get_string()
                self.by_property[prop] = self.by_property.get(prop, 0) + 1
                key = member + " " + prop
        per = self.by_path.get(path)
        if per is None:
            if len(self.by_path) >= MAX_TRACKED_PATHS and path not in self.by_path_fixed:
                path = "(other)"
            per = self.by_path.setdefault(path, {})
        per[key] = per.get(key, 0) + 1

    def on_call(self, msg):
        if not self.ready:
            # Registration (the registry's Id Set): answered truthfully, not counted.
            self.deliver(msg, self.answer(msg))
            return False
        self.count(msg)
        self.process(msg)
        return False

    def silenced_by_lie(self, msg):
        silent_methods = self.lie_args("silent-method")
        silent_elems = self.lie_args("silent-element")
        if not silent_methods and not silent_elems:
            return False
        keys = self.call_keys(msg)
        if any(m in keys for m in silent_methods):
            return True
        path = msg.get_path()
        for spec in silent_elems:
            what, _, method = spec.partition(":")
            e = self.find(what)
            if e is not None and e.path == path and (not method or method in keys):
                return True
        return False

    def process(self, msg):
        hang_on = self.lie_args("hang-on")
        if (hang_on and self.lie_arg("silent-after") is None
                and any(m in self.call_keys(msg) for m in hang_on)):
            self.add_lie(("silent-after", 0))
        after = self.lie_arg("silent-after")
        if after is not None and self.after_count >= after:
            self.hung_queue.append(msg)
            return
        if self.silenced_by_lie(msg):
            self.silenced.append(msg)  # kept referenced: never answered, never dropped
            return
        reply = self.answer(msg)
        self.answered += 1
        if after is not None:
            self.after_count += 1
        delay = self.lie_arg("slow")
        if delay:
            GLib.timeout_add(delay, lambda: self.deliver(msg, reply) and False)
        else:
            self.deliver(msg, reply)

    def deliver(self, msg, reply):
        if reply is not None and not (msg.get_flags() & Gio.DBusMessageFlags.NO_REPLY_EXPECTED):
            self.send(reply)
        return False

    # ---- answering ---------------------------------------------------------------------------

    def answer(self, msg):
        """The reply message for one call (a return, or an error)."""
        try:
            sig, value = self.dispatch(msg)
            reply = Gio.DBusMessage.new_method_reply(msg)
            b = body(sig, value)
            if b is not None:
                reply.set_body(b)
            return reply
        except DBusErr as e:
            return msg.new_method_error_literal(e.name, e.text)
        except Exception as e:  # a bug here must not look like a hung app
            import traceback
            traceback.print_exc()
            return msg.new_method_error_literal(ERR + "Failed", "liar_app: %r" % e)

    def droute_text(self, msg, tail):
        return 'Method "%s" with signature "%s" on interface "%s" %s\n' % (
            msg.get_member(), msg.get_signature() or "", msg.get_interface() or "", tail)

    def no_object(self, msg):
        if self.has("gdbus-errors"):
            return DBusErr(ERR + "UnknownMethod",
                           "Object does not exist at path \u201c%s\u201d" % msg.get_path())
        return DBusErr(ERR + "UnknownObject", self.droute_text(
            msg, "could not be processed as object %s does not exist" % msg.get_path()))

    def no_method(self, msg):
        if self.has("gdbus-errors"):
            return DBusErr(ERR + "UnknownMethod", "No such interface \u201c%s\u201d on object "
                           "at path %s" % (msg.get_interface(), msg.get_path()))
        return DBusErr(ERR + "UnknownMethod", self.droute_text(msg, "doesn't exist"))

    def dispatch(self, msg):
        path, iface, member = msg.get_path(), msg.get_interface(), msg.get_member()
        b = msg.get_body()
        args = b.unpack() if b is not None else ()
        if iface == PEER or (iface is None and member in METHODS[PEER]):
            return self.peer(msg, member)
        if path == CACHE_PATH:
            e, real = None, [CACHE]
        else:
            e = self.resolve(path)
            if e is None or path in self.gone_after_name:
                raise self.no_object(msg)
            real = self.ifaces_of(e)
        if iface is None:  # D-Bus allows calls without an interface: take the first that fits
            iface = next((i for i in real + [PROPERTIES, INTROSPECTABLE]
                          if member in METHODS.get(i, {})), "")
        spec = METHODS.get(iface, {}).get(member)
        if spec is None:
            raise self.no_method(msg)
        # Properties and Introspectable are on every path; the rest only where implemented
        # (and not refused by no-interface).
        if iface not in (PROPERTIES, INTROSPECTABLE) and (
                iface not in real or iface in self.refused_ifaces()):
            raise self.no_method(msg)
        if (msg.get_signature() or "") != spec[0]:
            raise DBusErr(ERR + "InvalidArgs",
                          self.droute_text(msg, "was supplied with invalid arguments"))
        keys = self.call_keys(msg)
        bad = any(self.bad_for(spec, keys, path) for spec in self.lie_args("bad-signature"))
        if bad:
            # A reply in a wrong form hands out no element: what it would list is not exposed.
            exposed, over = set(self.exposed), self.exposed_over
            try:
                return self.dispatch_answer(e, iface, member, spec, args, msg, bad)
            finally:
                self.exposed, self.exposed_over = exposed, over
        return self.dispatch_answer(e, iface, member, spec, args, msg, bad)

    def dispatch_answer(self, e, iface, member, spec, args, msg, bad):
        if iface == PROPERTIES:
            return self.properties(msg, e, member, args, bad)
        if iface == INTROSPECTABLE:
            return "s", (self.introspect(e.ifaces if e is not None else [CACHE]),)
        if iface == CACHE:
            if bad:
                return "a((so)(so)(so)a(so)assusau)", (self.cache_items(old_form=True),)
            return spec[1], (self.cache_items(),)
        handler = getattr(self, "m_%s_%s" % (iface.rsplit(".", 1)[1], member))
        sig, value = handler(e, *args)
        if bad:
            return self.wrong_body(e, member, sig, value)
        return sig, value

    def bad_for(self, spec, keys, path):
        """Whether bad-signature=SPEC ([ELEMENT:]METHOD, METHOD "*" for any) holds for a call."""
        what, sep, method = spec.partition(":")
        if not sep:
            what, method = None, spec
        if method != "*" and method not in keys:
            return False
        if what is None:
            return True
        e = self.find(what)
        return e is not None and e.path == path

    def peer(self, msg, member):
        if member == "Ping":
            return "", ()
        if member == "GetMachineId":
            try:
                with open("/etc/machine-id") as f:
                    return "s", (f.read().strip(),)
            except OSError:
                return "s", ("0" * 32,)
        raise self.no_method(msg)

    def wrong_body(self, e, member, sig, value):
        if member == "GetState":
            return "s", ("enabled sensitive",)
        if member == "GetRole":
            return "(ss)", ((ROLE_NAMES.get(value[0], "unknown"), str(value[0])),)
        if member == "GetChildren":
            return "a(ss)", ([] if isinstance(value, GLib.Variant) else list(value[0]),)
        if isinstance(value, GLib.Variant):
            return "s", ("bad-signature",)
        if sig == "(so)":
            return "(ss)", (tuple(value[0]),)
        if member == "GetInterfaces":
            return "s", (";".join(value[0]),)
        if member == "GetExtents":
            return "(dddd)", (tuple(float(x) for x in value[0]),)
        if sig == "s":
            return "i", (42,)
        return "s", ("bad-signature",)

    # ---- org.freedesktop.DBus.Properties and Introspectable ---------------------------------

    def properties(self, msg, e, member, args, bad):
        if member == "GetAll":
            raise DBusErr(ERR + "NotSupported",
                          "liar_app: GetAll is not answered (Qt's bridge crashes on it)")
        iface, prop = args[0], args[1]
        ptype = PROPS.get(iface, {}).get(prop)
        if ptype is None:
            raise DBusErr(ERR + "UnknownProperty", "Property unavailable")
        if e is None or iface not in self.ifaces_of(e) or iface in self.refused_ifaces():
            raise DBusErr(ERR + "Failed", "Get failed")
        if member == "Set":
            if (iface, prop) == (APPLICATION, "Id") and isinstance(args[2], int):
                self.app_id = args[2]
                return "", ()
            raise DBusErr(ERR + "PropertyReadOnly", "Property is read-only")
        t, v = self.prop_value(e, iface, prop)
        if (prop == "Name" and self.has("vanish-after-name") and e.parent is self.body):
            self.gone_after_name.add(e.path)
        if bad:
            if t == "s":
                t, v = "i", 42
            elif t == "(so)":
                t, v = "s", v[1]
            else:
                t, v = "s", str(v)
        return "v", ((t, v),)

    def prop_value(self, e, iface, prop):
        if iface == ACCESSIBLE:
            if prop == "Name":
                n = self.name_of(e)
                if self.utf8_liar(e):
                    return "ay", n.encode("utf-8") + INVALID_UTF8
                return "s", n
            if prop == "Description":
                d = self.desc_of(e)
                if self.utf8_liar(e):
                    return "ay", d.encode("utf-8") + INVALID_UTF8
                return "s", d
            if prop == "Parent":
                return "(so)", self.parent_ref(e)
            if prop == "ChildCount":
                return "i", self.child_count(e)
            if prop == "Locale":
                return "s", "en_US.UTF-8"
            if prop == "AccessibleId":
                return "s", self.text_of(e.key) if e is not self.root else ""
        if iface == APPLICATION:
            return {"ToolkitName": ("s", self.text_of("liar")), "Version": ("s", self.text_of("1.0")),
                    "AtspiVersion": ("s", "2.1"), "Id": ("i", self.app_id)}[prop]
        if iface == ACTION:
            return "i", len(e.actions)
        if iface == TEXT:
            if prop == "CharacterCount":
                return "i", len(self.text_value(e))
            return "i", self.caret if e is self.field else 0
        raise DBusErr(ERR + "UnknownProperty", "Property unavailable")

    def introspect(self, ifaces):
        out = ['<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"\n'
               ' "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">\n<node>']
        for iface in list(ifaces) + [PROPERTIES, INTROSPECTABLE, PEER]:
            out.append('  <interface name="%s">' % iface)
            for m, (ins, outs) in sorted(METHODS[iface].items()):
                out.append('    <method name="%s">' % m)
                out += ['      <arg direction="in" type="%s"/>' % t for t in split_sig(ins)]
                out += ['      <arg direction="out" type="%s"/>' % t for t in split_sig(outs)]
                out.append("    </method>")
            for p, t in sorted(PROPS.get(iface, {}).items()):
                access = "readwrite" if (iface, p) == (APPLICATION, "Id") else "read"
                out.append('    <property name="%s" type="%s" access="%s"/>' % (p, t, access))
            out.append("  </interface>")
        out.append("</node>\n")
        return "\n".join(out)

    # ---- org.a11y.atspi.Cache ----------------------------------------------------------------

    def cache_items(self, old_form=False):
        stale = self.has("stale-cache")
        items = []
        elems = list(self.fixed)
        elems += [self.level(k) for k in range(1, min(self.deep_seen, self.lie_arg("deep", 0)) + 1)]
        for e in elems:
            name, role, states = self.name_of(e), e.role, self.states_of(e)
            if stale:
                name += " (cached)"
                if e is self.check:
                    states ^= {S_CHECKED}
                if e is self.field:
                    role = ROLE_LABEL
            if old_form:
                middle = ([self.ref(k.path) for k in self.true_kids(e)],)
            else:
                middle = (self.index_in_parent(e), self.child_count(e))
            items.append((self.ref(e.path), self.ref(ROOT_PATH), self.parent_ref(e)) + middle
                         + (self.claimed_ifaces(e), name, role, self.desc_of(e),
                            self.state_words(states)))
        self.expose([it[0][1] for it in items])
        if self.has("cycle") and not old_form:
            f = self.frame
            items.append((self.ref(f.path), self.ref(ROOT_PATH), self.ref(self.body.path),
                          self.body_listing().index(f.path), self.child_count(f),
                          self.claimed_ifaces(f), self.name_of(f), f.role, self.desc_of(f),
                          self.state_words(self.states_of(f))))
        return items

    # ---- org.a11y.atspi.Accessible -----------------------------------------------------------

    def m_Accessible_GetChildAtIndex(self, e, i):
        p = self.child_at(e, i)
        if p is None and self.has("refuse-past-end"):
            raise DBusErr(ERR + "InvalidArgs", "liar_app: no child at index %d" % i)
        if p is None:
            return "(so)", (self.null_ref(),)
        self.saw(p)
        self.expose([p])
        return "(so)", (self.ref(p),)

    def m_Accessible_GetChildren(self, e):
        if e is self.body and "children" in self.lie_args("huge-arrays"):
            return "a(so)", self.huge_children_body()
        if e is self.body and self.has("flicker"):
            self.flicker_phase ^= 1
        paths = self.listed_children(e)
        for p in paths:
            self.saw(p)
        self.expose(paths)
        if e is self.body:
            self.body_said = set(paths)
        return "a(so)", ([self.ref(p) for p in paths],)

    def expose(self, paths):
        """Notes element paths handed out (`exposed`), up to MAX_TRACKED_PATHS."""
        for p in paths:
            if len(self.exposed) >= MAX_TRACKED_PATHS:
                self.exposed_over = True
                return
            self.exposed.add(p)

    def m_Accessible_GetIndexInParent(self, e):
        return "i", (self.index_in_parent(e),)

    def m_Accessible_GetRelationSet(self, e):
        return "a(ua(so))", ([],)

    def m_Accessible_GetRole(self, e):
        return "u", (e.role,)

    def m_Accessible_GetRoleName(self, e):
        return "s", (ROLE_NAMES[e.role],)

    def m_Accessible_GetLocalizedRoleName(self, e):
        return "s", (self.text_of(ROLE_NAMES[e.role]),)

    def m_Accessible_GetState(self, e):
        words = self.state_words(self.states_of(e))
        if "states" in self.lie_args("huge-arrays"):
            tail = self.huge_cache.get("states-tail")
            if tail is None:
                tail = self.huge_cache["states-tail"] = b"\xff" * (4 * (HUGE_STATES - 2))
            return "au", variant_from_data("(au)", struct.pack("<II", *words) + tail)
        return "au", (words,)

    def m_Accessible_GetAttributes(self, e):
        return "a{ss}", ({"toolkit": self.text_of("liar"), "liar-key": self.text_of(e.key)},)

    def m_Accessible_GetApplication(self, e):
        return "(so)", (self.ref(ROOT_PATH),)

    def m_Accessible_GetInterfaces(self, e):
        return "as", (self.claimed_ifaces(e),)

    # ---- org.a11y.atspi.Application ----------------------------------------------------------

    def m_Application_GetLocale(self, e, lctype):
        return "s", ("en_US.UTF-8",)

    def m_Application_GetApplicationBusAddress(self, e):
        return "s", ("",)  # no peer-to-peer server: clients stay on the bus

    # ---- org.a11y.atspi.Component ------------------------------------------------------------

    def m_Component_Contains(self, e, x, y, coord):
        ex, ey, w, h = self.drawn(e, coord)
        return "b", (ex <= x < ex + w and ey <= y < ey + h,)

    def m_Component_GetAccessibleAtPoint(self, e, x, y, coord):
        for k in self.true_kids(e):
            kx, ky, w, h = self.drawn(k, coord)
            if kx <= x < kx + w and ky <= y < ky + h:
                self.saw(k.path)
                return "(so)", (self.ref(k.path),)
        return "(so)", (self.null_ref(),)

    def m_Component_GetExtents(self, e, coord):
        return "(iiii)", (self.extents(e, coord),)

    def m_Component_GetPosition(self, e, coord):
        return "ii", self.extents(e, coord)[:2]

    def m_Component_GetSize(self, e):
        return "ii", self.extents(e, 0)[2:]

    def m_Component_GetLayer(self, e):
        return "u", (LAYER_WINDOW if e is self.frame else LAYER_WIDGET,)

    def m_Component_GetMDIZOrder(self, e):
        return "n", (0 if e is self.frame else -1,)

    def m_Component_GrabFocus(self, e):
        if S_FOCUSABLE not in e.states:
            return "b", (False,)
        self.focus = e
        return "b", (True,)

    def m_Component_GetAlpha(self, e):
        return "d", (1.0,)

    def m_Component_SetExtents(self, e, *a):
        return "b", (False,)

    m_Component_SetPosition = m_Component_SetSize = m_Component_SetExtents

    def m_Component_ScrollTo(self, e, *a):
        return "b", (True,)

    m_Component_ScrollToPoint = m_Component_ScrollTo

    # ---- org.a11y.atspi.Action ---------------------------------------------------------------

    def action_field(self, e, i, field):
        if not 0 <= i < len(e.actions):
            return "s", ("",)
        s = self.text_of(e.actions[i][field])
        if self.utf8_liar(e):
            return "ay", (s.encode("utf-8") + INVALID_UTF8,)
        return "s", (s,)

    def m_Action_GetName(self, e, i):
        return self.action_field(e, i, 0)

    m_Action_GetLocalizedName = m_Action_GetName

    def m_Action_GetDescription(self, e, i):
        return self.action_field(e, i, 1)

    def m_Action_GetKeyBinding(self, e, i):
        return self.action_field(e, i, 2)

    def m_Action_GetActions(self, e):
        return "a(sss)", ([tuple(self.text_of(s) for s in a) for a in e.actions],)

    def m_Action_DoAction(self, e, i):
        if not 0 <= i < len(e.actions):
            return "b", (False,)
        if e is self.check:
            self.checked = not self.checked
        else:
            self.presses["OK" if e is self.ok else "Slow"] += 1
        return "b", (True,)

    # ---- org.a11y.atspi.Text -----------------------------------------------------------------

    def span(self, e, start, end):
        n = len(self.text_value(e))
        if end < 0 or end > n:
            end = n
        start = max(0, min(start, end))
        return start, end

    def m_Text_GetText(self, e, start, end):
        s, t = self.span(e, start, end)
        text = self.text_value(e)[s:t]
        if self.utf8_liar(e):
            return "ay", (text.encode("utf-8") + INVALID_UTF8,)
        return "s", (text,)

    def piece(self, e, offset, unit):
        """(text, start, end) of the character (unit 0) or word (1) at offset, else the line."""
        text = self.text_value(e)
        if not 0 <= offset <= len(text):
            return ("", 0, 0)
        if unit == 0:
            return (text[offset:offset + 1], offset, min(offset + 1, len(text)))
        if unit == 1:
            s = text.rfind(" ", 0, offset) + 1
            t = text.find(" ", offset)
            t = len(text) if t < 0 else t
            return (text[s:t], s, t)
        return (text, 0, len(text))

    def m_Text_GetStringAtOffset(self, e, offset, granularity):
        return "sii", self.piece(e, offset, granularity)

    def m_Text_GetTextAtOffset(self, e, offset, kind):
        return "sii", self.piece(e, offset, kind)

    def m_Text_GetTextBeforeOffset(self, e, offset, kind):
        return "sii", self.piece(e, offset - 1, kind) if offset > 0 else ("", 0, 0)

    def m_Text_GetTextAfterOffset(self, e, offset, kind):
        return "sii", self.piece(e, offset + 1, kind)

    def m_Text_SetCaretOffset(self, e, offset):
        if e is not self.field:
            return "b", (False,)
        self.caret = max(0, min(offset, len(self.field_text)))
        return "b", (True,)

    def m_Text_GetCharacterAtOffset(self, e, offset):
        text = self.text_value(e)
        return "i", (ord(text[offset]) if 0 <= offset < len(text) else 0,)

    def m_Text_GetAttributeValue(self, e, offset, name):
        return "s", ("",)

    def m_Text_GetAttributes(self, e, offset):
        return "a{ss}ii", ({}, 0, len(self.text_value(e)))

    def m_Text_GetAttributeRun(self, e, offset, include_defaults):
        return "a{ss}ii", ({}, 0, len(self.text_value(e)))

    def m_Text_GetDefaultAttributes(self, e):
        return "a{ss}", ({},)

    m_Text_GetDefaultAttributeSet = m_Text_GetDefaultAttributes

    def char_box(self, e, offset, coord):
        x, y, w, h = self.extents(e, coord)
        cw = 8
        return (x + 4 + cw * offset, y + 4, cw, max(1, h - 8))

    def m_Text_GetCharacterExtents(self, e, offset, coord):
        return "iiii", self.char_box(e, offset, coord)

    def m_Text_GetRangeExtents(self, e, start, end, coord):
        s, t = self.span(e, start, end)
        x, y, cw, h = self.char_box(e, s, coord)
        return "iiii", (x, y, cw * (t - s), h)

    def m_Text_GetOffsetAtPoint(self, e, x, y, coord):
        ex, ey, w, h = self.extents(e, coord)
        if not (ex <= x < ex + w and ey <= y < ey + h):
            return "i", (-1,)
        return "i", (max(0, min((x - ex - 4) // 8, len(self.text_value(e)))),)

    def m_Text_GetNSelections(self, e):
        return "i", (1 if e is self.field and self.selection else 0,)

    def m_Text_GetSelection(self, e, n):
        if e is self.field and self.selection and n == 0:
            return "ii", self.selection
        return "ii", (0, 0)

    def m_Text_AddSelection(self, e, start, end):
        if e is not self.field or self.selection:
            return "b", (False,)
        self.selection = self.span(e, start, end)
        return "b", (True,)

    def m_Text_RemoveSelection(self, e, n):
        if e is not self.field or not self.selection or n != 0:
            return "b", (False,)
        self.selection = None
        return "b", (True,)

    def m_Text_SetSelection(self, e, n, start, end):
        if e is not self.field or n != 0:
            return "b", (False,)
        self.selection = self.span(e, start, end)
        return "b", (True,)

    def m_Text_GetBoundedRanges(self, e, *a):
        return "a(iisv)", ([],)

    def m_Text_ScrollSubstringTo(self, e, *a):
        return "b", (True,)

    m_Text_ScrollSubstringToPoint = m_Text_ScrollSubstringTo

    # ---- org.a11y.atspi.EditableText (only "Field" has it) ----------------------------------

    def set_field(self, text):
        self.field_text = text
        self.caret = len(text)
        self.selection = None

    def m_EditableText_SetTextContents(self, e, text):
        self.set_field(text)
        return "b", (True,)

    def m_EditableText_InsertText(self, e, pos, text, length):
        if 0 <= length < len(text):
            text = text[:length]
        pos = max(0, min(pos, len(self.field_text)))
        self.set_field(self.field_text[:pos] + text + self.field_text[pos:])
        self.caret = pos + len(text)
        return "b", (True,)

    def m_EditableText_CopyText(self, e, start, end):
        return "", ()

    def m_EditableText_DeleteText(self, e, start, end):
        s, t = self.span(e, start, end)
        self.set_field(self.field_text[:s] + self.field_text[t:])
        self.caret = s
        return "b", (True,)

    m_EditableText_CutText = m_EditableText_DeleteText

    def m_EditableText_PasteText(self, e, pos):
        return "b", (False,)

    # ---- stdin -------------------------------------------------------------------------------

    def reply_line(self, obj):
        try:
            sys.stdout.write(json.dumps(obj) + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            pass

    def on_stdin(self, fd, cond):
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            if not self.keep_open:
                self.quit()
            return False
        self.stdin_buf += data
        while b"\n" in self.stdin_buf:
            line, self.stdin_buf = self.stdin_buf.split(b"\n", 1)
            line = line.decode("utf-8", "replace").strip()
            if line:
                try:
                    out = self.handle(line)
                    if out is not None:
                        self.reply_line(out)
                except Exception as e:  # a bad command must not kill the app
                    self.reply_line({"ok": False, "error": repr(e)})
        return True

    def handle(self, line):
        cmd, _, rest = line.partition(" ")
        rest = rest.strip()
        if cmd == "lie":
            if rest == "none":
                self.remove_lie("none")
                return {"ok": True}
            try:
                self.add_lie(parse_lie(rest))
            except ValueError as e:
                return {"ok": False, "error": str(e)}
            return {"ok": True}
        if cmd == "unlie":
            if rest not in LIES:
                return {"ok": False, "error": "unknown lie %r" % rest}
            self.remove_lie(rest)
            return {"ok": True}
        if cmd == "wake":
            self.remove_lie("silent-after")
            return {"ok": True}
        if cmd == "state":
            return {
                "presses": dict(self.presses), "checked": self.checked,
                "field": self.field_text, "caret": self.caret,
                "selection": list(self.selection) if self.selection else None,
                "focused": self.focus.name if self.focus else None,
                "calls": self.answered, "received": self.received,
                "pending": len(self.hung_queue) + len(self.silenced),
                "lies": [lie_text(l) for l in self.lies], "id": self.app_id, "bus": self.unique,
            }
        if cmd == "calls":
            if rest == "reset":
                self.received = self.answered = 0
                self.by_method, self.by_property, self.by_path = {}, {}, {}
                self.exposed, self.exposed_over = {ROOT_PATH}, False
                self.body_said = None
                return {"ok": True}
            return {
                "received": self.received, "answered": self.answered,
                "pending": len(self.hung_queue) + len(self.silenced),
                "by_method": self.by_method, "by_property": self.by_property,
                "by_path": self.by_path,
                "paths": {e.path: e.name for e in self.fixed},
            }
        if cmd == "stall":
            ms, _, suffix = rest.partition(" ")
            if not ms.isdigit():
                return {"ok": False, "error": "usage: stall MS [SUFFIX]"}
            if suffix:
                for e in self.body.kids:
                    self.rename(e, e.name + suffix)
            time.sleep(int(ms) / 1000)
            return {"ok": True}
        if cmd == "exposed":
            # Withdrawn: "Body"'s own children handed out (by the cache or an earlier list)
            # that its last list left out; a reader that follows the list drops them.
            said = self.body_said
            withdrawn = [] if said is None else sorted(
                k.path for k in self.body.kids if k.path in self.exposed and k.path not in said)
            return {"paths": sorted(self.exposed), "over": self.exposed_over,
                    "withdrawn": withdrawn}
        if cmd == "rename":
            what, _, new = rest.partition(" ")
            e = self.find(what)
            if e is None or e.level or not new:
                return {"ok": False, "error": "usage: rename ELEMENT NEW NAME"}
            self.rename(e, new)
            return {"ok": True}
        if cmd == "clicks":
            return {"window": self.window is not None, "clicks": [list(c) for c in self.clicks],
                    "check": list(self.check.box)}
        if cmd == "quit":
            self.reply_line({"ok": True})
            self.quit()
            return None
        return {"ok": False, "error": "unknown command %r" % cmd}

    def open_window(self):
        """The frame as a real X11 window (see --window); None without a display."""
        if not os.environ.get("DISPLAY"):
            return None
        os.environ["NO_AT_BRIDGE"] = "1"
        os.environ["GDK_BACKEND"] = "x11"
        import gi
        gi.require_version("Gtk", "3.0")
        from gi.repository import Gtk
        Gtk.init([])
        x, y, w, h = self.frame.box
        win = Gtk.Window(title="Liar")
        win.set_decorated(False)
        win.set_default_size(w, h)
        win.add_events(1 << 8)  # GDK_BUTTON_PRESS_MASK
        win.connect("button-press-event", self.on_press)
        win.move(x, y)
        win.show_all()
        win.move(x, y)
        return win

    def on_press(self, _win, ev):
        px, py = int(ev.x_root), int(ev.y_root)
        self.clicks.append((px, py))
        cx, cy, cw, ch = self.check.box
        if cx <= px < cx + cw and cy <= py < cy + ch:
            self.checked = not self.checked
        return True

    def rename(self, e, new):
        e.name = new
        self.conn.emit_signal(None, e.path, "org.a11y.atspi.Event.Object", "PropertyChange",
                              body("siiva{sv}", ("accessible-name", 0, 0, ("s", new), {})))

    def quit(self):
        try:
            self.conn.flush_sync(None)
        except (GLib.Error, AttributeError):
            pass
        self.loop.quit()
        return False

    def run(self):
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, self.quit)
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGINT, self.quit)
        GLib.io_add_watch(0, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR,
                          self.on_stdin)
        self.connect()
        self.loop.run()


def main():
    opts = parse_args(sys.argv[1:])
    try:
        Liar(opts).run()
    except GLib.Error as e:
        sys.stderr.write("liar_app: %s\n" % e.message)
        sys.exit(1)
    # Leave without waiting for GDBus's worker thread or for held invocations to be finalised.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
