#!/usr/bin/python3
"""Read elements of one application with pyatspi: an independent check of what treeglass wrote.

Usage:
    /usr/bin/python3 scripts/pyatspi-read.py --pid PID OBJECT_PATH...

OBJECT_PATH is an element's AT-SPI object path (a treeglass node id is the bus name followed by
it). The application's tree is walked with pyatspi (libatspi, as Orca and Accerciser do) and
each element found by its path is printed as one JSON object keyed by path:

    {"/org/a11y/atspi/accessible/12": {"role": "check box", "name": "Subscribe",
        "states": ["checked", "enabled", ...], "text": "...", "value": 5.0,
        "selected": ["Medium"]}}

`text` is present for elements with the Text interface, `value` for those with Value,
`selected` (the names of selected or checked children, searched two levels deep) for combo
boxes. A path not found maps to null. Exit status: 0, 1 if the application is not found.
"""

import json
import sys

import pyatspi


def app_of(pid):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        try:
            a = desktop.getChildAtIndex(i)
            if a is not None and a.get_process_id() == pid:
                return a
        except Exception:
            continue
    return None


def walk(root):
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        try:
            count = n.childCount
            # Never enumerate what an element manages (a spreadsheet's cells), nor more than
            # 10,000 children: that can hang the app.
            if count > 10000 or count > 0 and n.getState().contains(
                    pyatspi.STATE_MANAGES_DESCENDANTS):
                count = 0
        except Exception:
            count = 0
        for i in range(count - 1, -1, -1):
            try:
                c = n.getChildAtIndex(i)
            except Exception:
                c = None
            if c is not None:
                stack.append(c)


def describe(n):
    out = {"role": n.getRoleName(), "name": n.name or ""}
    out["states"] = sorted(pyatspi.stateToString(s) for s in n.getState().getStates())
    try:
        t = n.queryText()
        out["text"] = t.getText(0, t.characterCount)
    except NotImplementedError:
        pass
    except Exception:
        pass
    try:
        out["value"] = n.queryValue().currentValue
    except NotImplementedError:
        pass
    except Exception:
        pass
    if out["role"] == "combo box":
        selected = []
        for c in list(walk(n))[1:]:
            st = c.getState()
            if st.contains(pyatspi.STATE_SELECTED) or st.contains(pyatspi.STATE_CHECKED):
                selected.append(c.name or "")
        out["selected"] = selected
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] != "--pid":
        sys.exit(__doc__)
    app = app_of(int(args[1]))
    if app is None:
        sys.stderr.write("pyatspi-read: no application with pid %s\n" % args[1])
        sys.exit(1)
    wanted = set(args[2:])
    found = {p: None for p in wanted}
    for n in walk(app):
        try:
            p = n.path
        except Exception:
            continue
        if p in wanted and found[p] is None:
            found[p] = describe(n)
            if all(v is not None for v in found.values()):
                break
    print(json.dumps(found))


if __name__ == "__main__":
    main()
