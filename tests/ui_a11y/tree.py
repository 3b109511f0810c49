# The accessibility tree of the process whose id is argv[1], as a screen reader reads it over
# AT-SPI: one JSON object a line, depth first, each with its depth, role, name and states.
import json
import sys

import pyatspi


def find(pid):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is not None and app.get_process_id() == pid:
            return app
    return None


def walk(node, depth, out):
    state = node.getState()
    out.write(json.dumps({
        "depth": depth,
        "role": node.getRoleName(),
        "name": node.name or "",
        "focusable": state.contains(pyatspi.STATE_FOCUSABLE),
        "visible": state.contains(pyatspi.STATE_VISIBLE),
        "checked": state.contains(pyatspi.STATE_CHECKED),
    }) + "\n")
    for i in range(node.childCount):
        child = node.getChildAtIndex(i)
        if child is not None:
            walk(child, depth + 1, out)


app = find(int(sys.argv[1]))
if app is None:
    sys.exit("no application with process id " + sys.argv[1] + " on the accessibility bus")
walk(app, 0, sys.stdout)
