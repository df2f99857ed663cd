//! `treeglass session --help`: what the session starts, in order, and the environment CMD gets.

/// The text after the options of `treeglass session --help`.
pub const HELP: &str = "\
Started, each a process of its own (own process group, output logged in the session
directory, /tmp/a11y-session.XXXXXXXX), each waited for before the next:
  1. a private session bus (dbus-daemon; no service directory, so nothing is activated),
  2. Xvfb on a free display (1600x1200x24), or with --wayland a headless sway (with
     --wayland=kwin a headless KWin, run from a copy of kwin_wayland without its file
     capability, which a container may not grant; with --wayland=gnome an empty system bus,
     PipeWire, WirePlumber, then a headless GNOME Shell, its overview closed),
  3. at-spi-bus-launcher --launch-immediately (which starts the accessibility bus),
  then org.a11y.Status.IsEnabled=true,
  4. at-spi2-registryd on that bus,
  5. with --wayland=kwin or --wayland=gnome, a keyboard and a pointer held on the
     compositor's seat through its EIS (KWin 6.1 and later, Mutter 45 and later), as a
     machine's own devices would be: a headless compositor has none, and apps take
     synthesized input only from a device they have seen the seat gain,
  6. with --app-cmd, the app (checked on the bus with treeglass's own AT-SPI reader),
then CMD, with this environment:
  DISPLAY (with --wayland instead WAYLAND_DISPLAY, SWAYSOCK, XDG_SESSION_TYPE=wayland,
  XDG_CURRENT_DESKTOP=sway; with --wayland=kwin WAYLAND_DISPLAY, XDG_SESSION_TYPE=wayland,
  XDG_CURRENT_DESKTOP=KDE, KDE_SESSION_VERSION=5 and HOME, XDG_CONFIG_HOME, XDG_DATA_HOME and
  XDG_CACHE_HOME in the session directory; with --wayland=gnome as with kwin, but
  XDG_CURRENT_DESKTOP=GNOME, GSETTINGS_BACKEND=keyfile and DBUS_SYSTEM_BUS_ADDRESS, and
  GNOME Shell runs with --unsafe-mode only when TREEGLASS_GNOME_UNSAFE_MODE=1, for a test's
  own screenshots), DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR,
  GSETTINGS_BACKEND=memory,
  A11Y_BUS_ADDRESS, TREEGLASS_A11Y_SESSION=1 (=wayland with --wayland),
  TREEGLASS_A11Y_SESSION_DIR (the session directory); NO_AT_BRIDGE and AT_SPI_BUS_ADDRESS unset.
CMD runs in treeglass's process group, with its standard input, output and error.

Stopping: when CMD ends, when a step fails, or on SIGINT, SIGTERM or SIGHUP before CMD runs,
the app and the components are stopped in reverse order, each one's own children first
(SIGTERM, SIGKILL after 1-2 s), then anything left running below the session (treeglass is the
subreaper of what it starts: what CMD or a component left behind is stopped too). While CMD
runs, SIGINT, SIGTERM and SIGHUP are passed on to it (the third one as SIGKILL); the session
ends when CMD does. The session directory is removed, unless a step failed.

Environment: A11Y_SESSION_TIMEOUT_MS (how long each step of the stack may take, default
10000), A11Y_SESSION_VERBOSE=1 (as -v), A11Y_SESSION_USER (as --user).

Exit codes:
  CMD's own exit status (128+N when CMD was killed by signal N)
  2    bad arguments
  97   the stack could not be brought up: the failing step, why, and the last lines of its
       log on standard error; the session directory with the logs is kept
  98   --app-cmd: the app could not be started, exited, did not register on the
       accessibility bus, listed no window, or its tree did not settle within
       --app-timeout-ms: which, and the last lines of its output; the session directory is kept
  126  CMD could not be run        127  CMD was not found
  128+N  treeglass was stopped by signal N before CMD started";
