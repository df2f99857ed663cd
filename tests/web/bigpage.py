#!/usr/bin/python3
"""Writes the big form page: N rows (default 2,000), each a label, a text input, a check box and a
<select>, about 13 accessibility nodes a row in Chromium (26,000 for 2,000 rows).

Usage: /usr/bin/python3 tests/web/bigpage.py OUT.html [ROWS]

Row i (1-based) has the text input labelled "Row i name" (value "name i"), the check box
"Row i done" (checked when i is a multiple of 7) and the select "Row i colour" (Red, Green, Blue;
Green selected when i is even). Every row's names are unique, so a target for any one of them is
unique.

After the rows, a few check boxes that make resolving by name alone wrong: two named "Twin"; one
named "Echo" and one whose description is "Echo"; "Shade" unchecked beside "Shade 2" checked.
"""

import sys


def page(rows):
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8"><title>treeglass big page</title>',
        "<style>body{font:13px sans-serif;margin:8px} div.row{margin:2px 0}"
        " label{display:inline-block;min-width:9em}</style></head><body>",
        f"<h1>Big form ({rows} rows)</h1>",
        '<form id="big" onsubmit="return false">',
    ]
    for i in range(1, rows + 1):
        checked = " checked" if i % 7 == 0 else ""
        green = " selected" if i % 2 == 0 else ""
        out.append(
            f'<div class="row"><label for="n{i}">Row {i} name</label>'
            f'<input id="n{i}" type="text" value="name {i}">'
            f'<input id="d{i}" type="checkbox"{checked}><label for="d{i}">Row {i} done</label>'
            f'<label for="c{i}">Row {i} colour</label><select id="c{i}">'
            f"<option>Red</option><option{green}>Green</option><option>Blue</option>"
            "</select></div>"
        )
    out.append(
        '<div id="decoys">'
        '<input id="t1" type="checkbox"><label for="t1">Twin</label>'
        '<input id="t2" type="checkbox"><label for="t2">Twin</label>'
        '<input id="e1" type="checkbox"><label for="e1">Echo</label>'
        '<input id="e2" type="checkbox" aria-description="Echo"><label for="e2">Other</label>'
        '<input id="s1" type="checkbox"><label for="s1">Shade</label>'
        '<input id="s2" type="checkbox" checked><label for="s2">Shade 2</label>'
        "</div>"
    )
    out.append("</form></body></html>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    rows = int(argv[2]) if len(argv) == 3 else 2000
    if rows < 1:
        sys.stderr.write("bigpage.py: ROWS must be at least 1\n")
        return 2
    with open(argv[1], "w", encoding="utf-8") as f:
        f.write(page(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
