//! The buses a session starts and asks: its session bus (and GNOME's empty system bus), the
//! accessibility bus and its registry, and the few D-Bus calls made on them.

use super::*;

impl Stack {
    pub(super) async fn session_bus(
        &mut self,
        signals: &mut Signals,
    ) -> Result<zbus::Connection, Stop> {
        // KWin's session (its own user, when started by root) is asked by this process.
        let any_user = self.run_as.is_some();
        let (address, bus) = self
            .dbus_daemon("session bus", "bus", "session-bus.log", any_user, signals)
            .await?;
        self.env.set("DBUS_SESSION_BUS_ADDRESS", address);
        Ok(bus)
    }

    /// A private bus daemon (`what`: `session bus`, `system bus`) listening on `socket` in the
    /// session's directory, logging to `log`; `any_user`: other users may connect too. Its
    /// address and a connection to it, once it accepts one.
    pub(super) async fn dbus_daemon(
        &mut self,
        what: &'static str,
        socket: &str,
        log: &str,
        any_user: bool,
        signals: &mut Signals,
    ) -> Result<(String, zbus::Connection), Stop> {
        let socket = self.dir.join(socket);
        let conf = socket.with_extension("conf");
        let text = format!(
            r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">{}
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
            socket.display(),
            if any_user {
                "\n    <allow user=\"*\"/>"
            } else {
                ""
            }
        );
        std::fs::write(&conf, text).map_err(|e| {
            Stop::stack(what, format!("cannot write {}: {e}", conf.display()), None)
        })?;
        let address = format!("unix:path={}", socket.display());
        let config = OsString::from(format!("--config-file={}", conf.display()));
        let i = self.spawn(
            what,
            log,
            &[
                OsStr::new("dbus-daemon"),
                &config,
                OsStr::new("--nofork"),
                OsStr::new("--nopidfile"),
            ],
            &[],
            None,
        )?;
        let timeout = self.opts.step_timeout;
        let bus = poll(
            what,
            &mut self.components[i],
            timeout,
            signals,
            async || {
                if !socket.exists() {
                    return None;
                }
                connect(&address).await
            },
        )
        .await?;
        Ok((address, bus))
    }

    /// The launcher, the address of the bus it started, and a connection to that bus.
    pub(super) async fn a11y_bus(
        &mut self,
        session: &zbus::Connection,
        signals: &mut Signals,
    ) -> Result<zbus::Connection, Stop> {
        let i = self.spawn(
            "at-spi-bus-launcher",
            "bus-launcher.log",
            &[OsStr::new(LAUNCHER), OsStr::new("--launch-immediately")],
            &[],
            None,
        )?;
        let timeout = self.opts.step_timeout;
        let address = poll(
            "at-spi-bus-launcher (org.a11y.Bus.GetAddress)",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                let reply = call(
                    session,
                    "org.a11y.Bus",
                    "/org/a11y/bus",
                    "org.a11y.Bus",
                    "GetAddress",
                    &(),
                )
                .await
                .ok()?;
                let address: String = reply.body().deserialize().ok()?;
                let address = address.trim();
                (!address.is_empty()).then(|| address.to_string())
            },
        )
        .await?;
        self.env.set("A11Y_BUS_ADDRESS", address.clone());
        self.a11y_address = address.clone();
        poll(
            &format!("accessibility bus ({address})"),
            &mut self.components[i],
            timeout,
            signals,
            async || connect(&address).await,
        )
        .await
    }

    pub(super) async fn registryd(
        &mut self,
        a11y: &zbus::Connection,
        signals: &mut Signals,
    ) -> Result<(), Stop> {
        // AT_SPI_BUS_ADDRESS in its environment only.
        let address = OsString::from(&self.a11y_address);
        let i = self.spawn(
            "at-spi2-registryd",
            "registryd.log",
            &[OsStr::new(REGISTRYD)],
            &[("AT_SPI_BUS_ADDRESS", &address)],
            None,
        )?;
        let timeout = self.opts.step_timeout;
        poll(
            "at-spi2-registryd (org.a11y.atspi.Registry)",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                let reply = call(
                    a11y,
                    "org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus",
                    "NameHasOwner",
                    &("org.a11y.atspi.Registry",),
                )
                .await
                .ok()?;
                reply.body().deserialize::<bool>().ok()?.then_some(())
            },
        )
        .await
    }
}

/// One method call, answered within a second.
pub(super) async fn call<B>(
    conn: &zbus::Connection,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<zbus::Message, String>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    crate::desktop::call_within(
        Duration::from_secs(1),
        conn,
        dest,
        path,
        iface,
        method,
        body,
    )
    .await
}

/// A connection to the bus at `address`, when it answers within a second.
pub(super) async fn connect(address: &str) -> Option<zbus::Connection> {
    let addr: zbus::Address = address.parse().ok()?;
    let open = async {
        zbus::connection::Builder::address(addr)
            .ok()?
            .build()
            .await
            .ok()
    };
    tokio::time::timeout(Duration::from_secs(1), open)
        .await
        .ok()
        .flatten()
}

/// `org.a11y.Status.IsEnabled = true` on the session bus's `org.a11y.Bus`.
pub(super) async fn set_enabled(session: &zbus::Connection) -> Result<(), String> {
    let value = zbus::zvariant::Value::from(true);
    tokio::time::timeout(
        Duration::from_secs(3),
        session.call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.freedesktop.DBus.Properties"),
            "Set",
            &("org.a11y.Status", "IsEnabled", value),
        ),
    )
    .await
    .map_err(|_| "no answer within 3 s".to_string())?
    .map(|_| ())
    .map_err(|e| e.to_string())
}
