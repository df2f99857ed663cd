// treeglass's GNOME Shell extension, the part both builds share (the build's header above
// gives it Clutter, Gio, GLib, St, Main and Config). It exports one object on the shell's own session
// bus connection, so that whoever calls it can check it is org.gnome.Shell's owner:
// /org/treeglass/Shell, interface org.treeglass.Shell1. It never types, clicks or reads an app.

const TG_PATH = '/org/treeglass/Shell';
const TG_XML = `<node>
  <interface name="org.treeglass.Shell1">
    <method name="Version"><arg type="s" direction="out"/></method>
    <method name="Windows"><arg type="s" direction="out"/></method>
    <method name="Activate"><arg type="t" direction="in"/><arg type="b" direction="out"/></method>
    <method name="Highlight">
      <arg type="i" direction="in"/><arg type="i" direction="in"/>
      <arg type="i" direction="in"/><arg type="i" direction="in"/>
      <arg type="i" direction="in"/>
    </method>
    <method name="Clear"/>
  </interface>
</node>`;
const TG_VERSION = 2;

function tgRect(r) {
    return {x: r.x, y: r.y, width: r.width, height: r.height};
}

class TreeglassShell {
    constructor() {
        this._frame = null;
        this._watch = 0;
    }

    Version() {
        return JSON.stringify({extension: TG_VERSION, shell: Config.PACKAGE_VERSION});
    }

    Windows() {
        const focus = global.display.get_focus_window();
        const active = global.workspace_manager.get_active_workspace();
        const out = [];
        for (const actor of global.get_window_actors()) {
            const w = actor.get_meta_window();
            if (!w || w.is_override_redirect() || w.skip_taskbar)
                continue;
            out.push({
                id: w.get_id(), pid: w.get_pid(), title: w.get_title() || '',
                frame: tgRect(w.get_frame_rect()), buffer: tgRect(w.get_buffer_rect()),
                shown: !w.minimized && (w.is_on_all_workspaces() || w.get_workspace() === active),
                active: w === focus,
                wayland: w.get_client_type() === Meta.WindowClientType.WAYLAND,
            });
        }
        const [px, py, mods] = global.get_pointer();
        return JSON.stringify({
            windows: out, overview: Main.overview.visible,
            pointer: {x: px, y: py, pressed: (mods & Clutter.ModifierType.BUTTON1_MASK) !== 0},
            screen: {width: global.screen_width, height: global.screen_height},
        });
    }

    Activate(id) {
        for (const actor of global.get_window_actors()) {
            const w = actor.get_meta_window();
            if (!w || w.get_id() !== id)
                continue;
            if (Main.overview.visible)
                Main.overview.hide();
            const ws = w.get_workspace();
            const t = global.get_current_time();
            if (ws && ws !== global.workspace_manager.get_active_workspace())
                ws.activate_with_focus(w, t);
            else
                w.activate(t);
            return true;
        }
        return false;
    }

    // A frame of `thickness` pixels around the rectangle, over every window; clicks go through.
    // It goes when its caller leaves the bus, so it never outlives the treeglass that drew it.
    HighlightAsync([x, y, width, height, thickness], invocation) {
        this.Clear();
        this._watch = Gio.bus_watch_name_on_connection(Gio.DBus.session,
            invocation.get_sender(), Gio.BusNameWatcherFlags.NONE, null, () => this.Clear());
        const t = Math.max(1, Math.min(thickness, 20));
        const frame = new St.Widget({
            name: 'treeglass-highlight',
            style: `border: ${t}px solid #ff00ff;`,
            reactive: false, can_focus: false, track_hover: false,
            x: x - t, y: y - t, width: width + 2 * t, height: height + 2 * t,
        });
        Main.layoutManager.addChrome(frame, {affectsInputRegion: false});
        this._frame = frame;
        invocation.return_value(null);
    }

    Clear() {
        if (this._watch) {
            Gio.bus_unwatch_name(this._watch);
            this._watch = 0;
        }
        if (this._frame) {
            Main.layoutManager.removeChrome(this._frame);
            this._frame.destroy();
            this._frame = null;
        }
    }
}

class TreeglassService {
    enable() {
        this._impl = new TreeglassShell();
        this._dbus = Gio.DBusExportedObject.wrapJSObject(TG_XML, this._impl);
        this._dbus.export(Gio.DBus.session, TG_PATH);
    }

    disable() {
        if (this._dbus) {
            this._dbus.unexport();
            this._dbus = null;
        }
        if (this._impl) {
            this._impl.Clear();
            this._impl = null;
        }
    }
}
