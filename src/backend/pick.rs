//! Where a concrete backend is chosen: the names `--backend` takes, the platform's own, and
//! the diagnosis of each. A new platform is a folder under `backend/` and its lines here.
//!
//! The platform's own backend is AT-SPI on Linux, UI Automation on Windows, the Accessibility
//! API on macOS: the default of every command, `doctor` and `mcp` alike. The demo app stands in
//! only where the platform has no accessibility at all ([`Platform::None`]), which each platform
//! decides for itself:
//! - Linux: no accessibility bus could be reached (no session bus, no AT-SPI bus, or it did not
//!   answer);
//! - Windows: no UI Automation client can be created (`CoCreateInstance(CUIAutomation)` answers
//!   `REGDB_E_CLASSNOTREG`, as under Wine 8). A client that is there and refuses something is
//!   the backend, with what it refused said; one that fails to start is an error;
//! - macOS: never. The Accessibility API is always there; a process not allowed to use it is
//!   told which switch to turn on (an error), not shown a demo.

use std::sync::Arc;
use std::time::Duration;

use super::fixture::FixtureBackend;
use super::{Backend, BackendError};

/// How long to wait for the accessibility bus before giving up on it.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// Why no backend was had.
#[derive(Debug)]
pub enum PickError {
    /// The backend is not on this system (or this build); the message says which.
    Absent(&'static str),
    /// `--backend` names no backend, or its fixture file is bad.
    Usage(String),
    /// The backend is there and did not connect.
    Backend(BackendError),
}

/// The backend `spec` (`--backend`) names: `atspi`, `uia`, `ax`, `fixture` (or `demo`) or
/// `fixture:PATH`.
pub async fn named(spec: &str) -> Result<Arc<dyn Backend>, PickError> {
    match spec {
        "fixture" | "demo" => Ok(demo()),
        s if let Some(path) = s.strip_prefix("fixture:") => FixtureBackend::from_path(path)
            .map(|b| Arc::new(b) as Arc<dyn Backend>)
            .map_err(|e| PickError::Usage(e.to_string())),
        "atspi" => connect_atspi().await,
        "uia" => connect_uia().await,
        "ax" => connect_ax().await,
        other => Err(PickError::Usage(format!(
            "unknown backend `{other}` (use atspi, uia, ax, fixture or fixture:PATH)"
        ))),
    }
}

/// What the platform's own backend came to.
pub enum Platform {
    /// It connected.
    Backend(Arc<dyn Backend>),
    /// The platform has no accessibility at all: `what` is missing (`no accessibility bus`),
    /// `why` says how it failed.
    None { what: &'static str, why: String },
}

/// How "no accessibility" is said on this platform, in errors of its backend
/// ([`BackendError::Unavailable`]).
pub const UNAVAILABLE: &str = if cfg!(windows) {
    "UI Automation unavailable"
} else if cfg!(target_os = "macos") {
    "the macOS Accessibility API unavailable"
} else {
    "accessibility bus unavailable"
};

/// Where the platform's applications are, in messages that list them (`no applications on the
/// accessibility bus`).
pub const APPS_ARE: &str = if cfg!(windows) {
    "with a top-level window"
} else if cfg!(target_os = "macos") {
    "with a window"
} else {
    "on the accessibility bus"
};

/// What the inspector says when no application has a window to open.
pub const NO_WINDOW: &str = if cfg!(windows) {
    "no application with a top-level window"
} else if cfg!(target_os = "macos") {
    "no application with a window"
} else {
    "no application with a window on the bus"
};

/// What `doctor` checks on this platform, for the MCP tool's description.
pub const DOCTOR_CHECKS: &str = if cfg!(windows) {
    "the UI Automation client, the desktop, one window and one pattern, each failure with its \
     call, HRESULT and who refused it"
} else if cfg!(target_os = "macos") {
    "whether this process may use the macOS Accessibility API, and the apps with a window"
} else {
    "session bus, accessibility bus, IsEnabled, the registry, every registered app's tree \
     size, running apps that are not registered, with fixes per toolkit"
};

/// [`APPS_ARE`] for `backend`: a backend that simulates its apps says so instead.
pub fn where_apps_are(backend: &dyn Backend) -> &'static str {
    if backend.is_demo() {
        "in the fixture"
    } else {
        APPS_ARE
    }
}

/// The platform's own accessibility backend; [`Platform::None`] where the platform has none at
/// all (see the module's list), an error where it has one that failed.
pub async fn platform() -> Result<Platform, PickError> {
    platform_backend().await
}

#[cfg(target_os = "linux")]
async fn platform_backend() -> Result<Platform, PickError> {
    // Every failure to reach the bus means no accessibility here: the demo, with why.
    Ok(
        match super::atspi::AtspiBackend::connect(CONNECT_TIMEOUT).await {
            Ok(b) => Platform::Backend(Arc::new(b)),
            Err(e) => Platform::None {
                what: "no accessibility bus",
                why: e.to_string(),
            },
        },
    )
}

#[cfg(windows)]
async fn platform_backend() -> Result<Platform, PickError> {
    use super::uia::StartError;
    match super::uia::UiaBackend::connect(CONNECT_TIMEOUT).await {
        Ok(b) => Ok(Platform::Backend(Arc::new(b))),
        Err(StartError::NoClient(refused)) => Ok(Platform::None {
            what: "no UI Automation client",
            why: refused.describe(),
        }),
        Err(StartError::Failed(e)) => Err(PickError::Backend(e)),
    }
}

#[cfg(target_os = "macos")]
async fn platform_backend() -> Result<Platform, PickError> {
    connect_ax().await.map(Platform::Backend)
}

#[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
async fn platform_backend() -> Result<Platform, PickError> {
    Ok(Platform::None {
        what: "no accessibility backend for this system",
        why: "treeglass reads AT-SPI on Linux, UI Automation on Windows and the Accessibility \
              API on macOS"
            .into(),
    })
}

/// The demo app, for when the platform has no accessibility at all.
pub fn demo() -> Arc<dyn Backend> {
    Arc::new(FixtureBackend::demo())
}

/// Whether `spec` names the demo app or a fixture file.
fn is_fixture(spec: &str) -> bool {
    spec == "fixture" || spec == "demo" || spec.starts_with("fixture:")
}

/// A platform backend's connection, shared.
#[cfg(any(target_os = "linux", windows, target_os = "macos"))]
fn connected<B: Backend + 'static>(
    r: Result<B, BackendError>,
) -> Result<Arc<dyn Backend>, PickError> {
    r.map(|b| Arc::new(b) as Arc<dyn Backend>)
        .map_err(PickError::Backend)
}

#[cfg(target_os = "linux")]
async fn connect_atspi() -> Result<Arc<dyn Backend>, PickError> {
    connected(super::atspi::AtspiBackend::connect(CONNECT_TIMEOUT).await)
}

#[cfg(not(target_os = "linux"))]
async fn connect_atspi() -> Result<Arc<dyn Backend>, PickError> {
    Err(PickError::Absent("AT-SPI is only available on Linux"))
}

/// Windows UI Automation (implemented, not yet verified on Windows).
#[cfg(windows)]
async fn connect_uia() -> Result<Arc<dyn Backend>, PickError> {
    connected(
        super::uia::UiaBackend::connect(CONNECT_TIMEOUT)
            .await
            .map_err(BackendError::from),
    )
}

#[cfg(not(windows))]
async fn connect_uia() -> Result<Arc<dyn Backend>, PickError> {
    Err(PickError::Absent(
        "UI Automation is only available on Windows",
    ))
}

/// macOS Accessibility (implemented, not yet verified on macOS).
#[cfg(target_os = "macos")]
async fn connect_ax() -> Result<Arc<dyn Backend>, PickError> {
    connected(super::ax::AxBackend::connect(CONNECT_TIMEOUT).await)
}

#[cfg(not(target_os = "macos"))]
async fn connect_ax() -> Result<Arc<dyn Backend>, PickError> {
    Err(PickError::Absent(
        "the macOS Accessibility API is only available on macOS",
    ))
}

/// The diagnosis for `--backend` (by default the platform's own backend).
pub async fn doctor(spec: Option<&str>) -> crate::doctor::Report {
    use crate::doctor::{Check, Report, Status};
    match spec {
        Some(s) if is_fixture(s) => Report {
            backend: "fixture".into(),
            checks: vec![Check::new(
                "backend",
                Status::Ok,
                "the fixture backend needs no platform accessibility (no bus, no client)",
            )],
            apps: vec![],
        },
        #[cfg(target_os = "linux")]
        None | Some("atspi") => super::atspi::doctor::diagnose().await,
        // COM is started on a thread of its own, as the backend does.
        #[cfg(windows)]
        None | Some("uia") => tokio::task::spawn_blocking(super::uia::diagnose)
            .await
            .unwrap_or_else(|e| Report {
                backend: "uia".into(),
                checks: vec![Check::new(
                    "backend",
                    Status::Fail,
                    format!("the diagnosis stopped: {e}"),
                )],
                apps: vec![],
            }),
        #[cfg(target_os = "macos")]
        None | Some("ax") => {
            let started = super::ax::AxBackend::connect(CONNECT_TIMEOUT).await;
            let apps = match &started {
                Ok(b) => Some(
                    b.apps()
                        .await
                        .map(|apps| apps.iter().filter(|a| !a.windows.is_empty()).count()),
                ),
                Err(_) => None,
            };
            super::ax::doctor::report(started.map(drop), apps)
        }
        Some(other) => Report {
            backend: other.to_string(),
            checks: vec![Check::new(
                "backend",
                Status::Fail,
                format!("no diagnosis for the `{other}` backend on this system"),
            )],
            apps: vec![],
        },
        #[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
        None => Report {
            backend: "none".into(),
            checks: vec![Check::new(
                "backend",
                Status::Fail,
                "no diagnosis on this system yet",
            )],
            apps: vec![],
        },
    }
}
