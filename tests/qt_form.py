#!/usr/bin/python3
"""treeglass Qt fixture form (owned by the tests), for Qt 5 (PyQt5) and Qt 6 (PyQt6).

Usage:
    /usr/bin/python3 tests/qt_form.py --qt 5|6 [--name NAME]

A plain Qt widgets form whose widgets have fixed accessible names, and a control protocol on
stdin that reports the widgets' real state (the oracle that is not the accessibility tree):

    state key    accessible name   widget                                  AT-SPI role
    -----------  ----------------  --------------------------------------  -------------
    full_name    "Full name"       QLineEdit                               text
    password     "Password"        QLineEdit, echo mode Password           password text
    quantity     "Quantity"        QSpinBox 0..100, =5                     spin button
    volume       "Volume"          QSlider 0..100, =20                     slider
    subscribe    "Subscribe"       QCheckBox                               check box
    tristate     "Tri-state"       QCheckBox, tristate, partially checked  check box
    colour       "Colour"          QComboBox Red/Green/Blue/Dark Red =Red  combo box
    presses      (label text)      QLabel "Presses: N"                     label
                 "Press me"        QPushButton: presses += 1               push button

Commands, one per line; every reply is one line of JSON on stdout:
    state   -> {"full_name": ..., "password": ..., "quantity": 5, "volume": 20,
                "subscribe": false, "tristate": "partial"|"on"|"off", "colour": "Red",
                "presses": 0}
    quit    -> {"ok": true}, then exit
At start-up, once the window is shown: {"ready": true, "pid": PID}. The app exits when stdin
reaches EOF.
"""

import json
import os
import sys


def parse(argv):
    qt, name = None, "treeglass-qt-form"
    i = 0
    while i < len(argv):
        if argv[i] == "--qt" and i + 1 < len(argv):
            qt = argv[i + 1]
            i += 1
        elif argv[i] == "--name" and i + 1 < len(argv):
            name = argv[i + 1]
            i += 1
        else:
            sys.exit(__doc__)
        i += 1
    if qt not in ("5", "6"):
        sys.exit(__doc__)
    return qt, name


QT, NAME = parse(sys.argv[1:])
if QT == "5":
    from PyQt5 import QtCore, QtWidgets  # noqa: E402
    CHECKED, PARTIAL, UNCHECKED = QtCore.Qt.Checked, QtCore.Qt.PartiallyChecked, QtCore.Qt.Unchecked
    HORIZONTAL = QtCore.Qt.Horizontal
    PASSWORD = QtWidgets.QLineEdit.Password
    READ = QtCore.QSocketNotifier.Read
else:
    from PyQt6 import QtCore, QtWidgets  # noqa: E402
    CHECKED = QtCore.Qt.CheckState.Checked
    PARTIAL = QtCore.Qt.CheckState.PartiallyChecked
    UNCHECKED = QtCore.Qt.CheckState.Unchecked
    HORIZONTAL = QtCore.Qt.Orientation.Horizontal
    PASSWORD = QtWidgets.QLineEdit.EchoMode.Password
    READ = QtCore.QSocketNotifier.Type.Read

COLOURS = ["Red", "Green", "Blue", "Dark Red"]


class Form(QtWidgets.QWidget):
    def __init__(self):
        super().__init__()
        self.setWindowTitle("treeglass Qt form %s" % NAME)
        self.presses = 0
        lay = QtWidgets.QFormLayout(self)

        def named(widget, name, label=True):
            widget.setAccessibleName(name)
            if label:
                lay.addRow(name + ":", widget)
            else:
                lay.addRow(widget)
            return widget

        self.full_name = named(QtWidgets.QLineEdit(), "Full name")
        self.password = named(QtWidgets.QLineEdit(), "Password")
        self.password.setEchoMode(PASSWORD)
        self.quantity = named(QtWidgets.QSpinBox(), "Quantity")
        self.quantity.setRange(0, 100)
        self.quantity.setValue(5)
        self.volume = named(QtWidgets.QSlider(HORIZONTAL), "Volume")
        self.volume.setRange(0, 100)
        self.volume.setValue(20)
        self.subscribe = named(QtWidgets.QCheckBox("Subscribe"), "Subscribe", False)
        self.tristate = named(QtWidgets.QCheckBox("Tri-state"), "Tri-state", False)
        self.tristate.setTristate(True)
        self.tristate.setCheckState(PARTIAL)
        self.colour = named(QtWidgets.QComboBox(), "Colour")
        self.colour.addItems(COLOURS)
        self.press = named(QtWidgets.QPushButton("Press me"), "Press me", False)
        self.press.clicked.connect(self.on_press)
        self.presses_label = QtWidgets.QLabel("Presses: 0")
        lay.addRow(self.presses_label)
        self.resize(520, 420)

        self.notifier = QtCore.QSocketNotifier(sys.stdin.fileno(), READ)
        self.notifier.activated.connect(self.on_stdin)
        self.buf = b""

    def on_press(self):
        self.presses += 1
        self.presses_label.setText("Presses: %d" % self.presses)

    def state(self):
        tri = self.tristate.checkState()
        return {
            "full_name": self.full_name.text(),
            "password": self.password.text(),
            "quantity": self.quantity.value(),
            "volume": self.volume.value(),
            "subscribe": self.subscribe.isChecked(),
            "tristate": "partial" if tri == PARTIAL else ("on" if tri == CHECKED else "off"),
            "colour": self.colour.currentText(),
            "presses": self.presses,
        }

    def reply(self, obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    def on_stdin(self, *_):
        data = os.read(sys.stdin.fileno(), 65536)
        if not data:
            QtWidgets.QApplication.quit()
            return
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            cmd = line.decode("utf-8", "replace").strip()
            if cmd == "state":
                self.reply(self.state())
            elif cmd == "quit":
                self.reply({"ok": True})
                QtWidgets.QApplication.quit()
            elif cmd:
                self.reply({"ok": False, "error": "unknown command: %r" % cmd})


def main():
    app = QtWidgets.QApplication([sys.argv[0]])
    app.setApplicationName(NAME)
    form = Form()
    form.show()
    QtCore.QTimer.singleShot(0, lambda: form.reply({"ready": True, "pid": os.getpid()}))
    sys.exit(app.exec() if QT == "6" else app.exec_())


if __name__ == "__main__":
    main()
